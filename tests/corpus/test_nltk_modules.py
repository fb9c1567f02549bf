"""NLTK's tree and tokenizer modules are imported without NLTK's package initialiser (which
imports scipy.stats and scikit-learn), and a later ``import nltk`` is the whole NLTK over the
same modules."""

import importlib.util
import subprocess
import sys

import pytest

if importlib.util.find_spec("nltk") is None:  # not importorskip: importing nltk here would run its initialiser
    pytest.skip("nltk not installed", allow_module_level=True)

PROGRAM = """
import sys
from seqspectral.corpus.bracketed import read_bracketed  # noqa: F401 (the reader's import)
from seqspectral.corpus.nltk_modules import nltk_module
Tree = nltk_module("tree").Tree
tree = Tree.fromstring("(S (NP (DT a) (NN dog)) (VP (VBD ran)))")
light = sorted(name for name in ("nltk", "scipy.stats", "sklearn", "nltk.classify") if name in sys.modules)
import nltk
print(light)
print(isinstance(tree, nltk.Tree), nltk.Tree is Tree, nltk.tree is nltk_module("tree"))
print(nltk.TreebankWordTokenizer().tokenize("It ran."), "nltk.classify" in sys.modules, nltk.data.path is not None)
"""


def test_the_tree_module_comes_alone_and_nltk_after_it_is_whole():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "True True True", "['It', 'ran', '.'] True True"]
