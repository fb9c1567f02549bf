"""Averaged-perceptron weight vectors: the running sums, the average, sparse storage."""

from __future__ import annotations

import numpy as np

from . import _kernels


class AveragedWeights:
    """``current`` weights and ``totals`` (Σ step × update) of a perceptron (Collins 2002).

    The kernels update both in place and count ``step`` (one per training example); the
    averaged weights are ``current − totals / step``.
    """

    def __init__(self, size: int):
        self.current = np.zeros(size, dtype=np.float64)
        self.totals = np.zeros(size, dtype=np.float64)
        self.step = 1

    def average(self) -> np.ndarray:
        """The averaged weights, float32."""
        out = np.empty(len(self.current), dtype=np.float32)
        _kernels.average(self.current, self.totals, float(self.step), out)
        return out


class UsedRows:
    """The rows of a hashed weight table (``n_rows`` of them) that training features use,
    numbered densely: a perceptron trained on these rows alone makes the same updates in the
    same order as on the whole table, so its weights are those of the whole table's used rows
    (the others stay zero), but it allocates, touches and averages only them. A row training
    never used maps to one extra row (number ``len(rows)``) that stays zero."""

    def __init__(self, slots: np.ndarray, n_rows: int):
        used = np.zeros(n_rows, dtype=bool)
        used[slots] = True
        self.rows = np.flatnonzero(used)
        self.number = np.full(n_rows, len(self.rows), dtype=np.int32)
        self.number[self.rows] = np.arange(len(self.rows), dtype=np.int32)

    def renumbered(self, slots: np.ndarray) -> np.ndarray:
        """``slots`` as rows of the dense table (int32, the same shape)."""
        return self.number[slots]

    def expanded(self, weights: np.ndarray, width: int) -> np.ndarray:
        """The whole table's weight vector (rows of ``width``) of the dense table's ``weights``."""
        out = np.zeros((len(self.number), width), dtype=weights.dtype)
        out[self.rows] = weights[:len(self.rows) * width].reshape(-1, width)
        return out.reshape(-1)


def sparse_state(prefix: str, weights: np.ndarray) -> dict[str, np.ndarray]:
    """The non-zero entries of a weight vector, for a model file."""
    nonzero = np.flatnonzero(weights).astype(np.int64)
    return {f"{prefix}_index": nonzero, f"{prefix}_value": weights[nonzero].astype(np.float32)}


def sparse_schema(prefix: str, hash_bits: int, rows: int = 1) -> dict:
    """The model-file members of :func:`sparse_state` for ``rows`` vectors of 2**hash_bits."""
    from seqspectral.serialize import Member

    return {f"{prefix}_index": Member("iu", ("n_" + prefix,), values=(0, rows << hash_bits)),
            f"{prefix}_value": Member("f", ("n_" + prefix,))}


def dense_from_state(prefix: str, arrays: dict, size: int) -> np.ndarray:
    """The weight vector :func:`sparse_state` stored."""
    index, value = arrays[f"{prefix}_index"], arrays[f"{prefix}_value"]
    if len(index) != len(value) or (len(index) and (index.min() < 0 or index.max() >= size)):
        raise ValueError(f"{prefix} weights do not fit a vector of {size}")
    out = np.zeros(size, dtype=np.float32)
    out[index] = value
    return out
