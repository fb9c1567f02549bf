"""The POS tagger: Viterbi and k-best Viterbi against brute-force enumeration, word
features by hand, learning planted tag rules, jackknifing, model files."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.base import NotFittedError, ParameterError
from seqspectral.corpus import Sentence, read_conllu
from seqspectral.tagging import PerceptronTagger, jackknife
from seqspectral.tagging import _kernels
from seqspectral.tagging.words import ALL_CAPS, CAPITALISED, DIGIT, HYPHEN, NO_ALNUM, atom_rows, encode, flags, shape


def _brute_force(E, A):
    """Every tag sequence with its score, best first (ties in enumeration order)."""
    n, T = E.shape
    out = []
    for seq in itertools.product(range(T), repeat=n):
        path = (T, *seq, T)
        s = sum(E[t, y] for t, y in enumerate(seq)) + sum(A[a, b] for a, b in zip(path[:-1], path[1:]))
        out.append((s, seq))
    out.sort(key=lambda x: -x[0])
    return out


@pytest.mark.parametrize("n,T,seed", [(1, 3, 0), (2, 3, 1), (3, 2, 2), (4, 3, 3), (5, 3, 4), (3, 4, 5)])
def test_viterbi_and_kbest_match_brute_force(n, T, seed):
    rng = np.random.default_rng(seed)
    E, A = rng.normal(size=(n, T)), rng.normal(size=(T + 1, T + 1))
    ranked = _brute_force(E, A)
    tags, best = _kernels.viterbi(E, A)
    assert best == pytest.approx(ranked[0][0])
    assert tuple(tags) == ranked[0][1]
    for k in (1, 4, 10, T ** n, T ** n + 5):
        seqs, scores = _kernels.kbest_viterbi(E, A, k)
        m = min(k, T ** n)
        assert seqs.shape == (m, n)
        np.testing.assert_allclose(scores, [s for s, _ in ranked[:m]])
        assert len({tuple(s) for s in seqs}) == m  # distinct
        by_seq = dict((seq, s) for s, seq in ranked)
        np.testing.assert_allclose([by_seq[tuple(s)] for s in seqs], scores)  # each score is its sequence's


def _first_best_viterbi(E, A):
    """Viterbi written plainly (each tag's predecessors scanned in order, the first of the
    best kept), as the reference for ties."""
    n, T = E.shape
    delta, back = [list(A[T, :T] + E[0])], []
    for t in range(1, n):
        row, arg = [], []
        for y in range(T):
            scores = [delta[-1][p] + A[p, y] for p in range(T)]
            arg.append(scores.index(max(scores)))
            row.append(max(scores) + E[t, y])
        delta.append(row)
        back.append(arg)
    end = [delta[-1][p] + A[p, T] for p in range(T)]
    tags = [end.index(max(end))]
    for arg in reversed(back):
        tags.append(arg[tags[-1]])
    return tags[::-1], max(end)


@pytest.mark.parametrize("seed", range(6))
def test_viterbi_breaks_ties_as_the_plain_recursion(seed):
    rng = np.random.default_rng(seed)
    n, T = int(rng.integers(1, 12)), int(rng.integers(2, 20))
    E, A = rng.integers(-2, 3, size=(n, T)).astype(float), rng.integers(-2, 3, size=(T + 1, T + 1)).astype(float)
    tags, best = _kernels.viterbi(E, A)
    assert (list(tags), best) == _first_best_viterbi(E, A)


def test_empty_sentence_scores_the_boundary_transition():
    A = np.arange(16, dtype=float).reshape(4, 4)
    tags, best = _kernels.viterbi(np.zeros((0, 3)), A)
    assert len(tags) == 0 and best == A[3, 3]


def test_word_atoms_by_hand():
    assert shape("Al-Zaman") == "Xx-Xx"
    assert shape("1990s") == "dx"
    assert flags("Al-Zaman") == HYPHEN | CAPITALISED
    assert flags("USA") == CAPITALISED | ALL_CAPS
    assert flags("3.5") == DIGIT
    assert flags(",") == NO_ALNUM
    table = encode([["a", "b", "a"], [], ["b"]])
    assert table.types.tolist() == [0, 1, 0, 1]
    assert table.offsets.tolist() == [0, 3, 3, 4]
    assert table.atoms.shape[0] == 2


def test_crc32_of_spans_of_code_points_is_zlibs_of_their_utf8():
    """Random strings of 1- to 4-byte characters (lone surrogates too), random spans of them."""
    import zlib

    from seqspectral.tagging._strings import code_points, crc32_spans

    rng = np.random.default_rng(0)
    pool = [chr(c) for c in (*range(0x300), 0x7FF, 0x800, 0xD800, 0xDFFF, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF)]
    strings = ["".join(rng.choice(pool, size=rng.integers(0, 9))) for _ in range(300)]
    flat, at = code_points(strings)
    starts = np.array([at[i] + rng.integers(0, len(s) + 1) for i, s in enumerate(strings)])
    ends = np.array([rng.integers(a, at[i + 1] + 1) for i, a in enumerate(starts)])
    text = "".join(strings)
    assert crc32_spans(flat, starts, ends).tolist() == [zlib.crc32(text[a:b].encode("utf-8", "surrogatepass"))
                                                        for a, b in zip(starts, ends)]


def test_atom_rows_are_each_words_hashes_shape_and_flags():
    """The column-at-a-time atoms against each word's own, with letters whose case or length
    changes when lower-cased, characters of no case, digits and lone surrogates."""
    import zlib

    words = ["Al-Zaman", "USA", "3.5", ",", "İstanbul", "ǅemal", "日本", "ⓐⓑ", "x", "", "ÀÉ-9", "a\ud800b", "ΣΑΣ",
             "½", "Ⅻ-", "--", "五", "Ⓐ", "ⒶⒷ1"]

    def crc(s):
        return zlib.crc32(s.encode("utf-8", "surrogatepass"))

    for w, row in zip(words, atom_rows(words).tolist()):
        low = w.lower()
        assert row == [crc(w), crc(low), *(crc(low[:k]) for k in range(1, 5)), *(crc(low[-k:]) for k in range(1, 5)),
                       crc(shape(w)), flags(w)], w


def _sentence(words, tags):
    n = len(words)
    return Sentence(list(words), list(words), list(tags), ["_"] * n, np.zeros(n, np.int32), ["dep"] * n)


def _planted(n_sentences, seed):
    """A planted language: 'fish' is NOUN after 'the' and VERB after a pronoun; unseen
    words ending in -ly are ADV, capitalised ones PROPN, digits NUM."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_sentences):
        if rng.random() < 0.5:
            words, tags = ["the", "fish"], ["DET", "NOUN"]
        else:
            words, tags = [str(rng.choice(["we", "they"])), "fish"], ["PRON", "VERB"]
        stem = "".join(rng.choice(list("abcdefgh"), size=5))
        words += [stem + "ly", stem.capitalize(), str(rng.integers(10, 99))]
        tags += ["ADV", "PROPN", "NUM"]
        out.append(_sentence(words, tags))
    return out


def test_learns_planted_rules_and_generalises_to_unseen_words():
    tagger = PerceptronTagger(epochs=5, hash_bits=16).fit(_planted(200, 0))
    test = _planted(50, 1)  # new stems, new numbers
    assert tagger.score(test) == 100.0
    unseen = _sentence(["we", "fish", "zzzly", "Quux", "7"], "_____")
    assert tagger.predict([unseen]) == [["PRON", "VERB", "ADV", "PROPN", "NUM"]]


def test_runs_average_the_members_each_trained_alone():
    """``runs=3`` is the mean of three taggers trained alone with seeds r, r+1, r+2, and it
    tags by the best sequence under the mean of their sequence scores (brute force)."""
    train = _planted(60, 3)
    members = [PerceptronTagger(epochs=2, hash_bits=12, random_state=7 + r).fit(train) for r in range(3)]
    mixed = PerceptronTagger(epochs=2, runs=3, hash_bits=12, random_state=7).fit(train)
    assert not np.allclose(members[0].weights_, members[1].weights_)  # the orders matter
    np.testing.assert_allclose(mixed.weights_, np.mean([m.weights_ for m in members], axis=0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mixed.transitions_, np.mean([m.transitions_ for m in members], axis=0))
    sentence = _sentence(["they", "fish", "abcly", "Quux"], "____")
    slots = mixed._slots([sentence])[0]
    T = len(mixed.tags_)
    E = np.mean([_kernels.emissions(slots, 0, 4, m.weights_, T) for m in members], axis=0)
    A = np.mean([m.transitions_ for m in members], axis=0)
    assert mixed.predict([sentence]) == [[mixed.tags_[y] for y in _brute_force(E, A)[0][1]]]


@pytest.fixture(scope="module")
def sample(corpora_dir):
    return read_conllu(corpora_dir / "ewt-sample.conllu"), read_conllu(corpora_dir / "ewt-sample-dev.conllu")


@pytest.fixture(scope="module")
def trained(sample):
    train, dev = sample
    return PerceptronTagger(epochs=4, hash_bits=16).fit(train, dev=dev)


def test_beats_the_most_frequent_tag_baseline(sample, trained):
    train, dev = sample
    counts: dict = {}
    for s in train:
        for w, t in zip(s.forms, s.upos):
            counts.setdefault(w, {}).setdefault(t, 0)
            counts[w][t] += 1
    guess = [max(counts[w], key=counts[w].get) if w in counts else "NOUN" for s in dev for w in s.forms]
    baseline = 100.0 * np.mean([g == t for g, t in zip(guess, (t for s in dev for t in s.upos))])
    assert trained.score(dev) > baseline + 3


def test_dev_selection_keeps_the_best_epoch(sample, trained):
    accuracies = [r["dev_accuracy"] for r in trained.history_]
    assert trained.selection_.chosen["epochs"] == 1 + int(np.argmax(accuracies))
    train, dev = sample
    mixed = PerceptronTagger(epochs=3, runs=2, hash_bits=16).fit(train, dev=dev)  # one epoch for both members
    accuracies = [r["dev_accuracy"] for r in mixed.history_]
    assert mixed.selection_.chosen["epochs"] == 1 + int(np.argmax(accuracies))
    assert mixed.score(dev) == pytest.approx(max(accuracies))


def test_kbest_lists_agree_with_predict_and_viterbi(sample, trained):
    _, dev = sample
    dev = dev[:20]
    lists = trained.kbest(dev, 7)
    assert [nb.candidates[0].upos for nb in lists] == trained.predict(dev)
    for nb, s in zip(lists, dev):
        assert nb.sent_id == s.metadata["sent_id"]
        assert len(nb) == min(7, 17 ** len(s))
        assert np.all(np.diff(nb.scores) <= 1e-9)
        assert len({tuple(c.upos) for c in nb.candidates}) == len(nb)
        assert all(c.forms == s.forms and c.xpos == s.xpos for c in nb.candidates)


def test_model_file_round_trip(tmp_path, sample, trained):
    _, dev = sample
    serialize.save(tmp_path / "t.npz", trained)
    loaded = serialize.load(tmp_path / "t.npz", kind="tagger")
    assert loaded.predict(dev) == trained.predict(dev)
    assert loaded.selection_.chosen == trained.selection_.chosen
    assert loaded.get_params() == trained.get_params()


def test_xpos_field(sample):
    train, dev = sample
    tagger = PerceptronTagger("xpos", epochs=2, hash_bits=16).fit(train[:100])
    tagged = tagger.tag(dev[:5])
    assert all(t.upos == s.upos and t.xpos != ["_"] * len(s) for t, s in zip(tagged, dev))
    assert set(tagger.tags_) == {t for s in train[:100] for t in s.xpos}


def test_jackknife_tags_each_fold_with_a_tagger_trained_on_the_others():
    sentences = _planted(30, 2)
    tagger = PerceptronTagger(epochs=2, hash_bits=14)
    out = jackknife(tagger, sentences, 3)
    reference = PerceptronTagger(epochs=2, hash_bits=14).fit(sentences[:10] + sentences[20:]).tag(sentences[10:20])
    assert [s.upos for s in out[10:20]] == [s.upos for s in reference]
    lists = jackknife(tagger, sentences, 3, k=2)
    assert [nb.candidates[0].upos for nb in lists] == [s.upos for s in out]


def test_estimator_conventions():
    from sklearn.base import clone

    tagger = PerceptronTagger("xpos", epochs=3)
    assert clone(tagger).get_params() == tagger.get_params()
    with pytest.raises(NotFittedError):
        tagger.predict([])
    with pytest.raises(ParameterError):
        PerceptronTagger("form").fit(_planted(3, 0))
    with pytest.raises(ValueError, match="no training sentences"):
        PerceptronTagger().fit([])
