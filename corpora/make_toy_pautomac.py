"""Generate the bundled toy PAutomaC problem from a small HMM with stopping probabilities.

The model (fixed below) emits, from state q, either the stop event (probability
``STOP[q]``) or a symbol drawn from ``EMIT[q]`` and then moves by ``TRANS[q]``; so a
string x has probability  p(x) = INITIAL · A[x1] ··· A[xn] · STOP  with
A[s][q, r] = (1 - STOP[q]) EMIT[q, s] TRANS[q, r].  Writes, beside this script:
``toy.pautomac.train`` (2,000 strings), ``toy.pautomac.test`` (500 strings) and
``toy.pautomac_solution.txt`` (the exact p(x) of each test string), all seeded.

    python corpora/make_toy_pautomac.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from seqspectral.corpus import Corpus, Vocabulary, write_pautomac, write_pautomac_solution

INITIAL = np.array([0.6, 0.3, 0.1])
STOP = np.array([0.1, 0.2, 0.3])
EMIT = np.array([
    [0.5, 0.3, 0.1, 0.1],
    [0.1, 0.1, 0.6, 0.2],
    [0.25, 0.25, 0.25, 0.25],
])
TRANS = np.array([
    [0.7, 0.2, 0.1],
    [0.1, 0.6, 0.3],
    [0.3, 0.3, 0.4],
])
N_SYMBOLS = EMIT.shape[1]
SEED = 2012


def operators() -> np.ndarray:
    """A[s] = diag(1 - STOP) diag(EMIT[:, s]) TRANS, shape (n_symbols, n_states, n_states)."""
    return np.stack([((1 - STOP) * EMIT[:, s])[:, None] * TRANS for s in range(N_SYMBOLS)])


def probability(string) -> float:
    """p(x) by the forward recursion over the operators."""
    alpha = INITIAL
    a = operators()
    for s in string:
        alpha = alpha @ a[s]
    return float(alpha @ STOP)


def sample(n: int, rng: np.random.Generator) -> list[list[int]]:
    strings = []
    for _ in range(n):
        q = rng.choice(3, p=INITIAL)
        x = []
        while rng.random() >= STOP[q]:
            x.append(int(rng.choice(N_SYMBOLS, p=EMIT[q])))
            q = rng.choice(3, p=TRANS[q])
        strings.append(x)
    return strings


def main(directory: Path = Path(__file__).resolve().parent) -> None:
    rng = np.random.default_rng(SEED)
    vocabulary = Vocabulary(str(i) for i in range(N_SYMBOLS))
    train, test = sample(2000, rng), sample(500, rng)
    for name, strings in (("train", train), ("test", test)):
        corpus = Corpus.from_ids(([s + Vocabulary.N_RESERVED for s in x] for x in strings), vocabulary)
        write_pautomac(directory / f"toy.pautomac.{name}", corpus)
    write_pautomac_solution(directory / "toy.pautomac_solution.txt", [probability(x) for x in test])


if __name__ == "__main__":
    main()
