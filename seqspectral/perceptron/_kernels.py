"""Numba kernel of the averaged perceptron's weights (behind :mod:`.weights`)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)  # a heartbeat thread runs while it does (seqspectral.progress)
def average(current, totals, step, out):
    """``out`` (float32) ← ``current − totals / step``, in one pass: the averaged weights of
    vectors of 2**hash_bits entries are taken after every epoch, without the temporaries a
    NumPy expression allocates."""
    for i in range(len(current)):
        out[i] = current[i] - totals[i] / step
