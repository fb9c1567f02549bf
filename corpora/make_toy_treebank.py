"""Generate the bundled toy phrase-structure treebank from a small PCFG, in Penn Treebank style.

The grammar (fixed below) is English-like and has what the clean-up and the latent states
are for: function tags (``NP-SBJ``, ``NP-TMP``), empty elements (``-NONE-`` null
complementisers), the Penn Treebank's empty root label ``( (S ...) )``, and noun phrases whose
words depend on where they stand (subject pronouns *he, she, they* only under ``NP-SBJ``,
object pronouns *him, her, them* only under ``VP``'s ``NP``): once the function tags are
removed both are ``NP``, and only a grammar with latent states tells them apart. Writes,
beside this script, ``toy-treebank.mrg`` (300 trees, for training) and
``toy-treebank-test.mrg`` (60 trees), seeded, one tree a line.

    python corpora/make_toy_treebank.py
"""

from __future__ import annotations

import random
from pathlib import Path

# a nonterminal: [(probability, right-hand side)]; a part of speech: its words
RULES = {
    "S": [(0.75, ["NP-SBJ", "VP"]), (0.15, ["PP", ",", "NP-SBJ", "VP"]), (0.10, ["S", ",", "CC", "S"])],
    "NP-SBJ": [(0.40, ["PRP-S"]), (0.30, ["DT", "NN"]), (0.15, ["NNP"]), (0.15, ["DT", "JJ", "NN"])],
    "NP": [(0.35, ["DT", "NN"]), (0.20, ["DT", "JJ", "NN"]), (0.15, ["NNS"]), (0.15, ["PRP-O"]),
           (0.15, ["NP", "PP"])],
    "VP": [(0.40, ["VBD", "NP"]), (0.15, ["VBD", "NP", "PP"]), (0.10, ["VBD"]), (0.15, ["VBD", "SBAR"]),
           (0.10, ["MD", "VP-B"]), (0.10, ["VBD", "NP", "NP-TMP"])],
    "VP-B": [(1.0, ["VB", "NP"])],
    "SBAR": [(0.6, ["IN-C", "S"]), (0.4, ["-NONE-", "S"])],
    "PP": [(1.0, ["IN", "NP"])],
    "NP-TMP": [(1.0, ["NN-T"])],
}
WORDS = {
    "PRP-S": ("PRP", ["he", "she", "they", "we"]), "PRP-O": ("PRP", ["him", "her", "them", "us"]),
    "DT": ("DT", ["the", "a", "this", "every"]), "JJ": ("JJ", ["big", "old", "new", "small", "quarterly"]),
    "NN": ("NN", ["dog", "report", "company", "market", "director", "board", "share"]),
    "NNS": ("NNS", ["dogs", "reports", "shares", "markets", "directors"]),
    "NNP": ("NNP", ["Vinken", "Elsevier", "Boston", "Pierre"]),
    "VBD": ("VBD", ["saw", "liked", "reported", "said", "bought", "joined"]), "VB": ("VB", ["see", "buy", "join"]),
    "MD": ("MD", ["will", "could"]), "IN": ("IN", ["in", "on", "with", "of"]), "IN-C": ("IN", ["that"]),
    "CC": ("CC", ["and", "but"]), ",": (",", [","]), "-NONE-": ("-NONE-", ["0"]),
    "NN-T": ("NN", ["yesterday", "today"]),
}
MAX_DEPTH = 7


def generate(symbol: str, rng: random.Random, depth: int = 0) -> str:
    """A tree of ``symbol`` in brackets; past MAX_DEPTH the first (non-recursive) rule is taken."""
    if symbol in WORDS:
        tag, words = WORDS[symbol]
        return f"({tag} {rng.choice(words)})"
    choices = RULES[symbol]
    if depth >= MAX_DEPTH:
        rhs = choices[0][1]
    else:
        rhs = rng.choices([r for _, r in choices], weights=[p for p, _ in choices])[0]
    return f"({symbol} {' '.join(generate(s, rng, depth + 1) for s in rhs)})"


def main() -> None:
    rng = random.Random(2013)
    here = Path(__file__).resolve().parent
    for name, n in (("toy-treebank.mrg", 300), ("toy-treebank-test.mrg", 60)):
        lines = [f"( {generate('S', rng)[:-1]} (. .)) )" for _ in range(n)]
        (here / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
