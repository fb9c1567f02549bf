"""Issue 29 items 1, 2, 4: `parse run`, `tag run` and `rerank apply` write the input back as it
came in (comments, multiword tokens, empty nodes, DEPS, MISC; CoNLL-X PHEAD/PDEPREL; its
encoding) except the columns they predict; raw text in; - for standard input and output."""

from __future__ import annotations

import json

import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.corpus import Reading, read_conllu

#: every CoNLL-U construct: document and paragraph comments, a free comment, a comment without
#: value, multiword tokens, an empty node, enhanced DEPS, MISC, FEATS, a form with a space
CONSTRUCTS = """\
# newdoc id = doc1
# newpar
# sent_id = s1
# a free comment, not metadata
# text = I don't know New York.
1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing|Person=1\t4\tnsubj\t4:nsubj\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\tMood=Ind\t4\taux\t4:aux\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_
4\tknow\tknow\tVERB\tVB\tVerbForm=Inf\t0\troot\t0:root\t_
5\tNew York\tNew York\tPROPN\tNNP\tNumber=Sing\t4\tobj\t4:obj\tSpaceAfter=No
5.1\tknows\tknow\tVERB\tVBZ\t_\t_\t_\t4:conj\tCopyOf=4
6\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_

# sent_id = s2
# text = Go home!
1\tGo\tgo\tVERB\tVB\tMood=Imp\t0\troot\t0:root\t_
2\thome\thome\tADV\tRB\t_\t1\tadvmod\t1:advmod\tSpaceAfter=No
3\t!\t!\tPUNCT\t.\t_\t1\tpunct\t1:punct\t_

"""


@pytest.fixture(scope="module")
def models(tmp_path_factory, corpora_dir):
    out = tmp_path_factory.mktemp("lossless")
    train = str(corpora_dir / "ewt-sample.conllu")
    parser, tagger = out / "parser.npz", out / "tagger.npz"
    assert main(["parse", "train", train, "-o", str(parser), "--epochs", "1", "--hash-bits", "14", "--tags", "upos",
                 "--quiet"]) == 0
    assert main(["tag", "train", train, "-o", str(tagger), "--epochs", "1", "--hash-bits", "12", "--quiet"]) == 0
    return out, parser, tagger


def _same_except(original: str, written: str, predicted: set[int]) -> None:
    """Line for line equal, except word lines' ``predicted`` columns (0-based)."""
    a, b = original.split("\n"), written.split("\n")
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if x.split("\t", 1)[0].isdigit():
            xs, ys = x.split("\t"), y.split("\t")
            assert [c for i, c in enumerate(xs) if i not in predicted] == \
                   [c for i, c in enumerate(ys) if i not in predicted]
        else:
            assert x == y


def test_every_construct_survives_parse_tag_and_rerank(models, tmp_path):
    out, parser, tagger = models
    source = tmp_path / "in.conllu"
    source.write_text(CONSTRUCTS, encoding="utf-8")
    parsed, tagged, nbest, best, reranker = (tmp_path / n for n in ("p.conllu", "t.conllu", "n.conllu", "b.conllu",
                                                                    "r.npz"))
    assert main(["parse", "run", str(parser), str(source), "-o", str(parsed), "--quiet"]) == 0
    _same_except(CONSTRUCTS, parsed.read_text(encoding="utf-8"), {6, 7})
    assert main(["tag", "run", str(tagger), str(source), "-o", str(tagged), "--quiet"]) == 0
    _same_except(CONSTRUCTS, tagged.read_text(encoding="utf-8"), {3})
    assert main(["parse", "run", str(parser), str(source), "-k", "3", "-o", str(nbest), "--quiet"]) == 0
    assert main(["rerank", "train", str(nbest), "--gold", str(source), "-o", str(reranker), "--epochs", "1",
                 "--quiet"]) == 0
    assert main(["rerank", "apply", str(reranker), str(nbest), "-o", str(best), "--quiet"]) == 0
    _same_except(CONSTRUCTS, best.read_text(encoding="utf-8"), {6, 7})


def test_the_predicted_columns_are_the_models(models, tmp_path):
    """The columns that may differ are the model's own output, not something else."""
    out, parser, tagger = models
    source = tmp_path / "in.conllu"
    source.write_text(CONSTRUCTS, encoding="utf-8")
    parsed = tmp_path / "p.conllu"
    assert main(["parse", "run", str(parser), str(source), "-o", str(parsed), "--quiet"]) == 0
    model = serialize.load(parser)
    expected = model.parse(read_conllu(source))
    assert [s.heads.tolist() for s in read_conllu(parsed)] == [s.heads.tolist() for s in expected]
    assert [s.deprels for s in read_conllu(parsed)] == [s.deprels for s in expected]


def test_latin1_conllx_comes_out_as_latin1_conllx(models, tmp_path):
    out, parser, _ = models
    text = ("1\tSeñor\tseñor\tPROPN\tNNP\t_\t2\tnsubj\t2\tnsubj\n"
            "2\tcome\tcomer\tVERB\tVBZ\t_\t0\troot\t0\troot\n"
            "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n")
    source = tmp_path / "in.conll"
    source.write_bytes(text.encode("latin-1"))
    parsed = tmp_path / "out.conll"
    assert main(["parse", "run", str(parser), str(source), "-o", str(parsed), "--encoding", "latin-1",
                 "--quiet"]) == 0
    _same_except(text, parsed.read_bytes().decode("latin-1"), {6, 7})
    utf8 = tmp_path / "out.utf8.conll"
    assert main(["parse", "run", str(parser), str(source), "-o", str(utf8), "--encoding", "latin-1",
                 "--output-encoding", "utf-8", "--quiet"]) == 0
    assert utf8.read_text(encoding="utf-8") == parsed.read_bytes().decode("latin-1")


def test_conllx_through_nbest_and_rerank_comes_out_as_conllx(models, tmp_path):
    out, parser, _ = models
    text = ("# a CoNLL-X comment\n1\tSeñor\tseñor\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
            "2\tcome\tcomer\tVERB\tVBZ\t_\t0\troot\t_\t_\n3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n") * 2
    gold = tmp_path / "gold.conll"
    gold.write_bytes(text.encode("latin-1"))
    nbest, reranker, best = tmp_path / "n.conllu", tmp_path / "r.npz", tmp_path / "b.conll"
    assert main(["parse", "run", str(parser), str(gold), "-k", "3", "-o", str(nbest), "--encoding", "latin-1",
                 "--format", "conllx", "--quiet"]) == 0
    assert "# nbest_format = conllx" in nbest.read_bytes().decode("latin-1")
    assert main(["rerank", "train", str(nbest), "--gold", str(gold), "-o", str(reranker), "--encoding", "latin-1",
                 "--epochs", "1", "--quiet"]) == 0
    assert main(["rerank", "apply", str(reranker), str(nbest), "-o", str(best), "--quiet"]) == 0
    _same_except(text, best.read_bytes().decode("latin-1"), {6, 7})


def test_rerank_remembers_the_encoding_of_its_lists(models, tmp_path):
    out, parser, _ = models
    text = ("1\tSeñor\tseñor\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n"
            "2\tcome\tcomer\tVERB\tVBZ\t_\t0\troot\t_\t_\n"
            "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n") * 3
    gold = tmp_path / "gold.conll"
    gold.write_bytes(text.encode("latin-1"))
    nbest, reranker, best = tmp_path / "n.conllu", tmp_path / "r.npz", tmp_path / "b.conllu"
    assert main(["parse", "run", str(parser), str(gold), "-k", "3", "-o", str(nbest), "--encoding", "latin-1",
                 "--quiet"]) == 0
    assert main(["rerank", "train", str(nbest), "--gold", str(gold), "-o", str(reranker), "--encoding", "latin-1",
                 "--epochs", "1", "--quiet"]) == 0
    assert serialize.load(reranker).reading_.encoding == "iso8859-1"
    assert main(["rerank", "apply", str(reranker), str(nbest), "-o", str(best), "--quiet"]) == 0  # no --encoding
    assert "Señor" in best.read_bytes().decode("latin-1")


def test_a_model_remembers_its_training_encoding(models, tmp_path, corpora_dir):
    out, _, _ = models
    sentences = corpora_dir / "ewt-sample-dev.conllu"
    latin = tmp_path / "dev.conllu"
    latin.write_bytes(sentences.read_text(encoding="utf-8").encode("latin-1", errors="replace"))
    tagger = tmp_path / "t.npz"
    assert main(["tag", "train", str(latin), "-o", str(tagger), "--epochs", "1", "--hash-bits", "10",
                 "--encoding", "latin-1", "--quiet"]) == 0
    assert serialize.load(tagger).reading_ == Reading(format="conllu", field="upos", encoding="latin-1")
    tagged = tmp_path / "tagged.conllu"
    assert main(["tag", "run", str(tagger), str(latin), "-o", str(tagged), "--quiet"]) == 0  # no --encoding
    assert tagged.read_bytes().decode("latin-1").count("\n") == latin.read_bytes().decode("latin-1").count("\n")


def test_raw_text_to_tagged_parsed_conllu_in_one_command(models, tmp_path, capsys):
    out, parser, tagger = models
    raw = tmp_path / "raw.txt"
    raw.write_text("Mr. Smith went to Washington. He said \"hello, world!\"\n\nIt rains.\n", encoding="utf-8")
    assert main(["parse", "run", str(parser), str(raw), "--tagger", str(tagger), "-o", "-", "--quiet"]) == 0
    written = capsys.readouterr().out
    sentences = read_conllu_text(tmp_path, written)
    assert [s.forms for s in sentences] == [["Mr.", "Smith", "went", "to", "Washington", "."],
                                            ["He", "said", '"', "hello", ",", "world", "!", '"'], ["It", "rains", "."]]
    assert [s.metadata["text"] for s in sentences] == ["Mr. Smith went to Washington.", 'He said "hello, world!"',
                                                       "It rains."]
    assert all(t != "_" for s in sentences for t in s.upos) and all((s.heads == 0).sum() >= 1 for s in sentences)
    assert sentences[1].misc[3] == "SpaceAfter=No" and "newpar" in sentences[2].metadata


def test_raw_brown_paragraph_through_stdin(models, tmp_path, capsys, monkeypatch, nltk_data_dir):
    """A paragraph of Brown text (its words joined as running text) on standard input."""
    import io
    import zipfile

    out, parser, tagger = models
    with zipfile.ZipFile(nltk_data_dir / "corpora" / "brown.zip") as z:
        raw = z.read("brown/ca01").decode("ascii")
    words = [w.rsplit("/", 1)[0] for w in raw.split()[:120]]
    text = " ".join(words).replace(" ,", ",").replace(" .", ".") + "\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))
    assert main(["parse", "run", str(parser), "-", "--tagger", str(tagger), "-o", "-", "--format", "text",
                 "--quiet"]) == 0
    sentences = read_conllu_text(tmp_path, capsys.readouterr().out)
    assert len(sentences) >= 3 and sum(len(s) for s in sentences) >= 100
    assert sentences[0].forms[:3] == ["The", "Fulton", "County"]


def read_conllu_text(tmp_path, text: str):
    path = tmp_path / "stdout.conllu"
    path.write_text(text, encoding="utf-8")
    return read_conllu(path)


def test_missing_tags_are_refused_naming_the_column(models, tmp_path, capsys, corpora_dir):
    out, parser, _ = models
    untagged = tmp_path / "untagged.conllu"
    lines = []
    for line in (corpora_dir / "ewt-sample-dev.conllu").read_text(encoding="utf-8").split("\n"):
        cells = line.split("\t")
        if len(cells) == 10 and cells[0].isdigit():
            cells[3] = "_"
        lines.append("\t".join(cells))
    untagged.write_text("\n".join(lines), encoding="utf-8")
    assert main(["parse", "run", str(parser), str(untagged), "-o", str(tmp_path / "o.conllu")]) == 2
    err = capsys.readouterr().err
    assert "untagged.conllu: no UPOS values, which the parser reads" in err and "tag the input (--tagger)" in err
    assert not (tmp_path / "o.conllu").exists()
    xpos_tagger = tmp_path / "xpos.npz"  # a tagger of another column does not fill the one the parser reads
    assert main(["tag", "train", str(corpora_dir / "ewt-sample-dev.conllu"), "--field", "xpos", "-o", str(xpos_tagger),
                 "--epochs", "1", "--hash-bits", "12", "--quiet"]) == 0
    assert main(["parse", "run", str(parser), str(untagged), "--tagger", str(xpos_tagger), "-o",
                 str(tmp_path / "o.conllu")]) == 2
    err = capsys.readouterr().err
    assert "no UPOS values" in err and "add a tagger of that column (the --tagger given fills XPOS)" in err
    assert main(["parse", "run", str(parser), str(corpora_dir / "ewt-sample-dev.conllu"), "-o",
                 str(tmp_path / "o.conllu")]) == 0
    assert "UPOS" not in capsys.readouterr().err


def test_parse_train_help_says_what_each_tags_choice_needs(capsys):
    with pytest.raises(SystemExit):
        main(["parse", "train", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "no toolkit step predicts FEATS" in help_text and "two taggers" in help_text


def test_evaluate_parse_nbest_gives_one_best_and_oracle(models, tmp_path, capsys, corpora_dir):
    from seqspectral.corpus import read_nbest
    from seqspectral.treebank_scores import attachment_scores

    out, parser, _ = models
    gold_path = corpora_dir / "ewt-sample-dev.conllu"
    nbest = tmp_path / "n.conllu"
    assert main(["parse", "run", str(parser), str(gold_path), "-k", "4", "-o", str(nbest), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "parse", str(gold_path), str(nbest), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    gold, lists = read_conllu(gold_path), read_nbest(nbest)
    assert result["one_best"] == attachment_scores(gold, [x.candidates[0] for x in lists])
    # oracle by brute force: every candidate scored alone, the best (heads, then labels) kept
    best = [max(x.candidates, key=lambda c: (int((c.heads == g.heads).sum()),
                                             sum(a == b and h for a, b, h in zip(c.deprels, g.deprels,
                                                                                  c.heads == g.heads))))
            for g, x in zip(gold, lists)]
    assert result["oracle"] == attachment_scores(gold, best)
    assert result["oracle"]["uas"] > result["one_best"]["uas"]
    assert "complete_labeled" in result["one_best"]


def test_evaluate_per_relation_and_conllx_punctuation(tmp_path, capsys):
    gold = tmp_path / "g.conll"
    pred = tmp_path / "p.conll"
    rows = [("Hi", "UH", 0, "ROOT"), ("there", "RB", 1, "ADV"), (",", ",", 1, "P"), ("!", ".", 1, "P")]
    gold.write_text("".join(f"{i}\t{f}\t_\t{t}\t{t}\t_\t{h}\t{r}\t_\t_\n" for i, (f, t, h, r) in enumerate(rows, 1))
                    + "\n")
    wrong = [("Hi", "UH", 0, "ROOT"), ("there", "RB", 1, "NMOD"), (",", ",", 2, "P"), ("!", ".", 1, "P")]
    pred.write_text("".join(f"{i}\t{f}\t_\t{t}\t{t}\t_\t{h}\t{r}\t_\t_\n" for i, (f, t, h, r) in enumerate(wrong, 1))
                    + "\n")
    assert main(["evaluate", "parse", str(gold), str(pred), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["n_words"] == 4 and r["uas"] == 75.0 and r["las"] == 50.0
    assert r["per_relation"]["P"] == {"n": 2, "uas": 50.0, "las": 50.0} and r["per_relation"]["ADV"]["las"] == 0.0
    assert main(["evaluate", "parse", str(gold), str(pred), "--json", "--no-punct"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["n_words"] == 2 and r["uas"] == 100.0 and r["las"] == 50.0


def test_evaluate_tag(tmp_path, capsys, corpora_dir):
    gold = corpora_dir / "ewt-sample-dev.conllu"
    sentences = read_conllu(gold)
    n = sum(len(s) for s in sentences)
    changed = tmp_path / "pred.conllu"
    text = gold.read_text(encoding="utf-8").replace("\tNOUN\t", "\tVERB\t")
    changed.write_text(text, encoding="utf-8")
    nouns = sum(u == "NOUN" for s in sentences for u in s.upos)
    assert main(["evaluate", "tag", str(gold), str(changed), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["n_words"] == n and r["accuracy"] == pytest.approx(100.0 * (n - nouns) / n)
    assert r["per_tag"]["NOUN"]["accuracy"] == 0.0 and r["per_tag"]["VERB"]["accuracy"] == 100.0


def test_standard_input_and_output_everywhere(models, tmp_path, capsys, monkeypatch, corpora_dir):
    import io

    from seqspectral.lm import load_lm

    out, parser, _ = models
    gold = corpora_dir / "ewt-sample-dev.conllu"
    nbest = tmp_path / "n.conllu"
    assert main(["parse", "run", str(parser), str(gold), "-k", "2", "-o", str(nbest), "--quiet"]) == 0
    assert main(["evaluate", "parse", str(gold), str(nbest), "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(nbest.read_bytes())))
    assert main(["evaluate", "parse", str(gold), "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_file
    # a model file to standard output (not a terminal here), then loaded
    buffer = io.BytesIO()
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(buffer))
    assert main(["lm", "train", str(gold), "-o", "-", "--method", "ngram", "--quiet"]) == 0
    path = tmp_path / "lm.npz"
    path.write_bytes(buffer.getvalue())
    assert load_lm(path).method == "ngram"


def test_rerank_reads_its_n_best_files_from_standard_input(models, tmp_path, capsys, monkeypatch, corpora_dir):
    import io

    _, parser, _ = models
    gold = corpora_dir / "ewt-sample-dev.conllu"
    nbest = tmp_path / "n.conllu"
    assert main(["parse", "run", str(parser), str(gold), "-k", "3", "-o", str(nbest), "--quiet"]) == 0
    by_file, by_stdin = tmp_path / "f.npz", tmp_path / "s.npz"
    assert main(["rerank", "train", str(nbest), "--gold", str(gold), "--epochs", "2", "-o", str(by_file), "--quiet"]) == 0
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(nbest.read_bytes())))
    assert main(["rerank", "train", "-", "--gold", str(gold), "--epochs", "2", "-o", str(by_stdin), "--quiet"]) == 0
    assert by_file.read_bytes() == by_stdin.read_bytes()
    best_file, best_stdin = tmp_path / "bf.conllu", tmp_path / "bs.conllu"
    assert main(["rerank", "apply", str(by_file), str(nbest), "-o", str(best_file), "--quiet"]) == 0
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(nbest.read_bytes())))
    assert main(["rerank", "apply", str(by_file), "-", "-o", str(best_stdin), "--quiet"]) == 0
    assert best_file.read_text() == best_stdin.read_text()
    # a format error in standard input names it, with the line
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"# sent_id = 1\n# nbest_rank = 1\n1\tx\n\n")))
    capsys.readouterr()
    assert main(["rerank", "apply", str(by_file), "-", "-o", str(tmp_path / "x.conllu")]) == 2
    assert "<stdin>" in capsys.readouterr().err
    assert main(["rerank", "train", "-", "--gold", "-", "-o", str(tmp_path / "y.npz")]) == 2
