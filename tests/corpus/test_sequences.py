"""Vocabulary and the flat Corpus against plain Python lists."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from seqspectral.corpus import EOS, UNK, Corpus, Vocabulary

sequences = st.lists(st.lists(st.integers(2, 9), max_size=6), max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(st.sampled_from("ab\x00é\u4e2d"), max_size=3), min_size=1, max_size=12, unique=True),
       st.lists(st.integers(0, 11), max_size=40), st.booleans())
def test_encode_codes_equals_counting_in_python(raw, codes, merge):
    """Provisional codes to final ids: the vocabulary most frequent first, ties by name (NUL,
    non-ASCII, prefixes), symbols a mapping merges counted together, unseen symbols left out,
    against a Counter and ``from_counts``."""
    from collections import Counter

    codes = [c for c in codes if c < len(raw)]
    mapping = {s: s[:1] for s in raw} if merge else None
    ids, vocabulary = Vocabulary.encode_codes(raw, np.array(codes, dtype=np.int64), None, mapping)
    mapped = [mapping[s] if mapping else s for s in raw]
    expected = Vocabulary.from_counts(Counter(mapped[c] for c in codes))
    assert vocabulary == expected
    assert ids.tolist() == [expected.id(mapped[c]) for c in codes]


# pieces whose UTF-8 bytes straddle the 7-byte rounds of the sort: NULs, 2- to 4-byte characters,
# lone surrogates, and runs that keep long strings tied for several rounds
pieces = st.sampled_from(["a", "b", "\x00", "\x7f", "\x80", "é", "\u4e2d", "\uffff", "\U0001F600", "\ud800", "abcdefg", "\x00" * 7])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(pieces, max_size=6).map("".join), max_size=30))
@example(["abcdefgb", "abcdefga", "abcdefg", "abcdefg\x00", "abcdefg\x00\x00", "abcdefgabcdefgb", "abcdefgabcdefga", "é" * 4,
          "é" * 3 + "e"])
def test_name_order_is_pythons_string_order(names):
    """The byte-wise sort of the vocabulary against ``sorted``: equal strings neighbours and
    flagged, prefixes first whatever follows them (NULs included)."""
    from seqspectral.corpus.vocabulary import _name_order

    names = names + names[::3]  # repeated names
    by_name, first = _name_order(names)
    in_order = [names[i] for i in by_name]
    assert sorted(by_name.tolist()) == list(range(len(names))) and in_order == sorted(names)
    assert first.tolist() == [i == 0 or in_order[i] != in_order[i - 1] for i in range(len(names))]
    ids, vocabulary = Vocabulary.encode_codes(names, np.arange(len(names)))
    assert vocabulary.symbols[2:] == sorted(set(names), key=lambda s: (-names.count(s), s))
    assert ids.tolist() == [vocabulary.id(s) for s in names]  # the index is built on first use
    assert vocabulary.add("\x01new") == len(set(names)) + 2 and vocabulary.id("\x01new") == len(vocabulary) - 1


def test_vocabulary_reserved_ids_and_cutoff(tmp_path):
    v = Vocabulary.from_counts({"a": 3, "b": 1, "c": 3}, min_count=2)
    assert v.symbols == [UNK, EOS, "a", "c"]
    assert v.id("b") == Vocabulary.UNK_ID
    assert v.id(EOS) == v.id(UNK) == Vocabulary.UNK_ID, "a reserved id is never reached by its name"
    assert v.decode(v.encode(["c", "a", "zzz"]).tolist()) == ["c", "a", UNK]
    v.save(tmp_path / "v.json")
    assert Vocabulary.load(tmp_path / "v.json") == v
    # the names of the reserved ids read from data are ordinary symbols
    named = Vocabulary.from_counts({EOS: 2, UNK: 1, "a": 3})
    assert named.id(EOS) >= Vocabulary.N_RESERVED and named.id(UNK) >= Vocabulary.N_RESERVED
    assert named.decode(named.encode([EOS, UNK]).tolist()) == [EOS, UNK]
    named.save(tmp_path / "named.json")
    assert Vocabulary.load(tmp_path / "named.json") == named
    (tmp_path / "bad.json").write_text('{"symbols": ["a", "a"]}')
    with pytest.raises(ValueError, match="bad.json"):
        Vocabulary.load(tmp_path / "bad.json")


@settings(max_examples=60, deadline=None)
@given(sequences, st.data())
def test_corpus_indexing_matches_lists(seqs, data):
    corpus = Corpus.from_ids(seqs)
    assert len(corpus) == len(seqs)
    assert corpus.n_tokens == sum(map(len, seqs))
    assert [c.tolist() for c in corpus] == seqs
    assert corpus.lengths.tolist() == [len(s) for s in seqs]
    if seqs:
        i = data.draw(st.integers(-len(seqs), len(seqs) - 1))
        assert corpus[i].tolist() == seqs[i]
    start = data.draw(st.integers(-15, 15) | st.none())
    stop = data.draw(st.integers(-15, 15) | st.none())
    step = data.draw(st.sampled_from([None, 1, 2, -1, -3]))
    assert [c.tolist() for c in corpus[start:stop:step]] == seqs[start:stop:step]
    idx = data.draw(st.lists(st.integers(0, max(len(seqs) - 1, 0)), max_size=8)) if seqs else []
    assert [c.tolist() for c in corpus.subset(idx)] == [seqs[i] for i in idx]
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(seqs), max_size=len(seqs))), dtype=bool)
    assert [c.tolist() for c in corpus.subset(mask)] == [s for s, m in zip(seqs, mask) if m]


@settings(max_examples=30, deadline=None)
@given(sequences, st.floats(0, 1), st.integers(0, 1000))
def test_split_is_a_partition(seqs, fraction, seed):
    corpus = Corpus.from_ids(seqs)
    a, b = corpus.split(fraction, random_state=seed)
    assert len(a) + len(b) == len(seqs)
    assert sorted(map(tuple, [*a, *b])) == sorted(map(tuple, seqs))
    a2, _ = corpus.split(fraction, random_state=seed)
    assert [x.tolist() for x in a2] == [x.tolist() for x in a]


def test_with_vocabulary_maps_unknowns_to_unk():
    corpus = Corpus.from_symbols([["a", "b"], ["c"]])
    other = Vocabulary(["c", "a"])
    moved = corpus.with_vocabulary(other)
    assert moved.to_symbols() == [["a", UNK], ["c"]]


def test_corpus_rejects_inconsistent_offsets():
    with pytest.raises(ValueError):
        Corpus(np.arange(3), [0, 4])
    with pytest.raises(ValueError):
        Corpus(np.arange(3), [0, 2, 1, 3])
