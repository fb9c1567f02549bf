"""CoNLL-X and Malt-TAB readers; Malt-TAB against NLTK's dependency_treebank reader."""

import zipfile

import pytest

from seqspectral.corpus import CorpusFormatError, read_conllu, read_conllx, read_corpus, read_malttab, write_conllu

CONLLX = (
    "1\tThe\tthe\tDT\tDT\t_\t2\tNMOD\t_\t_\n"
    "2\tdog\tdog\tNN\tNN\t_\t3\tSBJ\t_\t_\n"
    "3\tbarks\tbark\tVB\tVBZ\t_\t0\tROOT\t_\t_\n\n"
    "1\tHi\thi\tUH\tUH\t_\t0\tROOT\t_\t_\n\n"
)


def test_conllx_columns_and_round_trip_through_conllu(tmp_path):
    path = tmp_path / "a.conllx"
    path.write_text(CONLLX)
    first, second = read_conllx(path)
    assert first.forms == ["The", "dog", "barks"] and first.lemmas == ["the", "dog", "bark"]
    assert first.upos == ["DT", "NN", "VB"] and first.xpos == ["DT", "NN", "VBZ"]
    assert first.heads.tolist() == [2, 3, 0] and first.deprels == ["NMOD", "SBJ", "ROOT"]
    assert second.forms == ["Hi"]
    out = tmp_path / "b.conllu"
    write_conllu(out, [first, second])
    assert read_conllu(out) == [first, second]
    assert read_corpus(path, field="xpos").to_symbols() == [["DT", "NN", "VBZ"], ["UH"]]
    assert read_corpus(path).heads.tolist() == [2, 3, 0, 0]


def test_malttab_three_and_four_columns(tmp_path):
    path = tmp_path / "a.dp"
    path.write_text("Pierre\tNNP\t2\nVinken\tNNP\t0\n\n#\t#\t0\n\nIt\tPRP\t2\tSBJ\nrains\tVBZ\t0\tROOT\n")
    a, b, c = read_malttab(path)
    assert a.forms == ["Pierre", "Vinken"] and a.upos == a.xpos == ["NNP", "NNP"] and a.heads.tolist() == [2, 0]
    assert b.forms == ["#"], "a '#' word is a word, not a comment, in Malt-TAB"
    assert c.deprels == ["SBJ", "ROOT"]
    out = tmp_path / "b.conllu"
    write_conllu(out, [a, b, c])
    assert read_conllu(out) == [a, b, c]
    assert read_corpus(path).to_symbols() == [["NNP", "NNP"], ["#"], ["PRP", "VBZ"]]


@pytest.mark.parametrize("case", ["conllx-columns", "malttab-columns"])
def test_malformed_columns(malformed_files, case):
    fmt, path, line = malformed_files[case]
    with pytest.raises(CorpusFormatError) as info:
        read_corpus(path, format=fmt)
    assert info.value.line == line


def test_dependency_treebank_agrees_with_nltk(nltk_data_dir, tmp_path, monkeypatch):
    import nltk.data
    from nltk.corpus.reader import DependencyCorpusReader
    from nltk.data import ZipFilePathPointer

    monkeypatch.setattr(nltk.data, "path", [str(nltk_data_dir)])  # NLTK reads only under its path

    archive = nltk_data_dir / "corpora" / "dependency_treebank.zip"
    reader = DependencyCorpusReader(ZipFilePathPointer(str(archive), "dependency_treebank/"), r".*\.dp", encoding="ascii")
    names = sorted(reader.fileids())[:20]
    with zipfile.ZipFile(archive) as z:
        for name in names:
            (tmp_path / name).write_bytes(z.read(f"dependency_treebank/{name}"))
    n = 0
    for name in names:
        ours = read_malttab(tmp_path / name)
        theirs = reader.parsed_sents(name)
        assert len(ours) == len(theirs)
        for s, g in zip(ours, theirs):
            words = [g.nodes[i] for i in range(1, len(g.nodes))]
            assert s.forms == [w["word"] for w in words]
            assert s.xpos == [w["tag"] for w in words]
            assert s.heads.tolist() == [w["head"] for w in words]
            n += 1
    assert n > 100
