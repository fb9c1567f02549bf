"""The options of ``rerank build`` and their bounds, checked in one place for the command
line, for Python and for a build directory's manifest."""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

from seqspectral.bounds import BOUNDS as _TABLE

#: tree-model features: "global" log p(words | tree) and the topology term; "direction" adds
#: the per-word conditional log-probabilities summed by the word's side of its head
SPECTRAL = ("global", "direction")

#: the bounds of the options whose size sets the build's memory or time: (low, high, what),
#: from the toolkit's bounds table (seqspectral.bounds: -k as parse run, folds, epochs); this
#: is the one place the build reads them. Its parsers take at least 2**10 weights.
BOUNDS = {name: (max(_TABLE[key].low, 10 if key == "hash_bits" else 0), _TABLE[key].high, _TABLE[key].what)
          for name, key in (("k", "k"), ("folds", "folds"), ("tag_folds", "tag_folds"), ("parser_epochs", "epochs"),
                            ("tagger_epochs", "epochs"), ("reranker_epochs", "epochs"), ("parser_hash_bits", "hash_bits"))}
#: perceptrons the reranker averages (each a full fit: the bound keeps the build's time in check)
BOUNDS["reranker_runs"] = (1, 10, "perceptrons averaged in the reranker")
#: the command-line spelling of each option
OPTION_NAMES = {"k": "-k", "folds": "--folds", "tag_folds": "--tag-folds", "parser_epochs": "--epochs",
                "tagger_epochs": "--epochs", "reranker_epochs": "--epochs", "parser_hash_bits": "--hash-bits",
                "order": "--order", "tags": "--tags", "spectral": "--spectral", "templates": "--templates",
                "field": "--field", "clusters_from": "--clusters-from",
                "reranker_runs": "--reranker-runs"}


class OptionError(ValueError):
    """An option of the build out of its bounds or choices: ``option`` (the field) and ``reason``."""

    user_facing = True

    def __init__(self, option: str, reason: str):
        self.option, self.reason = option, reason
        super().__init__(f"{OPTION_NAMES.get(option, option)}: {reason}")


@dataclass
class BuildOptions:
    """``order`` of the parser, ``k``-best lists, ``folds`` of jackknifing, ``tags``: "gold"
    (the parser reads the treebank's tag columns as given) or "predicted" (trained on
    predicted tags jackknifed in ``tag_folds`` folds, for untagged input), ``clusters_from``:
    unlabelled corpora (paths; ``brown``: NLTK's Brown corpus) for word-cluster features
    (none: no clusters), hashed ``templates`` of the reranker,
    ``field`` the column the tree model reads ("" for no tree model), ``spectral``: the
    tree-model features (see :data:`SPECTRAL`), epochs of the parser, tagger and reranker,
    ``reranker_runs``: perceptrons the reranker averages (:class:`~seqspectral.reranking.Reranker`),
    ``parser_hash_bits``: 2**parser_hash_bits feature weights of every parser,
    ``parser_params``: further :class:`~seqspectral.parsing.DependencyParser` parameters
    passed through (e.g. a decoder), those the build sets apart."""

    order: int = 2
    k: int = 50
    folds: int = 3
    tags: str = "gold"
    tag_folds: int = 3
    clusters_from: tuple = ()
    templates: str = "lexical"
    field: str = "upos"
    spectral: str = "global"
    parser_epochs: int = 10
    tagger_epochs: int = 10
    reranker_epochs: int = 20
    reranker_runs: int = 1
    parser_hash_bits: int = 23
    parser_params: dict = dataclass_field(default_factory=dict)

    def check(self, clusters_exist: bool = True) -> None:
        """Raise :class:`OptionError` at the first option out of its bounds or choices
        (``clusters_exist``: also that every ``clusters_from`` corpus is there)."""
        choices = {"order": (1, 2), "tags": ("gold", "predicted"), "spectral": SPECTRAL,
                   "templates": ("baseline", "context", "lexical"), "field": ("upos", "xpos", "form", "")}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise OptionError(name, f"expected one of {', '.join(map(repr, allowed))}, not {getattr(self, name)!r}")
        for name, (low, high, what) in BOUNDS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise OptionError(name, f"expected {what} from {low} to {high}, not {value!r}")
        if not isinstance(self.parser_params, dict):
            raise OptionError("parser_params", f"expected an object of parser parameters, not {self.parser_params!r}")
        free = set(_parser_parameters()) - BUILD_SETS
        for name in self.parser_params:
            if name not in free:
                raise OptionError("parser_params", f"{name!r} is not a parser parameter the build passes through "
                                                   f"(expected one of {', '.join(sorted(free))})")
        for source in self.clusters_from if clusters_exist else ():
            if not Path(source).exists() and source != "brown":
                raise OptionError("clusters_from", f"{source}: no such corpus for the word clusters")

    def check_folds(self, n_train: int, path) -> None:
        """Refuse more folds than ``path`` has training sentences."""
        for name in ("folds", "tag_folds") if self.tags == "predicted" else ("folds",):
            if getattr(self, name) > n_train:
                raise OptionError(name, f"{getattr(self, name)} folds for the {n_train} sentences of {path}")


#: the parser parameters the build sets itself (the rest pass through ``parser_params``)
BUILD_SETS = {"order", "epochs", "use_xpos", "use_feats", "use_lemma", "clusters", "hash_bits"}


def _parser_parameters() -> list[str]:
    from seqspectral.parsing import DependencyParser

    return list(DependencyParser().get_params(deep=False))
