"""PAutomaC files: the vectorised reader against a line-by-line parse, writers, errors,
and the bundled toy problem against its generating model."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqspectral.corpus import (
    Corpus,
    CorpusFormatError,
    SkippedRecordsWarning,
    Vocabulary,
    read_corpus,
    read_pautomac,
    read_pautomac_solution,
    write_pautomac,
    write_pautomac_solution,
)


def parse_by_lines(path):
    lines = [line for line in open(path).read().split("\n")]
    n, k = map(int, lines[0].split())
    rows = [list(map(int, line.split())) for line in lines[1:] if line.strip()]
    assert all(r[0] == len(r) - 1 for r in rows)
    return n, k, [r[1:] for r in rows]


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12).flatmap(lambda k: st.tuples(st.just(k), st.lists(st.lists(st.integers(0, k - 1), max_size=15), max_size=20))))
def test_random_corpora_round_trip(tmp_path_factory, problem):
    k, strings = problem
    vocabulary = Vocabulary(str(i) for i in range(k))
    corpus = Corpus.from_ids([[s + 2 for s in x] for x in strings], vocabulary)
    path = tmp_path_factory.mktemp("p") / "x.pautomac.train"
    write_pautomac(path, corpus)
    assert parse_by_lines(path) == (len(strings), k, strings)
    back = read_pautomac(path)
    assert back.vocabulary == vocabulary
    assert [x.tolist() for x in back] == [[s + 2 for s in x] for x in strings]


def test_numeric_vocabulary_order_beyond_ten_symbols(tmp_path):
    path = tmp_path / "a.pautomac.test"
    path.write_bytes(b"2 12\n2 11 2\n0\n")
    corpus = read_pautomac(path)
    assert corpus.vocabulary.symbols[2:] == [str(i) for i in range(12)]
    assert corpus[0].tolist() == [13, 4] and corpus[1].tolist() == []


def test_given_vocabulary_and_auto_detection(tmp_path):
    path = tmp_path / "data.txt"
    path.write_bytes(b"2 3\n3 0 1 2\r\n1 2\n")
    v = Vocabulary(["2", "0"])
    corpus = read_corpus(path, vocabulary=v)
    assert [x.tolist() for x in corpus] == [[3, 0, 2], [2]]


@pytest.mark.parametrize("case", ["pautomac-length", "pautomac-header-count", "pautomac-symbol", "pautomac-integer", "pautomac-utf8"])
def test_malformed_input_names_file_and_line(malformed_files, case):
    _, path, line = malformed_files[case]
    with pytest.raises(CorpusFormatError) as info:
        read_corpus(path)
    assert info.value.line == line and f"{path}:{line}:" in str(info.value)


@pytest.mark.parametrize("case", ["pautomac-length", "pautomac-symbol"])
def test_skip_drops_bad_strings(malformed_files, case):
    _, path, _ = malformed_files[case]
    with pytest.warns(SkippedRecordsWarning) as caught:
        corpus = read_pautomac(path, errors="skip")
    assert caught[0].message.n_skipped == 1
    assert [x.tolist() for x in corpus] == [[2, 3], []]


def test_empty_file_is_an_empty_corpus(tmp_path):
    path = tmp_path / "e.pautomac.train"
    path.write_bytes(b"")
    assert len(read_pautomac(path)) == 0
    path.write_bytes(b"0 5\n")
    assert len(read_pautomac(path)) == 0


def test_solution_round_trip_and_errors(tmp_path):
    probs = np.array([0.5, 1e-300, 0.25])
    path = tmp_path / "s.txt"
    write_pautomac_solution(path, probs)
    assert np.array_equal(read_pautomac_solution(path), probs)
    path.write_text("3\n0.5\n0.1\n")
    with pytest.raises(CorpusFormatError, match=":1:"):
        read_pautomac_solution(path)
    path.write_text("2\n0.5\nabc\n")
    with pytest.raises(CorpusFormatError, match=":3:"):
        read_pautomac_solution(path)


def test_toy_problem_matches_its_model(corpora_dir):
    """The solution file holds p(x) summed over all state paths of the generating HMM."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("toy", corpora_dir / "make_toy_pautomac.py")
    toy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toy)
    test = read_pautomac(corpora_dir / "toy.pautomac.test")
    solution = read_pautomac_solution(corpora_dir / "toy.pautomac_solution.txt")
    assert len(test) == len(solution) == 500
    for x, p in list(zip(test, solution))[:40]:
        x = (x - 2).tolist()
        if len(x) > 6:
            continue
        total = 0.0
        for path in itertools.product(range(3), repeat=len(x) + 1):
            w = toy.INITIAL[path[0]]
            for t, s in enumerate(x):
                q, r = path[t], path[t + 1]
                w *= (1 - toy.STOP[q]) * toy.EMIT[q, s] * toy.TRANS[q, r]
            total += w * toy.STOP[path[-1]]
        assert total == pytest.approx(p, rel=1e-12)
    train = read_pautomac(corpora_dir / "toy.pautomac.train")
    assert len(train) == 2000 and len(train.vocabulary) == 2 + 4


def test_every_shared_problem_matches_its_headers(pautomac_dir):
    files = sorted(pautomac_dir.glob("*.pautomac.t*"))
    assert len(files) == 48
    for path in files:
        corpus = read_pautomac(path)
        text = path.read_text()
        n, k = map(int, text.split("\n", 1)[0].split())
        n_lines = sum(1 for line in text.split("\n")[1:] if line.strip())
        assert len(corpus) == n == n_lines and len(corpus.vocabulary) == k + 2
        assert corpus.n_tokens == len(text.split()) - 2 - n  # every word but the header and length fields
        if path.suffix == ".test":
            _, _, strings = parse_by_lines(path)
            assert np.array_equal(corpus.symbols, np.array([s + 2 for x in strings for s in x], dtype=np.int32))
            solution = read_pautomac_solution(str(path).replace(".pautomac.test", ".pautomac_solution.txt"))
            assert len(solution) == n and 0.5 < solution.sum() < 1.0 + 1e-9


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), max_size=6), max_size=12), st.integers(1, 40),
       st.sampled_from(["\n", "\r\n", "\r"]), st.lists(st.sampled_from(["blank", "length", "symbol"]), max_size=3),
       st.data())
def test_blocks_of_any_size_read_as_the_whole_file(tmp_path_factory, strings, block_bytes, ending, defects, data):
    """Block by block (down to a few bytes: lines and CR LF pairs cut anywhere) = all at once,
    good strings, skipped count and the first error's line alike."""
    from seqspectral.corpus.pautomac import iter_pautomac

    lines = [f"{len(s)} " + " ".join(map(str, s)) if s else "0" for s in strings]
    for defect in defects:
        at = data.draw(st.integers(0, len(lines)))
        lines.insert(at, {"blank": "", "length": "3 1", "symbol": "1 99"}[defect])
    text = ending.join([f"{sum(1 for x in lines if x)} 13", *lines]) + ending
    path = tmp_path_factory.mktemp("b") / "x.pautomac.train"
    path.write_bytes(text.encode())

    def outcome(size):
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = list(iter_pautomac(path, errors="skip", block_bytes=size))
        skipped = [(w.message.n_skipped, w.message.first.line) for w in caught if isinstance(w.message, SkippedRecordsWarning)]
        try:
            list(iter_pautomac(path, block_bytes=size))
            raised = None
        except CorpusFormatError as e:
            raised = (e.line, e.reason)
        return [x.tolist() for part in parts for x in part], skipped, raised

    assert outcome(block_bytes) == outcome(1 << 20)
