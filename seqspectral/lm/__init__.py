"""Language models behind ``seqspectral lm``: the method registry, state selection,
unknown symbols and model files.

Unknown symbols. A model's vocabulary is its training corpus's; a symbol it never saw is
read as UNK (id 0). Every trained model is wrapped in :class:`UnknownEscape`, which gives
UNK a fixed probability ε after every history (the Good-Turing estimate of unseen mass in
the training data, n1/(N+1), at least 1/(N+1)) and scales the base model's conditionals by 1 − ε.
The history seen by the base model skips unknown tokens, so each conditional stays a
proper distribution over UNK, the alphabet and stop; the base models themselves never see
id 0. No whole-string floor is ever applied.

Model files are those of the base model (``seqspectral.serialize``: .npz + JSON header)
with an ``lm`` entry in the header (method, hyper-parameters, ε, state selection,
training data); :func:`load_lm` dispatches on the header's ``kind``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..corpus import Corpus, Vocabulary
from ..metrics import event_report, sequence_log_probs, token_event_index
from .mixture import Interpolated, counts_floored, select_weight
from ..serialize import ModelFileError, load_model, save_model

#: methods of ``lm train``: the seven learners of DESIGN.md and two n-gram references
METHODS = ("spectral", "spectral-prefix", "spectral-substring", "convex", "tensor", "em", "em-tensor", "ngram", "unigram")
HELD_OUT_FRACTION = 0.1
STATE_GRID = (2, 4, 8, 12, 16, 24, 32, 48, 64)  # tensor methods: the sizes up to |Σ|
EM_STATE_GRID = (4, 8, 16, 32, 64)  # plain EM: fewer, each run costs up to n_iter full passes


class LanguageModelError(ValueError):
    """Bad usage or input of the language-model layer (the command line exits with 2)."""

    user_facing = True


class UnknownEscape:
    """A base language model made total over UNK: p(UNK | h) = ε, p(e | h) = (1 − ε) p_base(e | h').

    ``h'`` is the history with unknown tokens removed. Follows the event protocol of
    :mod:`seqspectral.metrics`; ``event_log_probs(corpus, return_n_floored=True)`` also
    returns the base model's count of floored next-event weights and of all weights
    (0 and 0 for models that are stochastic by construction).
    """

    def __init__(self, model, unknown_probability: float):
        if not 0.0 < unknown_probability < 1.0:
            raise ValueError(f"unknown_probability must be in (0, 1), got {unknown_probability}")
        self.model = model
        self.unknown_probability = float(unknown_probability)

    def event_log_probs(self, corpus: Corpus, return_n_floored: bool = False):
        unknown = corpus.symbols == Vocabulary.UNK_ID
        known_corpus = drop_unknown(corpus)
        if return_n_floored and counts_floored(self.model):
            log_prob, predicted, n_floored, n_weights = self.model.event_log_probs(known_corpus, return_n_floored=True)
        else:
            (log_prob, predicted), n_floored, n_weights = self.model.event_log_probs(known_corpus), 0, 0
        log_prob = log_prob + np.log1p(-self.unknown_probability)
        if unknown.any():
            event_unknown = np.zeros(corpus.n_tokens + len(corpus), dtype=bool)
            event_unknown[token_event_index(corpus)] = unknown
            # index of the base-model event at the same history: the next known event
            base_index = np.cumsum(~event_unknown) - (~event_unknown)
            log_prob = np.where(event_unknown, np.log(self.unknown_probability), log_prob[base_index])
            predicted = predicted[base_index]
        if return_n_floored:
            return log_prob, predicted, n_floored, n_weights
        return log_prob, predicted

    def sequence_log_probs(self, corpus: Corpus) -> np.ndarray:
        return sequence_log_probs(self.event_log_probs(corpus)[0], corpus)

    def score(self, corpus: Corpus) -> float:
        return float(self.sequence_log_probs(corpus).mean())


def unknown_probability(corpus: Corpus) -> float:
    """Good-Turing mass of unseen symbols: n1 / (N + 1), at least 1 / (N + 1), with n1 the
    number of symbols seen once and N the number of tokens."""
    n = max(corpus.n_tokens, 1)
    counts = np.bincount(corpus.symbols, minlength=Vocabulary.N_RESERVED)[Vocabulary.N_RESERVED:]
    return float(max(int(np.sum(counts == 1)), 1) / (n + 1))


# -- the registry ------------------------------------------------------------------------
@dataclass
class TrainedLM:
    """A trained model with everything its file records."""

    model: UnknownEscape
    method: str
    params: dict
    vocabulary: Vocabulary
    selection: dict = field(default_factory=dict)
    training: dict = field(default_factory=dict)


def _held_out_split(train: Corpus, dev: Corpus | None, random_state):
    """(fit part, held-out part, description): dev when given, else 10% of train."""
    if dev is not None and len(dev):
        return train, drop_unknown(dev), "dev"
    if len(train) < 10:
        return train, train, "train (too small to hold out)"
    fit_part, held = train.split(HELD_OUT_FRACTION, random_state=random_state)
    return fit_part, held, f"held-out {HELD_OUT_FRACTION:.0%} of train"


def drop_unknown(corpus: Corpus) -> Corpus:
    """``corpus`` without its unknown tokens (the histories a base model sees)."""
    keep = corpus.symbols != Vocabulary.UNK_ID
    if keep.all():
        return corpus
    removed_before = np.concatenate([[0], np.cumsum(~keep)])[corpus.offsets]
    return Corpus(corpus.symbols[keep], corpus.offsets - removed_before, corpus.vocabulary)


def train_lm(
    train: Corpus,
    method: str,
    n_states="auto",
    dev: Corpus | None = None,
    basis_length: int | None = None,
    random_state=0,
    verbose: bool = False,
    order: int = 3,
    n_iter: int | None = None,
    mix_order: int | None = 2,
) -> TrainedLM:
    """Fit ``method`` on ``train``, every choice made by held-out log-likelihood.

    The held-out data is ``dev`` when given, else a random 10% of ``train`` (the model is
    then refitted on all of ``train`` with the chosen values). Chosen there: the number of
    states (``n_states="auto"``; the regularisation for ``convex``), the floor of the
    non-stochastic rule, the n-gram smoothing k and — for every learner when ``mix_order``
    is set — the weight λ of an add-k ``mix_order``-gram mixed in (λ = 1, no mixing, is
    one of the candidates). ``order`` is the n-gram order of ``method="ngram"``,
    ``n_iter`` caps EM iterations (``em``, ``em-tensor``).
    """
    from .ngram import NGramLM, select_k

    if method not in METHODS:
        raise LanguageModelError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if train.vocabulary is None or len(train) == 0 or train.n_tokens == 0:
        raise LanguageModelError("the training corpus is empty or has no vocabulary")
    n_ids = len(train.vocabulary)
    fit_part, held, where = _held_out_split(train, dev, random_state)
    if method in ("ngram", "unigram"):
        n = order if method == "ngram" else 1
        k = select_k(n, fit_part, held, n_ids=n_ids)
        model = NGramLM(order=n, k=k).fit(train, n_ids=n_ids)
        params, selection = model.get_params(), {"on": where, "k": k}
    else:
        learner = _Learner(method, basis_length, random_state, verbose, n_iter)
        model, params, selection = learner.select(fit_part, held, n_states)
        selection["on"] = where
        lower = None
        if mix_order:
            k = select_k(mix_order, fit_part, held, n_ids=n_ids)
            lower = NGramLM(order=mix_order, k=k).fit(fit_part, n_ids=n_ids)
            weight = select_weight(model.event_log_probs(held)[0], lower.event_log_probs(held)[0])
            selection["mixture"] = {"order": mix_order, "k": k, "weight": weight}
        if fit_part is not train:
            model = learner.refit(train, params)
            lower = lower and NGramLM(order=mix_order, k=lower.k).fit(train, n_ids=n_ids)
        if lower is not None and selection["mixture"]["weight"] < 1.0:
            model = Interpolated(model, lower, selection["mixture"]["weight"])
    return TrainedLM(UnknownEscape(model, unknown_probability(train)), method, params, train.vocabulary, selection,
                     {"n_sequences": len(train), "n_tokens": train.n_tokens})


class _Learner:
    """Builds, selects and refits the estimators of ``seqspectral.automata`` for one method."""

    HANKEL = {"spectral": "string", "spectral-prefix": "prefix", "spectral-substring": "substring", "convex": "substring"}

    def __init__(self, method, basis_length, random_state, verbose, n_iter):
        self.method, self.basis_length, self.random_state = method, basis_length, random_state
        self.verbose, self.n_iter = verbose, n_iter

    def estimator(self, **values):
        if self.method in self.HANKEL:
            kw = {"random_state": self.random_state, **values}
            if self.basis_length is not None:
                kw["basis_length"] = self.basis_length
            if self.method == "convex":
                from .automata.convex import ConvexWA

                return ConvexWA(**kw)
            from .automata.spectral import SpectralWA

            return SpectralWA(statistic=self.HANKEL[self.method], **kw)
        if self.method == "tensor":
            from .automata.tensor_hmm import TensorHMM

            kw = {} if self.basis_length is None else {"max_length": self.basis_length}
            return TensorHMM(random_state=self.random_state, **values, **kw)
        from .automata.baum_welch import BaumWelchHMM

        kw = {} if self.n_iter is None else {"n_iter": self.n_iter}
        return BaumWelchHMM(init="tensor" if self.method == "em-tensor" else "random",
                            random_state=self.random_state, progress=self.verbose, **values, **kw)

    def select(self, fit_part: Corpus, held: Corpus, n_states):
        """(model, JSON parameters with the chosen values, selection record)."""
        if self.method in self.HANKEL:
            if self.method == "convex":
                if n_states != "auto":
                    raise LanguageModelError("--method convex chooses its regularisation, not a number of states: use --states auto")
                est = self.estimator(regularization="auto", floor="auto")
            else:
                est = self.estimator(n_states=n_states, floor="auto")
            est.fit(fit_part, dev=held)
            swept = type(est)._swept
            chosen = {swept: _plain(getattr(est, swept + "_")), "floor": est.floor_}
            return _fitted_model(est), {**_json_params(est), **chosen}, dict(chosen)
        if n_states != "auto":
            est = self.estimator(n_states=int(n_states)).fit(fit_part)
            return _fitted_model(est), _json_params(est), {"n_states": int(n_states)}
        n_alphabet = len(fit_part.vocabulary) - Vocabulary.N_RESERVED
        scores, best, failures = {}, None, {}
        for n in _progress(state_grid(self.method, n_alphabet), self.verbose, f"{self.method}: states"):
            try:
                est = self.estimator(n_states=n).fit(fit_part)
            except ValueError as e:  # e.g. a moment matrix of rank < n: this size cannot be learned
                failures[n] = str(e)
                continue
            scores[n] = float(_fitted_model(est).score(held))
            if best is None or scores[n] > scores[best[0]]:
                best = (n, est)
        if best is None:
            raise LanguageModelError(f"{self.method}: no number of states could be fitted ({failures})")
        return _fitted_model(best[1]), _json_params(best[1]), {"n_states": best[0], "scores": scores, "failed": sorted(failures)}

    def refit(self, train: Corpus, params: dict):
        """The model with the chosen values, fitted on all of ``train``."""
        if self.method in self.HANKEL:
            swept = "regularization" if self.method == "convex" else "n_states"
            est = self.estimator(**{swept: params[swept], "floor": params["floor"]})
        else:
            est = self.estimator(n_states=params["n_states"])
        return _fitted_model(est.fit(train))


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def _fitted_model(estimator):
    """The language model an estimator learned (an automaton or an HMM)."""
    for name in ("automaton_", "hmm_", "model_"):
        if hasattr(estimator, name):
            return getattr(estimator, name)
    return estimator


def _json_params(estimator) -> dict:
    return {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
            for k, v in estimator.get_params(deep=False).items()}


def state_grid(method: str, n_symbols: int) -> list[int]:
    """Numbers of states tried by ``--states auto`` for the HMM methods (tensor ones: at most |Σ|)."""
    if method == "em":
        return list(EM_STATE_GRID)
    return [n for n in STATE_GRID if n <= n_symbols] or [n_symbols]


def _progress(items, verbose: bool, desc: str):
    if not verbose:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, leave=False)


# -- evaluation -----------------------------------------------------------------------------
def evaluate_lm(lm: TrainedLM, corpus: Corpus, solution: np.ndarray | None = None) -> dict:
    """Perplexity, WER, PAutomaC score (given true probabilities), sizes, floored weights, unknowns."""
    if len(corpus) == 0:
        raise LanguageModelError("the test corpus has no sequences")
    if solution is not None and len(solution) != len(corpus):
        raise LanguageModelError(f"the solution has {len(solution)} probabilities for {len(corpus)} test sequences")
    log_prob, predicted, n_floored, n_weights = lm.model.event_log_probs(corpus, return_n_floored=True)
    return {
        **event_report(log_prob, predicted, corpus, solution),
        "n_unknown": int(np.sum(corpus.symbols == Vocabulary.UNK_ID)),
        "n_floored": int(n_floored),
        "n_weights": int(n_weights),
    }


# -- files --------------------------------------------------------------------------------------
def save_lm(path, lm: TrainedLM, extra: dict | None = None) -> None:
    """Save the base model with the ``lm`` header entry (method, parameters, ε, selection;
    the counts of a mixed-in n-gram, small for tag sets, as JSON lists)."""
    meta = {
        "method": lm.method, "params": lm.params, "unknown_probability": lm.model.unknown_probability,
        "selection": lm.selection, "training": {**lm.training, **(extra or {})},
    }
    model = lm.model.model
    if isinstance(model, Interpolated):
        meta["mixture"] = {"weight": model.weight, **_ngram_record(model.lower, with_arrays=True)}
        model = model.model
    vocab = lm.vocabulary.to_json()
    if getattr(model, "kind", None) is None:  # the n-gram references
        save_model(path, "ngram", {"vocabulary": vocab, "lm": meta, **_ngram_record(model)}, model.to_arrays())
    else:
        model.save(path, header={"lm": meta, "vocabulary": vocab})


def _ngram_record(model, with_arrays: bool = False) -> dict:
    record = {"params": model.get_params(), "n_ids": model.n_ids_, "unigram_best": model.unigram_best_}
    if with_arrays:
        record["arrays"] = {k: v.tolist() for k, v in model.to_arrays().items()}
    return record


def _ngram_from_record(record: dict, arrays: dict | None = None):
    from .ngram import NGramLM

    arrays = arrays if arrays is not None else {k: np.asarray(v, dtype=np.int64) for k, v in record["arrays"].items()}
    return NGramLM.from_arrays(record["params"], arrays, record["n_ids"], record["unigram_best"])


def load_lm(path) -> tuple[TrainedLM, dict]:
    """Read a model file written by :func:`save_lm`; returns the model and the raw header."""
    header, arrays = load_model(path)
    meta = header.get("lm")
    if not isinstance(meta, dict) or "method" not in meta or "vocabulary" not in header:
        raise ModelFileError(f"{path}: a {header['kind']!r} model file, but not a language model of `seqspectral lm`")
    if header["kind"] not in _LOADERS:
        raise ModelFileError(f"{path}: a {header['kind']!r} model, not a language model")
    try:
        vocab = Vocabulary.from_json(header["vocabulary"])
        model = _LOADERS[header["kind"]](path, header, arrays)
        if "mixture" in meta:
            model = Interpolated(model, _ngram_from_record(meta["mixture"]), float(meta["mixture"]["weight"]))
        lm = TrainedLM(UnknownEscape(model, float(meta["unknown_probability"])), meta["method"], dict(meta.get("params", {})),
                       vocab, meta.get("selection", {}), meta.get("training", {}))
    except KeyError as e:
        raise ModelFileError(f"{path}: damaged language model file (missing {e})") from None
    except (ValueError, TypeError, AttributeError) as e:
        raise ModelFileError(f"{path}: damaged language model file ({e})") from None
    return lm, header


def _load_ngram(path, header, arrays):
    return _ngram_from_record(header, arrays)


def _load_automaton(path, header, arrays):
    from .automata.wfa import WeightedAutomaton

    return WeightedAutomaton.load(path)


def _load_hmm(path, header, arrays):
    from .automata.hmm import HMM

    return HMM.load(path)


_LOADERS = {"ngram": _load_ngram, "weighted_automaton": _load_automaton, "hmm": _load_hmm}


def timed(fn, *args, **kwargs):
    """(result, wall seconds) of ``fn(*args, **kwargs)``."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0
