"""The WSJ sample of NLTK split by file (80% / 10% / 10%), for the constituency benchmark and
its tests. Read with the toolkit's ``read_bracketed`` when it is there, else with NLTK's own
reader and a minimal clean-up (development only, until ``constituency/treebank.py`` lands)."""

from __future__ import annotations

import functools

from .common import NLTK_DATA

TREEBANK_ZIP = NLTK_DATA / "corpora" / "treebank.zip"


def _clean(tree):
    from nltk import Tree

    if isinstance(tree, str):
        return tree
    if tree.label() == "-NONE-":
        return None
    kids = [k for k in (_clean(k) for k in tree) if k is not None]
    if not kids:
        return None
    label = tree.label()
    if not label.startswith("-"):
        label = label.split("=")[0].split("-")[0]
    if len(kids) == 1 and isinstance(kids[0], Tree) and kids[0].label() == label:
        return kids[0]
    return Tree(label, kids)


@functools.cache
def wsj_sample_split():
    """(train, dev, test): lists of cleaned trees, the first 80% of the files, the next 10%, the rest."""
    try:
        from seqspectral.constituency.treebank import read_bracketed, split_by_file
    except ImportError:
        return _nltk_split()
    split = split_by_file(TREEBANK_ZIP)
    return tuple(list(read_bracketed(TREEBANK_ZIP, files=split[part])) for part in ("train", "dev", "test"))


def _nltk_split():
    import nltk

    if str(NLTK_DATA) not in nltk.data.path:
        nltk.data.path.insert(0, str(NLTK_DATA))
    from nltk.corpus import treebank as reader

    files = sorted(reader.fileids())
    n = len(files)
    cut1, cut2 = int(round(0.8 * n)), int(round(0.9 * n))
    parts = files[:cut1], files[cut1:cut2], files[cut2:]
    return tuple([t for t in (_clean(x) for f in part for x in reader.parsed_sents(f)) if t is not None]
                 for part in parts)
