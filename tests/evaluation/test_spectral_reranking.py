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
