"""Word clusters (k-means of CCA word vectors) as features of the parser and the tagger: the
clusters recover planted word classes; a parser and a tagger that cannot see the classes in
their other columns learn them through the clusters; the clusters travel inside model files."""

from __future__ import annotations

import numpy as np
import pytest

from seqspectral import serialize
from seqspectral.corpus import Corpus, Sentence
from seqspectral.embeddings import CCAEmbeddings
from seqspectral.embeddings import WordClusters
from seqspectral.parsing import DependencyParser, attachment_scores
from seqspectral.parsing.atoms import COLUMNS, encode
from seqspectral.tagging import PerceptronTagger

from .test_parser import planted_sentences


def _hmm_corpus(rng, n_sentences=1500, n_classes=4, words_per_class=8):
    """Sentences of an HMM whose classes emit disjoint word sets (class c: words Cc_*)."""
    T = rng.dirichlet(np.full(n_classes, 0.3), size=n_classes)
    E = rng.dirichlet(np.ones(words_per_class), size=n_classes)
    sentences = []
    for _ in range(n_sentences):
        z, sentence = rng.integers(n_classes), []
        for _ in range(rng.integers(5, 15)):
            sentence.append(f"C{z}_{rng.choice(words_per_class, p=E[z])}")
            z = rng.choice(n_classes, p=T[z])
        sentences.append(sentence)
    return Corpus.from_symbols(sentences)


def test_clusters_recover_planted_word_classes_and_fold_case():
    embeddings = CCAEmbeddings(4, window=1, min_count=1, lowercase=True).fit(_hmm_corpus(np.random.default_rng(0)))
    clusters = WordClusters(coarse=4, fine=8).fit(embeddings)
    words = [f"c{c}_{w}" for c in range(4) for w in range(8)]
    ids = clusters.ids(words)
    classes = np.repeat(np.arange(4), 8)
    coarse = ids[:, 0]
    # each coarse cluster holds one class: purity 1 (measured); the fine level splits no further than the words
    assert sum(np.bincount(classes[coarse == c]).max() for c in np.unique(coarse)) == len(words)
    assert len(np.unique(coarse)) == 4 and len(np.unique(ids[:, 1])) == 8
    assert ids.min() >= 1
    assert (clusters.ids(["C0_1", "never-seen"]) == np.array([ids[1], [0, 0]])).all()  # case folded; unknown: 0


def _planted_clusters(words_of_tag: dict) -> WordClusters:
    """Clusters that are the planted classes: coarse = the tag, fine = the word's own number."""
    words = [w for tag_words in words_of_tag.values() for w in tag_words]
    coarse = [t + 1 for t, tag_words in enumerate(words_of_tag.values()) for _ in tag_words]
    header = {"params": {"coarse": len(words_of_tag), "fine": len(words), "random_state": 0}, "words": words,
              "lowercase": True, "digits": False}
    return WordClusters.from_state(header, {"ids": np.array([coarse, np.arange(1, len(words) + 1)]).T})


def _hidden_tags(sentences, rng, words_of_tag):
    """The sentences with every tag column blanked and each word an arbitrary member of its tag's class."""
    out = []
    for s in sentences:
        forms = [str(rng.choice(words_of_tag[u])) for u in s.upos]
        blank = ["X"] * len(s)
        out.append(Sentence(forms, forms, blank, blank, s.heads, s.deprels, dict(s.metadata)))
    return out


@pytest.fixture(scope="module")
def hidden():
    rng = np.random.default_rng(5)
    train, theta = planted_sentences(400, 1)
    test, _ = planted_sentences(100, 2, theta)
    # 60 opaque words per tag: the form, its prefix and suffix say nothing of the tag
    names = rng.permutation(4 * 60)
    words_of_tag = {t: [f"w{n:03d}" for n in names[60 * i:60 * (i + 1)]] for i, t in enumerate(["A", "B", "C", "D"])}
    return (_hidden_tags(train, rng, words_of_tag), _hidden_tags(test, rng, words_of_tag),
            _planted_clusters(words_of_tag), words_of_tag)


def test_atom_table_carries_the_clusters_of_each_form(hidden):
    train, _, clusters, _ = hidden
    table = encode(train[:5], clusters=clusters)
    rows = np.ones(len(table.atoms), dtype=bool)
    rows[table.offsets[:-1]] = False
    forms = [w for s in train[:5] for w in s.forms]
    assert (table.atoms[rows][:, COLUMNS.index("cluster_coarse"):] == clusters.ids(forms)).all()
    assert (encode(train[:5]).atoms[rows][:, COLUMNS.index("cluster_coarse"):] == 0).all()


def test_parser_learns_hidden_tags_through_the_clusters(hidden, tmp_path):
    train, test, clusters, _ = hidden
    plain = DependencyParser(epochs=5, hash_bits=18, labels=False).fit(train)
    clustered = DependencyParser(epochs=5, hash_bits=18, labels=False, clusters=clusters).fit(train)
    uas_plain = attachment_scores(test, plain.parse(test))["uas"]
    uas_clustered = attachment_scores(test, clustered.parse(test))["uas"]
    # measured: about 63 without and 97 with (the planted grammar reads only the tags)
    assert uas_clustered > 90.0 and uas_clustered > uas_plain + 15.0
    path = tmp_path / "parser.npz"
    serialize.save(path, clustered)
    loaded = serialize.load(path, "dependency_parser")
    assert loaded.clusters.words_ == clusters.words_ and (loaded.clusters.ids_ == clusters.ids_).all()
    assert all((a == b).all() for a, b in zip(loaded.predict(test), clustered.predict(test)))
    assert "clusters" not in loaded.to_state()[0]["params"]


def test_tagger_tags_unseen_words_through_the_clusters(hidden, tmp_path):
    train, test, clusters, words_of_tag = hidden
    seen = {w for s in train[:100] for w in s.forms}
    gold = [Sentence(s.forms, s.forms, [_tag_of(w, words_of_tag) for w in s.forms], s.xpos, s.heads, s.deprels, {})
            for s in train[:100] + test]
    plain = PerceptronTagger(epochs=3, hash_bits=14).fit(gold[:100])
    clustered = PerceptronTagger(epochs=3, hash_bits=14, clusters=clusters).fit(gold[:100])

    def unseen_accuracy(tagger):
        pairs = [(p, g) for s in gold[100:] for w, p, g in zip(s.forms, *tagger.predict([s]), s.upos) if w not in seen]
        return 100.0 * np.mean([p == g for p, g in pairs])

    # measured: 99.5% with clusters; without, about 40% (the opaque words say nothing; context alone)
    assert unseen_accuracy(clustered) > 95.0 and unseen_accuracy(clustered) > unseen_accuracy(plain) + 30.0
    path = tmp_path / "tagger.npz"
    serialize.save(path, clustered)
    loaded = serialize.load(path, "tagger")
    assert loaded.predict(gold[100:]) == clustered.predict(gold[100:])


def _tag_of(word, words_of_tag):
    return next(t for t, words in words_of_tag.items() if word in words)
