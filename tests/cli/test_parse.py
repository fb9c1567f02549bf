"""`seqspectral parse`, `rerank` and `evaluate parse` on the bundled EWT sample, in-process."""

import json
import warnings

import numpy as np
import pytest

from seqspectral.cli.main import main
from seqspectral.corpus import read_conllu, read_conllx, read_nbest, write_conllu


@pytest.fixture(scope="module")
def trained(tmp_path_factory, corpora_dir):
    out = tmp_path_factory.mktemp("parse")
    train, dev = corpora_dir / "ewt-sample.conllu", corpora_dir / "ewt-sample-dev.conllu"
    parser = out / "parser.npz"
    assert main(["parse", "train", str(train), "-o", str(parser), "--epochs", "3", "--dev", str(dev),
                 "--hash-bits", "18"]) == 0
    return out, train, dev, parser


def test_train_reports_dev_uas_per_epoch(trained, capsys, tmp_path):
    _, train, dev, _ = trained
    assert main(["parse", "train", str(train), "-o", str(tmp_path / "p.npz"), "--epochs", "2", "--dev", str(dev),
                 "--hash-bits", "16", "--several-roots"]) == 0
    err = capsys.readouterr().err
    assert "epoch 1/2" in err and "epoch 2/2" in err and "dev UAS" in err


def test_tags_other_than_all_read_no_lemma(trained, tmp_path):
    """Nothing predicts LEMMA for new text: a --tags upos parser parses the same with or without it,
    while the default (all) reads it."""
    from dataclasses import replace

    from seqspectral import serialize

    out, train, dev, parser = trained
    assert serialize.load(parser).use_lemma
    upos = tmp_path / "upos.npz"
    assert main(["parse", "train", str(train), "-o", str(upos), "--epochs", "1", "--hash-bits", "14", "--tags", "upos",
                 "--quiet"]) == 0
    assert not serialize.load(upos).use_lemma
    write_conllu(tmp_path / "nolemma.conllu", [replace(s, lemmas=["_"] * len(s)) for s in read_conllu(dev)])
    for name, source in (("a", dev), ("b", tmp_path / "nolemma.conllu")):
        assert main(["parse", "run", str(upos), str(source), "-o", str(tmp_path / f"{name}.conllu"), "--quiet"]) == 0
    with_lemma, without = read_conllu(tmp_path / "a.conllu"), read_conllu(tmp_path / "b.conllu")
    assert [(list(s.heads), s.deprels) for s in with_lemma] == [(list(s.heads), s.deprels) for s in without]


def test_a_parser_reading_lemma_refuses_input_that_lacks_it(trained, tmp_path, capsys):
    """--tags all reads LEMMA: input without it is refused as an untagged column is (a --tags
    upos parser, which reads none, takes it)."""
    from dataclasses import replace

    out, train, dev, parser = trained
    write_conllu(tmp_path / "nolemma.conllu", [replace(s, lemmas=["_"] * len(s)) for s in read_conllu(dev)])
    capsys.readouterr()
    assert main(["parse", "run", str(parser), str(dev), "-o", str(tmp_path / "a.conllu")]) == 0
    assert "LEMMA" not in capsys.readouterr().err
    assert main(["parse", "run", str(parser), str(tmp_path / "nolemma.conllu"), "-o", str(tmp_path / "b.conllu")]) == 2
    assert "nolemma.conllu: no LEMMA values, which the parser reads" in capsys.readouterr().err
    upos = tmp_path / "upos.npz"
    assert main(["parse", "train", str(train), "-o", str(upos), "--epochs", "1", "--hash-bits", "14", "--tags", "upos",
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["parse", "run", str(upos), str(tmp_path / "nolemma.conllu"), "-o", str(tmp_path / "c.conllu")]) == 0
    assert "LEMMA" not in capsys.readouterr().err


def test_parse_then_evaluate_agrees_with_the_library(trained, capsys):
    out, _, dev, parser = trained
    pred = out / "pred.conllu"
    assert main(["parse", "run", str(parser), str(dev), "-o", str(pred), "--quiet"]) == 0
    gold, parsed = read_conllu(dev), read_conllu(pred)
    assert [s.forms for s in parsed] == [s.forms for s in gold]
    assert all(d != "_" for s in parsed for d in s.deprels)
    capsys.readouterr()
    assert main(["evaluate", "parse", str(dev), str(pred), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    heads_right = sum(int(np.sum(g.heads == p.heads)) for g, p in zip(gold, parsed))
    words = sum(len(g) for g in gold)
    assert scores["uas"] == pytest.approx(100 * heads_right / words)
    assert scores["n_sentences"] == len(gold)
    assert 50 < scores["uas"] < 100 and scores["las"] <= scores["uas"]
    assert main(["evaluate", "parse", str(dev), str(pred), "--json", "--no-punct"]) == 0
    assert json.loads(capsys.readouterr().out)["n_words"] < words


def test_nbest_output_then_rerank(trained, capsys):
    out, _, dev, parser = trained
    nbest = out / "nbest.conllu"
    assert main(["parse", "run", str(parser), str(dev), "-k", "5", "-o", str(nbest), "--quiet"]) == 0
    lists = read_nbest(nbest)
    gold = read_conllu(dev)
    assert len(lists) == len(gold) and all(1 <= len(x) <= 5 for x in lists)
    reranker, best = out / "reranker.npz", out / "best.conllu"
    assert main(["rerank", "train", str(nbest), "--gold", str(dev), "-o", str(reranker), "--epochs", "3",
                 "--dev", str(nbest), "--dev-gold", str(dev), "--quiet"]) == 0
    assert main(["rerank", "train", str(nbest), "--gold", str(dev), "-o", str(reranker), "--dev", str(nbest)]) == 2
    assert main(["rerank", "apply", str(reranker), str(nbest), "-o", str(best), "--quiet"]) == 0
    chosen = read_conllu(best)
    assert [s.metadata["sent_id"] for s in chosen] == [x.sent_id for x in lists]
    for s, x in zip(chosen, lists):
        assert any(np.array_equal(s.heads, c.heads) for c in x.candidates)


@pytest.fixture(scope="module")
def parse_lists(trained):
    """5-best lists of the sample's dev sentences, and two different tree models."""
    out, train, dev, parser = trained
    nbest = out / "dev.5best.conllu"
    assert main(["parse", "run", str(parser), str(dev), "-k", "5", "-o", str(nbest), "--quiet"]) == 0
    for name, field in (("tree.npz", "upos"), ("tree-xpos.npz", "xpos")):
        assert main(["tree", "train", str(train), "--field", field, "--dim", "4", "--floor", "0.01", "--ridge", "0",
                     "--shrinkage", "0", "-o", str(out / name), "--quiet"]) == 0
    return out, dev, nbest


def test_rerank_train_reports_the_held_out_1best_and_reranked_uas(parse_lists, capsys):
    from seqspectral.selection import held_out_split

    out, dev, nbest = parse_lists
    reranker = out / "r.npz"
    capsys.readouterr()
    assert main(["rerank", "train", str(nbest), "--gold", str(dev), "--tree-model", str(out / "tree.npz"),
                 "--epochs", "3", "-o", str(reranker), "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert "held-out UAS 1-best" in captured.err and "chose anchor" in captured.err
    lists, gold = read_nbest(nbest), read_conllu(dev)
    # the held-out lists are the seeded 20% of the training lists: their rank-1 UAS, counted here
    _, held, _ = held_out_split(np.arange(len(lists)), None, 0)
    right = sum(int(np.sum(lists[i].candidates[0].heads == gold[i].heads)) for i in held)
    words = sum(len(gold[i]) for i in held)
    held_out = report["held_out"]
    assert held_out["lists"] == len(held) and held_out["items"] == words
    assert held_out["base_accuracy"] == pytest.approx(100 * right / words)
    assert held_out["reranked_accuracy"] >= held_out["base_accuracy"]  # the 1-best ranking is a candidate
    assert report["templates"] == "context" and report["passed_through"] == 0 and report["lists"] == len(lists)
    assert set(report["chosen"]) == {"anchor", "epochs", "feature_set"}


def test_rerank_apply_uses_the_recorded_tree_model_and_refuses_another(parse_lists, capsys):
    from seqspectral import serialize

    out, dev, nbest = parse_lists
    reranker = out / "r-tree.npz"
    assert main(["rerank", "train", str(nbest), "--gold", str(dev), "--tree-model", str(out / "tree.npz"),
                 "--epochs", "2", "-o", str(reranker), "--quiet"]) == 0
    assert serialize.load(reranker).sources_["tree:log_prob"]["path"] == str((out / "tree.npz").resolve())
    recorded, given = out / "recorded.conllu", out / "given.conllu"
    assert main(["rerank", "apply", str(reranker), str(nbest), "-o", str(recorded), "--quiet"]) == 0
    assert main(["rerank", "apply", str(reranker), str(nbest), "--tree-model", str(out / "tree.npz"),
                 "-o", str(given), "--quiet"]) == 0
    assert recorded.read_text() == given.read_text()
    capsys.readouterr()
    other = out / "other.conllu"
    assert main(["rerank", "apply", str(reranker), str(nbest), "--tree-model", str(out / "tree-xpos.npz"),
                 "-o", str(other)]) == 2
    err = capsys.readouterr().err
    assert "tree:log_prob" in err and "tree-xpos.npz" in err and not other.exists()
    # a parse-list LM given as --tree-model is refused by kind
    assert main(["rerank", "apply", str(reranker), str(nbest), "--tree-model", str(reranker), "-o", str(other)]) == 2


def test_rerank_refuses_tag_lists_and_non_finite_scores(parse_lists, tmp_path, capsys):
    from dataclasses import replace

    from seqspectral.corpus import NBestList, write_nbest

    out, dev, nbest = parse_lists
    reranker = out / "r-plain.npz"
    assert main(["rerank", "train", str(nbest), "--gold", str(dev), "--epochs", "1", "-o", str(reranker),
                 "--quiet"]) == 0
    gold = read_conllu(dev)[:3]
    tag_lists = [NBestList(str(i), [s, replace(s, upos=["X"] * len(s))], [1.0, 0.5]) for i, s in enumerate(gold)]
    write_nbest(tmp_path / "tags.conllu", tag_lists)
    capsys.readouterr()
    assert main(["rerank", "apply", str(reranker), str(tmp_path / "tags.conllu"), "-o", str(tmp_path / "x")]) == 2
    assert "ranks tag sequences" in capsys.readouterr().err and not (tmp_path / "x").exists()
    for bad in ("nan", "inf", "1e400"):
        text = nbest.read_text().split("\n")
        at = [i for i, line in enumerate(text) if line.startswith("# nbest_score")][7]
        text[at] = f"# nbest_score = {bad}"
        (tmp_path / "bad.conllu").write_text("\n".join(text))
        assert main(["rerank", "apply", str(reranker), str(tmp_path / "bad.conllu"), "-o", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert f"bad.conllu:{at + 1}" in err and "finite" in err and "Warning" not in err


def test_jackknife_parses_every_sentence_once(trained, tmp_path):
    _, _, dev, parser = trained
    out = tmp_path / "jack.conllu"
    assert main(["parse", "run", str(parser), str(dev), "--folds", "2", "-o", str(out), "--quiet"]) == 0
    assert [s.forms for s in read_conllu(out)] == [s.forms for s in read_conllu(dev)]


def test_more_folds_than_sentences_is_a_usage_error(trained, tmp_path, capsys):
    _, _, dev, parser = trained
    few = tmp_path / "few.conllu"
    write_conllu(few, read_conllu(dev)[:3])
    assert main(["parse", "run", str(parser), str(few), "--folds", "4", "-o", str(tmp_path / "x")]) == 2
    assert "--folds must be in 2..3" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # beyond the bounds table's: a usage error before any reading
        main(["parse", "run", str(parser), str(dev), "--folds", "101", "-o", str(tmp_path / "x")])
    assert e.value.code == 2 and "--folds 101: at most 20 jackknifing folds" in capsys.readouterr().err


def test_misaligned_files_are_a_clear_error(trained, tmp_path, capsys):
    _, _, dev, _ = trained
    short = tmp_path / "short.conllu"
    sentences = read_conllu(dev)
    sentences[3].forms[0] = "CHANGED"
    write_conllu(short, sentences)
    assert main(["evaluate", "parse", str(dev), str(short)]) == 2
    err = capsys.readouterr().err
    assert "sentence 4" in err and str(short) in err
    write_conllu(short, sentences[:10])
    assert main(["evaluate", "parse", str(dev), str(short)]) == 2
    assert "10" in capsys.readouterr().err


def test_sentences_without_heads_are_parsed(trained, tmp_path):
    _, _, _, parser = trained
    raw = tmp_path / "raw.conllu"
    raw.write_text("# sent_id = x1\n1\tThe\tthe\tDET\tDT\t_\t_\t_\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t_\t_\t_\t_\n"
                   "3\tbarks\tbark\tVERB\tVBZ\t_\t_\t_\t_\t_\n\n")
    out = tmp_path / "out.conllu"
    assert main(["parse", "run", str(parser), str(raw), "-o", str(out), "--quiet"]) == 0
    (parsed,) = read_conllu(out)
    assert parsed.forms == ["The", "dog", "barks"] and int((parsed.heads == 0).sum()) == 1


def _conllx(sentences, extra_roots: bool, heads: bool = True) -> bytes:
    """``sentences`` as Latin-1 CoNLL-X (no comments); with ``extra_roots`` a final PUNCT word
    goes on the root too (several roots, as CoNLL-X treebanks allow); the first form gets 'ñ'."""
    lines = []
    for s in sentences:
        h = s.heads.copy()
        if extra_roots and s.upos[-1] == "PUNCT" and len(s) > 1:
            h[-1] = 0
        for i in range(len(s)):
            form = s.forms[i] + ("ñ" if i == 0 else "")
            lines.append("\t".join([str(i + 1), form, s.lemmas[i], s.upos[i], s.xpos[i], "_",
                                    str(h[i]) if heads else "_", s.deprels[i] if heads else "_", "_", "_"]))
        lines.append("")
    return ("\n".join(lines) + "\n").encode("latin-1", errors="replace")


def test_latin1_conllx_treebank_with_several_roots(corpora_dir, tmp_path, capsys):
    from seqspectral import serialize

    sentences = read_conllu(corpora_dir / "ewt-sample.conllu")
    train, test = tmp_path / "train.conllx", tmp_path / "test.conllx"
    train.write_bytes(_conllx(sentences[:250], extra_roots=True))
    test.write_bytes(_conllx(sentences[250:], extra_roots=True, heads=False))
    model, out = tmp_path / "p.npz", tmp_path / "out.conllu"
    assert main(["parse", "train", str(train), "-o", str(model), "--epochs", "2", "--hash-bits", "16", "--quiet"]) == 2
    assert "train.conllx" in capsys.readouterr().err  # not UTF-8: the reader names the file
    assert main(["parse", "train", str(train), "-o", str(model), "--epochs", "2", "--hash-bits", "16", "--quiet",
                 "--encoding", "latin-1", "--order", "2"]) == 0
    assert serialize.load(model).single_root_ is False  # the training trees have several roots
    assert main(["parse", "run", str(model), str(test), "-o", str(out), "--encoding", "latin-1", "--quiet",
                 "--format", "conllx"]) == 0
    parsed = read_conllx(out, encoding="latin-1")  # written as it came in: Latin-1 CoNLL-X
    assert [s.forms[0] for s in parsed] == [s.forms[0] + "ñ" for s in sentences[250:]]
    assert any(int((s.heads == 0).sum()) > 1 for s in parsed)
    nbest = tmp_path / "nbest.conllu"
    assert main(["parse", "run", str(model), str(test), "-o", str(nbest), "-k", "4", "--encoding", "latin-1",
                 "--quiet"]) == 0  # second-order k-best
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # several roots in n-best candidates are no news: no warning
        lists = read_nbest(nbest, encoding="latin-1")  # n-best lists are CoNLL-U, in the input's encoding
    assert len(lists) == len(parsed) and all(1 <= len(x) <= 4 for x in lists)
    for x, s in zip(lists, parsed):
        np.testing.assert_array_equal(x.candidates[0].heads, s.heads)
