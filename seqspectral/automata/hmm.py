"""Hidden Markov models of finite strings: π, T, O and stop probabilities.

Generative process: draw the first state from ``initial``; in state ``h`` stop with
probability ``stop[h]``, otherwise emit symbol ``σ`` with probability ``emissions[h, σ]``
and move to state ``h'`` with probability ``transitions[h, h']``. So
``emissions[h].sum() + stop[h] = 1`` and

    p(x) = initialᵀ D_{x1} T D_{x2} T ⋯ D_{xn} T stop,   D_σ = diag(emissions[:, σ]),

i.e. a weighted automaton with operators ``A_σ = D_σ T`` (``to_automaton``). This is
exactly an HMM over strings followed by an explicit end symbol whose emission
probability is ``stop``.
"""

from __future__ import annotations

import numpy as np

from ..corpus.sequences import Corpus
from ..corpus.vocabulary import Vocabulary
from . import _hmm_kernels
from .events import FlooredEventModel

EOS = Vocabulary.EOS_ID


class HMM(FlooredEventModel):
    """An HMM over int32 symbol ids (ids 0 = UNK and 1 = EOS never emitted; stop is ``stop``).

    Parameters
    ----------
    initial : (k,) initial state distribution π.
    transitions : (k, k) row-stochastic, ``transitions[i, j] = P(j | i)``.
    emissions : (k, n_symbols) by symbol id, ``emissions[h, σ] = P(emit σ | h)``.
    stop : (k,) stopping probabilities, ``emissions.sum(1) + stop = 1``.
    vocabulary : the Vocabulary of the ids, optional.
    floor : as a language model, each next-event probability is floored at ``floor`` times
        the total and renormalised (the rule of ``WeightedAutomaton``), so events the HMM
        never emits (a symbol unseen in training) keep a small probability; 0 = exact. Its
        conditionals take memory O(V·k + k²) whatever the vocabulary.
    """

    kind = "hmm"

    def __init__(self, initial, transitions, emissions, stop, vocabulary: Vocabulary | None = None, floor: float = 0.0):
        self.initial = np.ascontiguousarray(initial, dtype=np.float64)
        self.transitions = np.ascontiguousarray(transitions, dtype=np.float64)
        self.emissions = np.ascontiguousarray(emissions, dtype=np.float64)
        self.stop = np.ascontiguousarray(stop, dtype=np.float64)
        self.vocabulary = vocabulary
        self.floor = float(floor)
        k = len(self.initial)
        if self.transitions.shape != (k, k) or self.stop.shape != (k,) or self.emissions.ndim != 2 or self.emissions.shape[0] != k:
            raise ValueError(f"inconsistent HMM shapes: initial {self.initial.shape}, transitions {self.transitions.shape}, "
                             f"emissions {self.emissions.shape}, stop {self.stop.shape}")
        if self.emissions.shape[1] < Vocabulary.N_RESERVED or np.any(self.emissions[:, EOS]):
            raise ValueError("emissions need a column per symbol id with EOS (id 1) zero: stopping is `stop`")
        if vocabulary is not None and len(vocabulary) != self.emissions.shape[1]:
            raise ValueError(f"{self.emissions.shape[1]} emission columns for a vocabulary of {len(vocabulary)} ids")
        if min(self.initial.min(), self.transitions.min(), self.emissions.min(), self.stop.min()) < 0:
            raise ValueError("HMM probabilities must be non-negative")
        for name, sums in (("initial", self.initial.sum(keepdims=True)), ("transitions", self.transitions.sum(1)),
                           ("emissions + stop", self.emissions.sum(1) + self.stop)):
            if not np.allclose(sums, 1.0, atol=1e-8):
                raise ValueError(f"HMM {name} must sum to 1 (per state)")

    @property
    def n_states(self) -> int:
        return len(self.initial)

    @property
    def n_symbols(self) -> int:
        return self.emissions.shape[1]

    def extended_emissions(self) -> np.ndarray:
        """(k, n_symbols) emissions with the stop probabilities in the EOS column: rows sum to 1."""
        out = self.emissions.copy()
        out[:, EOS] = self.stop
        return out

    def with_floor(self, floor: float) -> "HMM":
        """The same HMM with another language-model floor."""
        return HMM(self.initial, self.transitions, self.emissions, self.stop, self.vocabulary, floor)

    def with_vocabulary(self, vocabulary) -> "HMM":
        """The same HMM over ``vocabulary`` (checked against the emission columns)."""
        return HMM(self.initial, self.transitions, self.emissions, self.stop, vocabulary, self.floor)

    @property
    def event_ids(self) -> np.ndarray:
        """The events of every conditional: every emitted id (UNK only if emitted), then EOS."""
        ids = np.arange(Vocabulary.N_RESERVED, self.n_symbols)
        if np.any(self.emissions[:, Vocabulary.UNK_ID]):
            ids = np.concatenate([[Vocabulary.UNK_ID], ids])
        return np.append(ids, EOS).astype(np.int32)

    def to_automaton(self, floor: float | None = None):
        """The equivalent ``WeightedAutomaton``: α0 = π, α∞ = stop, A_σ = diag(O[:, σ]) T
        (with this HMM's ``floor`` unless another is given)."""
        from .wfa import WeightedAutomaton

        operators = self.emissions.T[:, :, None] * self.transitions[None, :, :]
        return WeightedAutomaton(self.initial, self.stop, operators, self.vocabulary, self.floor if floor is None else floor)

    # -- scoring ---------------------------------------------------------------------------
    def _event_arrays(self):
        events = self.event_ids
        column = np.full(self.n_symbols, -1, dtype=np.int32)
        column[events] = np.arange(len(events), dtype=np.int32)
        return np.ascontiguousarray(self.extended_emissions()[:, events]), events, column

    def _event_pass(self, corpus, matrix, events, column, out):
        return _hmm_kernels.event_log_probs(corpus.symbols, corpus.offsets, self.initial, self.transitions, matrix,
                                            events, column, self.floor, out)

    def sequence_log_probs(self, corpus) -> np.ndarray:
        """Natural-log probability of every sequence: the exact scaled forward pass (Numba)
        when ``floor`` is 0, else the product of the floored conditionals."""
        if self.floor > 0:
            return super().sequence_log_probs(corpus)
        return self.exact_log_probs(corpus)

    def exact_log_probs(self, corpus) -> np.ndarray:
        """Natural-log probability of every sequence under the HMM itself (no floor)."""
        self._check_ids(corpus.symbols)
        return _hmm_kernels.log_likelihoods(corpus.symbols, corpus.offsets, EOS, self.initial,
                                            self.transitions, self.extended_emissions())

    def _check_ids(self, ids) -> None:
        if len(ids) and (ids.min() < 0 or ids.max() >= self.n_symbols):
            raise ValueError(f"symbol ids must be in [0, {self.n_symbols}), got range [{ids.min()}, {ids.max()}]")

    # -- sampling -----------------------------------------------------------------------------
    def sample(self, n_sequences: int, random_state=None, max_length: int = 10_000) -> Corpus:
        """``n_sequences`` strings drawn from the model (all simulated together, step by step)."""
        rng = np.random.default_rng(random_state)
        cum_emit = np.cumsum(self.extended_emissions(), axis=1)
        cum_trans = np.cumsum(self.transitions, axis=1)
        state = _draw(np.cumsum(self.initial)[None, :].repeat(n_sequences, 0), rng)
        alive = np.arange(n_sequences)
        steps = []  # (sequence indices, symbols) per time step
        for _ in range(max_length):
            if not len(alive):
                break
            x = _draw(cum_emit[state], rng)
            going = x != EOS
            alive, state, x = alive[going], state[going], x[going]
            steps.append((alive, x))
            state = _draw(cum_trans[state], rng)
        else:
            raise ValueError(f"sampled strings longer than max_length={max_length}")
        lengths = np.zeros(n_sequences, dtype=np.int64)
        for idx, _ in steps:
            lengths[idx] += 1
        offsets = np.zeros(n_sequences + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        symbols = np.empty(offsets[-1], dtype=np.int32)
        for t, (idx, x) in enumerate(steps):
            symbols[offsets[idx] + t] = x
        return Corpus(symbols, offsets, self.vocabulary)

    # -- persistence (``seqspectral.serialize``) -------------------------------------------------
    def to_state(self) -> tuple[dict, dict]:
        header = {"floor": self.floor, "vocabulary": None if self.vocabulary is None else self.vocabulary.to_json()}
        return header, {"initial": self.initial, "transitions": self.transitions, "emissions": self.emissions,
                        "stop": self.stop}

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Member, Schema, vocabulary_size

        vocab = header["vocabulary"]
        return Schema({"initial": Member("f", ("n_states",)), "transitions": Member("f", ("n_states", "n_states")),
                       "emissions": Member("f", ("n_states", "n_ids")), "stop": Member("f", ("n_states",))},
                      {} if vocab is None else {"n_ids": vocabulary_size(vocab)})

    @classmethod
    def from_state(cls, header: dict, arrays: dict) -> "HMM":
        vocab = header["vocabulary"]
        return cls(arrays["initial"], arrays["transitions"], arrays["emissions"], arrays["stop"],
                   None if vocab is None else Vocabulary.from_json(vocab), header["floor"])


def _draw(cumulative: np.ndarray, rng) -> np.ndarray:
    """One index per row of a matrix of cumulative distributions."""
    u = rng.random(len(cumulative)) * cumulative[:, -1]
    return np.minimum((cumulative < u[:, None]).sum(1), cumulative.shape[1] - 1)
