"""The robust tensor power method (Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014, Algorithm 1).

Decomposes a (nearly) orthogonally decomposable symmetric tensor
``T = sum_i lambda_i v_i (x) v_i (x) v_i`` (k x k x k, ``v_i`` orthonormal, ``lambda_i > 0``).
"""

from __future__ import annotations

import numpy as np


def _contract(T: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``T(I, theta_l, theta_l)`` for every column l of ``theta`` (k x L): one matrix product of
    T unfolded to k x k² with the column-wise Kronecker products theta_l ⊗ theta_l."""
    k, n = theta.shape
    return T.reshape(k, k * k) @ (theta[:, None, :] * theta[None, :, :]).reshape(k * k, n)


def _power_step(T: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``T(I, theta, theta)`` normalised, for every column of ``theta`` (k x L)."""
    x = _contract(T, theta)
    return x / np.linalg.norm(x, axis=0)


def _iterate(T: np.ndarray, theta: np.ndarray, n_iter: int, tol: float) -> np.ndarray:
    for _ in range(n_iter):
        new = _power_step(T, theta)
        done = np.max(np.linalg.norm(new - theta, axis=0)) < tol
        theta = new
        if done:
            break
    return theta


def robust_tensor_power(
    T,
    n_components: int | None = None,
    n_starts: int = 20,
    n_iter: int = 100,
    tol: float = 1e-12,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(weights, vectors)`` with ``vectors[:, i]`` the i-th recovered unit vector.

    Algorithm 1 of Anandkumar et al. (2014): for each component, ``n_starts`` (L) random
    starts on the unit sphere run at most ``n_iter`` (N) power steps
    ``theta <- T(I, theta, theta) / ||.||`` (stopping early once every start moves less
    than ``tol``); the start with the largest ``T(theta, theta, theta)`` is refined by up
    to ``n_iter`` more steps, its weight is ``T(theta, theta, theta)``, and it is deflated
    from ``T``. Same ``random_state``, same output.
    """
    T = np.array(T, dtype=np.float64)
    k = T.shape[0]
    if T.shape != (k, k, k):
        raise ValueError(f"expected a cubic k x k x k tensor, got shape {T.shape}")
    n_components = k if n_components is None else n_components
    rng = np.random.default_rng(random_state)
    weights = np.zeros(n_components)
    vectors = np.zeros((k, n_components))
    for i in range(n_components):
        theta = rng.standard_normal((k, n_starts))
        theta /= np.linalg.norm(theta, axis=0)
        theta = _iterate(T, theta, n_iter, tol)
        values = np.sum(theta * _contract(T, theta), axis=0)  # T(theta, theta, theta) per start
        best = _iterate(T, theta[:, [int(np.argmax(values))]], n_iter, tol)[:, 0]
        lam = float(best @ _contract(T, best[:, None])[:, 0])
        weights[i], vectors[:, i] = lam, best
        T -= lam * np.einsum("i,j,k->ijk", best, best, best)
    return weights, vectors
