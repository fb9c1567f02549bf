"""Binarisation with Markovisation, its exact inverse, and unknown words by signature.

A cleaned phrase-structure tree (``nltk.Tree``) becomes a binary tree whose every node has
two children or one word: NLTK's ``chomsky_normal_form`` factors it with vertical (``v``:
``v - 1`` ancestors in each label, Klein & Manning 2003's v) and horizontal (``h``: siblings
already generated kept in an intermediate label, ``None`` for all) Markovisation, then unary
chains are merged into one label joined by ``+`` (the preterminal included, so ``NP+NNP``
covers a word). Factoring first names an intermediate node after the constituent it is part
of, not after the chain above it, so ``ROOT+S`` and ``S`` share their intermediate labels
(``S@<>``). ``debinarise`` undoes both exactly
(``tests/constituency/test_transform.py`` checks it on every tree of the WSJ sample).

Words seen at most ``rare`` times in training are replaced by their signature
(:func:`signature`, the Berkeley parser's English classes: capitalisation, digits, dashes
and suffixes), so that the grammar has rules for words it has never seen.
"""

from __future__ import annotations

from seqspectral.corpus.nltk_modules import nltk_module

Tree = nltk_module("tree").Tree  # nltk.Tree, without NLTK's package initialiser

#: the characters binarisation writes into labels: intermediate nodes, parent annotation, unary chains
CHILD, PARENT, UNARY = "@", "^", "+"


def binarise(tree: Tree, vertical: int = 1, horizontal: int | None = 1) -> Tree:
    """A binary copy of ``tree`` (every node: two children, or one word)."""
    for node in tree.subtrees():
        if any(c in node.label() for c in (CHILD, PARENT, UNARY)):
            raise ValueError(f"label {node.label()!r} contains one of {CHILD}{PARENT}{UNARY}, "
                             "which binarisation writes into labels")
        if not len(node):
            raise ValueError(f"empty constituent {node.label()!r}")
    out = tree.copy(deep=True)
    out.chomsky_normal_form(factor="right", horzMarkov=horizontal, vertMarkov=vertical - 1, childChar=CHILD,
                            parentChar=PARENT)
    out.collapse_unary(collapsePOS=True, collapseRoot=True, joinChar=UNARY)
    return out


def debinarise(tree: Tree) -> Tree:
    """The tree :func:`binarise` was given (a copy; intermediate nodes and annotations removed).
    Unary chains are expanded first, as they were merged last (a merged label may carry a
    parent annotation inside it: ``NP^<VP>+NN``)."""
    out = _expand_unary(tree)
    out.un_chomsky_normal_form(expandUnary=False, childChar=CHILD, parentChar=PARENT)
    return out


def _expand_unary(node):
    if isinstance(node, str):
        return node
    inner, *chain = reversed(node.label().split(UNARY))
    out = Tree(inner, [_expand_unary(child) for child in node])
    for label in chain:
        out = Tree(label, [out])
    return out


def tag_of(label: str) -> str:
    """The part of speech a preterminal label ends with (``NP+NNP`` → ``NNP``)."""
    return label.rsplit(UNARY, 1)[-1]


_SUFFIXES = ("ed", "ing", "ion", "er", "est", "ly", "ity", "y", "al")


def signature(word: str, first: bool, known_lower: bool = False) -> str:
    """The Berkeley parser's signature of an unknown English word (``SophisticatedLexicon``,
    unknown level 5): ``UNK`` plus capitalisation (``-INITC``, with ``-KNOWNLC`` when the
    lower-cased word is known; ``-CAPS``; ``-LC``), ``-NUM``, ``-DASH`` and a suffix class.
    ``first``: the word starts the sentence."""
    caps = sum(c.isupper() or c.istitle() for c in word if c.isalpha())
    digit = any(c.isdigit() for c in word)
    dash = "-" in word
    lower = any(c.islower() for c in word)
    lowered = word.lower()
    out = "UNK"
    if word[:1].isupper() or word[:1].istitle():
        if first and caps == 1:
            out += "-INITC" + ("-KNOWNLC" if known_lower else "")
        else:
            out += "-CAPS"
    elif word[:1] and not word[0].isalpha() and caps > 0:
        out += "-CAPS"
    elif lower:
        out += "-LC"
    if digit:
        out += "-NUM"
    if dash:
        out += "-DASH"
    if lowered.endswith("s") and len(word) >= 3:
        if lowered[-2] not in "siu":
            out += "-s"
    elif len(word) >= 5 and not dash and not (digit and caps > 0):
        out += next((f"-{s}" for s in _SUFFIXES if lowered.endswith(s)), "")
    return out
