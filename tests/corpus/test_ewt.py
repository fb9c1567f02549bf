"""The whole shared UD English-EWT treebank: counts, trees, agreement with `conllu`."""

import conllu
import numpy as np
import pytest

from seqspectral.corpus import invalid_trees, read_conllu, read_corpus

COUNTS = {"train": (12544, 204577), "dev": (2001, 25147), "test": (2077, 25094)}


@pytest.mark.parametrize("split", sorted(COUNTS))
def test_counts(ewt_dir, split):
    corpus = read_corpus(ewt_dir / f"en_ewt-ud-{split}.conllu")
    assert (len(corpus), corpus.n_tokens) == COUNTS[split]
    assert len(invalid_trees(corpus.heads, corpus.offsets)) == 0
    assert len(corpus.vocabulary) == 2 + 17
    assert corpus.nbytes < 5_000_000


def test_dev_agrees_with_conllu_package(ewt_dir):
    path = ewt_dir / "en_ewt-ud-dev.conllu"
    with open(path, encoding="utf-8") as f:
        parsed = list(conllu.parse_incr(f))
    reference = [[t for t in s if isinstance(t["id"], int)] for s in parsed]
    sentences = read_conllu(path)
    assert [s.forms for s in sentences] == [[t["form"] for t in s] for s in reference]
    assert [s.xpos for s in sentences] == [[t["xpos"] or "_" for t in s] for s in reference]
    flat = np.concatenate([s.heads for s in sentences])
    assert flat.tolist() == [t["head"] for s in reference for t in s]
    assert [s.metadata["sent_id"] for s in sentences] == [s.metadata["sent_id"] for s in parsed]


@pytest.mark.parametrize("name, split, n", [("ewt-sample.conllu", "train", 300), ("ewt-sample-dev.conllu", "dev", 100)])
def test_bundled_samples_are_verbatim_excerpts(ewt_dir, corpora_dir, name, split, n):
    """corpora/MANIFEST.md: the first n sentences of the split, byte for byte."""
    blocks = (ewt_dir / f"en_ewt-ud-{split}.conllu").read_text(encoding="utf-8").split("\n\n")
    assert (corpora_dir / name).read_text(encoding="utf-8") == "\n\n".join(blocks[:n]) + "\n\n"
