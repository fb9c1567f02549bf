"""Training from files: a language model, a tree model, embeddings, a parser or a tagger,
read whole or counted in byte-range shards, the model's ``reading_`` (how its training
file was read) set as part of training. The command line calls these, so a model trained
here and one trained by ``seqspectral lm|tree|parse|tag train`` on the same file with the
same options are the same file, byte for byte.

Each returns a :class:`Trained`: the model, the format read, the malformed records
skipped, and the notes and warnings for the user (messages, not printed). ``names`` maps
a path to what messages call it (standard input copied to a file: ``<stdin>``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from seqspectral.corpus.columns import has_column

from .corpora import CorpusInput
from .reading import InputError, read_sentences


@dataclass
class Trained:
    """A trained ``model`` and what reading its files said."""

    model: object
    format: str
    n_skipped: int = 0
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    read_seconds: float = 0.0
    fit_seconds: float = 0.0
    n_sentences: int = 0
    n_tokens: int = 0


@dataclass
class Sharding:
    """Count byte-range shards of the training files (about ``shard_mb`` MB each) on
    ``workers`` local processes or a Dask ``scheduler``; ``progress`` as everywhere."""

    workers: int | None = None
    scheduler: str | None = None
    shard_mb: float = 64.0
    progress: bool | None = None

    @property
    def where(self) -> dict:
        return {"workers": self.workers, "scheduler": self.scheduler, "progress": bool(self.progress)}

    def shards(self, paths, reading):
        """The byte-range shards of ``paths`` (each refused, naming it, when it holds no words)."""
        from seqspectral.counting.shards import shard_files

        for path in paths:
            require_content(path, reading)
        return shard_files(paths, int(self.shard_mb * 2 ** 20), reading.format, reading.encoding,
                           workers=self.workers or 1)


def require_content(path, reading) -> None:
    """The rule of :class:`CorpusInput` for a file counted in shards: refuse it, naming it,
    when it holds no sentence (only blank lines, comments, or a PAutomaC header). Reads up
    to the first sentence."""
    from seqspectral.corpus import detect

    fmt = detect(path, reading.encoding).format if reading.format == "auto" else reading.format
    skip = 1 if fmt == "pautomac" else 0
    with open(path, encoding=reading.encoding, errors="replace") as f:
        for line in f:
            text = line.strip()
            if not text or (fmt in ("conllu", "conllx") and text.startswith("#")):
                continue
            if skip:
                skip -= 1
                continue
            if fmt != "pautomac" or len(text.split()) > 1:  # a PAutomaC line: length, then symbols
                return
    raise InputError(f"{path}: no {'symbols' if fmt == 'pautomac' else 'words'} to read")


def _reading(reading):
    from seqspectral.corpus import Reading

    return reading if reading is not None else Reading()


def _read(path, reading, vocabulary=None, names=None) -> CorpusInput:
    source = CorpusInput(path, reading, vocabulary, name=(names or {}).get(str(path)))
    source.corpus = source.read()
    return source


def _reader(reading, vocabulary=None):
    from functools import partial

    from seqspectral.counting.shards import read_shard

    options = {"vocabulary": vocabulary} if vocabulary is not None else {}
    return partial(read_shard, field=reading.field, tagset=reading.tagset, errors=reading.errors,
                   encoding=reading.encoding, **options)


def _as_paths(train) -> list:
    """A path, or several, as a list."""
    return [train] if isinstance(train, (str, bytes)) or not hasattr(train, "__iter__") else list(train)


def _sharded(paths, reading, sharding):
    """``(sharding, shards, format)`` of the files ``paths``."""
    sharding = sharding or Sharding()
    shards = sharding.shards(paths, reading)
    return sharding, shards, shards[0].format


def _said(*sources) -> dict:
    return {"notes": [m for s in sources if s is not None for m in s.notes],
            "warnings": [m for s in sources if s is not None for m in s.warnings]}


# -- language models ------------------------------------------------------------------------------
def train_lm(train, method: str, *, dev=None, reading=None, sharding: Sharding | None = None, names=None,
             check_dev=None, **params) -> Trained:
    """A :class:`~seqspectral.lm.TrainedLM` of ``method`` on the file(s) ``train`` (a path or
    a list; several, or ``sharding``: counted in shards), choices made on the file ``dev``;
    ``params``: those of :func:`seqspectral.lm.train_lm`; ``check_dev(corpus, name)`` may
    refuse the held-out corpus. The model records the files and their reading."""
    from seqspectral.lm import train_lm as fit_lm
    from seqspectral.lm import train_lm_sharded

    reading = _reading(reading)
    paths = _as_paths(train)
    start = time.perf_counter()
    if len(paths) > 1 or sharding is not None:
        sharding, shards, fmt = _sharded(paths, reading, sharding)
        read, vocabulary = _reader(reading), None
        if fmt != "pautomac":  # PAutomaC: the ids are fixed by the alphabet size of the header
            from seqspectral.counting.sharded import sharded_vocabulary

            vocabulary = sharded_vocabulary(shards, read=read, **sharding.where)
            read = _reader(reading, vocabulary)
        held = _read(dev, reading.updated(format=fmt), vocabulary, names) if dev is not None else None
        if held is not None and check_dev is not None:
            check_dev(held.corpus, held.name)
        lm = train_lm_sharded(shards, method, read=read, dev=held.corpus if held else None,
                              verbose=bool(sharding.progress), **{**sharding.where, **params})
        source, n_skipped, read_seconds = None, 0, 0.0
    else:
        source = _read(paths[0], reading, names=names)
        fmt, n_skipped = source.format, source.n_skipped
        held = _read(dev, reading.updated(format=fmt), source.corpus.vocabulary, names) if dev is not None else None
        if held is not None and check_dev is not None:
            check_dev(held.corpus, held.name)
        read_seconds = time.perf_counter() - start
        lm = fit_lm(source.corpus, method, dev=held.corpus if held else None, **params)
    shown = [(names or {}).get(str(p), str(p)) for p in paths]
    lm.training = {**lm.training, "file": shown[0] if len(shown) == 1 else shown,
                   "dev": None if dev is None else (names or {}).get(str(dev), str(dev)),
                   "reading": reading.recorded().updated(format=fmt).to_json(), "n_skipped": n_skipped}
    return Trained(lm, fmt, n_skipped, **_said(source, held), read_seconds=read_seconds,
                   fit_seconds=time.perf_counter() - start - read_seconds)


# -- tree models ----------------------------------------------------------------------------------
def check_trees(corpus, name: str, fmt: str) -> None:
    """Refuse (naming the file) a corpus that is not all trees."""
    from seqspectral.dependency_trees import TreeError, tree_layout

    if corpus.heads is None:
        raise InputError(f"{name}: no trees (read as {fmt}); the tree model needs a treebank or an n-best file")
    try:
        tree_layout(corpus)
    except TreeError as e:
        raise InputError(f"{name}: {e}") from None


def train_tree(train, method: str = "spectral", *, dev=None, reading=None, sharding: Sharding | None = None,
               names=None, n_states=None, **params) -> Trained:
    """A tree model (:func:`seqspectral.dependency_trees.train_tree_model`) on the treebank
    file(s) ``train`` (several, or ``sharding``: counted in shards), ``"auto"`` values
    chosen on the file ``dev``; the model's ``reading_`` is the training files' reading."""
    from seqspectral.dependency_trees import train_tree_model, train_tree_model_sharded

    reading = _reading(reading)
    paths = _as_paths(train)
    start = time.perf_counter()
    if len(paths) > 1 or sharding is not None:
        from seqspectral.corpus import get_format
        from seqspectral.counting.sharded import sharded_vocabulary

        sharding, shards, fmt = _sharded(paths, reading, sharding)
        if not get_format(fmt).treebank:
            raise InputError(f"{shards[0].path}: no trees (read as {fmt}); the tree model needs treebanks")
        vocabulary = sharded_vocabulary(shards, read=_reader(reading), **sharding.where)
        held = _check_dev(dev, reading, fmt, vocabulary, names, params)
        model, n_sentences, n_tokens = train_tree_model_sharded(
            shards, vocabulary, method, read=_reader(reading), dev=held.corpus if held else None, n_states=n_states,
            reading=reading.recorded().updated(format=fmt), **{**sharding.where, **params})
        source, n_skipped = None, 0
    else:
        source = _read(paths[0], reading, names=names)
        fmt, n_skipped = source.format, source.n_skipped
        check_trees(source.corpus, source.name, fmt)
        held = _check_dev(dev, reading, fmt, source.corpus.vocabulary, names, params)
        model = train_tree_model(source.corpus, method, dev=held.corpus if held else None, n_states=n_states,
                                 reading=reading.recorded().updated(format=fmt), **params)
        n_sentences, n_tokens = len(source.corpus), source.corpus.n_tokens
    return Trained(model, fmt, n_skipped, **_said(source, held), fit_seconds=time.perf_counter() - start,
                   n_sentences=n_sentences, n_tokens=n_tokens)


def _check_dev(dev, reading, fmt, vocabulary, names, params):
    if dev is None:
        return None
    held = _read(dev, reading.updated(format=fmt), vocabulary, names)
    check_trees(held.corpus, held.name, fmt)
    if params.get("selection") == "ranking" and not (held.corpus.lengths >= 3).any():
        raise InputError(f"{held.name}: --selection ranking re-attaches words of held-out trees; none has 3 words")
    return held


# -- embeddings -----------------------------------------------------------------------------------
def train_embeddings(paths, *, reading=None, sharding: Sharding | None = None, names=None, **params) -> Trained:
    """:class:`~seqspectral.embeddings.CCAEmbeddings` (``params``) of the corpus files
    ``paths`` (``brown``: NLTK's Brown corpus), read whole or counted in shards; the model's
    ``reading_`` is the files' reading."""
    from pathlib import Path

    from seqspectral.corpus.nltk_corpora import read_brown
    from seqspectral.embeddings import CCAEmbeddings

    reading = _reading(reading)
    estimator = CCAEmbeddings(**params)
    start = time.perf_counter()
    if sharding is not None:
        from seqspectral.embeddings.sharded import sharded_view_counts

        shards = sharding.shards(list(paths), reading)
        counts, vocabulary = sharded_view_counts(shards, estimator, read=_reader(reading), **sharding.where)
        estimator.fit_counts(counts, vocabulary)
        sources, fmt = [], shards[0].format
    else:
        sources, corpora = [], []
        for path in paths:
            if str(path) == "brown" and reading.format in ("auto", "brown") and not Path(path).exists():
                corpora.append(read_brown(None, field=reading.field, tagset=reading.tagset))
                continue
            sources.append(_read(path, reading, names=names))
            corpora.append(sources[-1].corpus)
        estimator.fit(corpora)
        fmt = sources[0].format if sources else "brown"
    estimator.reading_ = reading.recorded().updated(format=fmt)
    return Trained(estimator, fmt, sum(s.n_skipped for s in sources), **_said(*sources),
                   fit_seconds=time.perf_counter() - start)


# -- parser and tagger ----------------------------------------------------------------------------
def input_columns(parser) -> list[str]:
    """The tag columns ``parser`` reads (LEMMA among them), its labeler's included."""
    labeler = parser.labeler_ if getattr(parser, "labeler_", None) is not None else None
    feats = parser.use_feats or bool(labeler and labeler.use_feats)
    lemma = parser.use_lemma or bool(labeler and labeler.use_lemma)
    return ["upos"] + ["xpos"] * parser.use_xpos + ["feats"] * feats + ["lemma"] * lemma


def fit_parser(train: list, dev: list | None = None, reading=None, on_epoch=None, **params):
    """A :class:`~seqspectral.parsing.DependencyParser` (``params``) fitted on the sentences
    ``train`` (epochs chosen on ``dev``), with its ``reading_`` (how they were read) and its
    ``input_profile_`` (the values of the columns it reads, to check new input against)."""
    from seqspectral.corpus.columns import ColumnProfile
    from seqspectral.parsing import DependencyParser


    parser = DependencyParser(**params).fit(train, dev=dev, on_epoch=on_epoch)
    parser.reading_ = _reading(reading).recorded()
    parser.input_profile_ = ColumnProfile.of(train, input_columns(parser))
    return parser


def dev_las(parser, dev: list) -> float:
    """The LAS (%) of ``parser``'s trees of ``dev`` (its tag columns as they are)."""
    from seqspectral.treebank_scores import conll18_scores

    return conll18_scores(dev, parser.parse(dev))["LAS"]["f1"]


def choose_labeler(parser, train: list, dev: list, columns) -> dict:
    """Give ``parser`` the label classifier that labels its own dev trees best: its own (the
    columns it reads) or one that also reads the predicted FEATS and / or LEMMA of ``columns``
    (a column is kept only if the dev LAS gains); its ``input_profile_`` follows. Returns
    {reading: dev LAS} of every labeler tried."""
    from dataclasses import replace

    from seqspectral.corpus.columns import ColumnProfile
    from seqspectral.parsing.labeler import DependencyLabeler
    from seqspectral.treebank_scores import conll18_scores


    trees = parser.predict(dev)
    unlabelled = [replace(s, heads=h) for s, h in zip(dev, trees)]

    def las(labeler) -> float:
        out = [replace(s, deprels=d) for s, d in zip(unlabelled, labeler.predict(unlabelled))]
        return conll18_scores(dev, out)["LAS"]["f1"]

    best, table = parser.labeler_, {}
    table[_columns_read(best)] = best_las = las(best)
    for column in ("feats", "lemma"):
        if column not in columns or getattr(best, f"use_{column}"):
            continue
        params = {**best.get_params(deep=False), f"use_{column}": True}
        candidate = DependencyLabeler(**params).fit(train)
        table[_columns_read(candidate)] = score = las(candidate)
        if score > best_las:
            best, best_las = candidate, score
    parser.labeler_ = best
    parser.input_profile_ = ColumnProfile.of(train, input_columns(parser))
    return table


def _columns_read(labeler) -> str:
    return "+".join(["upos"] + [c for c in ("xpos", "feats", "lemma") if getattr(labeler, f"use_{c}")])


def fit_tagger(train: list, dev: list | None = None, reading=None, on_epoch=None, **params):
    """A :class:`~seqspectral.tagging.PerceptronTagger` (``params``) fitted on the sentences
    ``train`` (epochs chosen on ``dev``), its ``reading_`` recording how they were read and
    the column it tags. A column with no values is refused: there is nothing to learn."""
    from seqspectral.tagging import PerceptronTagger

    tagger = PerceptronTagger(**params)
    tagger.fit(train, dev=dev, on_epoch=on_epoch)
    tagger.reading_ = _reading(reading).recorded().updated(field=tagger.field)
    return tagger


def _sentences(path, reading, heads_required: bool, names, max_words=None):
    read = read_sentences(path, reading, heads_required, name=(names or {}).get(str(path)), max_words=max_words)
    return read, reading.updated(format=read.format)


def train_parser(train, *, dev=None, reading=None, names=None, on_epoch=None, max_words: int | None = None,
                 **params) -> Trained:
    """:func:`fit_parser` on the treebank file ``train`` (held-out file ``dev``); a sentence
    longer than ``max_words`` is refused."""
    reading = _reading(reading)
    start = time.perf_counter()
    read, reading = _sentences(train, reading, True, names, max_words)
    held = _sentences(dev, reading, True, names, max_words)[0] if dev is not None else None
    parser = fit_parser(read.sentences, held.sentences if held else None, reading, on_epoch, **params)
    return Trained(parser, read.format, **_said(read, held), fit_seconds=time.perf_counter() - start,
                   n_sentences=len(read.sentences))


def train_tagger(train, *, dev=None, reading=None, names=None, on_epoch=None, field: str = "upos",
                 **params) -> Trained:
    """:func:`fit_tagger` of ``field`` on the file ``train`` (held-out file ``dev``); a
    file whose ``field`` column is empty (raw text, an untagged treebank) is refused."""
    reading = _reading(reading)
    start = time.perf_counter()
    read, reading = _sentences(train, reading, False, names)
    if not has_column(read.sentences, field):
        raise InputError(f"{(names or {}).get(str(train), train)}: the {field.upper()} column is empty (every value "
                         "_); a tagger learns from tagged sentences")
    held = read_sentences(dev, reading, False, name=(names or {}).get(str(dev))) if dev is not None else None
    tagger = fit_tagger(read.sentences, held.sentences if held else None, reading, on_epoch, field=field, **params)
    return Trained(tagger, read.format, **_said(read, held), fit_seconds=time.perf_counter() - start,
                   n_sentences=len(read.sentences))


def fit_reranker(train, dev=None, reading=None, on_epoch=None, **params):
    """A :class:`~seqspectral.reranking.Reranker` (``params``) fitted on the training lists
    ``train`` (:func:`seqspectral.reranking.files.read_training_lists`; choices on ``dev``,
    the same kind of lists), its ``reading_`` the encoding its n-best files were read in."""
    from seqspectral.reranking import Reranker

    held = (dev.features, dev.loss, dev.sizes) if dev else None
    reranker = Reranker(**params).fit(train.features, train.loss, dev=held, sizes=train.sizes, on_epoch=on_epoch)
    reranker.reading_ = _reading(reading).recorded()
    return reranker
