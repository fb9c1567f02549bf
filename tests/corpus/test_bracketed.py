"""Bracketed treebanks: NLTK's reader as the reference, the clean-up by hand, errors at their line."""

import warnings
import zipfile

import pytest
from seqspectral.corpus.bracketed import Tree  # nltk.Tree, without NLTK's package initialiser (scipy.stats, scikit-learn)

from seqspectral.corpus.bracketed import (
    Treebank, bracketed_files, clean_tree, function_free, parse_bracketed, read_bracketed, split_by_file,
    tree_line, write_bracketed,
)
from seqspectral.corpus import CorpusFormatError, SkippedRecordsWarning, detect, read_corpus
from seqspectral.corpus.errors import ErrorPolicy

RAW = dict(remove_empty=False, strip_functions=False, collapse_unary=False, root_label=None)
PTB = """( (S
    (NP-SBJ-1 (NNP Mr.) (NNP Vinken) )
    (VP (VBZ is)
      (NP-PRD (NP (NN chairman) ) (-NONE- *T*-1) ))
    (. .) ))
( (S (NP (NP (PRP It) )) (VP (VBD rained) (S (NP-SBJ (-NONE- *) ) )) (. .) ))
"""


@pytest.fixture(scope="module")
def wsj(nltk_data_dir):
    return nltk_data_dir / "corpora" / "treebank.zip"


def test_the_wsj_sample_is_read_as_nltk_reads_it(wsj, nltk_data_dir, monkeypatch):
    import nltk.data
    from nltk.corpus.reader import BracketParseCorpusReader

    files = bracketed_files(wsj)
    assert len(files) == 199 and files[0] == "treebank/combined/wsj_0001.mrg"
    ours = read_bracketed(wsj, files=files[:40], **RAW)
    monkeypatch.setattr(nltk.data, "path", [str(nltk_data_dir)])
    root = nltk.data.find("corpora/treebank/combined/")
    theirs = BracketParseCorpusReader(root, r"wsj_00[0-3]\d\.mrg|wsj_0040\.mrg").parsed_sents()
    assert len(ours) == len(theirs) > 500
    # NLTK drops the empty-label root bracket of ( (S ...) ); ours keeps it (root_label=None)
    assert all(o.label() == "" and len(o) == 1 and o[0] == t for o, t in zip(ours, theirs))
    assert ours.empty_root and ours.origins[1] == (f"{wsj}:{files[0]}", 17)


def test_split_by_file_is_80_10_10_of_the_files_sorted(wsj):
    split = split_by_file(wsj)
    assert [len(v) for v in split.values()] == [159, 20, 20]
    assert split["dev"][0].endswith("wsj_0160.mrg") and split["test"][-1].endswith("wsj_0199.mrg")


def test_clean_up_each_step_and_all_of_them():
    tb = parse_bracketed(PTB, **RAW)
    first, second = tb
    assert clean_tree(first) == Tree.fromstring(
        "(ROOT (S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP (NN chairman))) (. .)))")
    # NP -> NP collapsed only once the empty S is gone; the S left empty by -NONE- removed
    assert clean_tree(second) == Tree.fromstring("(ROOT (S (NP (PRP It)) (VP (VBD rained)) (. .)))")
    assert clean_tree(second, collapse_unary=False)[0][0] == Tree.fromstring("(NP (NP (PRP It)))")
    kept = clean_tree(first, remove_empty=False)
    assert kept[0][1][1][1] == Tree("-NONE-", ["*T*-1"])
    assert clean_tree(first, strip_functions=False)[0][0].label() == "NP-SBJ-1"
    assert clean_tree(first, root_label=None).label() == ""
    assert clean_tree(parse_bracketed("( (S (-NONE- *)))", **RAW)[0]) is None


@pytest.mark.parametrize("label, bare", [("NP-SBJ-1", "NP"), ("NP=2", "NP"), ("S-TPC-1", "S"), ("-NONE-", "-NONE-"),
                                         ("-LRB-", "-LRB-"), ("PRP$", "PRP$"), ("", "")])
def test_function_tags_and_indices(label, bare):
    assert function_free(label) == bare


@pytest.mark.parametrize("text, line, reason", [
    ("( (S (NP (DT a)))\n( (S (NP (DT b)))))", 1, "not closed before the next tree begins at line 2"),
    ("( (S (NP (DT a))))\n)", 2, "a closing bracket without an opening one"),
    ("( (S (NP (DT a))))\n\n( (S\n  (NP (DT a))", 3, "never closed"),
    ("( (S (NP (DT a))))\n()", 2, "an empty tree"),
    ("( (S (NP (DT a))))\n( (S\n (NP )))", 3, "an empty bracket (NP)"),
    ("( (S (NP (DT a) b)))", 1, "words beside brackets"),
    ("( (S (NP (DT a big))))", 1, "several words"),
    ("words ( (S (NP (DT a))))", 1, "text outside any bracket"),
    ("( (S (NP (DT a)) ((NN b))))", 1, "a bracket without a label"),
    ("( (S (NP (DT a))))\n( (S (NP-SBJ (-NONE- *)) (VP (-NONE- *T*))))", 2, "a tree without words"),
])
def test_malformed_trees_name_their_line(text, line, reason):
    with pytest.raises(CorpusFormatError) as e:
        parse_bracketed(text, "f.mrg")
    assert e.value.line == line and reason in e.value.reason and str(e.value).startswith(f"f.mrg:{line}: ")


def test_skip_drops_and_counts_the_malformed_trees():
    text = "( (S (NP (DT a)))\n( (S (NP (DT b))))\n)\n( (X (Y z)))\n()\n"
    policy = ErrorPolicy("f.mrg", "skip")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tb = parse_bracketed(text, "f.mrg", policy)
        policy.finish()
    assert [tree_line(t) for t in tb] == ["(ROOT (S (NP (DT b))))", "(ROOT (X (Y z)))"]
    assert tb.origins == [("f.mrg", 2), ("f.mrg", 4)]
    (w,) = [w.message for w in caught if isinstance(w.message, SkippedRecordsWarning)]
    assert w.n_skipped == 3 and w.first.line == 1


def test_files_folders_zips_and_the_writer_round_trip(tmp_path):
    (tmp_path / "tb" / "00").mkdir(parents=True)
    (tmp_path / "tb" / "00" / "b.mrg").write_text(PTB)
    (tmp_path / "tb" / "00" / "a.mrg").write_text("(ROOT (S (NP (DT a)) (VP (VBZ is))))\n")
    (tmp_path / "tb" / "notes.txt").write_text("not a tree")
    with zipfile.ZipFile(tmp_path / "tb.zip", "w") as z:
        z.writestr("x/00/a.mrg", "(ROOT (S (NP (DT a)) (VP (VBZ is))))\n")
        z.writestr("x/00/b.mrg", PTB)
    folder, zipped = read_bracketed(tmp_path / "tb"), read_bracketed(tmp_path / "tb.zip")
    assert folder == zipped and len(folder) == 3 and folder.origins[1] == (str(tmp_path / "tb" / "00" / "b.mrg"), 1)
    assert detect(tmp_path / "tb").format == detect(tmp_path / "tb.zip").format == "bracketed"
    write_bracketed(tmp_path / "out.txt", folder)
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines[1] == "( (S (NP (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP (NN chairman))) (. .)))"
    assert detect(tmp_path / "out.txt").format == "bracketed"
    assert read_bracketed(tmp_path / "out.txt") == folder
    write_bracketed(tmp_path / "plain.txt", Treebank(folder[:1]))
    assert (tmp_path / "plain.txt").read_text() == "(ROOT (S (NP (DT a)) (VP (VBZ is))))\n"


def test_encodings_and_undecodable_bytes(tmp_path):
    path = tmp_path / "l1.mrg"
    path.write_bytes("( (S (NP (NNP Peña)) (VP (VBD won))))\n( (S (NP (NN é))))\n".encode("latin-1"))
    assert read_bracketed(path, encoding="latin-1")[0].leaves() == ["Peña", "won"]
    with pytest.raises(CorpusFormatError, match=r"l1.mrg:1: .*--encoding"):
        read_bracketed(path)


def test_read_corpus_gives_words_or_tags(tmp_path):
    path = tmp_path / "t.mrg"
    path.write_text(PTB)
    words = read_corpus(path, format="bracketed", field="form")
    assert [words.vocabulary.decode(s.tolist()) for s in words] == [["Mr.", "Vinken", "is", "chairman", "."],
                                                                    ["It", "rained", "."]]
    tags = read_corpus(path, field="xpos")
    assert tags.vocabulary.decode(tags[1].tolist()) == ["PRP", "VBD", "."]
