"""The dependency parser: hashed features, averaged perceptron, projective or non-projective decoding.

First order (arc-factored; McDonald, Crammer & Pereira 2005): a tree scores the sum of its
arcs' feature weights (:mod:`._arc_kernels`), decoded exactly by Eisner's algorithm
(:mod:`._eisner_kernels`), k-best by Huang & Chiang (2005), or — non-projective — by
maximum spanning trees (Chu–Liu–Edmonds; McDonald, Pereira, Ribarov & Hajič 2005), k-best
by Camerini et al.'s partition (:mod:`._mst_kernels`). Second order (McDonald &
Pereira 2006): arcs plus adjacent-sibling parts, decoded by their extension of Eisner's
algorithm (:mod:`._sibling_kernels`), k-best likewise, and for non-projective trees their
approximation: the projective parse, then greedy rearrangement (:mod:`._rearrange_kernels`);
its parts are scored only over the arcs a first-order pruner keeps (Koo & Collins 2010 §4.1;
:mod:`._pruning_kernels`), the pruner trained first on the same sentences. Training (:mod:`._training_kernels`) is
online and averaged — the structured perceptron (Collins 2002) or the 1-best
passive-aggressive / MIRA step (Crammer et al. 2006) — over the whole treebank inside one
Numba loop per epoch: no Python code runs per sentence or per arc; training decodes with the
decoder that parses. For the projective decoder, non-projective training trees are made
projective first by lifting arcs (Nivre & Nilsson 2005), so every gold tree is one the
decoder can reach. ``decoder="auto"`` picks the non-projective decoder when more than
:data:`AUTO_CROSSING_SHARE` % of the training arcs are non-projective. Labels come from a separate
:class:`~seqspectral.parsing.labeler.DependencyLabeler` over the chosen arcs.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from seqspectral.base import Estimator, integer, one_of, real, seed
from seqspectral.perceptron import (AveragedWeights, dense_from_state, epoch_selection, HeldOut, sparse_schema,
                                    sparse_state, train_epochs)
from seqspectral.selection import SelectionResult

from . import _pruning_kernels, _training_kernels
from ._arc_kernels import CLUSTERS, FEATS, XPOS
from .atoms import encode, flat_heads
from .labeler import DependencyLabeler

#: ``decoder="auto"``: non-projective decoding above this share (%) of non-projective training arcs.
#: Measured (evaluation/results/nonprojective.md): UD English-EWT train 0.17 % and the Turkish Web
#: Treebank 0.63 %, where the projective decoder is as good or better; the treebanks where
#: McDonald et al. (2005, 2006) gained from MST decoding (CoNLL-X Czech, Dutch, German, Slovene,
#: Danish) have 1-5 %.
AUTO_CROSSING_SHARE = 1.0
DECODERS = ("auto", "projective", "nonprojective")


class DependencyParser(Estimator):
    """A dependency parser trained on CoNLL-U sentences.

    Parameters: ``order`` (1: arc-factored, 2: arcs and adjacent siblings), ``decoder``
    ("projective": Eisner; "nonprojective": maximum spanning trees, or for order 2 the
    projective parse rearranged; "auto": non-projective when more than
    :data:`AUTO_CROSSING_SHARE` % of the training arcs cross — the choice in ``decoder_``, the
    share in ``crossing_share_``), ``epochs`` of
    online training, ``hash_bits`` (the weight vector has 2**hash_bits entries), ``use_xpos``
    and ``use_feats`` (features over the XPOS and FEATS columns as well as UPOS; the default
    uses every gold tag column of a UD treebank), ``use_lemma`` (features over the LEMMA column;
    off for input nothing lemmatizes), ``single_root`` (True: exactly one word attached
    to the root, as UD requires; False: any number, as in CoNLL-X treebanks; "auto": one
    unless a training tree has several — the choice in ``single_root_``), ``margin`` (cost added to every wrong arc while training:
    cost-augmented decoding; also the loss per wrong head of the passive-aggressive step),
    ``update`` ("pa": 1-best passive-aggressive/MIRA steps, "perceptron": unit steps),
    ``labels`` (train a label classifier too when the data has DEPREL), ``clusters`` (fitted
    :class:`~seqspectral.embeddings.clusters.WordClusters` whose ids become features of every
    arc, Koo et al. 2008; saved inside the parser's file; None: none), ``prune_heads`` (order 2:
    per word, the number of candidate heads a first-order pruner keeps, besides its best
    tree's and, in training, the gold head — the pruner in ``pruner_``; 0: no pruning, every
    sibling part scored), ``pruner_epochs`` (the pruner's training epochs, averaged weights of
    the last), ``random_state`` (the order sentences are visited in each epoch).
    """

    kind = "dependency_parser"
    _parameter_checks = {
        "order": one_of(1, 2),
        "decoder": one_of(*DECODERS),
        "epochs": integer(1),
        "hash_bits": integer(10, 30),
        "use_xpos": one_of(True, False),
        "use_feats": one_of(True, False),
        "use_lemma": one_of(True, False),
        "single_root": one_of(True, False, "auto"),
        "margin": real(0.0),
        "update": one_of("pa", "perceptron"),
        "labels": one_of(True, False),
        "clusters": lambda v: None if v is None or hasattr(v, "ids") else "fitted word clusters or None",
        "prune_heads": integer(0),
        "pruner_epochs": integer(1),
        "random_state": seed,
    }

    def __init__(self, order=1, *, decoder="auto", epochs=10, hash_bits=23, use_xpos=True, use_feats=True, use_lemma=True,
                 single_root="auto", margin=1.0, update="pa", labels=True, clusters=None, prune_heads=10,
                 pruner_epochs=5, random_state=0):
        self.order = order
        self.decoder = decoder
        self.epochs = epochs
        self.hash_bits = hash_bits
        self.use_xpos = use_xpos
        self.use_feats = use_feats
        self.use_lemma = use_lemma
        self.single_root = single_root
        self.margin = margin
        self.update = update
        self.labels = labels
        self.clusters = clusters
        self.prune_heads = prune_heads
        self.pruner_epochs = pruner_epochs
        self.random_state = random_state

    # -- training --------------------------------------------------------------------------
    def fit(self, sentences, dev=None, on_epoch=None):
        """Train on ``sentences`` (with gold heads). ``dev`` sentences are parsed after every
        epoch and the averaged weights of the epoch with the best dev UAS are kept (the
        choice in ``selection_``); ``on_epoch(record)`` gets each record of ``history_`` as
        it is made."""
        self._validate_params()
        sentences = list(sentences)
        if not sentences:
            raise ValueError("no training sentences")
        table = self._encode(sentences)
        gold = flat_heads(sentences)
        self.single_root_ = self.single_root if self.single_root != "auto" else \
            bool(np.all(np.add.reduceat(gold == 0, table.offsets[:-1]) <= 2))  # the root row's 0 counts once
        self.crossing_share_ = 100.0 * _training_kernels.crossing_arcs(gold, table.offsets) / \
            max(len(gold) - len(table), 1)
        self.decoder_ = self.decoder if self.decoder != "auto" else \
            "nonprojective" if self.crossing_share_ > AUTO_CROSSING_SHARE else "projective"
        if self.decoder_ == "projective":
            gold = _training_kernels.lift_nonprojective(gold, table.offsets)
        self.pruner_ = self._unfitted_pruner().fit(sentences) if self.order == 2 and self.prune_heads > 0 else None
        kept = self._kept(table, gold)
        rng = np.random.default_rng(self.random_state)
        weights = AveragedWeights(1 << self.hash_bits)

        def run_epoch(epoch):
            order = rng.permutation(len(table)).astype(np.int64)
            weights.step, correct, total = _training_kernels.training_epoch(
                table.atoms, table.offsets, gold, order, self.order == 2, self._nonprojective(), self._tags(),
                self.single_root_,
                float(self.margin), self.update == "pa", weights.current, weights.totals, weights.step, *kept)
            return {"train_uas": 100.0 * correct / max(total, 1)}

        held_out = None
        if dev:
            dev_table, dev_gold = self._encode(dev), flat_heads(dev)
            dev_kept = self._kept(dev_table)
            held_out = HeldOut("dev_uas", lambda w: _uas(self._heads(dev_table, w, dev_kept), dev_gold,
                                                         dev_table.offsets), on="dev UAS")
        run = train_epochs(self.epochs, run_epoch, weights.average, held_out, on_epoch=on_epoch)
        self.history_, self.weights_ = run.history, run.model
        self.selection_ = epoch_selection(run)
        has_labels = any(d not in ("_", "") for s in sentences for d in s.deprels)
        self.labeler_ = DependencyLabeler(use_lemma=self.use_lemma, use_xpos=self.use_xpos,
                                          random_state=self.random_state).fit(sentences) \
            if self.labels and has_labels else None
        return self

    # -- parsing ---------------------------------------------------------------------------
    def _encode(self, sentences):
        return encode(sentences, self.use_lemma, self.use_xpos, self.clusters)

    def _tags(self) -> int:
        return (XPOS if self.use_xpos else 0) | (FEATS if self.use_feats else 0) | \
            (CLUSTERS if self.clusters is not None else 0)

    def _nonprojective(self) -> bool:
        return self.decoder_ == "nonprojective"

    def _unfitted_pruner(self):
        """The first-order parser that prunes arcs for the second order: the same columns."""
        return DependencyParser(1, decoder="projective", epochs=self.pruner_epochs, hash_bits=self.hash_bits,
                                use_xpos=self.use_xpos, use_feats=self.use_feats, use_lemma=self.use_lemma,
                                single_root=self.single_root_, margin=self.margin, update=self.update, labels=False,
                                clusters=self.clusters, random_state=self.random_state)

    def _kept(self, table, gold=None):
        """The arcs the pruner keeps in ``table``'s sentences (with the ``gold`` ones when given),
        as ``(kept, kept_offsets)`` of :mod:`._pruning_kernels`; without a pruner, every arc."""
        if self.pruner_ is None:
            return np.zeros(0, dtype=bool), np.zeros(len(table) + 1, dtype=np.int64)
        return _pruning_kernels.prune_corpus(
            table.atoms, table.offsets, self.pruner_._tags(), self.pruner_.weights_, self.prune_heads,
            self.single_root_, gold if gold is not None else np.zeros(0, np.int32), gold is not None)

    def _heads(self, table, weights=None, kept=None) -> np.ndarray:
        return _training_kernels.parse_corpus(table.atoms, table.offsets, self.order == 2, self._nonprojective(),
                                              self._tags(), self.single_root_,
                                              self.weights_ if weights is None else weights,
                                              *(self._kept(table) if kept is None else kept))

    def predict(self, sentences) -> list[np.ndarray]:
        """The 1-best heads of every sentence (1-based, 0 = root)."""
        self._check_fitted()
        sentences = list(sentences)
        self._require_columns(sentences)
        table = self._encode(sentences)
        heads = self._heads(table)
        return [heads[a + 1:b] for a, b in zip(table.offsets[:-1], table.offsets[1:])]

    def parse(self, sentences) -> list:
        """Copies of ``sentences`` with HEAD (and DEPREL, when there is a labeler) predicted
        (a column the parser was trained to read that ``sentences`` leave empty is an error,
        :class:`~seqspectral.corpus.columns.MissingColumnError`: never a silent guess)."""
        sentences = list(sentences)
        return self.with_trees(sentences, self.predict(sentences))

    def _require_columns(self, sentences) -> None:
        """Refuse sentences without a column the training sentences filled (``input_profile_``)."""
        profile = getattr(self, "input_profile_", None)
        if profile is not None:
            profile.require(sentences, "the parser")

    def with_trees(self, sentences, heads) -> list:
        """Copies of ``sentences`` carrying ``heads`` and the labeler's DEPREL for them."""
        out = [replace(s, heads=h) for s, h in zip(sentences, heads)]
        if self.labeler_ is not None:
            for s, labels in zip(out, self.labeler_.predict(out)):
                s.deprels = labels
        return out

    def kbest_trees(self, sentences, k: int):
        """The ``k`` best trees of every sentence (fewer when a sentence has fewer trees the
        decoder reaches) with their model scores, as flat :class:`~.tree_lists.TreeLists`.
        Second order non-projective: the projective k best, each rearranged, the distinct
        results best first."""
        from .tree_lists import TreeLists

        self._check_fitted()
        sentences = list(sentences)
        self._require_columns(sentences)
        table = self._encode(sentences)
        heads, scores, n_trees = _training_kernels.kbest_corpus(
            table.atoms, table.offsets, self.order == 2, self._nonprojective(), self._tags(), self.single_root_,
            self.weights_, int(k), *self._kept(table))
        return TreeLists(sentences, heads, scores, n_trees)

    def kbest(self, sentences, k: int) -> list:
        """The ``k`` best trees of every sentence as :class:`~seqspectral.corpus.NBestList`
        (labelled candidates, model scores)."""
        return self.kbest_trees(sentences, k).to_nbest(self.with_trees)

    def score(self, sentences) -> float:
        """Unlabelled attachment score (%) of the 1-best trees."""
        sentences = list(sentences)
        table = self._encode(sentences)
        return _uas(self._heads(table), flat_heads(sentences), table.offsets)

    # -- model files -----------------------------------------------------------------------
    def to_state(self):
        from seqspectral import serialize

        self._check_fitted()
        params = {k: v for k, v in self.json_params().items() if k != "clusters"}
        header = {"params": params, "history": self.history_, "single_root": self.single_root_,
                  "decoder": self.decoder_, "crossing_share": self.crossing_share_}
        if self.selection_ is not None:
            header["selection"] = self.selection_.to_json()
        arrays = sparse_state("arc", self.weights_)
        if self.labeler_ is not None:
            header["labeler"], inner = serialize.nest("labeler", self.labeler_)
            arrays.update(inner)
        if self.clusters is not None:
            header["clusters"], inner = serialize.nest("clusters", self.clusters)
            arrays.update(inner)
        if self.pruner_ is not None:  # its parameters are the parser's (_unfitted_pruner)
            header["pruner"] = True
            arrays.update(sparse_state("pruner", self.pruner_.weights_))
        return header, arrays

    @classmethod
    def schema(cls, header):
        from seqspectral import serialize

        params = header["params"]
        if params.get("order", 1) not in (1, 2):
            raise ValueError(f"order must be 1 or 2, not {params['order']!r}")
        if header.get("decoder", "projective") not in DECODERS[1:]:
            raise ValueError(f"decoder must be projective or nonprojective, not {header['decoder']!r}")
        bits = serialize.size(params["hash_bits"], "hash_bits", 1, 30)
        schema = serialize.Schema({**sparse_schema("arc", bits), **(sparse_schema("pruner", bits) if header.get("pruner")
                                                                    else {})})
        for part in ("labeler", "clusters"):
            if part in header:
                schema = schema.merged(serialize.nested_schema(part, header[part]))
        return schema

    @classmethod
    def from_state(cls, header, arrays):
        from seqspectral import serialize

        # files of the earlier parser (no FEATS features, perceptron steps) load as they were trained
        clusters = serialize.unnest("clusters", header["clusters"], arrays) if "clusters" in header else None
        parser = cls(**{"use_feats": False, "update": "perceptron", **header["params"], "clusters": clusters})
        parser.weights_ = dense_from_state("arc", arrays, 1 << parser.hash_bits)
        parser.history_ = header["history"]
        parser.single_root_ = bool(header.get("single_root", parser.single_root))
        # files from before the non-projective decoders were trained and parse projectively
        parser.decoder_ = header.get("decoder", "projective")
        parser.crossing_share_ = header.get("crossing_share")
        parser.selection_ = SelectionResult.from_json(header["selection"]) if "selection" in header else None
        parser.labeler_ = serialize.unnest("labeler", header["labeler"], arrays) if "labeler" in header else None
        parser.pruner_ = None
        if header.get("pruner"):
            parser.pruner_ = parser._unfitted_pruner()
            parser.pruner_.weights_ = dense_from_state("pruner", arrays, 1 << parser.hash_bits)
            parser.pruner_.single_root_, parser.pruner_.decoder_ = parser.single_root_, "projective"
            parser.pruner_.pruner_ = parser.pruner_.labeler_ = None
        elif parser.order == 2:  # second-order files from before pruning score every part
            parser.prune_heads = 0
        return parser


def _uas(pred: np.ndarray, gold: np.ndarray, offsets: np.ndarray) -> float:
    words = np.ones(len(gold), dtype=bool)
    words[offsets[:-1]] = False
    return 100.0 * float(np.mean(pred[words] == gold[words])) if words.any() else 0.0
