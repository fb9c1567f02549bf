"""Parsing sentences with a :class:`~.grammar.LatentGrammar`: coarse-to-fine inside–outside,
minimum-Bayes-risk trees, debinarised; sentences in parallel threads (the kernel releases
the GIL); every sentence gets a tree.

A sentence the grammar gives no parse is parsed again with the preterminal rules its
unary chains lack (:func:`~.grammar.chain_lexicon`: a verb phrase of one verb never seen
alone, say). A sentence longer than ``max_length`` is not parsed, a sentence with no parse
even so is not either: both get a flat tree (the root's most frequent label over the words,
each with its given tag or the grammar's most likely one), and :class:`ParseReport` counts
them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from seqspectral.corpus.nltk_modules import nltk_module

from . import _kernels
from .grammar import LatentGrammar, chain_lexicon
from .transform import UNARY, debinarise, tag_of

Tree = nltk_module("tree").Tree  # nltk.Tree, without NLTK's package initialiser


@dataclass
class ParseReport:
    """What happened to each sentence: parsed with the latent grammar, with the plain PCFG's
    posteriors only (the latent weights of the pruned chart were not positive); parsed with
    the chain lexicon (their indices); flat trees for sentences with no parse and for those
    over the length cap (their indices)."""

    latent: int = 0
    coarse: int = 0
    chain_lexicon: list = field(default_factory=list)
    no_parse: list = field(default_factory=list)
    too_long: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"latent": self.latent, "coarse": self.coarse, "chain_lexicon": self.chain_lexicon,
                "no_parse": self.no_parse, "too_long": self.too_long}


def parse(grammar: LatentGrammar, sentences, tags=None, *, threshold: float = 1e-4, latent: bool = True,
          max_length: int | None = None, n_jobs: int = 2, progress=None) -> tuple[list[Tree], ParseReport]:
    """One tree per sentence (lists of words), and the :class:`ParseReport`. ``tags``: a tag
    per word of each sentence (or None: the grammar chooses); ``threshold``: the plain PCFG
    posterior below which a labelled span is pruned (0: nothing pruned); ``latent``: False
    to decode with the plain PCFG."""
    lists, report = kbest(grammar, sentences, 1, tags, threshold=threshold, latent=latent, max_length=max_length,
                          n_jobs=n_jobs, progress=progress)
    return [trees[0][0] for trees in lists], report


def kbest(grammar: LatentGrammar, sentences, k: int, tags=None, *, threshold: float = 1e-4, latent: bool = True,
          max_length: int | None = None, n_jobs: int = 2, progress=None) -> tuple[list[list], ParseReport]:
    """Up to ``k`` ``(tree, score)`` per sentence, best first (score: the expected number of
    correct labelled spans of the binarised tree; a flat fallback alone, with score None)."""
    from ..progress import stage

    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    sentences = [list(s) for s in sentences]
    tags = [None] * len(sentences) if tags is None else [None if t is None else list(t) for t in tags]
    if len(tags) != len(sentences):
        raise ValueError(f"{len(tags)} tag sequences for {len(sentences)} sentences")
    for number, (words, given) in enumerate(zip(sentences, tags), 1):
        if not words:
            raise ValueError(f"sentence {number} has no words")
        if given is not None and len(given) != len(words):
            raise ValueError(f"sentence {number}: {len(given)} tags for {len(words)} words")
    tag_index = {t: i for i, t in enumerate(grammar.tables.tags)}
    report = ParseReport()

    def one(number, g, arguments):
        words = sentences[number]
        if max_length is not None and len(words) > max_length:
            return None
        tag_ids = np.full(len(words), -1, np.int32) if tags[number] is None else \
            np.array([tag_index.get(t, -1) for t in tags[number]], dtype=np.int32)
        return _kernels.parse_sentence(g.tables.word_ids(words), tag_ids, *arguments, float(threshold),
                                       bool(latent), int(k))

    with stage("parsing", len(sentences), "sentence", progress) as bar, \
            ThreadPoolExecutor(max(1, int(n_jobs))) as pool:
        arguments = grammar.kernel_arguments()
        results = []
        for result in pool.map(lambda number: one(number, grammar, arguments), range(len(sentences))):
            bar.update()
            results.append(result)
        again = [n for n, result in enumerate(results) if result is not None and result[0] == 2]
        if again:
            rescue = chain_lexicon(grammar)
            rescue_arguments = rescue.kernel_arguments()
            for number, result in zip(again, pool.map(lambda n: one(n, rescue, rescue_arguments), again)):
                if result[0] != 2:
                    results[number] = result
                    report.chain_lexicon.append(number)
    out = []
    for number, result in enumerate(results):
        words = sentences[number]
        if result is None or result[0] == 2:
            (report.too_long if result is None else report.no_parse).append(number)
            out.append([(flat_tree(grammar, words, tags[number]), None)])
            continue
        status, scores, starts, stops, labels = result
        report.latent += status == 0
        report.coarse += status == 1
        out.append([(debinarise(build_tree(grammar.tables.labels, words, starts[t], stops[t], labels[t])),
                     float(scores[t])) for t in range(len(scores))])
    return out, report


def build_tree(names, words, starts, stops, labels) -> Tree:
    """The binary ``nltk.Tree`` of nodes given in preorder by span and label."""
    position = [0]

    def node():
        e = position[0]
        position[0] += 1
        name = names[labels[e]]
        if stops[e] - starts[e] == 1:
            return Tree(name, [words[starts[e]]])
        left = node()
        return Tree(name, [left, node()])

    return node()


def flat_tree(grammar: LatentGrammar, words, tags=None) -> Tree:
    """The fallback: the most frequent root label over the words, each under its given tag
    or the grammar's most likely tag for its word class."""
    t = grammar.tables
    root = t.labels[int(np.argmax(grammar.root_prob))].split(UNARY)[0]
    if tags is None:
        tags = []
        for w in t.word_ids(words):
            rules = grammar.lex_by_word[grammar.lex_by_word_start[w]:grammar.lex_by_word_start[w + 1]]
            best = rules[np.argmax(grammar.lex_prob[rules])] if len(rules) else None
            tags.append(tag_of(t.labels[t.lexical[best, 0]]) if best is not None else t.tags[0])
    return Tree(root, [Tree(tag, [word]) for tag, word in zip(tags, words)])
