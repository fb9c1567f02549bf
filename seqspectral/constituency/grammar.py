"""A latent-variable PCFG in flat arrays, with the plain PCFG that prunes it.

Every label ``a`` has ``m_a`` latent states (``states``; 1 for a plain PCFG). A binary rule
``r = a → b c`` has a tensor ``T_r`` of shape ``(m_a, m_b, m_c)`` (``rule_weights`` from
``rule_offset[r]``, C order), a preterminal rule ``a → x`` a vector of ``m_a`` (``lex_weights``),
a label at the root a vector of ``m_a`` (``root_weights``). The inside vector of a node is
``α_a = T_r(·, α_b, α_c)``, at a word ``α_a = lex``, and a tree's weight is ``root_a · α_a``:
for the EM grammar the weights are the probabilities p(b_h2 c_h3 | a_h), p(x | a_h),
p(a_h at the root); for the spectral grammar they are Cohen et al. (2012)'s parameters
C^{a→bc}, c_∞^{a→x}, c_1^a (their Figure 2), which give the same tree weights up to an
invertible linear map per label. ``rule_prob``, ``lex_prob`` and ``root_prob`` are the
plain PCFG of the same rules (maximum likelihood), the coarse grammar of the parser.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encoding import UNKNOWN, SymbolTables, TreebankCounts


@dataclass
class LatentGrammar:
    tables: SymbolTables
    rule_prob: np.ndarray
    lex_prob: np.ndarray
    root_prob: np.ndarray
    states: np.ndarray
    rule_weights: np.ndarray
    lex_weights: np.ndarray
    root_weights: np.ndarray
    #: weight per binary node that keeps inside scores of long sentences in range (every
    #: tree of a sentence has the same number of binary nodes, so posteriors do not change)
    binary_scale: float

    def __post_init__(self):
        t = self.tables
        self.states = np.ascontiguousarray(self.states, dtype=np.int32)
        m = self.states.astype(np.int64)
        self.state_offset = np.concatenate([[0], np.cumsum(m)])
        self.rule_offset = np.concatenate([[0], np.cumsum(m[t.binary[:, 0]] * m[t.binary[:, 1]] * m[t.binary[:, 2]])])
        self.lex_offset = np.concatenate([[0], np.cumsum(m[t.lexical[:, 0]])])
        order = np.argsort(t.binary[:, 1], kind="stable")
        self.rules_by_left = order.astype(np.int32)
        self.rules_by_left_start = np.searchsorted(t.binary[order, 1], np.arange(len(t.labels) + 1)).astype(np.int64)
        order = np.argsort(t.lexical[:, 1], kind="stable")
        self.lex_by_word = order.astype(np.int32)
        self.lex_by_word_start = np.searchsorted(t.lexical[order, 1], np.arange(len(t.words) + 1)).astype(np.int64)

    @property
    def n_labels(self) -> int:
        return len(self.tables.labels)

    def kernel_arguments(self) -> tuple:
        """The arrays the chart kernels read, in their order."""
        t = self.tables
        return (t.binary[:, 0].copy(), t.binary[:, 2].copy(), self.rules_by_left_start, self.rules_by_left,
                t.lexical[:, 0].copy(), self.lex_by_word_start, self.lex_by_word, t.label_tag, self.rule_prob,
                self.lex_prob, self.root_prob, self.states, self.state_offset, self.rule_offset, self.rule_weights,
                self.lex_offset, self.lex_weights, self.root_weights, float(self.binary_scale))

    def to_arrays(self) -> dict:
        return {"binary": self.tables.binary, "lexical": self.tables.lexical, "rule_prob": self.rule_prob,
                "lex_prob": self.lex_prob, "root_prob": self.root_prob, "states": self.states,
                "rule_weights": self.rule_weights, "lex_weights": self.lex_weights, "root_weights": self.root_weights}

    @classmethod
    def from_arrays(cls, tables_json: dict, binary_scale: float, arrays: dict) -> "LatentGrammar":
        tables = SymbolTables.from_arrays(tables_json, arrays["binary"], arrays["lexical"])
        return cls(tables, *(arrays[k] for k in ("rule_prob", "lex_prob", "root_prob", "states", "rule_weights",
                                                 "lex_weights", "root_weights")), binary_scale)


def maximum_likelihood(counts: TreebankCounts, tables: SymbolTables):
    """The plain PCFG of ``counts``: (rule_prob, lex_prob, root_prob, binary_scale), rule
    probabilities relative frequencies given the parent label."""
    li = tables.label_index
    binary = binary_counts(counts, tables)
    lexical = np.zeros(len(tables.lexical))
    for (a, word, first), n in counts.lexical.items():
        lexical[tables.lexical_index[li[a], tables.word_id(word, first)]] += n
    totals = (np.bincount(tables.binary[:, 0], binary, len(tables.labels))
              + np.bincount(tables.lexical[:, 0], lexical, len(tables.labels)))
    rule_prob = binary / totals[tables.binary[:, 0]]
    lex_prob = unknown_backoff(tables, lexical / totals[tables.lexical[:, 0]], np.ones(len(tables.labels), np.int64))
    root_prob = np.zeros(len(tables.labels))
    for a, n in counts.roots.items():
        root_prob[li[a]] = n / counts.n_trees
    return rule_prob, lex_prob, root_prob, binary_scale(rule_prob, binary)


def binary_counts(counts: TreebankCounts, tables: SymbolTables) -> np.ndarray:
    """How often each binary rule of ``tables`` occurs in ``counts`` (float64)."""
    names = tables.labels
    return np.array([counts.binary[names[a], names[b], names[c]] for a, b, c in tables.binary.tolist()],
                    dtype=np.float64)


def binary_scale(rule_prob: np.ndarray, rule_counts: np.ndarray) -> float:
    """The inverse of the geometric mean probability of a binary rule in training."""
    used = rule_counts > 0
    return float(np.exp(-np.average(np.log(rule_prob[used]), weights=rule_counts[used]))) if used.any() else 1.0


def unknown_backoff(tables: SymbolTables, lex_weights: np.ndarray, states: np.ndarray) -> np.ndarray:
    """``lex_weights`` with the weight of ``a → UNKNOWN`` set to the sum of ``a``'s rules to
    rare-word classes (a word whose signature was never seen is some rare word)."""
    out = lex_weights.copy()
    m = states.astype(np.int64)[tables.lexical[:, 0]]
    offsets = np.concatenate([[0], np.cumsum(m)])
    unknown = tables.word_index[UNKNOWN]
    sums = {}
    for r, (a, w) in enumerate(tables.lexical.tolist()):
        if tables.rare_class[w] and w != unknown:
            block = out[offsets[r]:offsets[r + 1]]
            sums[a] = sums[a] + block if a in sums else block.copy()
    for r, (a, w) in enumerate(tables.lexical.tolist()):
        if w == unknown:
            out[offsets[r]:offsets[r + 1]] = sums.get(a, 0.0)
    return out
