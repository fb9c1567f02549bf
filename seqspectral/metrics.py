"""Evaluation metrics, pure functions: perplexity, WER, PAutomaC score, per-sequence sums.

They read the per-event arrays of the sequence-model protocol (``seqspectral.protocols``):
one entry per *event*, the tokens of each sequence followed by one stop event (id
``Vocabulary.EOS_ID``), so sequence ``i`` owns events ``offsets[i] + i`` to
``offsets[i + 1] + i`` inclusive.
"""

from __future__ import annotations

import numpy as np

from .corpus.vocabulary import Vocabulary


def event_targets(corpus) -> np.ndarray:
    """The actual event ids of ``corpus``: each sequence's tokens, then ``EOS_ID``."""
    n = len(corpus)
    out = np.full(corpus.n_tokens + n, Vocabulary.EOS_ID, dtype=np.int32)
    out[token_event_index(corpus)] = corpus.symbols
    return out


def token_event_index(corpus) -> np.ndarray:
    """Event index of every token (tokens of sequence i are shifted by i stop events)."""
    return np.arange(corpus.n_tokens) + np.repeat(np.arange(len(corpus)), corpus.lengths)


def sequence_log_probs(log_prob: np.ndarray, corpus) -> np.ndarray:
    """Per-sequence log-probabilities: the sum of each sequence's event log-probabilities."""
    log_prob = np.asarray(log_prob, dtype=np.float64)
    if len(log_prob) != corpus.n_tokens + len(corpus):
        raise ValueError(f"expected {corpus.n_tokens + len(corpus)} events, got {len(log_prob)}")
    starts = corpus.offsets[:-1] + np.arange(len(corpus))
    return np.add.reduceat(log_prob, starts) if len(corpus) else np.zeros(0)


def perplexity(log_prob: np.ndarray) -> float:
    """exp(-mean event log-probability) = 2^(-(1/T) Σ log2 p), T = tokens + stops."""
    log_prob = np.asarray(log_prob, dtype=np.float64)
    return float(np.exp(-log_prob.mean()))


def wer(predicted: np.ndarray, corpus) -> float:
    """Fraction of events (every prefix, the empty one included) whose prediction is wrong."""
    targets = event_targets(corpus)
    predicted = np.asarray(predicted)
    if predicted.shape != targets.shape:
        raise ValueError(f"expected {len(targets)} predictions, got {predicted.shape}")
    return float(np.mean(predicted != targets))


def pautomac_score(model_probs: np.ndarray, true_probs: np.ndarray, log: bool = False) -> float:
    """PAutomaC score 2^(-Σ_x p̄T(x) log2 p̄M(x)), both distributions normalised over the test set.

    With ``log=True`` ``model_probs`` are natural-log probabilities (no underflow).
    """
    t = np.asarray(true_probs, dtype=np.float64)
    m = np.asarray(model_probs, dtype=np.float64)
    if t.shape != m.shape:
        raise ValueError(f"{len(m)} model probabilities for {len(t)} reference ones")
    if not log:
        if np.any(m < 0) or not np.all(np.isfinite(m)):
            raise ValueError("model probabilities must be finite and non-negative")
        with np.errstate(divide="ignore"):
            m = np.log(m)
    log_norm = np.logaddexp.reduce(m)
    t = t / t.sum()
    cross = -np.sum(t * (m - log_norm)) / np.log(2.0)
    return float(2.0 ** cross)


def evaluate(model, corpus, solution: np.ndarray | None = None) -> dict:
    """Perplexity, WER and (given PAutomaC's true probabilities) the PAutomaC score."""
    events = model.event_log_probs(corpus)
    return event_report(events[0], events[1], corpus, solution)


def event_report(log_prob: np.ndarray, predicted: np.ndarray, corpus, solution: np.ndarray | None = None) -> dict:
    """``evaluate`` from a model's per-event log-probabilities and predictions on ``corpus``."""
    pscore = None
    if solution is not None:
        if len(solution) != len(corpus):
            raise ValueError(f"the solution has {len(solution)} probabilities for {len(corpus)} test sequences")
        pscore = pautomac_score(sequence_log_probs(log_prob, corpus), solution, log=True)
    return {
        "perplexity": perplexity(log_prob),
        "wer": wer(predicted, corpus),
        "pautomac_score": pscore,
        "n_sequences": len(corpus),
        "n_tokens": corpus.n_tokens,
    }
