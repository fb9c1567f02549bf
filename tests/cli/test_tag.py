"""`seqspectral tag train / run` on the bundled sample, in-process."""

from __future__ import annotations

import pytest

from seqspectral import serialize
from seqspectral.cli.main import main
from seqspectral.corpus import read_conllu, read_conllx, read_nbest


@pytest.fixture(scope="module")
def model(tmp_path_factory, corpora_dir):
    path = tmp_path_factory.mktemp("tag") / "tagger.npz"
    status = main(["tag", "train", str(corpora_dir / "ewt-sample.conllu"), "--dev",
                   str(corpora_dir / "ewt-sample-dev.conllu"), "--epochs", "3", "--runs", "2", "--hash-bits", "16",
                   "-o", str(path), "--quiet"])
    assert status == 0
    return path


def test_train_records_the_settings_and_the_dev_choice(model):
    tagger = serialize.load(model, kind="tagger")
    assert tagger.field == "upos" and tagger.epochs == 3 and tagger.runs == 2 and tagger.hash_bits == 16
    assert len(tagger.history_) == 3 and "epochs" in tagger.selection_.chosen


def test_run_one_best_fills_the_column(model, corpora_dir, tmp_path):
    source = corpora_dir / "ewt-sample-dev.conllu"
    out = tmp_path / "out.conllu"
    assert main(["tag", "run", str(model), str(source), "-o", str(out), "--quiet"]) == 0
    gold, tagged = read_conllu(source), read_conllu(out)
    assert [s.forms for s in tagged] == [s.forms for s in gold]
    assert [s.upos for s in tagged] == serialize.load(model).predict(gold)
    assert [s.heads.tolist() for s in tagged] == [s.heads.tolist() for s in gold]


def test_run_k_best_writes_nbest_lists(model, corpora_dir, tmp_path):
    source = corpora_dir / "ewt-sample-dev.conllu"
    one, many = tmp_path / "one.conllu", tmp_path / "many.conllu"
    assert main(["tag", "run", str(model), str(source), "-o", str(one), "--quiet"]) == 0
    assert main(["tag", "run", str(model), str(source), "-k", "4", "-o", str(many), "--quiet"]) == 0
    lists = read_nbest(many)
    first = read_conllu(one)
    assert [nb.sent_id for nb in lists] == [s.metadata["sent_id"] for s in first]
    assert [nb.candidates[0].upos for nb in lists] == [s.upos for s in first]
    assert all(len(nb) == 4 for nb in lists)


def test_run_folds_jackknifes(model, corpora_dir, tmp_path):
    source = corpora_dir / "ewt-sample-dev.conllu"
    out = tmp_path / "jk.conllu"
    assert main(["tag", "run", str(model), str(source), "--folds", "2", "-o", str(out), "--quiet"]) == 0
    gold, tagged = read_conllu(source), read_conllu(out)
    assert len(tagged) == len(gold)
    # each half tagged by a tagger trained on the other half of these 100 sentences, not by the model
    assert [s.upos for s in tagged] != serialize.load(model).predict(gold)


def test_bad_usage_exits_2(model, corpora_dir, tmp_path, capsys):
    source = str(corpora_dir / "ewt-sample-dev.conllu")
    out = str(tmp_path / "x.conllu")
    with pytest.raises(SystemExit) as e:
        main(["tag", "run", str(model), source, "--folds", "1000", "-o", out])
    assert e.value.code == 2 and "--folds 1000: at most 20" in capsys.readouterr().err
    assert main(["tag", "run", source, source, "-o", out]) == 2
    assert "not an .npz" in capsys.readouterr().err
    assert main(["tag", "run", str(model), str(tmp_path / "missing.conllu"), "-o", out]) == 2
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tword\n\n")
    assert main(["tag", "train", str(bad), "-o", str(tmp_path / "m.npz")]) == 2
    assert "bad.conllu" in capsys.readouterr().err
    assert main(["tag", "train", source, "--field", "lemma", "--runs", "3", "-o", str(tmp_path / "m.npz")]) == 2
    assert "--runs is for the upos and xpos taggers" in capsys.readouterr().err
    assert not (tmp_path / "x.conllu").exists() and not (tmp_path / "m.npz").exists()


def test_a_latin1_conllx_treebank_without_heads_is_read_like_the_parser_reads_it(corpora_dir, tmp_path):
    """tag reads treebanks as parse does (--format, --encoding; HEAD may be _)."""
    sentences = read_conllu(corpora_dir / "ewt-sample.conllu")[:120]
    lines = []
    for s in sentences:
        for i in range(len(s)):
            form = s.forms[i] + ("ñ" if i == 0 else "")
            lines.append("\t".join([str(i + 1), form, s.lemmas[i], s.upos[i], s.xpos[i], "_", "_", "_", "_", "_"]))
        lines.append("")
    path = tmp_path / "train.conllx"
    path.write_bytes(("\n".join(lines) + "\n").encode("latin-1", errors="replace"))
    model = tmp_path / "tagger.npz"
    assert main(["tag", "train", str(path), "--format", "conllx", "--encoding", "latin-1", "--epochs", "2",
                 "--hash-bits", "14", "-o", str(model), "--quiet"]) == 0
    out = tmp_path / "tagged.conllx"
    # no --encoding: the tagger remembers its training file's; the output is Latin-1 CoNLL-X, HEAD still _
    assert main(["tag", "run", str(model), str(path), "-o", str(out), "--quiet"]) == 0
    tagged = read_conllx(out, encoding="latin-1", heads_required=False)
    assert [s.forms[0][-1] for s in tagged] == ["ñ"] * len(sentences)
    assert [len(s) for s in tagged] == [len(s) for s in sentences]
    assert all(line.split("\t")[6] == "_" for line in out.read_bytes().decode("latin-1").splitlines() if line)


def _blanked(source, tmp_path, name, column):
    """``source`` with the column ``column`` (0-based) ``_`` on every word line."""
    lines = []
    for line in source.read_text(encoding="utf-8").split("\n"):
        cells = line.split("\t")
        if len(cells) == 10:
            cells[column] = "_"
        lines.append("\t".join(cells))
    path = tmp_path / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_every_column_in_one_model_and_the_columns_it_lacks_named(corpora_dir, tmp_path, capsys):
    train, dev = corpora_dir / "ewt-sample.conllu", corpora_dir / "ewt-sample-dev.conllu"
    model, out = tmp_path / "all.npz", tmp_path / "out.conllu"
    assert main(["tag", "train", str(train), "--field", "all", "--epochs", "2", "--hash-bits", "14",
                 "-o", str(model)]) == 0
    err = capsys.readouterr().err
    assert all(f"{m} (" in err for m in ("UPOS tagger", "XPOS tagger", "features tagger", "lemmatiser"))
    assert main(["tag", "run", str(model), str(dev), "-o", str(out), "--quiet"]) == 0
    tagged, gold = read_conllu(out), read_conllu(dev)
    assert [s.forms for s in tagged] == [s.forms for s in gold]
    assert [s.lemmas for s in tagged] == [s.lemmas for s in serialize.load(model).tag(gold)]
    assert main(["tag", "run", str(model), str(dev), "-k", "2", "-o", str(out)]) == 2
    assert "-k needs a UPOS, XPOS or features tagger" in capsys.readouterr().err
    # LEMMA (column 2) and FEATS (column 5) _ throughout: no lemmatiser, no features tagger, and it says so
    bare = _blanked(_blanked(train, tmp_path, "nolemma.conllu", 2), tmp_path, "bare.conllu", 5)
    assert main(["tag", "train", str(bare), "--field", "all", "--epochs", "1", "--hash-bits", "12",
                 "-o", str(model)]) == 0
    err = capsys.readouterr().err
    assert "no features tagger: the training treebank's FEATS column is _ throughout" in err
    assert "no lemmatiser: the training treebank's LEMMA column is _ throughout" in err
    assert list(serialize.load(model).models_) == ["upos", "xpos"]
    for field, what in (("lemma", "no lemmatiser trained"), ("feats", "no features tagger trained")):
        assert main(["tag", "train", str(bare), "--field", field, "-o", str(tmp_path / "x.npz")]) == 2
        assert what in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


def test_a_feats_value_not_name_value_is_exit_2_with_file_and_line(corpora_dir, tmp_path, capsys):
    lines = (corpora_dir / "ewt-sample.conllu").read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.count("\t") == 9 and "=" in line.split("\t")[5]) + 3
    cells = lines[at].split("\t")
    cells[5] = "Number"
    lines[at] = "\t".join(cells)
    bad = tmp_path / "bad.conllu"
    bad.write_text("\n".join(lines), encoding="utf-8")
    assert main(["tag", "train", str(bad), "--field", "all", "-o", str(tmp_path / "m.npz")]) == 2
    assert f"bad.conllu:{at + 1}: FEATS 'Number' of word" in capsys.readouterr().err
