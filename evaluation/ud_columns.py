"""Every UD column from words alone (issue 40): the CoNLL 2018 metrics of the toolkit's pipeline
against UDPipe 1 on UD English-EWT and on the Turkish Web Treebank.

The input of every system is the test file with its words only (ID, FORM and the multiword
token lines; every other column ``_``): gold tokenisation, nothing else of the gold file.
Figures are ``seqspectral evaluate conll18`` (equal to the shared task's
``conll18_ud_eval.py``, see ``evaluation/conll18_metrics.py``).

The toolkit's pipeline: ``rerank build --tags predicted`` (its UPOS and XPOS taggers, features
tagger and lemmatiser, all jackknifed for the parser's training; the parser, its label
classifier chosen on dev; the reranker; ``--clusters-from brown`` for EWT, none for Turkish,
which Brown does not cover) and ``rerank run`` on the words, which fills every column. The
build's CPU seconds by stage and the tagging speed of all four columns (the build's four
models as one :class:`~seqspectral.tagging.ColumnTaggers`; best run in this process, reading
excluded; ``--speed`` measures it alone, under the timing lock) are given.

EWT: UDPipe 1.2's published UD 2.5 figures with gold tokenisation (issue 40's table). Turkish
(``turkish-treebanks`` 1.0.0 from PyPI, the Google Turkish Web Treebank, Apache-2.0):
``data/web.conllu`` then ``data/wiki.conllu`` in file order, the first 80% of the 4,851
sentences train, the next 10% dev, the last 10% test; UDPipe 1 (``ufal.udpipe``) trained
offline on the same train with dev as its held-out data, its default tagger (MorphoDiTa,
UPOS, XPOS, FEATS and LEMMA) and parser (Parsito) with ``--udpipe-iterations`` training
iterations (default its own defaults, 20 and 10), tagging and parsing the same words. Writes
``evaluation/results/ud_columns.md`` (``ud_columns_turkish.md`` with ``--only turkish``,
``ud_columns_speed.md`` with ``--speed``); work files (builds, models, predictions, the CPU
seconds of each training) in ``--workdir``, reused when present (a run stopped part-way resumes)::

    python -m evaluation ud_columns --workdir /work/data/lemmas/ud-columns
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from .common import NLTK_DATA, RESULTS, SEQSPECTRAL, describe, ewt, log, markdown_table, require_data, write_results

OUT = RESULTS / "ud_columns.md"
SPEED = RESULTS / "ud_columns_speed.md"
TURKISH_OUT = RESULTS / "ud_columns_turkish.md"  # --only turkish: the EWT table stays as it is
TURKISH = Path("/work/data/turkish-treebanks/data")
METRICS = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX")
#: UDPipe 1.2's UD 2.5 models with gold tokenisation (issue 40; CLAS not published there)
UDPIPE_EWT = {"UPOS": 94.4, "XPOS": 93.9, "UFeats": 95.4, "AllTags": 92.5, "Lemmas": 96.4, "UAS": 84.4,
              "LAS": 81.1, "MLAS": 71.6, "BLEX": 73.6}


def words_only(src: Path, out: Path) -> Path:
    """``src`` with every column but ID and FORM ``_`` (comments and multiword lines kept)."""
    if not out.exists():
        lines = []
        for line in src.read_text(encoding="utf-8").split("\n"):
            cells = line.split("\t")
            if len(cells) == 10:
                cells = cells[:2] + ["_"] * 8
            lines.append("\t".join(cells))
        out.write_text("\n".join(lines).rstrip("\n") + "\n\n", encoding="utf-8")
    return out


def turkish_split(workdir: Path) -> dict[str, Path]:
    """The train/dev/test files of the Turkish split (module docstring)."""
    paths = {part: workdir / f"tr-{part}.conllu" for part in ("train", "dev", "test")}
    if not all(p.exists() for p in paths.values()):
        blocks = [b for name in ("web", "wiki") for b in
                  (TURKISH / f"{name}.conllu").read_text(encoding="utf-8").strip("\n").split("\n\n")]
        n = len(blocks)
        cut = {"train": (0, n * 8 // 10), "dev": (n * 8 // 10, n * 9 // 10), "test": (n * 9 // 10, n)}
        for part, (a, b) in cut.items():
            paths[part].write_text("\n\n".join(blocks[a:b]) + "\n\n", encoding="utf-8")
    return paths


def cli(*args, **kwargs) -> float:
    """Run ``seqspectral ARGS``; its CPU seconds."""
    start = time.perf_counter()
    before = _child_cpu()
    subprocess.run([*SEQSPECTRAL, *map(str, args)], check=True, **kwargs)
    log(f"seqspectral {' '.join(map(str, args[:2]))}: {time.perf_counter() - start:.0f} s")
    return _child_cpu() - before


def _child_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def scores(gold: Path, pred: Path) -> dict:
    out = subprocess.run([*SEQSPECTRAL, "evaluate", "conll18", "--json", str(gold), str(pred)], check=True,
                         capture_output=True, text=True).stdout
    return {m: v["f1"] for m, v in json.loads(out).items()}


class Work:
    """Timings and figures kept in ``workdir/work.json`` (a stopped run resumes)."""

    def __init__(self, workdir: Path):
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = workdir / "work.json"
        self.data = json.loads(self.path.read_text()) if self.path.exists() else {}

    def once(self, key: str, compute):
        """``compute()``, kept under ``key`` (merged into the file as it is now: parts of a run
        may go side by side)."""
        if key not in self.data:
            value = compute()
            self.data = {**(json.loads(self.path.read_text()) if self.path.exists() else {}), **self.data, key: value}
            self.path.write_text(json.dumps(self.data, indent=1))
        return self.data[key]


def ours(work: Work, name: str, train: Path, dev: Path, test: Path, clusters_from: list[str],
         parser_only: bool = False) -> dict:
    """The toolkit's pipeline on ``test``'s words: figures, training CPU seconds, tagging speed.
    With ``parser_only`` the build in ``workdir`` (made by the same command, its reranking
    stages not finished) is used up to its parser: its taggers and the parser's 1-best trees."""
    build = work.dir / f"{name}-build"
    if not parser_only:
        work.once(f"{name}:build_cpu", lambda: cli(
            "rerank", "build", train, "--dev", dev, "--tags", "predicted",
            *[x for c in clusters_from for x in ("--clusters-from", c)], "-o", build, "--quiet"))
    stages = json.loads((build / "build.json").read_text())["stages"]
    words = words_only(test, work.dir / f"{name}-test-words.conllu")
    how = "parser" if parser_only else "reranked"
    full = work.dir / f"{name}-test-{how}-pred.conllu"
    taggers = {f: build / f"tagger-{f}.npz" for f in ("upos", "xpos", "feats", "lemma") if (build / f"tagger-{f}.npz").exists()}
    separate = {}  # a build from before its FEATS and LEMMA stages: those models by tag train, as then
    for f in ("feats", "lemma"):
        if f not in taggers:
            taggers[f] = work.dir / f"{name}-{f}.npz"
            clusters = ["--clusters", build / "clusters.npz"] if clusters_from else []
            separate[f] = work.once(f"{name}:{f}_train_cpu", lambda f=f: cli(
                "tag", "train", train, "--dev", dev, "--field", f, *clusters, "-o", taggers[f], "--quiet"))
    if parser_only:  # each column's model in the build's order, then the parser (as tag run, parse run do)
        def run() -> float:
            from seqspectral import serialize
            from seqspectral.corpus import read_conllu, write_conllu

            start = time.process_time()
            sentences = read_conllu(words, heads_required=False)
            for path in taggers.values():
                sentences = serialize.load(path).tag(sentences)
            write_conllu(full, serialize.load(build / "parser.npz").parse(sentences))
            return time.process_time() - start

        work.once(f"{name}:{how}:run_cpu", run)
    else:  # rerank run: every column the build has a model of, the reranked trees
        work.once(f"{name}:{how}:run_cpu", lambda: cli("rerank", "run", build, words, "-o", full, "--quiet"))
    figures = work.once(f"{name}:{how}:scores", lambda: scores(test, full))
    speed = work.once(f"{name}:tag_speed", lambda: tagging_speed(taggers, words))
    return {"scores": figures, "speed": speed, "stages": {k: v["cpu_s"] for k, v in stages.items()}, "separate": separate,
            "report": json.loads((build / "report.json").read_text()) if (build / "report.json").exists() else {}}


def tagging_speed(paths: dict, words: Path, seconds: float = 1.0) -> dict:
    """Sentences per CPU and per wall second of ``ColumnTaggers.tag`` with the models of
    ``paths`` ({column: model file}: the build's taggers, the features tagger, the lemmatiser)
    on ``words``: the best run of those made in ``seconds`` (at least 3) after a warm-up of
    ``seconds / 3`` (Numba's threads: ``NUMBA_NUM_THREADS``, default every core; reading
    excluded)."""
    import numba

    from seqspectral import serialize
    from seqspectral.corpus import read_conllu
    from seqspectral.tagging import ColumnTaggers

    model = ColumnTaggers(tuple(paths))
    model.models_ = {f: serialize.load(p) for f, p in paths.items()}
    model.clusters = next((m.clusters for m in model.models_.values() if m.clusters is not None), None)
    sentences = read_conllu(words, heads_required=False)
    warm = time.perf_counter() + seconds / 3
    while time.perf_counter() < warm:
        model.tag(sentences)
    runs, end = [], time.perf_counter() + seconds
    while len(runs) < 3 or time.perf_counter() < end:
        wall, cpu = time.perf_counter(), time.process_time()
        model.tag(sentences)
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    wall, cpu = min(runs)
    return {"sentences": len(sentences), "wall": wall, "cpu": cpu, "columns": list(model.models_),
            "threads": numba.get_num_threads(), "runs": len(runs)}


def speed(work: Work, argv) -> list[str]:
    """The timing part alone, meant to run under the timing lock: the features tagger's and
    the lemmatiser's training CPU on EWT train (``tag train`` as the benchmark runs it, whole
    command) and the tagging speed of all four columns on EWT test, on every core and on one."""
    import os

    build = work.dir / "ewt-build"
    clusters = ["--clusters", build / "clusters.npz"]
    train_cpu = {f: cli("tag", "train", ewt("train"), "--dev", ewt("dev"), "--field", f, *clusters,
                        "-o", work.dir / f"ewt-{f}-timed.npz", "--quiet") for f in ("feats", "lemma")}
    paths = {f: build / f"tagger-{f}.npz" for f in ("upos", "xpos")} | {
        f: work.dir / f"ewt-{f}-timed.npz" for f in ("feats", "lemma")}
    words = words_only(ewt("test"), work.dir / "ewt-test-words.conllu")
    rows = []
    for threads in (None, 1):
        env = {**os.environ, **({"NUMBA_NUM_THREADS": str(threads)} if threads else {})}
        out = subprocess.run([sys.executable, "-c", "import json, sys; from pathlib import Path; "
                              "from evaluation.ud_columns import tagging_speed; "
                              "print(json.dumps(tagging_speed({k: Path(v) for k, v in json.loads(sys.argv[1]).items()}, "
                              "Path(sys.argv[2]), 20.0)))", json.dumps({k: str(v) for k, v in paths.items()}),
                              str(words)], env=env, check=True, capture_output=True, text=True).stdout
        s = json.loads(out)
        rows.append([f"{s['threads']}", f"{s['sentences']:,}", f"{s['wall']:.3f}", f"{s['cpu']:.3f}",
                     f"{s['sentences'] / s['wall']:,.0f}", f"{s['sentences'] / s['cpu']:,.0f}", str(s["runs"])])
    return ["# Tagging speed of every UD column (issue 40)", "", describe(__file__, argv), "",
            "UPOS and XPOS taggers of the EWT build in the work directory (`rerank build --tags predicted "
            "--clusters-from brown`), the features tagger and the lemmatiser trained here on EWT train (`tag "
            "train --field feats|lemma --clusters` the build's) as one `ColumnTaggers`, tagging EWT test's words "
            "(gold tokenisation); the best of the runs made in 20 s after a 7 s warm-up, reading excluded; "
            "each thread count in a process of its own.", "",
            f"Training, whole `tag train` command with dev: features tagger {train_cpu['feats']:.1f} CPU s, "
            f"lemmatiser {train_cpu['lemma']:.1f} CPU s.", "",
            *markdown_table(("Numba threads", "sentences", "wall s", "CPU s", "sentences / wall s",
                             "sentences / CPU s", "runs"), rows), ""]


def udpipe(work: Work, name: str, train: Path, dev: Path, test: Path, iterations: tuple[int, int]) -> dict:
    """UDPipe 1 trained on ``train`` (``dev`` held out, default options but the tagger's and the
    parser's ``iterations``), tagging and parsing ``test``'s words."""
    from ufal.udpipe import Model, OutputFormat, ProcessingError, Sentences, Trainer

    from ._udpipe import udpipe_sentences

    label = f"{name}-udpipe-{iterations[0]}-{iterations[1]}"
    path = work.dir / f"{label}.model"
    if not path.exists():
        log(f"training UDPipe 1 on {train.name} (tagger {iterations[0]}, parser {iterations[1]} iterations)")
        error = ProcessingError()
        start = time.process_time()
        blob = Trainer.train("morphodita_parsito", Sentences(udpipe_sentences(train)),
                             Sentences(udpipe_sentences(dev)), "none", f"iterations={iterations[0]}",
                             f"iterations={iterations[1]}", error)
        if error.occurred():
            raise RuntimeError(f"UDPipe training failed: {error.message}")
        work.once(f"{label}:train_cpu", lambda: time.process_time() - start)
        path.write_bytes(blob if isinstance(blob, bytes) else blob.encode("latin-1"))
    pred = work.dir / f"{label}-test.conllu"
    if not pred.exists():
        model = Model.load(str(path))
        sentences = udpipe_sentences(words_only(test, work.dir / f"{name}-test-words.conllu"))
        start = time.process_time()
        for s in sentences:
            model.tag(s, Model.DEFAULT)
            model.parse(s, Model.DEFAULT)
        work.once(f"{label}:run_cpu", lambda: time.process_time() - start)
        writer = OutputFormat.newConlluOutputFormat()
        pred.write_text("".join(writer.writeSentence(s) for s in sentences), encoding="utf-8")
    return {"scores": work.once(f"{label}:scores", lambda: scores(test, pred)),
            "train_cpu": work.data[f"{label}:train_cpu"], "run_cpu": work.data[f"{label}:run_cpu"]}


def _row(label: str, figures: dict, *rest) -> list:
    return [label, *(f"{figures[m]:.2f}" if isinstance(figures.get(m), float) and label != "UDPipe 1.2 (published)"
                     else f"{figures[m]:.1f}" if m in figures else "—" for m in METRICS), *rest]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, required=True, help="builds, models and predictions (reused)")
    ap.add_argument("--only", choices=("ewt", "turkish"), default=None, help="one treebank only")
    ap.add_argument("--parser-only", action="store_true",
                    help="use the builds in WORKDIR (made by this benchmark's command, unfinished) up to their "
                         "parser: its 1-best trees, no reranking")
    ap.add_argument("--speed", action="store_true",
                    help="only the timings (run it under the timing lock): the features tagger's and lemmatiser's "
                         "training CPU on EWT train and the tagging speed of all four columns on EWT test, with the "
                         "EWT build of WORKDIR; writes evaluation/results/ud_columns_speed.md")
    ap.add_argument("--udpipe-iterations", default="20,10", metavar="TAGGER,PARSER",
                    help="UDPipe 1's training iterations of its tagger and parser (default 20,10: its defaults)")
    args = ap.parse_args()
    require_data(ewt("train"), TURKISH / "web.conllu", NLTK_DATA)
    work = Work(args.workdir)
    if args.speed:
        lines = speed(work, sys.argv[1:])
        write_results(SPEED, "\n".join(lines))
        print("\n".join(lines))
        return 0
    lines = ["# Every UD column from words alone (issue 40)", "", describe(__file__, sys.argv[1:]), "",
             __doc__.split("\n\n")[1].replace("\n", " "), ""]
    header = ("system", *METRICS, "training", "tagging (4 columns)")
    if args.only in (None, "ewt"):
        log("EWT")
        r = ours(work, "ewt", ewt("train"), ewt("dev"), ewt("test"), ["brown"], args.parser_only)
        lines += ["## UD English-EWT test", "", *markdown_table(header, [
            _row("UDPipe 1.2 (published, UD 2.5)", UDPIPE_EWT, "", ""),
            _row(f"seqspectral ({_how(args)} of rerank build --tags predicted --clusters-from brown)", r["scores"],
                 _training(r), _speed(r["speed"]))]), "", *_choices(r), ""]
    if args.only in (None, "turkish"):
        log("Turkish")
        split = turkish_split(work.dir)
        iterations = tuple(int(x) for x in args.udpipe_iterations.split(","))
        u = udpipe(work, "tr", split["train"], split["dev"], split["test"], iterations)
        r = ours(work, "tr", split["train"], split["dev"], split["test"], [], args.parser_only)
        lines += ["## Turkish Web Treebank (web + wiki, 80/10/10 in file order), test", "", *markdown_table(header, [
            _row(f"UDPipe 1 (ufal.udpipe trained here: tagger {iterations[0]}, parser {iterations[1]} iterations; "
                 "defaults 20, 10)", u["scores"],
                 f"{u['train_cpu']:.0f} CPU s", f"{_n(split['test']) / u['run_cpu']:,.0f} sentences / CPU s "
                 "(tag + parse)"),
            _row(f"seqspectral ({_how(args)} of rerank build --tags predicted)",
                 r["scores"], _training(r), _speed(r["speed"]))]), "", *_choices(r), ""]
    write_results(OUT if args.only != "turkish" else TURKISH_OUT, "\n".join(lines))
    print("\n".join(lines))
    return 0


def _choices(r: dict) -> list[str]:
    """What the build chose on dev: the columns the parser reads, the labelers it tried."""
    report = r["report"]
    if r["separate"]:
        return ["The build is from before its FEATS and LEMMA stages (the last session's): its parser reads UPOS and "
                "XPOS only; FEATS and LEMMA come from tag train models applied after it."]
    if not report:
        return []
    tried = report.get("labeler_dev_las", {})
    lines = [f"The build's parser reads {', '.join(c.upper() for c in report.get('parser_tag_columns', []))}; "
             "its label classifier was chosen on dev LAS among: "
             + (", ".join(f"{k.upper()} {v:.2f}" for k, v in tried.items()) or "none tried") + "."]
    units = report.get("feats_unit_dev")
    if units:
        lines.append(f"FEATS unit chosen on dev (UFeats, then whole values as sets): {units['chosen']} ("
                     + ", ".join(f"{u} {units[u]['ufeats']:.2f} / {units[u]['sets']:.2f}" for u in units
                                 if u != "chosen") + ").")
    relations = report.get("feats_relations")
    if relations:
        lines.append(f"FEATS re-decided from the relations after parsing: min_count {relations['min_count']}, "
                     f"{relations['rules']} rules (dev FEATS accuracy on the parser's trees by min_count: "
                     + ", ".join(f"{m} {a:.2f}" for m, a in relations["dev_feats_accuracy"].items()) + "; 0: none).")
    return lines


def _how(args) -> str:
    return "the parser's 1-best trees" if args.parser_only else "reranked trees"


def _n(path: Path) -> int:
    return path.read_text(encoding="utf-8").strip("\n").count("\n\n") + 1


def _training(r: dict) -> str:
    stages, separate = r["stages"], r["separate"]
    if separate:
        return (f"build {sum(stages.values()):.0f} CPU s ({len(stages)} stages: {', '.join(stages)}); features "
                f"tagger {separate['feats']:.0f}, lemmatiser {separate['lemma']:.0f} CPU s (tag train, whole command)")
    return (f"build {sum(stages.values()):.0f} CPU s (features tagger {stages.get('tagger-feats', 0):.0f}, "
            f"lemmatiser {stages.get('tagger-lemma', 0):.0f}, "
            f"{len(stages)} stages: {', '.join(stages)})")


def _speed(s: dict) -> str:
    return (f"{s['sentences'] / s['cpu']:,.0f} sentences / CPU s ({s['sentences'] / s['wall']:,.0f} / wall s)")


if __name__ == "__main__":
    sys.exit(main())
