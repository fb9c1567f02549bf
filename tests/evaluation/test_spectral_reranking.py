"""The spectral-reranking benchmark's bookkeeping: punctuation stripped with heads re-attached, the
second order's build seeded with the first order's order-free stages, the CPU ledger."""

import json

import numpy as np

from evaluation.spectral_reranking import (LEDGER, ORDER_FREE_STAGES, cost_line, record_cpu, seed, stripped,
                                           unledgered_work, words_and_tags)
from seqspectral.corpus.sentence import Sentence
from seqspectral.workflows.manifest import read_manifest, write_manifest
from seqspectral.workflows.stages import Runner, file_digest


def sentence(forms, heads, upos):
    n = len(forms)
    return Sentence(forms=list(forms), lemmas=[f.lower() for f in forms], upos=list(upos), xpos=list(upos),
                    heads=np.array(heads), deprels=["dep"] * n, feats=["Number=Sing"] * n)


def test_stripped_hangs_a_kept_word_on_the_nearest_kept_ancestor():
    # "A , b c ." with b under ","; "," under c; c the root; "." under c; A under ","
    s = sentence(["A", ",", "b", "c", "."], [2, 4, 2, 0, 4], ["X", "PUNCT", "X", "X", "PUNCT"])
    out = stripped(s, np.array([u == "PUNCT" for u in s.upos]))
    assert out.forms == ["A", "b", "c"] and list(out.heads) == [3, 3, 0] and out.deprels == ["dep"] * 3
    assert stripped(s, np.zeros(5, bool)) is s  # nothing to strip
    only = sentence([","], [0], ["PUNCT"])
    assert stripped(only, np.array([True])) is only  # a sentence of punctuation alone is kept whole


def test_words_and_tags_empties_lemma_and_feats_and_keeps_the_rest():
    s = sentence(["A", "b"], [0, 1], ["X", "Y"])
    out = words_and_tags(s)
    assert out.lemmas == ["_", "_"] and out.feats is None
    assert out.forms == s.forms and out.upos == s.upos and list(out.heads) == [0, 1]


def _finished_build(directory, stages):
    directory.mkdir()
    entries = {}
    for name, files in stages.items():
        for f in files:
            (directory / f).write_bytes(f"{name}:{f}".encode())
        entries[name] = {"key": f"key-{name}", "files": {f: file_digest(directory / f) for f in files},
                         "wall_s": 3.0, "cpu_s": 2.5}
    write_manifest(directory, {"stages": entries})
    (directory / "report.json").write_text("{}")


def test_seed_copies_the_order_free_stages_with_their_keys_and_no_cpu(tmp_path):
    source = tmp_path / "wsj-order1"
    _finished_build(source, {"tagger-upos": ["tagger-upos.npz"], "tagger-xpos": ["tagger-xpos.npz"],
                             "train-tags": ["train.tagged.conllu"], "parser": ["parser.npz"]})
    target = tmp_path / "wsj-order2"
    seed(target, source)
    stages = read_manifest(target)["stages"]
    assert set(stages) == set(ORDER_FREE_STAGES)
    assert not (target / "parser.npz").exists() and not (target / "report.json").exists()
    runner = Runner(target, read_manifest(target), progress=False)
    for name, entry in stages.items():
        assert entry["cpu_s"] == 0.0 and entry["key"] == f"key-{name}"
        files = list(entry["files"])
        assert all((target / f).read_bytes() == (source / f).read_bytes() for f in files)
        assert runner.finished(name, f"key-{name}", files)  # what the build keeps instead of remaking
        assert not runner.finished(name, "another key", files)  # other options: remade
    # a build already begun, or a source that never finished, is left alone
    (target / "tagger-upos.npz").write_bytes(b"begun")
    seed(target, source)
    assert (target / "tagger-upos.npz").read_bytes() == b"begun"
    unfinished = tmp_path / "ewt-order1"
    _finished_build(unfinished, {"tagger-upos": ["tagger-upos.npz"]})
    (unfinished / "report.json").unlink()
    seed(tmp_path / "ewt-order2", unfinished)
    assert not (tmp_path / "ewt-order2").exists()


def test_the_ledger_sums_every_invocation_and_says_whether_it_covers_the_workdir_from_nothing(tmp_path):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "wsj-nopunct.train.conllu").write_text("")  # the stripped splits do not count as work
    assert not unledgered_work(fresh)
    record_cpu(fresh, ["--orders", "1"], False, False)
    record_cpu(fresh, [], True, False)
    entries = [json.loads(line) for line in (fresh / LEDGER).read_text().splitlines()]
    assert [e["finished"] for e in entries] == [False, True] and entries[1]["argv"] == []
    assert all(e["cpu_s"] > 0 for e in entries)
    line = cost_line(fresh)
    assert "2 invocations (1 stopped before the end" in line and "from nothing" in line
    assert f"{sum(e['cpu_s'] for e in entries) / 60:.1f} CPU-min" in line
    assert not unledgered_work(fresh)  # the ledger exists now

    old = tmp_path / "old"
    (old / "wsj-order1").mkdir(parents=True)
    assert unledgered_work(old)
    record_cpu(old, [], True, True)
    assert "not the cost from nothing" in cost_line(old)


def _trees(sentences, shapes):
    """TreeLists over ``sentences``, list i holding the trees ``shapes`` name (gold, right or left chain)."""
    from seqspectral.parsing import TreeLists

    def tree(s, shape):
        n = len(s.forms)
        if shape == "gold":
            return np.asarray(s.heads)
        return np.array([i + 2 for i in range(n - 1)] + [0]) if shape == "right" else np.arange(n)

    heads = [tree(s, shape) for s in sentences for shape in shapes]
    return TreeLists(list(sentences), np.concatenate(heads), np.zeros(len(heads)),
                     np.full(len(sentences), len(shapes)))


def test_the_second_orders_column_takes_the_shared_candidates_from_the_first_and_is_unchanged():
    from seqspectral.corpus import Reading, corpus_from_sentences, read_conllu
    from seqspectral.dependency_trees import SpectralTreeModel

    from evaluation.spectral_reranking import candidate_keys, column_of
    from tests.conftest import CORPORA

    sentences = read_conllu(CORPORA / "ewt-sample.conllu")
    model = SpectralTreeModel(representation="identity").fit(corpus_from_sentences(sentences, field="upos"))
    model.reading_ = Reading(field="upos")
    lists = sentences[:12]
    first, second = _trees(lists, ["gold", "right"]), _trees(lists, ["left", "gold"])
    earlier = (candidate_keys(first), column_of(model, "t", first))
    whole = column_of(model, "t", second)
    assert np.isfinite(whole).all() and not np.allclose(whole[0::2], whole[1::2])
    assert np.array_equal(column_of(model, "t", second, earlier), whole)
    # the gold trees (second in each list here) are taken from the first column, not recomputed
    marked = (earlier[0], earlier[1] + 1000.0)
    taken = column_of(model, "t", second, marked)
    assert np.array_equal(taken[1::2], whole[1::2] + 1000.0) and np.array_equal(taken[0::2], whole[0::2])
