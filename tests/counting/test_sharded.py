"""Sharded counting: byte ranges cut at sentence boundaries, and sharded sums equal to the
counts of the whole corpus in one process (in-process, a process pool, a Dask cluster)."""

from functools import partial

import numpy as np
import pytest

from seqspectral.corpus import Corpus, CorpusFormatError, read_corpus
from seqspectral.counting import hankel_statistics, tree_statistics
from seqspectral.counting.sharded import (
    _TreeSum,
    count_sharded,
    sharded_hankel_statistics,
    sharded_tree_statistics,
    sharded_vocabulary,
)
from seqspectral.counting.shards import Shard, read_shard, shard_files, split_file
from seqspectral.embeddings import CCAEmbeddings
from seqspectral.embeddings.sharded import sharded_view_counts


def _bytes(shard: Shard) -> bytes:
    with open(shard.path, "rb") as f:
        data = f.read()
    return data[shard.start:shard.stop]


def _joined(shards, vocabulary) -> Corpus:
    parts = [read_shard(s, vocabulary=vocabulary) for s in shards]
    joined = Corpus.join(parts)
    if parts[0].heads is not None:  # heads are sentence-relative: they concatenate
        joined.heads = np.concatenate([p.heads for p in parts])
    return joined


def _same_corpus(a: Corpus, b: Corpus) -> None:
    np.testing.assert_array_equal(a.symbols, b.symbols)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    if a.heads is not None or b.heads is not None:
        np.testing.assert_array_equal(a.heads, b.heads)


# -- cutting files --------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 7, 40])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_conllu_ranges_end_at_blank_lines(corpora_dir, tmp_path, n, newline):
    path = tmp_path / "sample.conllu"
    path.write_bytes((corpora_dir / "ewt-sample-dev.conllu").read_bytes().replace(b"\n", newline))
    shards = split_file(path, n)
    assert len(shards) > 1 and shards[0].start == 0 and shards[-1].stop is None
    assert all(a.stop == b.start for a, b in zip(shards, shards[1:]))  # they tile the file
    for shard in shards:
        data = _bytes(shard)
        assert data.endswith(newline * 2), "a range must end with the blank line that ends a sentence"
        assert not data.startswith(newline)
    full = read_corpus(path)
    _same_corpus(_joined(shards, full.vocabulary), full)


@pytest.mark.parametrize("n", [2, 5, 50])
def test_pautomac_ranges_keep_the_header_in_the_first(corpora_dir, n):
    path = corpora_dir / "toy.pautomac.train"
    shards = split_file(path, n)
    assert len(shards) > 1
    header = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    assert _bytes(shards[0]).startswith(header)
    for shard in shards:
        data = _bytes(shard)
        assert data.endswith(b"\n")
        lines = data.splitlines()[1 if shard.start == 0 else 0:]
        assert all(int(line.split()[0]) == len(line.split()) - 1 for line in lines)  # whole strings only
    full = read_corpus(path)
    _same_corpus(_joined(shards, None), full)
    assert sum(len(read_shard(s)) for s in shards) == len(full)


def test_text_ranges_keep_every_line(tmp_path):
    rng = np.random.default_rng(0)
    lines = [" ".join(rng.choice(list("abcde"), size=rng.integers(0, 6))) for _ in range(300)]
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(lines) + "\n")
    shards = split_file(path, 9, format="text")
    assert len(shards) > 1
    assert all(_bytes(s).endswith(b"\n") for s in shards)
    full = read_corpus(path, format="text")
    joined = _joined(shards, full.vocabulary)
    _same_corpus(joined, full)
    assert joined.to_symbols() == [line.split() for line in lines]


def test_shard_files_cuts_each_file_by_size(corpora_dir):
    paths = [corpora_dir / "ewt-sample.conllu", corpora_dir / "ewt-sample-dev.conllu"]
    one_each = shard_files(paths)
    assert [s.whole_file for s in one_each] == [True, True]
    small = shard_files(paths, shard_bytes=50_000)
    sizes = [p.stat().st_size for p in paths]
    assert len(small) >= sum(-(-size // 50_000) for size in sizes) - 2
    assert {s.path for s in small} == {str(p) for p in paths}


def test_shard_files_cuts_a_multiple_of_the_workers_of_near_equal_sizes(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"w{i % 7} w{i % 5} w{i % 3}\n" for i in range(9_000)))
    size = path.stat().st_size
    shard_bytes = -(-size // 9)  # nine ranges on their own
    assert len(shard_files([path], shard_bytes, format="text")) == 9
    for workers in (2, 4):
        shards = shard_files([path], shard_bytes, format="text", workers=workers)
        assert len(shards) % workers == 0 and len(shards) >= 9
        lengths = [(s.stop or size) - s.start for s in shards]
        assert sum(lengths) == size and max(lengths) - min(lengths) <= 40  # within a line or two
        full = read_corpus(path, format="text")
        _same_corpus(_joined(shards, full.vocabulary), full)


def test_a_bad_string_in_a_later_range_is_reported_at_its_line_in_the_file(tmp_path):
    rows = [f"3 0 1 {i % 2}" for i in range(200)]
    rows[150] = "3 0 1"  # the length field says 3, two symbols follow
    path = tmp_path / "bad.pautomac.train"
    path.write_text("200 2\n" + "\n".join(rows) + "\n")
    shards = split_file(path, 4)
    with pytest.raises(CorpusFormatError) as info:
        for shard in shards:
            read_shard(shard)
    assert info.value.path == str(path) and info.value.line == 152  # header + 151 strings


# -- counting -----------------------------------------------------------------------------


def test_tree_sum_adds_every_value_once():
    for n in (1, 2, 3, 7, 8, 33):
        total = _TreeSum()
        for v in range(1, n + 1):
            total.add([v])  # lists add by concatenation
        assert sorted(total.result()) == list(range(1, n + 1))


def test_where_to_count_is_checked(corpora_dir):
    shards = split_file(corpora_dir / "toy.pautomac.train", 2)
    with pytest.raises(ValueError, match="not both"):
        count_sharded(shards, len, workers=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="positive"):
        count_sharded(shards, len, workers=0)
    with pytest.raises(ValueError, match="no shards"):
        count_sharded([], len)


def _check_all_statistics(corpora_dir, **where):
    """Hankel blocks (PAutomaC), tree statistics and CCA view counts (EWT sample) counted
    by shards equal those of the whole file counted in one call."""
    pautomac = corpora_dir / "toy.pautomac.train"
    shards = split_file(pautomac, 5)
    sharded = sharded_hankel_statistics(shards, {"n_prefixes": 30, "n_suffixes": 30, "max_length": 3}, **where)
    single = hankel_statistics(read_corpus(pautomac), sharded.basis)
    np.testing.assert_array_equal(sharded.keys, single.keys)
    np.testing.assert_array_equal(sharded.counts, single.counts)
    assert sharded.n_strings == single.n_strings == 2000

    conllu = corpora_dir / "ewt-sample.conllu"
    shards = split_file(conllu, 4)
    vocabulary = sharded_vocabulary(shards, **where)
    full = read_corpus(conllu)
    assert vocabulary == full.vocabulary
    trees = sharded_tree_statistics(shards, vocabulary, read=partial(read_shard, vocabulary=vocabulary), **where)
    reference = tree_statistics(full)
    for name in ("unigram", "root"):
        np.testing.assert_array_equal(getattr(trees, name), getattr(reference, name))
    for name in ("left", "right"):
        assert (getattr(trees, name) != getattr(reference, name)).nnz == 0
    assert trees.n_sentences == reference.n_sentences == 300

    estimator = CCAEmbeddings(5, window=2, min_count=2, method="two-step", chunk_tokens=500)
    views, words = sharded_view_counts(shards, estimator, read=partial(read_shard, field="form"), **where)
    forms = read_corpus(conllu, field="form")
    assert words == estimator.build_vocabulary([forms])
    reference = estimator.count(forms, words)
    assert views.n_tokens == reference.n_tokens == forms.n_tokens
    for name in ("word_context", "left_right", "left_left", "right_right"):
        assert (getattr(views, name) != getattr(reference, name)).nnz == 0


def test_in_process_counts_equal_single_counts(corpora_dir):
    _check_all_statistics(corpora_dir)


def test_two_local_processes_count_the_same(corpora_dir):
    _check_all_statistics(corpora_dir, workers=2)


def test_a_two_worker_dask_cluster_counts_the_same(corpora_dir):
    """Through Dask's scheduler (a client, then an address); the workers are threads: that
    the work and its results pickle across processes is the process pool's test above, and
    two Dask worker processes would cost the suite about 5 CPU s of start-up."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            _check_all_statistics(corpora_dir, scheduler=client)
        shards = split_file(corpora_dir / "ewt-sample.conllu", 3)  # by the scheduler's address
        assert sharded_vocabulary(shards, scheduler=cluster.scheduler_address) == read_corpus(shards[0].path).vocabulary


def test_embed_on_two_processes_writes_the_same_vectors(corpora_dir, tmp_path):
    from seqspectral.cli.main import main
    from seqspectral.embeddings import read_word2vec

    files = [str(corpora_dir / "ewt-sample.conllu"), str(corpora_dir / "ewt-sample-dev.conllu")]
    assert main(["embed", *files, "-o", str(tmp_path / "one.txt"), "--dim", "5", "--quiet"]) == 0
    assert main(["embed", *files, "-o", str(tmp_path / "shards.txt"), "--dim", "5", "--quiet", "--workers", "2",
                 "--shard-mb", "0.05"]) == 0
    words, vectors = read_word2vec(tmp_path / "one.txt")
    sharded_words, sharded_vectors = read_word2vec(tmp_path / "shards.txt")
    assert sharded_words == words
    np.testing.assert_allclose(sharded_vectors, vectors, atol=1e-9)
    assert main(["embed", *files, "-o", str(tmp_path / "x.txt"), "--workers", "2", "--scheduler", "tcp://x:1"]) == 2
