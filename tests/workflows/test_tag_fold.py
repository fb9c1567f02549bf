"""A jackknifed fold's tags (folds.tag_fold) are those of the same models tagging one after the
other on their own, word clusters read as in training (the folds once tagged without them:
EWT train's jackknifed UPOS 85-88% against 95% for the same models with their clusters)."""

from __future__ import annotations

import pytest

from seqspectral.corpus import corpus_from_sentences, read_conllu
from seqspectral.embeddings import CCAEmbeddings, WordClusters
from seqspectral.tagging import ColumnTaggers, FeaturesTagger, PerceptronTagger
from seqspectral.workflows.folds import tag_fold


def test_a_fold_is_tagged_with_the_clusters_its_models_read(corpora_dir):
    sentences = read_conllu(corpora_dir / "ewt-sample.conllu")[:90]
    train, held = sentences[:60], sentences[60:]
    clusters = WordClusters(4, 8).fit(CCAEmbeddings(4, min_count=1).fit(corpus_from_sentences(sentences,
                                                                                               field="form")))
    params = {f: {"epochs": 2, "hash_bits": 14, "clusters": clusters} for f in ("upos", "feats")}
    got, _ = tag_fold(params, ["upos", "feats"], train, held)
    upos = PerceptronTagger(**params["upos"]).fit(train)
    feats = FeaturesTagger(**params["feats"]).fit(train)
    reference = feats.tag(upos.tag(held))
    assert [g["upos"] for g in got] == [s.upos for s in reference]
    assert [g["feats"] for g in got] == [s.feats for s in reference]
    unclustered = ColumnTaggers(("upos",))
    unclustered.models_ = {"upos": upos}
    with pytest.raises(ValueError, match="word clusters"):
        unclustered.tag(held)
