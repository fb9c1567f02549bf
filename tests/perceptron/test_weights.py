"""The perceptron's weights and their model-file layout (``seqspectral.perceptron.weights``),
shared by the parser, the labeler, the tagger and the reranker: the average against its
definition, the sparse members written, declared and read back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seqspectral.perceptron import AveragedWeights, UsedRows, dense_from_state, sparse_schema, sparse_state
from seqspectral.serialize import Member


def _weights(size: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w = rng.normal(size=size).astype(np.float32)
    w[rng.random(size) < 0.7] = 0.0
    return w


def test_the_average_is_current_minus_totals_over_step():
    """Collins (2002): the averaged weights are current − totals / step (float32)."""
    w = AveragedWeights(50)
    rng = np.random.default_rng(1)
    w.current[:], w.totals[:], w.step = rng.normal(size=50), rng.normal(size=50) * 7, 13
    expected = (w.current - w.totals / 13).astype(np.float32)
    np.testing.assert_allclose(w.average(), expected, rtol=1e-6)
    assert w.average().dtype == np.float32


@pytest.mark.parametrize("hash_bits, rows", [(4, 1), (10, 3)])
def test_sparse_state_keeps_the_nonzero_entries_and_loads_back(hash_bits, rows):
    size = rows << hash_bits
    weights = _weights(size, hash_bits)
    state = sparse_state("arc", weights)
    assert sorted(state) == ["arc_index", "arc_value"]
    assert state["arc_index"].dtype == np.int64 and state["arc_value"].dtype == np.float32
    assert state["arc_index"].tolist() == [i for i in range(size) if weights[i] != 0]
    back = dense_from_state("arc", state, size)
    assert back.dtype == np.float32 and np.array_equal(back, weights)


def test_the_schema_declares_what_the_state_writes():
    state = sparse_state("emission", _weights(3 << 6))
    schema = sparse_schema("emission", 6, rows=3)
    assert schema.keys() == state.keys()
    index, value = schema["emission_index"], schema["emission_value"]
    assert index == Member("iu", ("n_emission",), values=(0, 3 << 6))  # every index inside the vector
    assert value.shape == index.shape and "f" in value.kinds  # one value per index


def test_weights_that_do_not_fit_the_vector_are_refused():
    state = sparse_state("label", _weights(64))
    with pytest.raises(ValueError, match="label weights do not fit a vector of 32"):
        dense_from_state("label", state, 32)
    with pytest.raises(ValueError):
        dense_from_state("label", {"label_index": np.array([1, 2]), "label_value": np.ones(1, np.float32)}, 64)
    with pytest.raises(ValueError):
        dense_from_state("label", {"label_index": np.array([-1]), "label_value": np.ones(1, np.float32)}, 64)


def test_a_perceptron_model_file_with_an_index_outside_its_vector_is_refused(tmp_path):
    """Through the real loader: the schema's bound on the indices stops a damaged file."""
    from seqspectral import serialize
    from seqspectral.corpus import read_conllu
    from seqspectral.parsing import DependencyLabeler

    sentences = read_conllu(Path(__file__).resolve().parents[2] / "corpora" / "ewt-sample.conllu")[:30]
    labeler = DependencyLabeler(epochs=1, hash_bits=10).fit(sentences)
    header, arrays = serialize.state(labeler)
    serialize.save_arrays(tmp_path / "ok.npz", header, arrays)
    assert np.array_equal(serialize.load(tmp_path / "ok.npz").weights_, labeler.weights_)
    bad = dict(arrays, label_index=arrays["label_index"].copy())
    bad["label_index"][-1] = 1 << 10
    serialize.save_arrays(tmp_path / "bad.npz", header, bad)
    with pytest.raises(serialize.ModelFileError, match="bad.npz"):
        serialize.load(tmp_path / "bad.npz")


def test_training_on_the_used_rows_gives_the_whole_tables_weights(corpora_dir):
    """The tagger's perceptron epochs on the rows its features use (``UsedRows``) against the
    same epochs on the whole hashed table: the same weights, bit for bit, and the same tags
    for other sentences, whose features training partly never saw."""
    from seqspectral.corpus import read_conllu
    from seqspectral.tagging import _kernels
    from seqspectral.tagging.words import word_slots

    sentences = read_conllu(corpora_dir / "ewt-sample.conllu")
    train, other = sentences[:40], sentences[40:60]
    n_rows = 1 << 12  # small enough for collisions
    tags = sorted({t for s in train for t in s.upos})
    T = len(tags)
    gold = np.array([tags.index(t) for s in train for t in s.upos], dtype=np.int32)
    slots, table = word_slots([s.forms for s in train], None, 12)
    used = UsedRows(slots, n_rows)
    assert len(used.rows) < n_rows and np.array_equal(used.rows, np.unique(slots))
    tables = {}
    for name, rows, these in (("whole", n_rows, slots), ("used", len(used.rows) + 1, used.renumbered(slots))):
        emission, transition = AveragedWeights(rows * T), AveragedWeights((T + 1) ** 2)
        for epoch in range(3):
            order = np.random.default_rng(epoch).permutation(len(train)).astype(np.int64)
            emission.step, _ = _kernels.perceptron_epoch(these, table.offsets, gold, order, emission.current,
                                                         emission.totals, transition.current.reshape(T + 1, T + 1),
                                                         transition.totals.reshape(T + 1, T + 1), emission.step)
        tables[name] = (emission.average(), transition.average().astype(np.float64).reshape(T + 1, T + 1))
    assert not tables["used"][0][len(used.rows) * T:].any()  # the row of features training never saw stays 0
    expanded = used.expanded(tables["used"][0], T)
    assert expanded.dtype == tables["whole"][0].dtype and expanded.tobytes() == tables["whole"][0].tobytes()
    assert tables["used"][1].tobytes() == tables["whole"][1].tobytes()
    new, new_table = word_slots([s.forms for s in other], None, 12)
    assert not np.isin(new, used.rows).all()  # features training never saw
    words = (new_table.offsets, new_table.types, len(new_table.forms))
    whole_tags = _kernels.tag_corpus(new, *words, *tables["whole"])[0]
    assert np.array_equal(_kernels.tag_corpus(used.renumbered(new), *words, *tables["used"])[0], whole_tags)
