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
``more``: further sets of latent weights over the same rules, ``(states, rule_weights,
lex_weights, root_weights)`` each, decoded together with the first (the mean of their span
marginals: Narayan & Cohen 2015's combination of noisy spectral grammars).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encoding import UNKNOWN, SymbolTables, TreebankCounts
from .moments import layout
from .transform import tag_of


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
    more: tuple = ()

    def __post_init__(self):
        t = self.tables
        self.states = np.ascontiguousarray(self.states, dtype=np.int32)
        _, self.rule_offset, self.lex_offset, self.state_offset, _ = layout(t, self.states)
        self.more = tuple((np.ascontiguousarray(m, dtype=np.int32), *weights) for m, *weights in self.more)
        order = np.argsort(t.binary[:, 1], kind="stable")
        self.rules_by_left = order.astype(np.int32)
        self.rules_by_left_start = np.searchsorted(t.binary[order, 1], np.arange(len(t.labels) + 1)).astype(np.int64)
        order = np.argsort(t.lexical[:, 1], kind="stable")
        self.lex_by_word = order.astype(np.int32)
        self.lex_by_word_start = np.searchsorted(t.lexical[order, 1], np.arange(len(t.words) + 1)).astype(np.int64)

    @property
    def n_labels(self) -> int:
        return len(self.tables.labels)

    @property
    def members(self) -> list:
        """Every set of latent weights: ``(states, rule_weights, lex_weights, root_weights)``."""
        return [(self.states, self.rule_weights, self.lex_weights, self.root_weights), *self.more]

    def kernel_arguments(self) -> tuple:
        """The arrays the chart kernels read, in their order; the latent ones stacked, one
        row of ``states`` and of the offsets per member, the weights end to end."""
        t = self.tables
        members = self.members
        layouts = [layout(t, states) for states, *_ in members]
        sizes = np.array([[len(w) for w in weights] for _, *weights in members], np.int64)
        starts = np.cumsum(sizes, axis=0) - sizes  # where each member's weights start, end to end

        def stacked(part, column):
            return np.array([lay[part] + start[column] for lay, start in zip(layouts, starts)])

        rule_w, lex_w, root_w = (np.concatenate(w) for w in zip(*(weights for _, *weights in members)))
        return (t.binary[:, 0].copy(), t.binary[:, 2].copy(), self.rules_by_left_start, self.rules_by_left,
                t.lexical[:, 0].copy(), self.lex_by_word_start, self.lex_by_word, t.label_tag, self.rule_prob,
                self.lex_prob, self.root_prob, np.array([m for m, *_ in members], np.int32), stacked(3, 2),
                stacked(1, 0), rule_w, stacked(2, 1), lex_w, root_w, float(self.binary_scale))

    def to_arrays(self) -> dict:
        out = {"binary": self.tables.binary, "lexical": self.tables.lexical, "rule_prob": self.rule_prob,
               "lex_prob": self.lex_prob, "root_prob": self.root_prob}
        for k, member in enumerate(self.members):
            out.update({_member_key(name, k): a for name, a in zip(MEMBER_ARRAYS, member)})
        return out

    @classmethod
    def from_arrays(cls, tables_json: dict, binary_scale: float, arrays: dict) -> "LatentGrammar":
        tables = SymbolTables.from_arrays(tables_json, arrays["binary"], arrays["lexical"])
        members = [[arrays[_member_key(name, k)] for name in MEMBER_ARRAYS]
                   for k in range(sum(key.startswith("states") for key in arrays))]
        return cls(tables, *(arrays[k] for k in ("rule_prob", "lex_prob", "root_prob")), *members[0], binary_scale,
                   tuple(members[1:]))


#: the arrays of one set of latent weights, as the model file names them (``states``,
#: ``states_1``, ... for the first, second, ... member)
MEMBER_ARRAYS = ("states", "rule_weights", "lex_weights", "root_weights")


def _member_key(name: str, k: int) -> str:
    return name if k == 0 else f"{name}_{k}"


def assemble(tables: SymbolTables, coarse: tuple, members: list) -> LatentGrammar:
    """The :class:`LatentGrammar` of the plain PCFG ``coarse`` (:func:`maximum_likelihood`'s
    four values) and the latent weight sets ``members``."""
    rule_prob, lex_prob, root_prob, scale = coarse
    return LatentGrammar(tables, rule_prob, lex_prob, root_prob, *members[0], scale, tuple(members[1:]))


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


def chain_lexicon(grammar: LatentGrammar) -> LatentGrammar:
    """``grammar`` with the preterminal rules its unary chains lack. A chain over a tag
    merged into one preterminal label (``VP+VB``: a verb phrase of one verb) only has the
    words training saw under that chain, so a sentence whose verb phrase is a verb never
    seen alone has no parse. Here ``X+T → w`` is added for every word ``w`` of the bare tag
    ``T`` without it, with p(w | X+T) = p(w | T) and latent weights p(w | T) Σ_x c(X+T → x)
    (the chain label's summed preterminal weights: its mean outside projection for the
    spectral grammar, 1 per state for EM's)."""
    t = grammar.tables
    parents = np.unique(t.lexical[:, 0])
    chains = {}  # bare tag label → the chain labels over it
    for a in parents.tolist():
        bare = t.label_index.get(tag_of(t.labels[a]))
        if bare is not None and bare != a:
            chains.setdefault(bare, []).append(a)
    added = [(chain, w, r) for r, (a, w) in enumerate(t.lexical.tolist()) for chain in chains.get(a, ())
             if (chain, w) not in t.lexical_index]
    if not added:
        return grammar
    rules = [(a, w) for a, w in t.lexical.tolist()] + [(chain, w) for chain, w, _ in added]
    order = np.argsort([a * len(t.words) + w for a, w in rules], kind="stable")
    tables = SymbolTables(t.labels, t.words, t.binary, np.array(rules)[order], t.known)
    source = np.array(list(range(len(t.lexical))) + [r for _, _, r in added])[order]  # the rule each copies
    is_new = order >= len(t.lexical)
    lex_prob = grammar.lex_prob[source]
    unknown = t.word_index[UNKNOWN]
    members = []
    for states, rule_weights, lex_weights, root_weights in grammar.members:
        _, _, lex_off, _, _ = layout(t, states)
        m = states.astype(np.int64)
        totals = np.zeros((len(t.labels), int(m.max())))
        for r, (a, w) in enumerate(t.lexical.tolist()):
            if w != unknown:  # its weights are the rare classes' sum (unknown_backoff)
                totals[a, :m[a]] += lex_weights[lex_off[r]:lex_off[r + 1]]
        blocks = [grammar.lex_prob[source[k]] * totals[a, :m[a]] if is_new[k] else
                  lex_weights[lex_off[source[k]]:lex_off[source[k] + 1]]
                  for k, a in enumerate(tables.lexical[:, 0].tolist())]
        members.append((states, rule_weights, np.concatenate(blocks), root_weights))
    return assemble(tables, (grammar.rule_prob, lex_prob, grammar.root_prob, grammar.binary_scale), members)
