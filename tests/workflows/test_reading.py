"""The one sentence reader (seqspectral.workflows.read_sentences): notes and warnings as data,
files of the wrong kind refused naming the file."""

from __future__ import annotations

import pytest

from seqspectral.corpus import NBestList, Reading, read_conllu, write_conllu, write_nbest
from seqspectral.workflows import InputError, read_sentences


@pytest.fixture
def sample(tmp_path, corpora_dir):
    sentences = read_conllu(corpora_dir / "ewt-sample-dev.conllu")[:3]
    no_extension = tmp_path / "sample"
    write_conllu(no_extension, sentences)
    write_nbest(tmp_path / "lists.conllu", [NBestList(str(i), [s, s], [0.0, -1.0]) for i, s in enumerate(sentences)])
    return tmp_path, sentences


def test_the_format_detected_by_content_is_a_note_returned_not_printed(sample, capsys):
    root, sentences = sample
    read = read_sentences(root / "sample", Reading(), name="given-name")
    assert [s.forms for s in read.sentences] == [s.forms for s in sentences] and read.format == "conllu"
    assert read.notes == ["given-name: read as conllu (10 tab-separated columns with comment lines or multiword ids); "
                          "if it is not, give --format"]
    assert capsys.readouterr().err == ""


def test_wrong_kinds_are_refused_naming_the_file(sample, tmp_path):
    root, sentences = sample
    with pytest.raises(InputError, match="lists.conllu: an n-best file"):
        read_sentences(root / "lists.conllu", Reading())
    assert len(read_sentences(root / "lists.conllu", Reading(), nbest=True).sentences) == 2 * len(sentences)
    with pytest.raises(InputError, match="a directory; give a treebank file"):
        read_sentences(root, Reading())
    (tmp_path / "empty.conllu").write_text("\n\n")
    with pytest.raises(InputError, match="empty.conllu: no sentences"):
        read_sentences(tmp_path / "empty.conllu", Reading())
    longest = max(len(s) for s in sentences)
    with pytest.raises(InputError, match=f"has {longest} words; at most {longest - 1} words in a sentence to parse"):
        read_sentences(root / "sample", Reading(), max_words=longest - 1)
