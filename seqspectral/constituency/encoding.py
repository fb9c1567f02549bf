"""Binary trees as arrays, and the symbol tables that number their labels, words and rules.

:class:`TreebankCounts` are the counts a grammar is read from (labels at the root, binary
rules, preterminal–word pairs, words); they add, so shards of a treebank are counted apart
and summed (:mod:`seqspectral.counting.sharded`). :class:`SymbolTables` numbers everything
in sorted order, so the numbering depends on the counts only, never on how the treebank was
cut. :func:`flatten` lists a binarised tree's nodes, :func:`encode` turns them into a
:class:`BinaryTreebank`: flat int32 arrays of nodes in preorder, what the Numba kernels read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from seqspectral.corpus.nltk_modules import nltk_module

from .transform import signature, tag_of

Tree = nltk_module("tree").Tree  # nltk.Tree, without NLTK's package initialiser

#: the word class of an unknown word whose signature was never seen in training
UNKNOWN = "<unknown>"


@dataclass
class TreebankCounts:
    """Counts of binarised trees: root labels, binary rules ``(a, b, c)``, preterminal rules
    ``(a, word, first)`` (``first``: the word starts its sentence) and words."""

    roots: Counter
    binary: Counter
    lexical: Counter
    words: Counter
    n_trees: int

    def __add__(self, other: "TreebankCounts") -> "TreebankCounts":
        return TreebankCounts(self.roots + other.roots, self.binary + other.binary, self.lexical + other.lexical,
                              self.words + other.words, self.n_trees + other.n_trees)


def flatten(tree: Tree) -> list:
    """A binarised tree as its nodes in preorder: ``(label, word, right)``, ``word`` None and
    ``right`` the index of the right child at an inner node (the left child is next),
    ``right`` -1 at a word."""
    out = []

    def walk(node):
        me = len(out)
        children = list(node)
        if isinstance(children[0], str):
            out.append((node.label(), children[0], -1))
            return
        out.append(None)
        walk(children[0])
        right = len(out)
        walk(children[1])
        out[me] = (node.label(), None, right)

    walk(tree)
    return out


def count_trees(flat_trees) -> TreebankCounts:
    """The :class:`TreebankCounts` of binarised trees (as :func:`flatten` gives them)."""
    roots, binary, lexical, words = Counter(), Counter(), Counter(), Counter()
    for nodes in flat_trees:
        roots[nodes[0][0]] += 1
        position = 0
        for k, (label, word, right) in enumerate(nodes):
            if word is None:
                binary[label, nodes[k + 1][0], nodes[right][0]] += 1
            else:
                lexical[label, word, position == 0] += 1
                words[word] += 1
                position += 1
    return TreebankCounts(roots, binary, lexical, words, len(flat_trees))


class SymbolTables:
    """Labels, word classes and rules numbered in sorted order.

    A word seen more than ``rare`` times is its own class; any other word is its signature
    (:func:`~.transform.signature`), or :data:`UNKNOWN` when that signature was never seen.
    """

    def __init__(self, labels, words, binary, lexical, known):
        self.labels = list(labels)
        self.words = list(words)
        self.known = frozenset(known)
        self.label_index = {s: i for i, s in enumerate(self.labels)}
        self.word_index = {s: i for i, s in enumerate(self.words)}
        self.binary = np.asarray(binary, dtype=np.int32).reshape(-1, 3)  # (parent, left, right) ids, sorted
        self.lexical = np.asarray(lexical, dtype=np.int32).reshape(-1, 2)  # (label, word class) ids, sorted
        self.binary_index = {tuple(r): i for i, r in enumerate(self.binary.tolist())}
        self.lexical_index = {tuple(r): i for i, r in enumerate(self.lexical.tolist())}
        #: word classes that stand for rare words (signatures, UNKNOWN)
        self.rare_class = np.array([w not in self.known for w in self.words], dtype=bool)
        tags = sorted({tag_of(s) for s in self.labels})
        self.tags = tags
        self.label_tag = np.array([tags.index(tag_of(s)) for s in self.labels], dtype=np.int32)

    @classmethod
    def from_counts(cls, counts: TreebankCounts, rare: int) -> "SymbolTables":
        known = {w for w, n in counts.words.items() if n > rare}
        lexical_classes = Counter()
        for (a, word, first), n in counts.lexical.items():
            lexical_classes[a, _word_class(word, first, known)] += n
        for a, w in list(lexical_classes):  # the back-off of an unseen signature: any rare word
            if w not in known:
                lexical_classes[a, UNKNOWN] += 0
        labels = sorted(set(counts.roots) | {s for r in counts.binary for s in r} | {a for a, _ in lexical_classes})
        words = sorted({w for _, w in lexical_classes} | {UNKNOWN})
        li, wi = {s: i for i, s in enumerate(labels)}, {s: i for i, s in enumerate(words)}
        binary = sorted((li[a], li[b], li[c]) for a, b, c in counts.binary)
        lexical = sorted((li[a], wi[w]) for a, w in lexical_classes)
        return cls(labels, words, binary, lexical, known)

    def word_id(self, word: str, first: bool) -> int:
        """The word class of ``word`` (``first``: it starts the sentence)."""
        return self.word_index.get(_word_class(word, first, self.known), self.word_index[UNKNOWN])

    def word_ids(self, words) -> np.ndarray:
        """The word class of each word of a sentence."""
        return np.array([self.word_id(w, i == 0) for i, w in enumerate(words)], dtype=np.int32)

    def to_json(self) -> dict:
        return {"labels": self.labels, "words": self.words, "known": sorted(self.known)}

    @classmethod
    def from_arrays(cls, data: dict, binary, lexical) -> "SymbolTables":
        return cls(data["labels"], data["words"], binary, lexical, data["known"])


def _word_class(word: str, first: bool, known) -> str:
    if word in known:
        return word
    return signature(word, first, word.lower() in known)


@dataclass
class BinaryTreebank:
    """Binarised trees as flat arrays: nodes in preorder, tree ``t`` the nodes
    ``offsets[t]:offsets[t+1]`` (its root first). ``rule``: the binary rule of an inner node,
    the preterminal rule of a leaf; ``left``/``right``: child nodes (-1 at a leaf); ``start``,
    ``stop``: the words it spans."""

    label: np.ndarray
    rule: np.ndarray
    left: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    word: np.ndarray  # word class of a leaf, -1 inside
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1


def encode(flat_trees, tables: SymbolTables) -> BinaryTreebank:
    """Binarised trees (as :func:`flatten` gives them) as a :class:`BinaryTreebank` (every
    rule must be in ``tables``)."""
    n = sum(len(t) for t in flat_trees)
    label, rule, left, right, parent, start, stop, word = (np.full(n, -1, np.int32) for _ in range(8))
    offsets = np.zeros(len(flat_trees) + 1, np.int64)
    li, bi, xi = tables.label_index, tables.binary_index, tables.lexical_index
    base = 0
    for t, nodes in enumerate(flat_trees):
        position = 0
        for k, (name, w, r) in enumerate(nodes):
            label[base + k] = li[name]
        for k, (name, w, r) in enumerate(nodes):
            g = base + k
            start[g] = position
            if w is None:
                left[g], right[g] = g + 1, base + r
                parent[g + 1] = parent[base + r] = g
                rule[g] = bi[label[g], label[g + 1], label[base + r]]
            else:
                word[g] = tables.word_id(w, position == 0)
                rule[g] = xi[label[g], word[g]]
                position += 1
                stop[g] = position
        for k in range(len(nodes) - 1, -1, -1):  # an inner node stops where its right child does
            g = base + k
            if right[g] >= 0:
                stop[g] = stop[right[g]]
        base += len(nodes)
        offsets[t + 1] = base
    return BinaryTreebank(label, rule, left, right, parent, start, stop, word, offsets)
