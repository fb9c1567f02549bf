"""Parameter error of an estimated mixture after matching its components to the truth."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def align_components(coef_true, coef_hat) -> np.ndarray:
    """The permutation ``p`` (Hungarian algorithm) minimising ``‖B − B̂[:, p]‖_F``."""
    B, B_hat = np.asarray(coef_true, dtype=np.float64), np.asarray(coef_hat, dtype=np.float64)
    cost = np.sum((B[:, :, None] - B_hat[:, None, :]) ** 2, axis=0)
    _, columns = linear_sum_assignment(cost)
    return columns


def parameter_error(coef_true, coef_hat) -> float:
    """``‖B − B̂‖_F`` after :func:`align_components` (the error of Chaganty & Liang's tables)."""
    B = np.asarray(coef_true, dtype=np.float64)
    return float(np.linalg.norm(B - np.asarray(coef_hat, dtype=np.float64)[:, align_components(B, coef_hat)]))
