"""Every estimator of the package through one contract, the way scikit-learn's
``parametrize_with_checks`` runs its own: each class fitted on a few seconds' worth of data
and checked for the conventions of :mod:`seqspectral.base` (fit leaves the hyper-parameters
as given, a second fit on the same data gives the same fitted state, an iterative fit
records ``history_``), and every kind of model file of ``serialize.KINDS`` saved and loaded
back to the same state and bytes.

The classes are found by walking ``seqspectral`` (at run time, so that collecting the suite
does not import every subpackage in every worker): every class with a ``fit`` must be an
:class:`~seqspectral.base.Estimator` (:func:`test_every_class_with_fit_is_an_estimator`), and
a new estimator class fails :func:`test_every_estimator_has_a_small_fit` until it is given
one in :data:`SMALL_FITS` (by class name, so modules may move)."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import seqspectral
from seqspectral.base import Estimator, NotFittedError
from seqspectral.selection import SelectionResult

CORPORA = Path(__file__).resolve().parents[1] / "corpora"


@functools.cache
def classes_with_fit() -> tuple[type, ...]:
    """Every class defined in the package (the command line's modules aside) that has ``fit``."""
    found = set()
    for info in pkgutil.walk_packages(seqspectral.__path__, "seqspectral."):
        if ".cli" in info.name:
            continue
        module = importlib.import_module(info.name)
        found |= {value for value in vars(module).values()
                  if inspect.isclass(value) and value.__module__ == module.__name__ and hasattr(value, "fit")}
    return tuple(sorted(found, key=lambda c: c.__name__))


def _abstract(cls: type, classes) -> bool:
    """A base other estimators derive from, with no ``__init__`` (no hyper-parameters) of its own."""
    return (any(other is not cls and issubclass(other, cls) for other in classes)
            and "__init__" not in {name for c in cls.__mro__ if c is not object for name in vars(c)})


def estimator_classes() -> list[type]:
    """Every concrete :class:`Estimator` of the package."""
    classes = classes_with_fit()
    return [c for c in classes if issubclass(c, Estimator) and not _abstract(c, classes)]


def test_every_class_with_fit_is_an_estimator():
    assert classes_with_fit(), "the walk found nothing"
    assert [c.__qualname__ for c in classes_with_fit() if not issubclass(c, Estimator)] == [], \
        "derive from seqspectral.base.Estimator: the contract test covers every Estimator"


# -- a small fit per class: (estimator, fit arguments) -----------------------------------------
def _strings():
    from seqspectral.corpus import read_pautomac

    return (read_pautomac(CORPORA / "toy.pautomac.train")[:300],), {}


def _trees():
    from seqspectral.corpus import read_corpus

    return read_corpus(CORPORA / "ewt-sample.conllu", field="upos")


def _sentences():
    from seqspectral.corpus import read_conllu

    return read_conllu(CORPORA / "ewt-sample.conllu")[:60]


def _network():
    from seqspectral.mixtures.bayesnet import BayesNetStructure

    s = BayesNetStructure.from_names({"y": 2, "x0": 2, "x1": 2, "x2": 2}, {f"x{i}": ("y",) for i in range(3)},
                                     hidden=("y",))
    y = np.random.default_rng(0).permutation(np.arange(30) % 2)
    return s, (y[:, None] + np.arange(3)[None, :]) % 2, y[:, None]


def _regression():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.ones(400), rng.normal(size=(400, 2))])
    coef = np.array([[1.0, -1.0], [2.0, 0.5], [-1.0, 1.5]])
    h = rng.integers(0, 2, size=400)
    return (X, np.einsum("nd,nd->n", X, coef[:, h].T) + 0.1 * rng.normal(size=400)), {}


def _reranking():
    from seqspectral.reranking import CandidateFeatures

    rng = np.random.default_rng(0)
    n = 8 * 20
    binary = rng.integers(0, 50, size=(n, 3))
    features = CandidateFeatures(np.arange(21) * 8, np.arange(n + 1) * 3, binary.ravel(),
                                 rng.normal(size=(n, 1)), ["parser"])
    return (features, rng.integers(0, 5, size=n).astype(float)), {}


def _untagged_feats():
    """The sample sentences with FEATS _ throughout (what a features tagger left out)."""
    from dataclasses import replace

    return [replace(s, feats=None) for s in _sentences()]


def _words():
    from seqspectral.corpus import read_corpus

    return (read_corpus(CORPORA / "ewt-sample.conllu", field="form"),), {}


def _phrase_trees():
    from nltk import Tree

    return [Tree.fromstring(s) for s in ("(S (NP (DT the) (NN dog)) (VP (VBZ barks)))",
                                         "(S (NP (DT a) (JJ big) (NN cat)) (VP (VBZ sees) (NP (DT the) (NN dog))))",
                                         "(S (NP (NN dog)) (VP (VBZ sees) (NP (DT a) (NN cat))) (. .))")] * 4


def _make(name: str, *args, **kwargs):
    (cls,) = [c for c in estimator_classes() if c.__name__ == name]
    return cls(*args, **kwargs)


_PERCEPTRON = dict(epochs=1, hash_bits=12)

#: class name -> () -> (estimator, fit's positional arguments, fit's keyword arguments)
SMALL_FITS = {
    "BaumWelchHMM": lambda: (_make("BaumWelchHMM", 2, max_iter=3, floor=0.01, progress=False), *_strings()),
    "ConvexWA": lambda: (_make("ConvexWA", 1e-3, floor=0.01, basis_size=20, basis_length=2, max_iter=20, progress=False),
                         *_strings()),
    "SpectralWA": lambda: (_make("SpectralWA", 2, floor=0.01, basis_size=20, basis_length=2, progress=False),
                           *_strings()),
    "TensorHMM": lambda: (_make("TensorHMM", 2, floor=0.01, basis_size=20, basis_length=2, progress=False), *_strings()),
    "NGramLM": lambda: (_make("NGramLM", 2, k=1.0), *_strings()),
    "SpectralTreeModel": lambda: (_make("SpectralTreeModel", 4, representation="svd"), (_trees(),), {}),
    "EMTreeModel": lambda: (_make("EMTreeModel", 2, max_iter=2), (_trees(),), {}),
    "ValenceModel": lambda: (_make("ValenceModel"), (_trees(),), {}),
    "CCAEmbeddings": lambda: (_make("CCAEmbeddings", 2, min_count=1), *_words()),
    "WordClusters": lambda: (_make("WordClusters", 2, 4), (_make("CCAEmbeddings", 2, min_count=1).fit(*_words()[0]),),
                             {}),
    "DependencyParser": lambda: (_make("DependencyParser", **_PERCEPTRON), (_sentences(),), {}),
    "DependencyLabeler": lambda: (_make("DependencyLabeler", **_PERCEPTRON), (_sentences(),), {}),
    "PerceptronTagger": lambda: (_make("PerceptronTagger", **_PERCEPTRON), (_sentences(),), {}),
    "FeaturesTagger": lambda: (_make("FeaturesTagger", **_PERCEPTRON), (_sentences(),), {}),
    "Lemmatiser": lambda: (_make("Lemmatiser", **_PERCEPTRON), (_sentences(),), {}),
    "RelationFeatures": lambda: (_make("RelationFeatures", min_count=1), (_sentences(), _untagged_feats()), {}),
    "ColumnTaggers": lambda: (_make("ColumnTaggers", **_PERCEPTRON), (_sentences(),), {}),
    "Reranker": lambda: (_make("Reranker", epochs=2, hash_bits=10), *_reranking()),
    "SupervisedBayesNet": lambda: (_make("SupervisedBayesNet", _network()[0]), _network()[1:], {}),
    "ViterbiEM": lambda: (_make("ViterbiEM", _network()[0], n_restarts=2, max_iter=5), (_network()[1],), {}),
    "ConvexEM": lambda: (_make("ConvexEM", _network()[0], tol=1e-4, n_roundings=2), (_network()[1],), {}),
    "SmoothProductMixture": lambda: (_make("SmoothProductMixture", 2, n_bins=4, n_init=1, max_iter=20),
                                     (np.random.default_rng(0).normal(size=(200, 3)),), {}),
    "MarkovPCFG": lambda: (_make("MarkovPCFG"), (_phrase_trees(),), {}),
    "SpectralLPCFG": lambda: (_make("SpectralLPCFG", 2), (_phrase_trees(),), {}),
    "EMLPCFG": lambda: (_make("EMLPCFG", 2, max_iter=3), (_phrase_trees(),), {}),
    "SpectralExperts": lambda: (_make("SpectralExperts", 2, max_iter=50), *_regression()),
    "MixtureOfLinearRegressionsEM": lambda: (_make("MixtureOfLinearRegressionsEM", 2, max_iter=20), *_regression()),
}


def test_every_estimator_has_a_small_fit():
    assert sorted(c.__name__ for c in estimator_classes()) == sorted(SMALL_FITS), "give every estimator a small fit here"


# -- the contract --------------------------------------------------------------------------
#: names the package does not use: the same idea has one name (seqspectral.base)
RETIRED = {"dim": "n_states", "n_iter_max": "max_iter", "max_iters": "max_iter", "validation": "dev",
           "held_out": "dev", "log_likelihoods_": "history_", "cost_history_": "history_"}


#: estimators the contract test fitted in this process (the file's tests run in order, in one worker)
_FITTED: dict = {}


@pytest.mark.parametrize("name", sorted(SMALL_FITS))
def test_the_estimator_contract(name):
    import sklearn.base  # here, not at collection: every worker of a parallel run collects this file

    est, args, kwargs = SMALL_FITS[name]()
    cls = type(est)
    params = est.get_params(deep=False)
    # hyper-parameters in __init__ only, stored under their names; nothing fitted before fit
    assert sorted(vars(est)) == sorted(params) == sorted(cls._get_param_names())
    assert sklearn.base.clone(est).get_params(deep=False).keys() == params.keys()
    with pytest.raises(NotFittedError):
        est._check_fitted()
    with pytest.raises(NotFittedError):
        est.selection_  # noqa: B018
    assert not est.__sklearn_is_fitted__()  # what sklearn.utils.validation.check_is_fitted asks
    # one vocabulary of names
    fit_params = set(inspect.signature(cls.fit).parameters)
    assert not (set(params) | fit_params) & RETIRED.keys(), "use the package's names (seqspectral.base)"
    assert not {"n_iter", "tol"} <= set(params), "an iteration cap with a tolerance is max_iter"
    # fit returns self, leaves the hyper-parameters as given; fitted state ends in _; selection_ always there
    assert est.fit(*args, **kwargs) is est
    assert _same(est.get_params(deep=False), params), "fit changed a hyper-parameter (store the value used as x_)"
    assert est.__sklearn_is_fitted__()
    est._check_fitted()
    assert est.selection_ is None or isinstance(est.selection_, SelectionResult)
    assert not vars(est).keys() & RETIRED.keys()
    if "max_iter" in params:  # an iterative fit says how it went, iteration by iteration
        assert isinstance(est.n_iter_, (int, np.integer, tuple)) and hasattr(est, "converged_")
        if isinstance(est.n_iter_, tuple):  # one count per stage, one history per stage
            assert [len(h) for h in est.history_] == list(est.n_iter_)
        else:
            assert len(est.history_) == est.n_iter_ > 0
    # fitting again on the same data gives the same fitted state
    fitted = _fitted_state(est)
    assert est.fit(*args, **kwargs) is est
    refitted = _fitted_state(est)
    assert fitted.keys() == refitted.keys()
    assert [k for k in fitted if not _same(fitted[k], refitted[k])] == [], "a refit is not idempotent"
    _FITTED[name] = est  # the model-file round trips below start from it
    # clone: the same hyper-parameters, unfitted; set_params round-trips
    clone = sklearn.base.clone(est)
    assert clone.get_params(deep=False).keys() == params.keys() and not clone.__sklearn_is_fitted__()
    assert clone.set_params(**params).get_params(deep=False).keys() == params.keys()


#: fitted attributes and records that measure the run, not the model (fit_time_, seconds per epoch)
_TIMINGS = ("seconds", "time", "cpu")


def _fitted_state(est) -> dict:
    return {k: v for k, v in vars(est).items()
            if k.endswith("_") and not k.startswith("_") and not any(t in k for t in _TIMINGS)}


def _same(a, b) -> bool:
    """Equal values, arrays (NaN equal to NaN), sparse matrices, containers and objects
    (attribute by attribute); a record of timings is not compared."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if hasattr(a, "tocsr") and hasattr(a, "nnz"):  # scipy.sparse
        return a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(any(t in str(k).lower() for t in _TIMINGS) or _same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dict__") and not callable(a):
        return _same(vars(a), vars(b))
    if hasattr(a, "__slots__"):
        return all(_same(getattr(a, n, None), getattr(b, n, None)) for n in a.__slots__)
    return bool(a == b)


# -- every kind of model file, saved and loaded back -------------------------------------------------
def _fitted(name: str):
    if name not in _FITTED:
        est, args, kwargs = SMALL_FITS[name]()
        _FITTED[name] = est.fit(*args, **kwargs)
    return _FITTED[name]


@functools.cache
def _trained_lm():
    """``lm train``'s model: an UnknownEscape over an Interpolated (a spectral automaton and a bigram)."""
    from seqspectral.lm import train_lm

    (train,), _ = _strings()
    return train_lm(train, "spectral", n_states=2, basis_length=2)


#: model kind (serialize.KINDS) -> () -> a model of that kind, fitted on a few seconds' worth of data
KIND_EXAMPLES = {
    "weighted_automaton": lambda: _fitted("SpectralWA").model_,
    "hmm": lambda: _fitted("TensorHMM").model_,
    "ngram": lambda: _fitted("NGramLM"),
    "trained_lm": _trained_lm,
    "unknown_escape": lambda: _trained_lm().model,
    "interpolated": lambda: _trained_lm().model.model,
    "cca_embeddings": lambda: _fitted("CCAEmbeddings"),
    "word_clusters": lambda: _fitted("WordClusters"),
    "spectral_tree_model": lambda: _fitted("SpectralTreeModel"),
    "em_tree_model": lambda: _fitted("EMTreeModel"),
    "dependency_parser": lambda: _fitted("DependencyParser"),
    "dependency_labeler": lambda: _fitted("DependencyLabeler"),
    "reranker": lambda: _fitted("Reranker"),
    "tagger": lambda: _fitted("PerceptronTagger"),
    "markov_pcfg": lambda: _fitted("MarkovPCFG"),
    "spectral_lpcfg": lambda: _fitted("SpectralLPCFG"),
    "em_lpcfg": lambda: _fitted("EMLPCFG"),
    "features_tagger": lambda: _fitted("FeaturesTagger"),
    "lemmatiser": lambda: _fitted("Lemmatiser"),
    "column_taggers": lambda: _fitted("ColumnTaggers"),
    "relation_features": lambda: _fitted("RelationFeatures"),
}


def test_every_model_kind_has_an_example():
    from seqspectral.serialize import KINDS

    assert sorted(KIND_EXAMPLES) == sorted(KINDS), "give every model kind of serialize.KINDS an example here"


@pytest.mark.parametrize("kind", sorted(KIND_EXAMPLES))
def test_a_model_file_round_trip(kind, tmp_path):
    """save then load gives a model of the same class whose state (header and arrays) is the
    saved one's, so that saving it again writes the same bytes."""
    from seqspectral import serialize

    model = KIND_EXAMPLES[kind]()
    assert type(model).kind == kind
    serialize.save(tmp_path / "a.npz", model)
    loaded = serialize.load(tmp_path / "a.npz", kind)
    assert type(loaded) is type(model)
    (header, arrays), (header2, arrays2) = serialize.state(model), serialize.state(loaded)
    assert header2 == header
    assert arrays2.keys() == arrays.keys() and all(_same(arrays[k], arrays2[k]) for k in arrays)
    serialize.save(tmp_path / "b.npz", loaded)
    assert (tmp_path / "b.npz").read_bytes() == (tmp_path / "a.npz").read_bytes()


def test_selection_is_recorded_for_the_chosen_candidate_only():
    """A held-out choice adopts what the chosen candidate computed, never the last one's."""
    from seqspectral.automata import TensorHMM

    (train,), _ = _strings()
    est = TensorHMM("auto", floor=0.01, basis_size=20, basis_length=2, max_states=4, progress=False).fit(train)
    tried = [row["n_states"] for row in est.selection_.table]
    assert len(set(tried)) > 1 and len(est.weights_) == est.n_states_ == est.model_.n_states
