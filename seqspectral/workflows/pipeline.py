"""One object for a whole pipeline: a build directory (``rerank build``) or a single model
file (a parser, a tagger), run on raw text, sentences or files exactly as ``rerank run``
(or ``parse run`` / ``tag run``) runs them::

    from seqspectral.workflows import Pipeline

    pipeline = Pipeline.load("build/")            # or "parser.npz", "tagger.npz"
    sentences = pipeline.run_text("The cat sat on the mat.")
    sentences = pipeline.run_file("test.conllu")  # read as the build's treebank was read
    sentences = pipeline.run(sentences)           # Sentence objects

A tag column the parser reads that the input leaves empty is predicted when the pipeline
carries a tagger of that column; otherwise :class:`MissingColumnError` names the column —
never a silent guess.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from seqspectral.corpus.columns import MissingColumnError

from .manifest import MANIFEST
from .training import input_columns


#: the model kinds a build's ``tagger-<column>.npz`` may be (each has ``tag(sentences)``)
TAGGER_KINDS = ("tagger", "features_tagger", "lemmatiser")


class Pipeline:
    """Taggers (``{column: tagger}``), a ``parser`` (or None: a tagging pipeline), and for a
    build a ``tree_model`` and ``reranker`` with the build's ``options``; ``reading`` is how
    the input is read (the training treebank's encoding and format). Build one with
    :meth:`load`."""

    def __init__(self, taggers: dict, parser=None, reranker=None, tree_model=None, options=None, reading=None,
                 parser_columns=None, source: str = "", feats_relations=None):
        from seqspectral.corpus import Reading

        self.taggers, self.parser, self.reranker, self.tree_model = dict(taggers), parser, reranker, tree_model
        self.feats_relations = feats_relations  # predicted FEATS re-decided from the relations (1-best trees)
        self.options, self.source = options, source
        self.parser_columns = list(parser_columns if parser_columns is not None else
                                   input_columns(parser) if parser is not None else [])
        self.reading = reading or Reading()

    # -- loading ----------------------------------------------------------------------------
    @classmethod
    def load(cls, path) -> Pipeline:
        """The pipeline of a finished build directory, or of one parser or tagger file."""
        from seqspectral import serialize

        path = Path(path)
        if path.is_dir():
            return cls._load_build(path)
        model = serialize.load(path, ("dependency_parser", "tagger"))
        reading = getattr(model, "reading_", None)
        if getattr(type(model), "kind", "") == "tagger":
            return cls({model.field: model}, reading=_sentence_reading(reading), source=str(path))
        return cls({}, parser=model, reading=_sentence_reading(reading), source=str(path))

    @classmethod
    def _load_build(cls, directory: Path) -> Pipeline:
        from seqspectral import serialize
        from seqspectral.corpus import Reading

        from .manifest import options_from_json, read_manifest, reading_from_json, stage_files
        from .reading import InputError
        from .stages import file_digest

        if not (directory / MANIFEST).is_file():
            raise InputError(f"{directory}: not a rerank build directory (no {MANIFEST})")
        manifest = read_manifest(directory)
        if "options" not in manifest or "reranker" not in manifest["stages"]:
            raise InputError(f"{directory}: the build has not finished (run rerank build again)")
        path = directory / MANIFEST
        options = options_from_json(manifest["options"], path)
        reading = reading_from_json(manifest["reading"], path) if "reading" in manifest else Reading()
        recorded = {f: d for entry in manifest["stages"].values() for f, d in stage_files(entry).items()}

        def model(name: str, kind: str):
            file = directory / name
            if not file.is_file():
                raise InputError(f"{file}: missing from the build (run rerank build again)")
            if recorded.get(name) and file_digest(file) != recorded[name]:
                raise InputError(f"{file}: damaged (its bytes are not those the build recorded); run rerank build "
                                 "again to rebuild it")
            return serialize.load(file, kind)

        taggers = {f: model(f"tagger-{f}.npz", TAGGER_KINDS) for f in manifest["tag_fields"]}
        if "lemmatiser" in manifest["stages"]:  # trained on the jackknifed tags too (rerank_build.LemmatiserStage)
            taggers["lemma"] = model("lemmatiser.npz", "lemmatiser")
        parser = model("parser.npz", "dependency_parser")
        if "labeler" in manifest["stages"]:  # trained on the jackknifed trees too (rerank_build.LabelerStage)
            parser.labeler_ = model("labeler.npz", "dependency_labeler")
        tree_model = model("tree.npz", "spectral_tree_model") if options.field else None
        reranker = model("reranker.npz", "reranker")
        relations = model("feats-relations.npz", "relation_features") if "feats-relations" in manifest["stages"] \
            and "feats" in manifest["tag_fields"] else None  # rerank_build.RelationFeaturesStage
        return cls(taggers, parser, reranker, tree_model, options, _sentence_reading(reading),
                   manifest["parser_tag_columns"], str(directory), relations)

    # -- running ----------------------------------------------------------------------------
    def read(self, path, name: str | None = None):
        """The sentences of ``path`` read as this pipeline reads its input (HEAD may be ``_``;
        raw text is tokenised), and the reader's notes and warnings (:class:`~.reading.Read`)."""
        from .reading import read_sentences

        return read_sentences(path, self.reading, heads_required=False, name=name)

    def run_file(self, path, k: int | None = None) -> list:
        """:meth:`run` on the sentences of ``path``."""
        return self.run(self.read(path).sentences, k)

    def run_text(self, text: str, split: str = "paragraphs", k: int | None = None) -> list:
        """:meth:`run` on raw text, tokenised as ``rerank run`` tokenises a text file
        (``split``: paragraphs or lines)."""
        from seqspectral.corpus.rawtext import sentences_of_text

        return self.run(sentences_of_text(text, split), k)

    def columns(self, sentences) -> dict:
        """Which tag columns the parser reads come from where: ``{"given": [...],
        "predicted": [...], "missing": [...]}`` (a column is predicted when the input
        leaves it empty and the pipeline carries its tagger; so is every other column the
        pipeline has a tagger of, FEATS and LEMMA among them, when the input leaves it empty)."""
        from seqspectral.corpus.columns import has_column

        columns = {"given": [], "predicted": [], "missing": []}
        for column in dict.fromkeys(["upos", *self.parser_columns, *self.taggers] if self.parser is not None
                                    else self.taggers):
            if column in self.taggers and (self.parser is None or not has_column(sentences, column)):
                columns["predicted"].append(column)
            elif has_column(sentences, column):
                columns["given"].append(column)
            else:
                columns["missing"].append(column)
        return columns

    def tag(self, sentences) -> tuple[list, dict]:
        """``(sentences, columns)``: the columns the parser reads that the input leaves empty
        predicted by the pipeline's taggers; :class:`MissingColumnError` for a column read
        but neither given nor predictable."""
        from .rerank_build import tag

        sentences = list(sentences)
        columns = self.columns(sentences)
        if columns["missing"]:
            names = ", ".join(c.upper() for c in columns["missing"])
            raise MissingColumnError(
                f"the input has no {names} values, which the parser was trained to read and this pipeline has no "
                f"tagger of ({self.source}); tag the input first, or build with --tags predicted for untagged input")
        return tag({c: self.taggers[c] for c in columns["predicted"]}, sentences), columns

    def run(self, sentences, k: int | None = None) -> list:
        """The pipeline's output for ``sentences``: tagged, parsed, reranked (a build: the
        reranker's 1-best; with ``k``, n-best lists of the ``k`` best by its score; a parser:
        its 1-best, or ``k``-best lists; a tagger: tagged)."""
        return self.run_with_columns(sentences, k)[0]

    def run_with_columns(self, sentences, k: int | None = None) -> tuple[list, dict]:
        """:meth:`run` and :meth:`columns` of its input (what ``rerank run`` reports)."""
        sentences, columns = self.tag(sentences)
        if self.parser is None:
            return (sentences if k is None else self._tagger_kbest(sentences, k)), columns
        if self.reranker is None:
            return (self._relations(self.parser.parse(sentences), columns) if k is None else
                    self.parser.kbest(sentences, k)), columns
        parsed = self._reranked(sentences, k)
        return (self._relations(parsed, columns) if k is None else parsed), columns

    def _relations(self, parsed: list, columns: dict) -> list:
        """The 1-best parses with the predicted FEATS re-decided from their relations (a build's
        ``feats-relations`` stage; FEATS given in the input are kept)."""
        if self.feats_relations is None or "feats" not in columns["predicted"]:
            return parsed
        return self.feats_relations.tag(parsed)

    def _tagger_kbest(self, sentences, k: int) -> list:
        (tagger,) = self.taggers.values()
        return tagger.kbest(sentences, k)

    def _reranked(self, sentences, k: int | None) -> list:
        from seqspectral.parsing import TreeLists

        from .nbest_features import candidate_features

        trees = self.parser.kbest_trees(sentences, self.options.k)
        tree_model = None if self.reranker.dropped_names_ else self.tree_model  # dropped on held-out lists
        scores = self.reranker.scores(candidate_features(trees, tree_model, self.options))
        groups = trees.groups
        if k is None:
            choice = [int(np.argmax(scores[a:b])) for a, b in zip(groups[:-1], groups[1:])]
            return self.parser.with_trees(sentences, trees.chosen(choice))
        offsets = trees.tree_offsets
        heads, kept, n_trees = [], [], []
        for a, b in zip(groups[:-1], groups[1:]):
            order = a + np.argsort(-scores[a:b], kind="stable")[:k]
            heads += [trees.heads[offsets[c]:offsets[c + 1]] for c in order]
            kept.append(order)
            n_trees.append(len(order))
        kept = np.concatenate(kept)
        reranked = TreeLists(sentences, np.concatenate(heads), scores[kept], np.array(n_trees))
        return reranked.to_nbest(self.parser.with_trees)


def _sentence_reading(reading):
    """How a pipeline reads its input: in the training file's encoding, the format detected
    (a treebank or raw text; the column and tagset are the model's business)."""
    from seqspectral.corpus import Reading

    return Reading() if reading is None else Reading(encoding=reading.encoding)
