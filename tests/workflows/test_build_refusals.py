"""`rerank build` / `rerank run` refuse wrong inputs, options and damaged build manifests
(issue 39 item 3, issue 42 items 3-4): exit 2, one line naming the file (and the field),
nothing written — no build directory left behind, a resumed build's directory unchanged."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from seqspectral.cli.main import main
from seqspectral.corpus import read_conllu, write_conllu, write_nbest
from seqspectral.workflows.manifest import MANIFEST


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, corpora_dir):
    root = tmp_path_factory.mktemp("refusals")
    train = read_conllu(corpora_dir / "ewt-sample.conllu")[:30]
    write_conllu(root / "train.conllu", train)
    write_conllu(root / "untagged.conllu", [replace(s, upos=["_"] * len(s), xpos=["_"] * len(s)) for s in train])
    (root / "plain.txt").write_text("The cat sat on the mat. It was happy.\n\nA second paragraph here.\n")
    (root / "empty.conllu").write_text("")
    from seqspectral.corpus import NBestList

    write_nbest(root / "lists.conllu", [NBestList(str(i), [s, s], [0.0, -1.0]) for i, s in enumerate(train[:3])])
    return root


def _refused(args, capsys, *expected):
    status = main(args)
    err = capsys.readouterr().err.strip()
    assert status == 2, err
    assert len(err.splitlines()) == 1, err  # one line
    for text in expected:
        assert text in err, err
    return err


@pytest.mark.parametrize("train, extra, expected", [
    ("plain.txt", [], ("plain.txt", "holds no trees")),
    ("lists.conllu", [], ("lists.conllu", "an n-best file")),
    ("empty.conllu", [], ("empty.conllu", "no sentences")),
    (".", [], ("a directory",)),
    ("missing.conllu", [], ("missing.conllu", "no such file")),
    ("train.conllu", ["--dev", "missing-dev.conllu"], ("missing-dev.conllu", "no such file")),
    ("untagged.conllu", ["--tags", "predicted"], ("untagged.conllu", "UPOS column is empty")),
    ("train.conllu", ["--folds", "1000000000"], ("--folds", "from 2 to 20", "1000000000")),
    ("train.conllu", ["--folds", "25"], ("--folds", "25")),
    ("train.conllu", ["--tag-folds", "1000000000", "--tags", "predicted"], ("--tag-folds", "1000000000")),
    ("train.conllu", ["-k", "1000000000"], ("-k", "from 1 to 1000", "1000000000")),
    ("train.conllu", ["--hash-bits", "40"], ("--hash-bits", "40")),
])
def test_build_refuses_wrong_input_and_leaves_nothing(inputs, capsys, monkeypatch, train, extra, expected):
    monkeypatch.chdir(inputs)
    before = sorted(p.name for p in inputs.iterdir())
    _refused(["rerank", "build", train, "-o", "out", "--quiet", *extra], capsys, *expected)
    assert sorted(p.name for p in inputs.iterdir()) == before  # no build directory, nothing else


def test_more_folds_than_sentences_names_the_file(inputs, capsys, monkeypatch, tmp_path):
    few = tmp_path / "few.conllu"
    write_conllu(few, read_conllu(inputs / "train.conllu")[:2])
    _refused(["rerank", "build", str(few), "-o", str(tmp_path / "out"), "--folds", "3"], capsys, "--folds",
             "few.conllu", "2 sentences")
    assert not (tmp_path / "out").exists()


_VALID = {"stages": {}, "options": {"k": 5, "folds": 2}, "tag_fields": ["upos"], "parser_tag_columns": ["upos"],
          "reading": {"format": "conllu", "encoding": "utf-8", "errors": "raise"}}


@pytest.mark.parametrize("manifest, expected", [
    (json.dumps(_VALID)[:40], ("not a build manifest", "not JSON")),
    ({**_VALID, "options": {"k": 1000000000}}, ("options.k", "1000000000")),
    ({**_VALID, "options": {"k": "x"}}, ("options.k", '"x"')),
    ({**_VALID, "options": {"k": 1e9}}, ("options.k",)),
    ({**_VALID, "options": {"evil": 1}}, ("options.evil", "unknown key")),
    ({**_VALID, "reading": {"encoding": "rot13"}}, ("reading.encoding", "rot13")),
    ({**_VALID, "reading": {"encoding": "no-such-codec"}}, ("reading.encoding", "no-such-codec")),
    ({**_VALID, "stages": {"parser": {"key": 1, "files": {}, "wall_s": 0, "cpu_s": 0}}}, ("stages.parser.key",)),
    ({**_VALID, "stages": {"parser": {"key": "a", "files": {"../x": "0"}, "wall_s": 0, "cpu_s": 0}}},
     ("stages.parser.files",)),
    ({**_VALID, "tag_fields": ["evil"]}, ("tag_fields",)),
    ([1, 2], ("not a build manifest",)),
])
@pytest.mark.parametrize("command", ["run", "build"])
def test_a_damaged_manifest_is_refused_naming_the_file_and_field(inputs, capsys, tmp_path, manifest, expected,
                                                                 command):
    directory = tmp_path / "b"
    directory.mkdir()
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (directory / MANIFEST).write_text(text)
    args = (["rerank", "run", str(directory), str(inputs / "train.conllu"), "-o", str(tmp_path / "o.conllu")]
            if command == "run" else ["rerank", "build", str(inputs / "train.conllu"), "-o", str(directory)])
    _refused(args, capsys, f"{directory / MANIFEST}", *expected)
    assert sorted(p.name for p in directory.iterdir()) == [MANIFEST]  # nothing built
    assert (directory / MANIFEST).read_text() == text and not (tmp_path / "o.conllu").exists()


def test_a_new_build_stopped_before_any_stage_finished_leaves_no_directory(inputs, tmp_path, monkeypatch):
    from seqspectral.workflows import BuildOptions, build
    from seqspectral.workflows import rerank_build

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(rerank_build, "fit_clusters", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path / "new", inputs / "train.conllu", options=BuildOptions(clusters_from=("brown",)),
              progress=False)
    assert not (tmp_path / "new").exists()
