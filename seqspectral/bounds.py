"""The bounds of every value that sizes work: one table for the command line, the build
stages and the values a build directory or a model file carries.

A value out of its bounds is a :class:`BoundError` (a ``ValueError`` the command line turns
into exit status 2 and one line) naming where the value came from: an option (``-k
1000000000``), a file and key (``DIR/build.json: options.k``) or a sentence of a file. So a
typo is refused before any work, not found out after hours or gigabytes.

Nothing here imports the rest of the package: every layer may use it::

    from seqspectral.bounds import check, check_sentences
    k = check("k", options["k"], where=f"{path}: options.k")
    check_sentences(sentences, path)              # the longest sentence against "words"
    check("folds", n_folds, most=len(sentences))  # also at most the data
"""

from __future__ import annotations

from collections import namedtuple


class Bound(namedtuple("Bound", "option low high what why")):
    """An integer value from ``low`` to ``high``: ``option`` names it on the command line,
    ``what`` says what it counts in the user's terms (a plural: "at most 1000 candidates per
    sentence"), ``why`` why it is bounded. (A named tuple, not a dataclass: the command line's
    ``--help`` reads this table, and ``dataclasses`` imports ``inspect``.)"""

    __slots__ = ()


#: value name -> its bound (the names are the options' ``dest`` and the build's option keys)
BOUNDS = {
    "k": Bound("-k", 1, 1000, "candidates per sentence", "an n-best list's memory and time grow with it"),
    "folds": Bound("--folds", 2, 20, "jackknifing folds", "each fold trains a model on the other folds"),
    "tag_folds": Bound("--tag-folds", 2, 20, "jackknifing folds of the training tags",
                       "each fold trains a tagger on the other folds"),
    "dim": Bound("--dim", 1, 4096, "embedding dimensions", "memory grows with the dimension times the vocabulary"),
    "tree_dim": Bound("--dim", 1, 128, "hidden states of a tree model",
                      "a spectral model holds dim**3 numbers a label, an EM iteration costs dim**2 a word; at 128 "
                      "on 7,000 words of forms, 13 CPU s and 0.6 GB"),
    "words": Bound("sentence length", 1, 1000, "words in a sentence to parse",
                   "parsing time grows with the cube of a sentence's length"),
    "drawn_words": Bound("sentence length", 1, 1000, "words in a sentence to draw",
                         "a drawing's size grows with the square of a sentence's length"),
    "window": Bound("--window", 1, 100, "context words each side", "time grows with it"),
    "basis_length": Bound("--basis-length", 1, 32, "symbols in the basis's longest prefix or suffix",
                          "the basis can grow exponentially with it"),
    "hash_bits": Bound("--hash-bits", 1, 30, "bits of the hashed feature weights", "the weights take 2**bits numbers"),
    "epochs": Bound("--epochs", 1, 1000, "training epochs", "time grows with them"),
    "workers": Bound("--workers", 1, 256, "worker processes", "each holds a copy of the model"),
}


class BoundError(ValueError):
    """A value out of its bounds (exit status 2 on the command line)."""

    user_facing = True


def check(name: str, value, where: str | None = None, most: int | None = None, most_why: str = "") -> int:
    """``value`` if it is an integer within the bounds of ``name`` (and at most ``most``
    when given: the data's own limit, ``most_why`` saying what it is), else a
    :class:`BoundError` naming ``where`` (default: the option)."""
    bound = BOUNDS[name]
    high = bound.high if most is None else min(bound.high, most)
    place = where or bound.option
    if isinstance(value, bool) or not isinstance(value, int):
        raise BoundError(f"{place}: expected an integer ({bound.what}), not {_short(value)}")
    if value < bound.low:
        raise BoundError(f"{place} {value}: {bound.what}: at least {bound.low}")
    if value > high:
        reason = most_why if most is not None and most < bound.high else bound.why
        raise BoundError(f"{place} {value}: at most {high} {bound.what} ({reason})")
    return value


def option_type(name: str):
    """An argparse ``type`` for the option of ``name``: its text checked against the bound,
    refused as a usage error naming the option."""

    def parse(text: str) -> int:
        import argparse

        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer ({BOUNDS[name].what}), got {text!r}") from None
        try:
            return check(name, value)
        except BoundError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = f"{BOUNDS[name].what}"
    return parse


def check_sentences(sentences, path: str, name: str = "words", limit: int | None = None) -> None:
    """Refuse ``sentences`` (read from ``path``) whose longest is over the bound of ``name``
    (or ``limit``), naming the file and the sentence."""
    if not sentences:
        return
    bound = BOUNDS[name]
    high = bound.high if limit is None else limit
    longest = max(range(len(sentences)), key=lambda i: len(sentences[i]))
    if len(sentences[longest]) > high:
        raise BoundError(f"{path}: sentence {longest + 1} has {len(sentences[longest])} words; at most {high} "
                         f"{bound.what} ({bound.why})")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
