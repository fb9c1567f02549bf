"""Weighted automata: f(x) = α0ᵀ A_{x1} ⋯ A_{xn} α∞, and the three statistics it can model.

With A = Σ_σ A_σ and a string automaton (α0, α∞, {A_σ}) for f, the same operators give
(Balle, Hamilton & Pineau 2014, §2)::

    f^p(x) = Σ_y f(xy)          = α0ᵀ A_x (I − A)⁻¹ α∞              (prefix probability)
    f^s(x) = Σ_{u,v} f(u x v)   = α0ᵀ (I − A)⁻¹ A_x (I − A)⁻¹ α∞   (expected occurrences)

so converting between representations only changes the two vectors. As a language
model the automaton is turned into a proper distribution by the non-stochastic rule of
DESIGN.md: after each prefix the next-event weights f(wσΣ*)/f(wΣ*) (alphabet and stop)
are floored at ``floor`` times their positive mass and renormalised.
"""

from __future__ import annotations

import numpy as np

from ..corpus.vocabulary import Vocabulary
from . import _kernels
from .events import FlooredEventModel

STATISTICS = ("string", "prefix", "substring")


class WeightedAutomaton(FlooredEventModel):
    """A weighted automaton over int32 symbol ids.

    Parameters
    ----------
    initial, final : (k,) arrays α0 and α∞.
    operators : (n_symbols, k, k) array indexed by symbol id; the rows of the reserved
        ids are zero (EOS must be; UNK is an ordinary event only if its row is non-zero).
    vocabulary : the Vocabulary the ids come from, optional.
    floor : the non-stochastic rule's floor, a fraction of the positive next-event mass
        (> 0 guarantees no zero probability; 0, the default, is exact for automata known to
        be stochastic). A hyper-parameter: the estimators choose it on held-out data.
    """

    kind = "weighted_automaton"

    def __init__(self, initial, final, operators, vocabulary: Vocabulary | None = None, floor: float = 0.0):
        self.initial = np.ascontiguousarray(initial, dtype=np.float64)
        self.final = np.ascontiguousarray(final, dtype=np.float64)
        self.operators = np.ascontiguousarray(operators, dtype=np.float64)
        self.vocabulary = vocabulary
        self.floor = float(floor)
        k = len(self.initial)
        if self.initial.ndim != 1 or self.final.shape != (k,):
            raise ValueError(f"initial and final must be vectors of the same length, got {self.initial.shape} and {self.final.shape}")
        if self.operators.ndim != 3 or self.operators.shape[1:] != (k, k) or self.operators.shape[0] < Vocabulary.N_RESERVED:
            raise ValueError(f"operators must have shape (n_symbols >= 2, {k}, {k}), got {self.operators.shape}")
        if np.any(self.operators[Vocabulary.EOS_ID]):
            raise ValueError("the operator of EOS (id 1) must be zero: stop is the final vector")
        if not 0.0 <= self.floor < 1.0:
            raise ValueError(f"floor must be in [0, 1), got {floor}")
        if vocabulary is not None and len(vocabulary) != self.operators.shape[0]:
            raise ValueError(f"{self.operators.shape[0]} operators for a vocabulary of {len(vocabulary)} ids")
        self._prefix_final = None

    # -- structure ---------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return len(self.initial)

    @property
    def n_symbols(self) -> int:
        return self.operators.shape[0]

    @property
    def alphabet(self) -> np.ndarray:
        """Symbol ids that are events: every real id, plus UNK when its operator is non-zero."""
        ids = np.arange(Vocabulary.N_RESERVED, self.n_symbols, dtype=np.int32)
        if np.any(self.operators[Vocabulary.UNK_ID]):
            ids = np.concatenate([[Vocabulary.UNK_ID], ids]).astype(np.int32)
        return ids

    @property
    def event_ids(self) -> np.ndarray:
        """The events of every conditional: the alphabet, then EOS (stop)."""
        return np.append(self.alphabet, np.int32(Vocabulary.EOS_ID)).astype(np.int32)

    @property
    def transition_sum(self) -> np.ndarray:
        """A = Σ_σ A_σ."""
        return self.operators.sum(axis=0)

    def _resolvent_solve(self, b: np.ndarray, transpose: bool = False) -> np.ndarray:
        """(I − A)⁻¹ b (or (I − A)⁻ᵀ b), by least squares when I − A is singular."""
        m = np.eye(self.n_states) - self.transition_sum
        if transpose:
            m = m.T
        try:
            return np.linalg.solve(m, b)
        except np.linalg.LinAlgError:
            return np.linalg.lstsq(m, b, rcond=None)[0]

    @property
    def prefix_final(self) -> np.ndarray:
        """β∞ = (I − A)⁻¹ α∞: α0ᵀ A_w β∞ = f(wΣ*), the prefix weight."""
        if self._prefix_final is None:
            self._prefix_final = self._resolvent_solve(self.final)
        return self._prefix_final

    # -- representations -----------------------------------------------------------------
    def as_statistic(self, statistic: str) -> "WeightedAutomaton":
        """From this automaton for f, the one computing f^p ("prefix") or f^s ("substring")."""
        _check_statistic(statistic)
        if statistic == "string":
            return self._with_vectors(self.initial, self.final)
        if statistic == "prefix":
            return self._with_vectors(self.initial, self.prefix_final)
        return self._with_vectors(self._resolvent_solve(self.initial, transpose=True), self.prefix_final)

    def from_statistic(self, statistic: str) -> "WeightedAutomaton":
        """Read this automaton as one for f^p or f^s and return the one for f (the inverse)."""
        _check_statistic(statistic)
        one_minus_a = np.eye(self.n_states) - self.transition_sum
        final = one_minus_a @ self.final if statistic != "string" else self.final
        initial = self.initial @ one_minus_a if statistic == "substring" else self.initial
        return self._with_vectors(initial, final)

    def _with_vectors(self, initial, final) -> "WeightedAutomaton":
        return WeightedAutomaton(initial, final, self.operators, self.vocabulary, self.floor)

    def with_floor(self, floor: float) -> "WeightedAutomaton":
        return WeightedAutomaton(self.initial, self.final, self.operators, self.vocabulary, floor)

    # -- values ----------------------------------------------------------------------------
    def value(self, x) -> float:
        """f(x), straight from the definition (may under/overflow on long strings)."""
        s = self.initial
        for sym in np.asarray(x, dtype=np.int64):
            s = s @ self.operators[sym]
        return float(s @ self.final)

    def log_value(self, x) -> tuple[float, float]:
        """(sign, log|f(x)|) computed with rescaling, like ``numpy.linalg.slogdet``."""
        x = np.asarray(x, dtype=np.int32)
        sign, logabs = _kernels.log_values(x, np.array([0, len(x)], dtype=np.int64), self.initial, self.final, self.operators)
        return float(sign[0]), float(logabs[0])

    def log_values(self, corpus) -> tuple[np.ndarray, np.ndarray]:
        """(sign, log|f(x)|) of every sequence of ``corpus`` (Numba, rescaled)."""
        self._check_ids(corpus.symbols)
        return _kernels.log_values(corpus.symbols, corpus.offsets, self.initial, self.final, self.operators)

    # -- the proper distribution --------------------------------------------------------------
    def _event_arrays(self):
        events = self.event_ids
        beta = self.prefix_final
        cols = [self.operators[x] @ beta for x in events[:-1]] + [self.final]
        column = np.full(self.n_symbols, -1, dtype=np.int32)
        column[events] = np.arange(len(events), dtype=np.int32)
        return np.ascontiguousarray(np.stack(cols, axis=1)), events, column

    def next_symbol_weights(self, prefix) -> tuple[np.ndarray, np.ndarray]:
        """(event_ids, raw weights f(wσΣ*)/f(wΣ*)) after ``prefix`` — before flooring."""
        s = self.initial.copy()
        for x in np.asarray(prefix, dtype=np.int64):
            s = s @ self.operators[x]
        matrix, events, _ = self._event_arrays()
        return events, (s @ matrix) / (s @ self.prefix_final)

    def next_symbol_distribution(self, prefix) -> tuple[np.ndarray, np.ndarray]:
        """(event_ids, probabilities) of the next event after ``prefix``: floored, normalised."""
        prefix = np.asarray(prefix, dtype=np.int32)
        self._check_ids(prefix)
        matrix, events, _ = self._event_arrays()
        probs, _ = _kernels.prefix_conditional(prefix, self.initial, self.operators, self.prefix_final, matrix, self.floor)
        return events, probs

    def _event_pass(self, corpus, matrix, events, column, out):
        return _kernels.event_log_probs(corpus.symbols, corpus.offsets, self.initial, self.operators, self.prefix_final,
                                        matrix, events, column, self.floor, out)

    def held_out_sweep(self, corpus, floors: np.ndarray, partner_log_prob: np.ndarray,
                       mix_weights: np.ndarray) -> np.ndarray:
        """Total log-likelihood of ``corpus`` under every floor × mixture weight, one compiled
        pass over its distinct events (``seqspectral.automata.floor_sweep`` says what the table holds)."""
        from .floor_sweep import candidate_accumulators, distinct_sequences, log_likelihoods

        self._check_ids(corpus.symbols)
        matrix, _, column = self._event_arrays()
        representatives, counts = distinct_sequences(corpus)
        accumulators = candidate_accumulators(len(floors), len(mix_weights))
        n_missing = _kernels.held_out_sweep(corpus.symbols, corpus.offsets, representatives, counts,
                                            self.initial, self.operators, self.prefix_final, matrix, column,
                                            floors, partner_log_prob, mix_weights, *accumulators)
        if n_missing:
            raise ValueError(f"{n_missing} tokens have ids outside the model's alphabet; "
                             "encode the corpus with the model's vocabulary")
        return log_likelihoods(*accumulators)

    def _check_ids(self, ids: np.ndarray) -> None:
        if len(ids) and (ids.min() < 0 or ids.max() >= self.n_symbols):
            raise ValueError(f"symbol ids must be in [0, {self.n_symbols}), got range [{ids.min()}, {ids.max()}]")

    # -- stochastic automata --------------------------------------------------------------------
    @classmethod
    def random_stochastic(cls, n_states: int, n_alphabet: int, stop=(0.1, 0.5), random_state=None) -> "WeightedAutomaton":
        """A random probabilistic automaton (PFA) over ids 2..n_alphabet+1, for tests and demos.

        State q stops with a probability drawn uniformly in ``stop``, else emits σ and moves
        to q' with Dirichlet(1) probabilities; so f is a distribution over strings.
        """
        rng = np.random.default_rng(random_state)
        final = rng.uniform(*stop, size=n_states)
        moves = rng.dirichlet(np.ones(n_alphabet * n_states), size=n_states) * (1.0 - final)[:, None]
        operators = np.zeros((n_alphabet + Vocabulary.N_RESERVED, n_states, n_states))
        operators[Vocabulary.N_RESERVED:] = moves.reshape(n_states, n_alphabet, n_states).transpose(1, 0, 2)
        return cls(rng.dirichlet(np.ones(n_states)), final, operators, floor=0.0)

    def sample(self, n_sequences: int, random_state=None, max_length: int = 10_000):
        """Draw strings from a stochastic automaton (non-negative, rows of [A_σ…, α∞] summing to 1)."""
        from ..corpus import Corpus

        rows = np.concatenate([self.final[:, None], self.operators.transpose(1, 0, 2).reshape(self.n_states, -1)], axis=1)
        if np.any(rows < 0) or np.any(self.initial < 0) or not np.allclose(rows.sum(axis=1), 1.0) \
                or not np.isclose(self.initial.sum(), 1.0):
            raise ValueError("sampling needs a stochastic automaton")
        rng = np.random.default_rng(random_state)
        cumulative = np.cumsum(rows, axis=1)
        cumulative /= cumulative[:, -1:]
        state = rng.choice(self.n_states, size=n_sequences, p=self.initial / self.initial.sum())
        active = np.arange(n_sequences)
        sequences = [[] for _ in range(n_sequences)]
        for _ in range(max_length):  # all live sequences advance one step at a time
            if len(active) == 0:
                break
            u = rng.random(len(active))
            j = np.minimum((cumulative[state[active]] <= u[:, None]).sum(axis=1), rows.shape[1] - 1)
            going = j > 0
            symbol, state[active[going]] = np.divmod(j[going] - 1, self.n_states)
            for i, x in zip(active[going], symbol):
                sequences[i].append(x)
            active = active[going]
        return Corpus.from_ids(sequences, self.vocabulary)

    # -- persistence (``seqspectral.serialize``) -------------------------------------------------
    def to_state(self) -> tuple[dict, dict]:
        header = {"floor": self.floor, "vocabulary": None if self.vocabulary is None else self.vocabulary.to_json()}
        return header, {"initial": self.initial, "final": self.final, "operators": self.operators}

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Member, Schema, vocabulary_size

        vocab = header["vocabulary"]
        return Schema({"initial": Member("f", ("n_states",)), "final": Member("f", ("n_states",)),
                       "operators": Member("f", ("n_ids", "n_states", "n_states"))},
                      {} if vocab is None else {"n_ids": vocabulary_size(vocab)})

    @classmethod
    def from_state(cls, header: dict, arrays: dict) -> "WeightedAutomaton":
        vocab = header["vocabulary"]
        return cls(arrays["initial"], arrays["final"], arrays["operators"],
                   None if vocab is None else Vocabulary.from_json(vocab), header["floor"])


def _check_statistic(statistic: str) -> None:
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
