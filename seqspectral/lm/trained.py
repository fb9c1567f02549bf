"""A trained language model with everything its file records, and what it says about itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..corpus import Vocabulary
from ..selection import SelectionResult
from ..serialize import ModelFileError, load, nest, save, unnest
from .unknown import UnknownEscape

#: smoothing-like choices: the smallest value being best needs no wider grid
_SMOOTHING = ("floor", "k", "mixture_k")
_SWEPT_NAMES = {"n_states": "number of states", "regularization": "regularisation", "k": "smoothing k",
                "mixture_k": "smoothing k of the mixed-in n-gram"}


@dataclass
class TrainedLM:
    """The model of ``seqspectral lm``: an ``UnknownEscape`` over the learned model (possibly
    mixed with a lower-order n-gram), the method, its hyper-parameters, the vocabulary, what
    selection chose and the training data's description."""

    kind: ClassVar[str] = "trained_lm"

    model: UnknownEscape
    method: str
    params: dict
    vocabulary: Vocabulary
    selection: SelectionResult | None = None
    training: dict = field(default_factory=dict)

    @property
    def reading(self) -> dict:
        """How the training file was read (format, field, tagset, encoding), when recorded."""
        return dict(self.training.get("reading", {}))

    def log_probs(self, corpus) -> "np.ndarray":
        """The per-item scorer protocol: the natural-log probability of every sequence of
        ``corpus`` (encoded with this model's vocabulary; unknown symbols as UNK)."""
        if corpus.vocabulary is not None and corpus.vocabulary != self.vocabulary:
            corpus = corpus.with_vocabulary(self.vocabulary)
        return self.model.sequence_log_probs(corpus)

    def summary(self) -> dict:
        """The choices, rounded, and plain warnings (a choice at the edge of its grid, a learned
        model that got no weight in its mixture); JSON-able, the same for ``train`` and ``info``."""
        chosen = {} if self.selection is None else dict(self.selection.chosen)
        out = {"method": self.method, "selected_on": None if self.selection is None else self.selection.on}
        for name, value in chosen.items():
            out[name] = float(f"{value:.3g}") if isinstance(value, float) else value
        warnings = []
        for name in ([] if self.selection is None else self.selection.at_edge):
            values = sorted({r[name] for r in self.selection.table if name in r})
            end = "largest" if chosen[name] == values[-1] else "smallest"
            if name == "model_weight" or (name in _SMOOTHING and end == "smallest") or \
                    (name == "mixture_k" and chosen.get("model_weight") == 1.0):
                continue  # weight 0 is said below, 1 is no mixing; least smoothing best needs no wider grid
            warnings.append(f"{_SWEPT_NAMES.get(name, name)} chose {chosen[name]:g}, the {end} value tried "
                            f"({values[0]:g}-{values[-1]:g}); the best may lie beyond")
        n_alphabet = len(self.vocabulary) - Vocabulary.N_RESERVED
        if self.method == "tensor" and chosen.get("n_states") == n_alphabet:
            warnings.append(f"the tensor method can use at most |alphabet| = {n_alphabet} states, and chose that cap")
        if self.method == "em-tensor" and chosen.get("n_states", 0) > n_alphabet:
            warnings.append(f"the tensor start has at most |alphabet| = {n_alphabet} states: the other "
                            f"{chosen['n_states'] - n_alphabet} started as perturbed copies of them")
        if chosen.get("model_weight") == 0.0:
            warnings.append("the learned model got weight 0 in its mixture: the n-gram alone scores the held-out "
                            "data, so this model adds nothing there")
        out["warnings"] = warnings
        return out

    def to_state(self) -> tuple[dict, dict]:
        header, arrays = nest("model", self.model)
        return {"method": self.method, "params": self.params, "vocabulary": self.vocabulary.to_json(),
                "selection": None if self.selection is None else self.selection.to_json(),
                "training": self.training, "model": header}, arrays

    @classmethod
    def schema(cls, header: dict):
        from seqspectral.serialize import Schema, nested_schema, vocabulary_size

        return Schema(dims={"n_ids": vocabulary_size(header["vocabulary"])}).merged(
            nested_schema("model", header["model"]))

    @classmethod
    def from_state(cls, header: dict, arrays: dict) -> "TrainedLM":
        selection = header["selection"]
        return cls(unnest("model", header["model"], arrays), header["method"], dict(header["params"]),
                   Vocabulary.from_json(header["vocabulary"]),
                   None if selection is None else SelectionResult.from_json(selection), dict(header["training"]))


def save_lm(path, lm: TrainedLM, extra: dict | None = None) -> None:
    """Write ``lm`` (``extra`` adds to its training description) atomically."""
    if extra:
        lm = TrainedLM(lm.model, lm.method, lm.params, lm.vocabulary, lm.selection, {**lm.training, **extra})
    save(path, lm)


def load_lm(path) -> tuple[TrainedLM, dict]:
    """Read a language-model file: (the model, its header as JSON: kind and training description)."""
    lm = load(path)
    if not isinstance(lm, TrainedLM):
        raise ModelFileError(f"{path}: a {lm.kind!r} model file, not a language model of `seqspectral lm`")
    return lm, {"kind": lm.kind, "training": lm.training}
