"""The methods of ``seqspectral lm train``: one estimator each, with the shared defaults.

:func:`make_estimator` is the one place a method name becomes an estimator, so the
command line, ``train_lm`` and the benchmarks build the same learner for the same method.
"""

from __future__ import annotations

#: method -> what it is, in one line (the command line's help)
METHODS = {
    "spectral": "spectral weighted automaton, SVD of the Hankel matrix of string probabilities",
    "spectral-prefix": "spectral weighted automaton from prefix probabilities",
    "spectral-substring": "spectral weighted automaton from expected substring counts (the best spectral variant)",
    "convex": "weighted automaton by nuclear-norm regularisation (ADMM), regularisation chosen on held-out data",
    "tensor": "HMM by whitening and the robust tensor power method (at most |alphabet| states)",
    "em": "HMM by Baum-Welch EM from random starts",
    "em-tensor": "HMM by Baum-Welch EM started from the tensor HMM",
    "ngram": "add-k smoothed n-gram (--order), k chosen on held-out data",
    "unigram": "add-k smoothed unigram",
}
SPECTRAL_STATISTIC = {"spectral": "string", "spectral-prefix": "prefix", "spectral-substring": "substring"}


def make_estimator(method: str, n_states="auto", *, basis_length: int | None = None, random_state=0,
                   max_iter: int | None = None, order: int = 3, progress: bool = False):
    """The estimator of ``method``: ``n_states`` (or "auto"), the Hankel basis length (the
    method's default when None), the cap on EM iterations (``max_iter``), the n-gram ``order``."""
    basis = {} if basis_length is None else {"basis_length": basis_length}
    if method in SPECTRAL_STATISTIC:
        from ..automata import SpectralWA

        return SpectralWA(n_states, statistic=SPECTRAL_STATISTIC[method], random_state=random_state, progress=progress,
                          **basis)
    if method == "convex":
        from ..automata import ConvexWA

        if n_states != "auto":
            raise ValueError("--method convex chooses its regularisation, not a number of states: use --states auto")
        return ConvexWA("auto", random_state=random_state, progress=progress, **basis)
    if method == "tensor":
        from ..automata import TensorHMM

        return TensorHMM(n_states, random_state=random_state, progress=progress, **basis)
    if method in ("em", "em-tensor"):
        from ..automata import BaumWelchHMM

        iterations = {} if max_iter is None else {"max_iter": max_iter}
        return BaumWelchHMM(n_states, init="tensor" if method == "em-tensor" else "random", random_state=random_state,
                            progress=progress, **iterations)
    if method in ("ngram", "unigram"):
        from .ngram import NGramLM

        return NGramLM(order if method == "ngram" else 1, random_state=random_state)
    raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
