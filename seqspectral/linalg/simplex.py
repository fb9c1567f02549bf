"""Euclidean projection onto the probability simplex (Duchi, Shalev-Shwartz, Singer & Chandra 2008, Fig. 1)."""

from __future__ import annotations

import numpy as np


def project_simplex(v, total: float = 1.0) -> np.ndarray:
    """The closest point (Euclidean) to each row of ``v`` with non-negative entries summing to ``total``.

    A 1-d ``v`` is one vector; a 2-d ``v`` is projected row by row.
    """
    v = np.asarray(v, dtype=np.float64)
    rows = np.atleast_2d(v)
    u = -np.sort(-rows, axis=1)  # descending
    css = np.cumsum(u, axis=1) - total
    j = np.arange(1, rows.shape[1] + 1)
    # rho = the largest j with u_j - (sum_{r<=j} u_r - total) / j > 0
    rho = np.count_nonzero(u - css / j > 0, axis=1)
    theta = css[np.arange(len(rows)), rho - 1] / rho
    out = np.maximum(rows - theta[:, None], 0.0)
    return out.reshape(v.shape)
