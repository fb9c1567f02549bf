"""The spectral features' ablation (issue 25, item 6): every tree-model feature variant tried, on
the same lists with the same hashed features, against the same reranker without it.

Every row is a reranker (``rerank build``'s: context templates, 20 epochs, anchor and epochs
chosen on the EWT or WSJ dev lists) on the jackknifed training lists of a finished build
(``evaluation.reranking``'s ``ewt`` / ``wsj`` parts), with the variant's real-valued columns
forced in (``feature_set="scorers"``), so that the row measures the features themselves. The
training lists' columns come from models trained without their fold (as the build's), the dev
and test lists' from models on all of train (the ``leaky`` row: the all-train model on the
training lists too). The table also says what the reranker's own held-out choice
(``feature_set="auto"``) makes of the variant: it keeps the columns only when the best model
with them beats the best without them (the ``none`` row's, the same run) on the dev lists by
2 standard errors of the paired per-list gain (``reranking.held_out_gain.gain_bound``).

Columns are kept in ``WORKDIR/ablation-columns`` and rows in ``WORKDIR/ablation-rows`` as they
are done (a stopped run resumes). Variants (key: what the reranker gets beside the parser score):

- ``none``: nothing; ``default``: the UPOS spectral model's log p̂(tags | tree) and its topology
  term (the build's default); ``leaky``: the same from the all-train model on the training lists;
- ``direction``: the default plus the per-word conditional log p̂ summed by side of the head;
- ``per-word``: the default's two columns divided by the sentence length; ``rank``: the
  default's columns replaced by each candidate's rank by them in its list (0 = best), robust
  to the spectral estimate's outliers. (A column less its list's best is not a row: a shift
  within a list changes no ranking and no perceptron update, so it is the default exactly.)
- ``xpos``: the default plus an XPOS model (identity U, k = the 50 XPOS tags: more hidden
  states than the 17 UPOS tags); ``em``: the default plus the EM twin (EM tree model over UPOS,
  17 states, 40 iterations) log p(tags | tree);
- ``form``: the default plus a word-form model (SVD U, k = 50) log p̂(words | tree);
  ``form-brown``: the same model trained on the treebank plus Brown (NLTK, tagged by the build's
  taggers and parsed by its parser; see :func:`brown_parsed`).

Run from the repository root (the ``ewt`` and ``wsj`` parts of ``evaluation.reranking`` done in
the same workdir)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python -m evaluation reranking_ablation \\
        --workdir DIR --variants none default xpos
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .common import EWT, NLTK_DATA, log, require_data

SPLITS = ("train", "dev", "test")
#: the rows of each treebank, in the order they are run (cheap first)
VARIANTS = {"ewt": ("none", "default", "leaky", "direction", "per-word", "rank", "xpos", "em", "form", "form-brown"),
            "wsj": ("none", "default", "per-word", "rank", "xpos", "em", "form")}
LABELS = {
    "none": "no tree model (context templates + parser score)",
    "default": "UPOS spectral model: log p̂ + topology (the build's default)",
    "leaky": "the same, all-train model on the training lists (leaky)",
    "direction": "+ per-word log p̂ summed by side (left / right / root)",
    "per-word": "UPOS log p̂ + topology divided by sentence length",
    "rank": "UPOS log p̂ + topology as ranks in the list",
    "xpos": "+ XPOS spectral model (k = 50 XPOS tags > 17 UPOS)",
    "em": "+ EM twin (EM tree model, UPOS, 17 states) log p",
    "form": "+ word-form spectral model (SVD U, k = 50)",
    "form-brown": "+ word-form spectral model (SVD U, k = 50), treebank + parsed Brown",
}


# -- the real-valued columns of a variant -------------------------------------------------------------
def _fold_models(lists, field: str):
    """The build's per-fold models for UPOS; for another column, models trained here without each fold."""
    from seqspectral import serialize
    from seqspectral.corpus import Reading
    from seqspectral.reranking.build import fit_tree_model

    if field == "upos":
        models = [serialize.load(lists.directory / f"tree-fold{i + 1}.npz") for i in range(len(lists.folds))]
        for m in models:
            m.reading_ = Reading(field="upos")
        return models, lists.built.tree_model
    return ([fit_tree_model(_others(lists, i), field) for i in range(len(lists.folds))],
            fit_tree_model(lists.train, field))


def _others(lists, i: int) -> list:
    a, b = lists.blocks[i]
    return lists.train[:a] + lists.train[b:]


def _scored(lists, fold_scorers, full_scorers) -> dict:
    """{split: {name: column}}: the training lists by their fold's scorers, dev and test by the full ones."""
    out = {"train": {}, "dev": {}, "test": {}}
    for j, s in enumerate(full_scorers):
        out["train"][s.name] = np.concatenate([fs[j].tree_log_probs(t) for fs, t in zip(fold_scorers, lists.folds)])
        out["dev"][s.name] = s.tree_log_probs(lists.dev_trees)
        out["test"][s.name] = s.tree_log_probs(lists.test_trees)
    return out


def _tree_columns(lists, field: str, prefix: str, models=None) -> dict:
    from seqspectral.reranking import tree_model_scorers

    folds, full = models or _fold_models(lists, field)
    return _scored(lists, [tree_model_scorers(m, prefix) for m in folds], tree_model_scorers(full, prefix))


def _per_list(columns: dict, lists, transform) -> dict:
    """``transform(column, groups, lengths)`` of every column of every split."""
    from seqspectral.reranking.build import concatenated

    trees = {"train": concatenated(lists.folds), "dev": lists.dev_trees, "test": lists.test_trees}
    return {split: {name: transform(c, trees[split].groups, np.repeat(trees[split].lengths, trees[split].n_trees))
                    for name, c in cols.items()} for split, cols in columns.items()}


def _rank_in_list(column, groups, lengths) -> np.ndarray:
    """0 for the best of its list, −1 for the next, … (ties share the better rank)."""
    out = np.empty(len(column))
    for a, b in zip(groups[:-1], groups[1:]):
        x = column[a:b]
        out[a:b] = -np.searchsorted(np.sort(-x), -x, side="left")
    return out


def _em_columns(lists) -> dict:
    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.reranking import CorpusScorer
    from seqspectral.trees import EMTreeModel

    def em(sentences):
        model = EMTreeModel(17, max_iter=40).fit(corpus_from_sentences(sentences, field="upos"))
        model.reading_ = Reading(field="upos")
        return CorpusScorer(model, "em:log_prob")

    return _scored(lists, [[em(_others(lists, i))] for i in range(len(lists.folds))], [em(lists.train)])


def _form_model(sentences):
    from seqspectral.corpus import Reading, corpus_from_sentences
    from seqspectral.trees import SpectralTreeModel

    model = SpectralTreeModel(50, representation="svd", ridge="auto", shrinkage="auto", floor="auto",
                              selection="ranking").fit(corpus_from_sentences(sentences, field="form"))
    model.reading_ = Reading(field="form")
    return model


def _form_columns(lists, extra=()) -> dict:
    extra = list(extra)
    folds = [_form_model(_others(lists, i) + extra) for i in range(len(lists.folds))]
    return _tree_columns(lists, "form", "form", (folds, _form_model(lists.train + extra)))


def brown_parsed(lists, workdir: Path) -> list:
    """NLTK's Brown corpus (57,340 sentences), its forms tagged by the build's UPOS and XPOS taggers
    and parsed by the build's parser (kept as CoNLL-U in the workdir). The parser saw every fold,
    so a fold's model trained on these parses has seen that fold through them (a mild leak, unlike
    the treebank part)."""
    import re
    import zipfile

    from seqspectral.corpus import Sentence, read_conllu, write_conllu
    from seqspectral.reranking.build import tag

    path = workdir / "brown-parsed.conllu"
    if not path.is_file():
        sentences = []
        with zipfile.ZipFile(NLTK_DATA / "corpora" / "brown.zip") as z:
            for name in sorted(n for n in z.namelist() if re.fullmatch(r"brown/c[a-r]\d\d", n)):
                for line in z.read(name).decode("ascii", "replace").splitlines():
                    words = [w.rsplit("/", 1)[0] for w in line.split()]
                    if 0 < len(words) <= 60:
                        n = len(words)
                        sentences.append(Sentence(words, ["_"] * n, ["_"] * n, ["_"] * n, [0] * n, ["_"] * n))
        log(f"brown: tagging and parsing {len(sentences):,} sentences")
        tagged = tag(lists.built.taggers, sentences)
        write_conllu(path, lists.built.parser.parse(tagged))
    return read_conllu(path)


def columns(key: str, lists, workdir: Path) -> dict:
    """{split: {name: column}} of variant ``key`` (cached in ``workdir/ablation-columns``)."""
    cache = workdir / "ablation-columns" / f"{lists.name}-{key}.npz"
    if cache.is_file():
        with np.load(cache) as saved:
            out = {split: {} for split in SPLITS}
            for k in saved.files:
                split, name = k.split("/", 1)
                out[split][name] = saved[k]
            return out
    default = (lambda: columns("default", lists, workdir))
    if key == "none":
        out = {split: {} for split in SPLITS}
    elif key == "default":
        out = _tree_columns(lists, "upos", "tree")
    elif key == "leaky":
        from seqspectral.reranking import tree_model_scorers

        full = tree_model_scorers(lists.built.tree_model, "tree")
        out = _scored(lists, [full] * len(lists.folds), full)
    elif key == "direction":
        from seqspectral.reranking.spectral_features import DirectionScorers

        folds, full = _fold_models(lists, "upos")
        side = _scored(lists, [DirectionScorers(m).scorers() for m in folds], DirectionScorers(full).scorers())
        out = {split: {**default()[split], **side[split]} for split in SPLITS}
    elif key == "per-word":
        out = _per_list(default(), lists, lambda c, groups, lengths: c / lengths)
    elif key == "rank":
        out = _per_list(default(), lists, lambda c, groups, lengths: _rank_in_list(c, groups, lengths))
    elif key in ("xpos", "em", "form", "form-brown"):
        more = {"xpos": lambda: _tree_columns(lists, "xpos", "xpos"), "em": lambda: _em_columns(lists),
                "form": lambda: _form_columns(lists),
                "form-brown": lambda: _form_columns(lists, brown_parsed(lists, workdir))}[key]()
        out = {split: {**default()[split], **more[split]} for split in SPLITS}
    else:
        raise ValueError(key)
    cache.parent.mkdir(exist_ok=True)
    np.savez(cache, **{f"{split}/{name}": c for split, cols in out.items() for name, c in cols.items()})
    return out


# -- a row ---------------------------------------------------------------------------------------------
class Hashed:
    """The hashed features (build's templates) and losses of a build's train, dev and test lists,
    made once per process."""

    def __init__(self, lists):
        from seqspectral.reranking import head_losses, parse_features
        from seqspectral.reranking.build import concatenated

        o = lists.built.options
        train = concatenated(lists.folds)
        self.trees = {"train": train, "dev": lists.dev_trees, "test": lists.test_trees}
        gold = {"train": lists.train, "dev": lists.dev, "test": lists.test}
        self.features = {s: parse_features(t, (), o.templates) for s, t in self.trees.items()}
        self.loss = {s: head_losses(t, gold[s]) for s, t in self.trees.items()}


def row(key: str, lists, hashed: Hashed, workdir: Path) -> dict:
    """The reranker with variant ``key``'s columns forced in: dev and test figures, its choice, and its
    per-list dev losses (for the feature-set decision against ``none``)."""
    from seqspectral.reranking import Reranker

    from .reranking import scores

    path = workdir / "ablation-rows" / f"{lists.name}-{key}.json"
    if path.is_file():
        return json.loads(path.read_text())
    log(f"ablation: {lists.name} {key}")
    start = time.process_time()
    cols = columns(key, lists, workdir)
    f = {s: hashed.features[s].with_dense(list(cols[s]), list(cols[s].values())) for s in SPLITS}
    reranker = Reranker(lists.built.options.reranker_epochs, feature_set="scorers").fit(
        f["train"], hashed.loss["train"], dev=(f["dev"], hashed.loss["dev"], hashed.trees["dev"].lengths))
    dev_choice = reranker.choose(f["dev"])
    chosen = lists.test_trees.chosen(reranker.choose(f["test"]))
    result = {"key": key, "name": LABELS[key], "dev_uas": reranker.held_out_["reranked_accuracy"],
              "test": scores(lists.test, lists.built.parser.with_trees(lists.test, chosen)),
              "chosen": reranker.selection_.chosen, "cpu_s": time.process_time() - start,
              "dev_list_loss": hashed.loss["dev"][f["dev"].groups[:-1] + dev_choice].tolist(),
              "agreement": {n: pairwise_agreement(f["dev"], hashed.loss["dev"], j)
                            for j, n in enumerate(f["dev"].dense_names)}}
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(result, default=float))
    return result


def lists_of(name: str, workdir: Path):
    from .reranking import Lists, wsj_files

    if name == "ewt":
        lists = Lists(workdir / "ewt")
    else:
        lists = Lists(workdir / "wsj", wsj_files(workdir, False), {"format": "conllx"})
    lists.name = name
    return lists


def part_ablation(workdir: Path, variants=None) -> dict:
    """Every row of every treebank (``variants``: {treebank: keys}, default :data:`VARIANTS`)."""
    from .reranking import scores

    out = {}
    for name, keys in (variants or VARIANTS).items():
        if not keys:
            continue
        lists = lists_of(name, workdir)
        hashed = Hashed(lists)
        rows = [row(key, lists, hashed, workdir) for key in dict.fromkeys(("none", *keys))]
        out[name] = {"rows": rows, "one_best": scores(lists.test, lists.built.parser.parse(lists.test))}
    return out


def pairwise_agreement(features, loss, column: int) -> float:
    """Share of within-list candidate pairs with different losses where the column is higher
    for the lower-loss candidate (ties half)."""
    agree = total = 0.0
    for a, b in zip(features.groups[:-1], features.groups[1:]):
        l, x = loss[a:b], features.dense[a:b, column]
        better = l[:, None] < l[None, :]
        dx = x[:, None] - x[None, :]
        agree += np.sum(dx[better] > 0) + 0.5 * np.sum(dx[better] == 0)
        total += better.sum()
    return float(agree / max(total, 1))


# -- the tables ----------------------------------------------------------------------------------------
def kept_by_choice(r: dict, none: dict, margin: float = 2.0) -> tuple[bool, float]:
    """The feature-set choice of ``Reranker(feature_set="auto")`` on this variant: its best model
    against ``none``'s on the dev lists (the same run), kept if the paired gain bound is above 0."""
    from seqspectral.reranking.held_out_gain import gain_bound

    bound = gain_bound(np.asarray(none["dev_list_loss"]) - np.asarray(r["dev_list_loss"]), margin)
    return bound > 0, bound


def tables(ablation: dict, one_best: dict | None = None) -> list[str]:
    """The markdown tables of ``ablation`` ({treebank: {"rows": [...]}}); ``one_best``: {treebank: test
    scores of the parser} where the ablation has none."""
    lines = []
    for name, label, goal in (("ewt", "EWT test", 2.0), ("wsj", "WSJ sample, test 10%", 0.0)):
        if name not in ablation:
            continue
        ab = ablation[name]
        none = next(r for r in ab["rows"] if r["key"] == "none")
        base = none["test"]["uas"]
        one_best = (ab.get("one_best") or (one_best or {}).get(name) or {"uas": float("nan")})["uas"]
        lines += ["", f"## Spectral features: ablation ({label}; same lists, same hashed features, choices on dev)", "",
                  f"1-best: {one_best:.2f} UAS. Each row forces its columns in (`feature_set=\"scorers\"`); "
                  f"relative error reduction of test UAS against the reranker without a tree model; target "
                  f"{'≥ +2.0%' if goal else 'no harm (≥ 0)'}. *Held-out choice*: what `feature_set=\"auto\"` "
                  f"(the default) makes of the columns on the dev lists: kept only if the gain over the no-tree "
                  f"reranker is above 2 standard errors (the bound, in heads).", "",
                  "| reranker | dev UAS | test UAS | LAS | CM | rel. UAS error reduction | missed by | held-out "
                  "choice (bound) | anchor, epochs | CPU s | dev pairwise agreement |",
                  "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---|"]
        for r in ab["rows"]:
            t = r["test"]
            red = 100 * (t["uas"] - base) / (100 - base)
            missed = "—" if r is none else ("met" if red >= goal else f"{goal - red:.1f} points")
            kept, bound = kept_by_choice(r, none)
            choice = "—" if r is none else f"{'kept' if kept else 'dropped'} ({bound:+.0f})"
            agree = "; ".join(f"{n} {100 * v:.1f}%" for n, v in r["agreement"].items())
            lines.append(f"| {r['name']} | {r['dev_uas']:.2f} | {t['uas']:.2f} | {t['las']:.2f} | {t['complete']:.2f} "
                         f"| {red:+.1f}% | {missed} | {choice} | {r['chosen']['anchor']:g}, {r['chosen']['epochs']} | "
                         f"{r['cpu_s']:.0f} | {agree} |")
    return lines


def finished(workdir: Path) -> dict:
    """The rows finished so far in ``workdir/ablation-rows`` (a treebank only with its ``none`` row)."""
    out = {}
    kept = Path(workdir) / "ablation-rows"
    for path in sorted(kept.glob("*.json")) if kept.is_dir() else []:
        r = json.loads(path.read_text())
        if "key" in r:  # rows of the earlier ablation (test figures only) are not mixed in
            out.setdefault(path.stem.split("-")[0], {"rows": []})["rows"].append(r)
    order = {name: list(dict.fromkeys(("none", *keys))) for name, keys in VARIANTS.items()}
    for name, ab in out.items():
        ab["rows"].sort(key=lambda r: order[name].index(r["key"]) if r["key"] in order[name] else 99)
    return {k: ab for k, ab in out.items() if ab["rows"][0]["key"] == "none"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/seqspectral-rerank-eval"),
                    help="the workdir of `python -m evaluation reranking` with its ewt and wsj builds")
    ap.add_argument("--treebanks", nargs="+", choices=tuple(VARIANTS), default=list(VARIANTS))
    ap.add_argument("--variants", nargs="+", default=None, help="rows to run (default every row of the treebank)")
    args = ap.parse_args(argv)
    require_data(EWT)
    part_ablation(args.workdir, {name: [k for k in VARIANTS[name] if args.variants is None or k in args.variants]
                                 for name in args.treebanks})
    from .reranking import main as tables_main

    return tables_main(["--workdir", str(args.workdir), "--tables-only"])


if __name__ == "__main__":
    sys.exit(main())
