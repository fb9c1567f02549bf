"""Every tag column of a treebank in one model: UPOS, XPOS, FEATS and LEMMA, each trained when
the treebank has it, applied in that order (each reads the columns predicted before it)."""

from __future__ import annotations

import gc
from contextlib import contextmanager, nullcontext
from copy import copy

from seqspectral.base import Estimator, integer, seed

from seqspectral.corpus.columns import has_column

from .features import FeaturesTagger
from .lemmatiser import Lemmatiser
from .tagger import PerceptronTagger

#: the columns, in the order they are predicted
FIELDS = ("upos", "xpos", "feats", "lemma")
#: the :class:`~seqspectral.corpus.Sentence` attribute of each column
ATTRIBUTE = {"upos": "upos", "xpos": "xpos", "feats": "feats", "lemma": "lemmas"}
#: the model kind of each column
KIND = {"upos": "tagger", "xpos": "tagger", "feats": "features_tagger", "lemma": "lemmatiser"}


def model_class(field: str):
    """The estimator of a column."""
    return PerceptronTagger if field in ("upos", "xpos") else FeaturesTagger if field == "feats" else Lemmatiser


def _fields(value):
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or not value or any(f not in FIELDS for f in value):
        return f"None or a non-empty tuple of {', '.join(FIELDS)}"
    return None


class ColumnTaggers(Estimator):
    """Taggers of UPOS and XPOS (:class:`~.tagger.PerceptronTagger`), the features tagger
    (:class:`~.features.FeaturesTagger`) and the lemmatiser (:class:`~.lemmatiser.Lemmatiser`),
    each trained when the treebank fills its column.

    Parameters: ``fields`` (the columns to learn; None: every column the treebank has);
    ``epochs`` (each model's cap, the best epoch chosen on dev); ``hash_bits`` (None: each
    model's default); ``clusters`` (word clusters every model reads); ``random_state``.
    Fitted: ``models_`` (field -> model, in :data:`FIELDS` order) and ``skipped_`` (field ->
    why no model was trained for it).
    """

    kind = "column_taggers"
    _parameter_checks = {"fields": _fields, "epochs": integer(1),
                         "hash_bits": lambda v: None if v is None or isinstance(v, int) and 8 <= v <= 26 else
                         "None or an integer from 8 to 26",
                         "clusters": lambda v: None if v is None or hasattr(v, "ids") else
                         "fitted word clusters or None",
                         "random_state": seed}

    def __init__(self, fields=None, *, epochs=10, hash_bits=None, clusters=None, random_state=0):
        self.fields = fields
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.clusters = clusters
        self.random_state = random_state

    def _model(self, field):
        common = {"epochs": self.epochs, "clusters": self.clusters, "random_state": self.random_state}
        if self.hash_bits is not None:
            common["hash_bits"] = self.hash_bits
        return model_class(field)(**({"field": field} if field in ("upos", "xpos") else {}), **common)

    def fit(self, sentences, dev=None, stage=None):
        """Train a model for every column of ``fields`` (or every column) that ``sentences``
        fill; ``stage(field)``, a context manager giving an ``on_epoch(record)`` callback (as
        the CLI's progress stages), is entered around each model's training."""
        self._validate_params()
        sentences = list(sentences)
        self.models_, self.skipped_ = {}, {}
        for field in self.fields or FIELDS:
            if not has_column(sentences, field):
                self.skipped_[field] = f"the training treebank's {field.upper()} column is _ throughout"
                continue
            with stage(field) if stage is not None else nullcontext() as on_epoch:
                self.models_[field] = self._model(field).fit(sentences, dev=dev, on_epoch=on_epoch)
        if not self.models_:
            raise ValueError("the training treebank has none of the columns " +
                             ", ".join(f.upper() for f in self.fields or FIELDS))
        return self

    def fitted_with(self, params: dict, sentences) -> "ColumnTaggers":
        """Fit a model of every column of ``fields`` with its own hyper-parameters
        (``params[field]``, e.g. another model's with the epochs it chose) on ``sentences``."""
        self.models_, self.skipped_ = {}, {}
        for field in self.fields:
            self.models_[field] = model_class(field)(**params[field]).fit(sentences)
        return self

    def tag(self, sentences) -> list:
        """Copies of ``sentences`` with every learnt column predicted, in :data:`FIELDS` order."""
        from .words import encode

        self._check_fitted()
        if self.clusters is None and any(getattr(m, "clusters", None) is not None for m in self.models_.values()):
            raise ValueError("the models read word clusters but the ColumnTaggers has none: the words would be "
                             "tagged without them (give the models' clusters)")
        with _collector_paused():
            copies = list(map(copy, sentences))  # each column set on these, the input's lists untouched
            table = encode([s.forms for s in copies], self.clusters)  # once for every model
            for field, model in self.models_.items():
                for s, values in zip(copies, model.predict(copies, table)):
                    setattr(s, ATTRIBUTE[field], values)
        return copies

    def score(self, sentences) -> dict:
        """Each learnt column's accuracy (%) on ``sentences`` when the models run one after the
        other (FEATS and LEMMA on predicted tags)."""
        from seqspectral.treebank_scores import conll18_scores

        sentences = list(sentences)
        result = conll18_scores(sentences, self.tag(sentences))
        metric = {"upos": "UPOS", "xpos": "XPOS", "feats": "UFeats", "lemma": "Lemmas"}
        return {f: result[metric[f]]["f1"] for f in self.models_}

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        self._check_fitted()
        from seqspectral import serialize

        params = {k: v for k, v in self.json_params().items() if k != "clusters"}
        params["fields"] = list(self.fields) if self.fields is not None else None
        header, arrays = {"params": params, "skipped": self.skipped_, "models": list(self.models_)}, {}
        for field, model in self.models_.items():
            header[field], inner = serialize.nest(field, model)
            arrays.update(inner)
        return header, arrays

    @classmethod
    def schema(cls, header):
        from seqspectral.serialize import nested_schema, Schema

        fields = header["models"]
        if not isinstance(fields, list) or not fields or any(f not in FIELDS for f in fields):
            raise ValueError(f"the models are not a non-empty list of {', '.join(FIELDS)}")
        schema = Schema()
        for field in fields:
            if not isinstance(header[field], dict) or header[field].get("kind") != KIND[field]:
                raise ValueError(f"the {field} model is not a {KIND[field]}")
            schema = schema.merged(_own_dimensions(nested_schema(field, header[field]), field))
        return schema

    @classmethod
    def from_state(cls, header, arrays):
        from seqspectral.serialize import unnest

        params = dict(header["params"])
        params["fields"] = tuple(params["fields"]) if params["fields"] is not None else None
        models = {f: unnest(f, header[f], arrays) for f in header["models"]}
        clusters = next((m.clusters for m in models.values() if m.clusters is not None), None)
        out = cls(**params, clusters=clusters)
        out.models_, out.skipped_ = models, {str(k): str(v) for k, v in header["skipped"].items()}
        return out


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector held off (and on again after, if it was): tagging
    makes many short-lived lists (a column of every sentence) and no reference cycles, so
    reference counting frees all it drops, while the collector's passes over every live object
    (the sentences, the models' dictionaries) took 4% of tagging's time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _own_dimensions(schema, prefix: str):
    """``schema`` with its dimension names prefixed: the UPOS and the XPOS tagger both name the
    length of their weights ``n_emission``, and these are not the same length."""
    from dataclasses import replace

    from seqspectral.serialize import Schema

    def name(d):
        return f"{prefix}/{d}" if isinstance(d, str) else d

    members = {k: replace(m, shape=tuple(name(d) for d in m.shape),
                          values=None if m.values is None else tuple(name(v) for v in m.values))
               for k, m in schema.members.items()}
    return Schema(members, {name(d): n for d, n in schema.dims.items()})
