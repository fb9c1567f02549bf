"""Reranking that pays on any treebank (issue 25): the "Done when" figures of ``rerank build`` /
``rerank run`` (the spectral features' ablation, on the ``ewt`` and ``wsj`` builds of the same
workdir, is :mod:`evaluation.reranking_ablation`, with its own results file).

Parts (each caches its result as JSON in ``--workdir``; the tables are written from every part
finished so far, so parts can run in separate processes and a run picks up where one stopped):

- ``ewt``: the one command's defaults on UD English-EWT train (dev for every choice), first
  order: 1-best and reranked on test, gold tags; ``ewt2``: the same, second order; ``untagged``:
  ``rerank build --tags predicted --clusters-from brown.zip --tag-folds 10`` (word clusters of
  Brown and the treebank's words in the taggers and the parser; train tags jackknifed in 10
  folds, the build measured on test; dev later picked the default 3, docs/rerank-build.md), test read
  with LEMMA, UPOS, XPOS and FEATS emptied (the words alone, as from raw text: predicted tags end
  to end) against the same parser's 1-best on those tags;
- ``wsj``: the WSJ dependency sample of NLTK (199 files, 3,914 sentences, Malt-TAB; the PTB tag
  in both tag columns) split by sentence order over the files in name order: the first 80%
  train, the next 10% dev, the last 10% test; ``latin1``: the same split with every two
  consecutive sentences joined into one (two words on the root in every sentence; the parser
  then allows several roots) and ``$`` written ``£``, as a Latin-1 CoNLL-X file (made here, not
  committed), built with ``--format conllx --encoding latin-1``;
- ``devonly``: a reranker trained only on the EWT dev lists of the ``ewt`` build (its held-out
  choice on 20% of them), measured on test; ``latin1devonly``: the same on the ``latin1`` build
  (the step-by-step path with a held-out part of a few dozen lists); ``sample``: the one command on the bundled
  300-sentence sample (dev: the bundled dev sample), measured on EWT test;
- ``memory``: peak resident memory of ``seqspectral rerank train`` on the ``ewt`` build's jackknifed
  training lists written as one n-best file (dev lists for the choice, the build's tree model).

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python -m evaluation reranking --workdir /tmp/rb
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

from .common import EWT, NLTK_DATA, REPO, RESULTS, describe, ewt, log, require_data

WSJ = NLTK_DATA / "corpora" / "dependency_treebank.zip"
BROWN = NLTK_DATA / "corpora" / "brown.zip"
OUT = RESULTS / "reranking.md"
PARTS = ("ewt", "untagged", "ewt2", "wsj", "latin1", "devonly", "latin1devonly", "sample", "memory")


def scores(gold, pred) -> dict:
    from seqspectral.parsing import attachment_scores

    return {k: v for k, v in attachment_scores(gold, pred).items() if k in ("uas", "las", "complete")}


def measured(directory, test, given=None) -> dict:
    """1-best and reranked scores of a finished build on ``test`` (``given``: the input as the
    build reads it, default ``test`` itself)."""
    from seqspectral.workflows import Pipeline
    from seqspectral.workflows.rerank_build import tag

    built = Pipeline.load(directory)
    given = test if given is None else given
    reranked, columns = built.run_with_columns(given)
    tagged = tag({c: built.taggers[c] for c in columns["predicted"]}, given)
    report = json.loads((Path(directory) / "report.json").read_text())
    return {"one_best": scores(test, built.parser.parse(tagged)), "reranked": scores(test, reranked),
            "columns": columns, "report": report}


def part_build(workdir, name, train, dev, test, options, reading=None, given=None, workers=1) -> dict:
    from seqspectral.corpus import Reading
    from seqspectral.workflows import build, read_sentences

    build(workdir / name, train, dev, options, reading=reading or Reading(), workers=workers, progress=True)
    test_sentences = read_sentences(test, reading or Reading()).sentences
    return measured(workdir / name, test_sentences, given(test_sentences) if given else None)


def untagged(sentences) -> list:
    """The words alone, as from raw text: LEMMA, UPOS, XPOS and FEATS emptied."""
    return [replace(s, lemmas=["_"] * len(s), upos=["_"] * len(s), xpos=["_"] * len(s), feats=None) for s in sentences]


# -- the WSJ sample and its Latin-1 several-roots variant ------------------------------------------
def wsj_sentences() -> list[list[tuple[str, str, int]]]:
    out = []
    with zipfile.ZipFile(WSJ) as z:
        for name in sorted(n for n in z.namelist() if n.endswith(".dp")):
            for block in z.read(name).decode("ascii").strip().split("\n\n"):
                rows = [line.split("\t") for line in block.strip().split("\n") if line.strip()]
                out.append([(w, t, int(h)) for w, t, h in rows])
    return out


def joined_pairs(sentences):
    """Every two consecutive sentences as one: the second's heads shifted, both roots kept."""
    out = []
    for a, b in zip(sentences[0::2], sentences[1::2]):
        out.append(a + [(w, t, h + len(a) if h else 0) for w, t, h in b])
    return out


def write_conllx(path: Path, sentences, encoding: str, pound: bool) -> None:
    with open(path, "w", encoding=encoding) as f:
        for s in sentences:
            for i, (w, t, h) in enumerate(s, 1):
                w = w.replace("$", "£") if pound else w
                f.write(f"{i}\t{w}\t_\t{t}\t{t}\t_\t{h}\t_\t_\t_\n")
            f.write("\n")


def wsj_files(workdir: Path, latin1: bool) -> dict:
    sentences = wsj_sentences()
    if latin1:
        sentences = joined_pairs(sentences)
    n = len(sentences)
    cut = [0, int(0.8 * n), int(0.9 * n), n]
    files = {}
    for i, split in enumerate(("train", "dev", "test")):
        path = workdir / f"wsj{'-latin1' if latin1 else ''}-{split}.conll"
        write_conllx(path, sentences[cut[i]:cut[i + 1]], "latin-1" if latin1 else "utf-8", latin1)
        files[split] = path
    return files


# -- rerankers on a build's lists ---------------------------------------------------------------------
class Lists:
    """A build's training (per fold), dev and test lists with their gold sentences (``files``:
    train, dev, test treebanks, read with ``reading``; default EWT's)."""

    def __init__(self, directory: Path, files=None, reading=None):
        from seqspectral.corpus import Reading
        from seqspectral.workflows import Pipeline, read_sentences
        from seqspectral.workflows.folds import fold_blocks, load_trees

        files = files or {split: ewt(split) for split in ("train", "dev", "test")}
        reading = reading or Reading()
        self.directory = directory
        self.built = Pipeline.load(directory)
        o = self.built.options
        self.train, self.dev, self.test = (read_sentences(files[x], reading).sentences for x in ("train", "dev", "test"))
        self.blocks = fold_blocks(len(self.train), o.folds)
        self.folds = [load_trees(directory / f"nbest-train-fold{i + 1}.npz", self.train[a:b])
                      for i, (a, b) in enumerate(self.blocks)]
        self.dev_trees = load_trees(directory / "nbest-dev.npz", self.dev)
        self.test_trees = self.built.parser.kbest_trees(self.test, o.k)


def part_devonly(workdir: Path, name: str = "ewt", files=None, reading=None) -> dict:
    """A reranker trained only on the dev lists of build ``name`` (its choice on 20% of them)."""
    from seqspectral.reranking import Reranker, head_losses, parse_features
    from seqspectral.workflows.nbest_features import scorers_of

    lists = Lists(workdir / name, files, reading)
    o = lists.built.options
    scorers = scorers_of(lists.built.tree_model, o)
    dev_f = parse_features(lists.dev_trees, scorers, o.templates)
    reranker = Reranker(o.reranker_epochs).fit(dev_f, head_losses(lists.dev_trees, lists.dev),
                                               sizes=lists.dev_trees.lengths)
    chosen = lists.test_trees.chosen(reranker.choose(parse_features(lists.test_trees, scorers, o.templates)))
    return {"one_best": scores(lists.test, lists.built.parser.parse(lists.test)),
            "reranked": scores(lists.test, lists.built.parser.with_trees(lists.test, chosen)),
            "chosen": reranker.selection_.chosen, "held_out": reranker.held_out_}


def streamed_nbest(trees, with_trees, chunk: int = 256):
    """The n-best lists of ``trees`` made ``chunk`` sentences at a time (memory: one chunk)."""
    from seqspectral.parsing import TreeLists

    groups, offsets = trees.groups, trees.tree_offsets
    for a in range(0, len(trees), chunk):
        b = min(a + chunk, len(trees))
        part = TreeLists(trees.sentences[a:b], trees.heads[offsets[groups[a]]:offsets[groups[b]]],
                         trees.scores[groups[a]:groups[b]], trees.n_trees[a:b])
        yield from part.to_nbest(with_trees)


def part_memory(workdir: Path) -> dict:
    """Peak resident memory (``/usr/bin/time -v``) of ``seqspectral rerank train`` on the jackknifed
    50-best lists of EWT train (the ``ewt`` build's folds, written as one n-best file) with the build's
    tree model, choices on the dev lists."""
    import subprocess

    from seqspectral.corpus import write_nbest
    from seqspectral.workflows.nbest_features import concatenated

    lists = Lists(workdir / "ewt")
    files = {"train": workdir / "ewt-train.50best.conllu", "dev": workdir / "ewt-dev.50best.conllu"}

    for name, trees in (("train", concatenated(lists.folds)), ("dev", lists.dev_trees)):
        if not files[name].is_file():
            log(f"memory: writing {files[name]}")
            write_nbest(files[name], streamed_nbest(trees, lists.built.parser.with_trees))
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "seqspectral.cli.main", "rerank", "train",
               str(files["train"]), "--gold", str(ewt("train")), "--dev", str(files["dev"]), "--dev-gold",
               str(ewt("dev")), "--tree-model", str(workdir / "ewt" / "tree.npz"), "--epochs",
               str(lists.built.options.reranker_epochs), "-o", str(workdir / "memory-reranker.npz"), "--json"]
    log("memory: " + " ".join(command[2:]))
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    fields = dict(line.strip().split(": ", 1) for line in done.stderr.splitlines() if line.startswith("\t"))
    return {"command": "seqspectral rerank train " + " ".join(command[7:]),
            "peak_rss_mb": int(fields["Maximum resident set size (kbytes)"]) / 1024,
            "cpu_s": float(fields["User time (seconds)"]) + float(fields["System time (seconds)"]),
            "wall": fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"],
            "nbest_mb": {k: f.stat().st_size / 2 ** 20 for k, f in files.items()},
            "report": json.loads(done.stdout)}


def run_part(part: str, workdir: Path, workers: int = 1) -> dict:
    from seqspectral.corpus import Reading
    from seqspectral.workflows import BuildOptions

    if part == "ewt":
        return part_build(workdir, "ewt", ewt("train"), ewt("dev"), ewt("test"), BuildOptions(), workers=workers)
    if part == "ewt2":
        return part_build(workdir, "ewt2", ewt("train"), ewt("dev"), ewt("test"), BuildOptions(order=2),
                          workers=workers)
    if part == "untagged":
        return part_build(workdir, "untagged", ewt("train"), ewt("dev"), ewt("test"),
                          BuildOptions(tags="predicted", tag_folds=10, clusters_from=(str(BROWN),)), given=untagged,
                          workers=workers)
    if part in ("wsj", "latin1"):
        files = wsj_files(workdir, part == "latin1")
        reading = Reading(format="conllx", encoding="latin-1" if part == "latin1" else "utf-8")
        return part_build(workdir, part, files["train"], files["dev"], files["test"], BuildOptions(), reading)
    if part == "sample":
        return part_build(workdir, "sample", REPO / "corpora" / "ewt-sample.conllu",
                          REPO / "corpora" / "ewt-sample-dev.conllu", ewt("test"), BuildOptions())
    if part == "devonly":
        return part_devonly(workdir)
    if part == "latin1devonly":
        return part_devonly(workdir, "latin1", wsj_files(workdir, True), Reading(format="conllx", encoding="latin-1"))
    if part == "memory":
        return part_memory(workdir)
    raise ValueError(part)


# -- the tables ---------------------------------------------------------------------------------------
def _row(label, r) -> str:
    a, b = r["one_best"], r["reranked"]
    return (f"| {label} | {a['uas']:.2f} | {b['uas']:.2f} | {b['uas'] - a['uas']:+.2f} | {a['las']:.2f} | "
            f"{b['las']:.2f} | {a['complete']:.2f} | {b['complete']:.2f} |")


LABELS = {"ewt": "EWT test, first order, gold tags (defaults)", "ewt2": "EWT test, second order, gold tags",
          "untagged": "EWT test from untagged input (`--tags predicted --clusters-from brown.zip --tag-folds 10`: "
                      "words only in, predicted UPOS + XPOS end to end, no LEMMA)",
          "wsj": "WSJ dependency sample (NLTK), test 10%",
          "latin1": "WSJ sample, Latin-1 CoNLL-X, two roots per sentence, test 10%",
          "devonly": "EWT test, reranker trained on the 2,001 EWT dev lists only",
          "latin1devonly": "Latin-1 two-root WSJ test, reranker trained on its 196 dev lists only (39 held out)",
          "sample": "EWT test, build on the bundled 300-sentence sample"}


def report(results: dict, argv) -> str:
    lines = ["# Reranking that pays on any treebank (issue 25): `rerank build` / `rerank run`", "",
             describe("evaluation/reranking.py", argv), "",
             "Every build: `rerank build` defaults (first order, 50-best, 3 folds, context templates, the UPOS "
             "spectral tree model chosen by ranking, one per fold for the training lists, reranker choices on "
             "dev). UAS / LAS / CM (complete match) with punctuation, on test.", "",
             "| set-up | 1-best UAS | reranked UAS | gain | 1-best LAS | reranked LAS | 1-best CM | reranked CM |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for part in PARTS:
        if part in results and part != "memory":
            lines.append(_row(LABELS[part], results[part]))
    lines.append("")
    for part in ("ewt", "ewt2", "untagged", "wsj", "latin1", "sample"):
        if part in results:
            rep = results[part]["report"]
            stages = ", ".join(f"{n} {s['cpu_s']:.0f}" for n, s in rep["stages"].items())
            lines.append(f"- {LABELS[part]}: build {rep['total_cpu_s']:.0f} CPU s ({rep['total_cpu_s'] / 60:.1f} "
                         f"CPU-min; stages, CPU s: {stages}); dev: parser {rep['parser_dev']['uas']:.2f}, reranked "
                         f"{rep['reranked_dev']['uas']:.2f}, oracle {rep['dev_oracle_uas']:.2f}; reranker choice "
                         f"{rep.get('reranker_chosen')}; tag columns of the run: {results[part]['columns']}")
    if "devonly" in results:
        lines.append(f"- dev-only reranker: choice {results['devonly']['chosen']}, held out "
                     f"{json.dumps(results['devonly']['held_out'])}")
    if "memory" in results:
        m = results["memory"]
        lines.append(f"- memory: `{m['command']}` on {m['report']['lists']:,} jackknifed 50-best lists of EWT train "
                     f"({m['nbest_mb']['train']:.0f} MB n-best file; dev {m['nbest_mb']['dev']:.0f} MB): peak "
                     f"resident {m['peak_rss_mb']:.0f} MB (`/usr/bin/time -v`), {m['cpu_s']:.0f} CPU s, wall {m['wall']}")
    lines += ["", "The spectral features' ablation on the `ewt` and `wsj` lists: `results/reranking_ablation.md` "
              "(`python -m evaluation reranking_ablation`)."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/seqspectral-rerank-eval"),
                    help="build directories and each part's JSON result (kept: a part done is not redone)")
    ap.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS), help="parts to run (default all)")
    ap.add_argument("--workers", type=int, default=1, help="processes for a build's jackknifing folds (default 1; "
                    "the results do not depend on it)")
    ap.add_argument("--tables-only", action="store_true", help="write the tables from the parts finished so far")
    ap.add_argument("--output", type=Path, default=OUT)
    args = ap.parse_args(argv)
    require_data(EWT, WSJ)
    args.workdir.mkdir(parents=True, exist_ok=True)
    if not args.tables_only:
        for part in args.parts:
            path = args.workdir / f"{part}.json"
            if path.is_file():
                continue
            log(f"part {part}")
            start = time.process_time()
            result = run_part(part, args.workdir, args.workers)
            result["part_cpu_s"] = time.process_time() - start
            path.write_text(json.dumps(result, default=float))
    results = {p: json.loads((args.workdir / f"{p}.json").read_text()) for p in PARTS
               if (args.workdir / f"{p}.json").is_file()}
    from .common import write_results

    write_results(args.output, report(results, sys.argv[1:] if argv is None else argv))
    log(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
