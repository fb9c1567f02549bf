"""What the tagging models' files share: hyper-parameters, training history, the held-out
choice and the word clusters, around each model's own header entries and arrays."""

from __future__ import annotations

from seqspectral.selection import SelectionResult


def state(model, header: dict, arrays: dict) -> tuple[dict, dict]:
    """``(header, arrays)`` of a fitted tagging model: its own ``header`` and ``arrays`` with its
    hyper-parameters (the clusters apart), ``history_``, ``selection_`` and clusters added."""
    from seqspectral import serialize

    model._check_fitted()
    header = {"params": {k: v for k, v in model.json_params().items() if k != "clusters"}, **header,
              "history": model.history_}
    if model.selection_ is not None:
        header["selection"] = model.selection_.to_json()
    if model.clusters is not None:
        header["clusters"], inner = serialize.nest("clusters", model.clusters)
        arrays = {**arrays, **inner}
    return header, arrays


def schema(header: dict, members: dict):
    """The model file's schema: ``members`` and the clusters' when the header has them."""
    from seqspectral.serialize import nested_schema, Schema

    out = Schema(members)
    return out.merged(nested_schema("clusters", header["clusters"])) if "clusters" in header else out


def hash_bits(header: dict) -> int:
    """The header's ``hash_bits``, checked."""
    from seqspectral.serialize import size

    return size(header["params"]["hash_bits"], "hash_bits", 1, 30)


def restore(cls, header: dict, arrays: dict, **params):
    """A model of ``cls`` with the file's hyper-parameters (and ``params``), clusters,
    ``history_`` and ``selection_``; the caller restores the rest."""
    from seqspectral.serialize import unnest

    clusters = unnest("clusters", header["clusters"], arrays) if "clusters" in header else None
    model = cls(**header["params"], **params, clusters=clusters)
    model.history_ = header["history"]
    model.selection_ = SelectionResult.from_json(header["selection"]) if "selection" in header else None
    return model
