"""The EM twin of the spectral L-PCFG: the same binarised grammar and latent states,
trained by inside–outside EM on the treebank's trees (Matsuzaki, Miyao & Tsujii 2005).

Every label has ``n_states`` states; EM starts from the plain PCFG with each rule's
probability spread evenly over the children's states and perturbed by ±``noise`` (relative,
seeded), and stops after ``max_iter`` iterations or when the log-likelihood of the
training trees gains less than ``tol`` (relative). ``n_states="auto"``: chosen by held-out
labelled F1 among :data:`~seqspectral.selection.LATENT_STATE_GRID`'s values up to
``max_states`` (:meth:`.estimator.GrammarEstimator._select`). The E-step is
:func:`._kernels.tree_expected_counts`, built on the products the parser uses.
"""

from __future__ import annotations

import numpy as np

from ..base import either, integer, one_of, real, seed
from . import _kernels
from .encoding import UNKNOWN
from .estimator import GrammarEstimator
from .grammar import unknown_backoff
from .moments import layout


class EMLPCFG(GrammarEstimator):
    """A latent-variable PCFG trained by EM (module docstring)."""

    kind = "em_lpcfg"
    _parameter_checks = {**GrammarEstimator._parameter_checks, "n_states": either(one_of("auto"), integer(1, 256)),
                         "max_states": integer(1, 256), "max_iter": integer(0), "tol": real(0.0),
                         "noise": real(0.0, 1.0, open_high=True), "random_state": seed}

    def __init__(self, n_states=8, *, max_states: int = 16, max_iter: int = 50, tol: float = 1e-5,
                 noise: float = 0.1, vertical: int = 1, horizontal: int | None = 0, rare: int = 1,
                 threshold: float = 1e-4, random_state=0):
        self.n_states = n_states
        self.max_states = max_states
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.vertical = vertical
        self.horizontal = horizontal
        self.rare = rare
        self.threshold = threshold
        self.random_state = random_state

    def _latent_weights(self, source, counts, tables, coarse, dev):
        from ..selection import LATENT_STATE_GRID

        runs = {}

        def candidates(part, part_counts, part_tables, part_coarse):
            def weights(n_states):
                out, runs[n_states] = self._em(part, part_counts, part_tables, part_coarse, n_states)
                return [out]
            return weights

        if self.n_states != "auto":
            members = candidates(source, counts, tables, coarse)(self.n_states)
        else:
            grid = {"n_states": [m for m in LATENT_STATE_GRID if m <= self.max_states]}
            members = self._select(source, counts, tables, coarse, dev, grid, candidates)
        chosen = int(members[0][0].max())
        history, self.converged_ = runs[chosen]
        self.history_ = np.array(history)
        self.n_iter_ = len(history)
        return members

    def _em(self, source, counts, tables, coarse, n_states):
        """EM from the perturbed plain PCFG: ((states, rule, lex, root weights), (log-likelihoods, converged))."""
        rule_prob, lex_prob, root_prob, _ = coarse
        states = np.full(len(tables.labels), n_states, np.int32)
        lay = layout(tables, states)
        _, rule_off, lex_off, state_off, _ = lay
        rng = np.random.default_rng(self.random_state)
        m = states.astype(np.int64)
        b = tables.binary
        spread = rule_prob / (m[b[:, 1]] * m[b[:, 2]])
        rule_w = np.repeat(spread, np.diff(rule_off)) * (1 + self.noise * rng.uniform(-1, 1, rule_off[-1]))
        lex = np.where(tables.lexical[:, 1] == tables.word_index[UNKNOWN], 0.0, lex_prob)
        lex_w = np.repeat(lex, np.diff(lex_off)) * (1 + self.noise * rng.uniform(-1, 1, lex_off[-1]))
        _kernels.normalise_by_parent(b[:, 0].copy(), b[:, 1].copy(), b[:, 2].copy(), tables.lexical[:, 0].copy(),
                                     states, state_off, rule_off, lex_off, rule_w, lex_w, 0.0)
        root_w = np.repeat(root_prob / m, m)
        tb = source.encoded(tables).treebank
        history = []
        converged = False
        for _ in range(self.max_iter):
            rule_c, lex_c, root_c = np.zeros_like(rule_w), np.zeros_like(lex_w), np.zeros_like(root_w)
            ll = _kernels.tree_expected_counts(tb.label, tb.rule, tb.left, tb.right, tb.offsets, states, state_off,
                                               rule_off, rule_w, lex_off, lex_w, root_w, rule_c, lex_c, root_c)
            history.append(ll)
            _kernels.normalise_by_parent(b[:, 0].copy(), b[:, 1].copy(), b[:, 2].copy(),
                                         tables.lexical[:, 0].copy(), states, state_off, rule_off, lex_off, rule_c,
                                         lex_c, 1e-12)
            rule_w, lex_w, root_w = rule_c, lex_c, root_c / max(counts.n_trees, 1)
            if len(history) > 1 and history[-1] - history[-2] < self.tol * abs(history[-2]):
                converged = True
                break
        return (states, rule_w, unknown_backoff(tables, lex_w, states), root_w), (history, converged)

    def _extra_state(self) -> dict:
        return {"n_iter_run": self.n_iter_, "converged": self.converged_, "history": list(map(float, self.history_))}

    @classmethod
    def _extra_from_state(cls, header: dict) -> dict:
        return {"n_iter_": header["n_iter_run"], "converged_": header["converged"],
                "history_": np.array(header["history"], dtype=np.float64)}
