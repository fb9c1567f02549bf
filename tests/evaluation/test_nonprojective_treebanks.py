"""The non-projective benchmark's UD treebanks: the official split when there is a train file,
else dev then test in file order, 80/10/10; absent ones skipped, and nothing written when
nothing is there to measure."""

import pytest

from evaluation import nonprojective
from evaluation.nonprojective import main, ud, ud_paths, ud_title


def write_treebank(path, words):
    """One single-word sentence per word, in order."""
    path.write_text("".join(f"1\t{w}\t{w}\tNOUN\tN\t_\t0\troot\t_\t_\n\n" for w in words), encoding="utf-8")


@pytest.fixture
def ud_dir(tmp_path):
    greek = tmp_path / "Ancient_Greek-PROIEL"
    greek.mkdir()
    write_treebank(greek / "grc_proiel-ud-dev.conllu", [f"d{i}" for i in range(12)])
    write_treebank(greek / "grc_proiel-ud-test.conllu", [f"t{i}" for i in range(8)])
    (greek / "SOURCE").write_text("a4ab8d436de97d4598d410d91ea20b4127d04a5f Wed May 6 12:13:16 2026 +0200\n")
    hungarian = tmp_path / "Hungarian-Szeged"
    hungarian.mkdir()
    for part, n in (("train", 5), ("dev", 3), ("test", 2)):
        write_treebank(hungarian / f"hu_szeged-ud-{part}.conllu", [f"{part}{i}" for i in range(n)])
    (hungarian / "SOURCE").write_text("8f08ba648e6f6345212a721b7cb1ad78c5924f0e Wed May 6 12:56:24 2026 +0200\n")
    return tmp_path


def forms(sentences):
    return [s.forms[0] for s in sentences]


def test_without_a_train_file_dev_then_test_are_split_80_10_10_in_file_order(ud_dir):
    train, dev, test = ud(ud_dir, "grc-proiel")
    assert forms(train) == [f"d{i}" for i in range(12)] + ["t0", "t1", "t2", "t3"]
    assert forms(dev) == ["t4", "t5"] and forms(test) == ["t6", "t7"]
    title = ud_title(ud_dir, "grc-proiel")
    assert "a4ab8d436d" in title and "80/10/10" in title and "not from a package registry" in title


def test_with_a_train_file_the_official_split_is_kept(ud_dir):
    train, dev, test = ud(ud_dir, "hu-szeged")
    assert (forms(train), forms(dev), forms(test)) == ([f"train{i}" for i in range(5)], ["dev0", "dev1", "dev2"],
                                                     ["test0", "test1"])
    assert "official train/dev/test" in ud_title(ud_dir, "hu-szeged")


def test_absent_treebanks_are_skipped_and_with_nothing_to_measure_nothing_is_written(ud_dir, tmp_path, capsys,
                                                                                    monkeypatch):
    assert ud_paths(ud_dir, "eu-bdt") == {}
    out = tmp_path / "results.md"
    monkeypatch.setattr(nonprojective, "OUT", out)
    with pytest.raises(SystemExit) as info:
        main(["--ud-dir", str(ud_dir), "--treebanks", "eu-bdt,nl-alpino", "--workdir", str(tmp_path / "work")])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "data not found" in err and "eu_bdt-ud-dev.conllu" in err
    assert "nl_alpino-ud-test.conllu" in err and not out.exists()
