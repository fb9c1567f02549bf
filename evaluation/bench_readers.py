"""Benchmark: every corpus reader against the disk and against its peers, 1x and 10x data (issue 30).

For each format the toolkit reads, at 1x and 10x (the files replicated ten times into
``evaluation/_work``), in one process, the sides interleaved, best of ``--repeats`` on the CPU
clock (``time.process_time``; the machine is shared, so wall time would measure the others):

- disk: the file's bytes read whole (``Path.read_bytes``; for ``brown.zip``: every member read
  and decompressed) — the floor any reader of that file has;
- ours: ``read_corpus`` (CoNLL-U: the UPOS column into an int32 Corpus, every tree checked;
  PAutomaC; plain text), ``read_brown`` (universal tags, and the words);
- peers: the ``conllu`` library (``parse_incr``), NLTK's ``CategorizedTaggedCorpusReader``
  (``tagged_sents(tagset="universal")`` and ``sents()``, what ``nltk.corpus.brown`` runs), a
  line-by-line Python split (PAutomaC, text), scikit-splearn's ``load_data_sample`` (in its
  numpy<2 venv, a child process timed on its own CPU clock).

Every side's output is checked to have the same number of sequences (and tokens where the
peer gives them).

    python -m evaluation bench_readers [--repeats 3] [--sizes 1 10]   # writes results/readers.md
"""

from __future__ import annotations

import argparse
import importlib.metadata
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from ._splearn import SPLEARN as SPLEARN_VENV
from .common import EVALUATION, NLTK_DATA, PAUTOMAC, RESULTS, describe, ewt, log, require_data, write_results

EWT_TRAIN = ewt("train")
PAUTOMAC_36 = PAUTOMAC / "36.pautomac.train"
BROWN = NLTK_DATA / "corpora" / "brown.zip"
WORK = EVALUATION / "_work"
OUT = RESULTS / "readers.md"


def cpu_best(functions: dict, repeats: int) -> dict:
    """name -> (best CPU seconds, last result) of each function, the functions interleaved."""
    best = {name: (float("inf"), None) for name in functions}
    for _ in range(repeats):
        for name, fn in functions.items():
            t0 = time.process_time()
            result = fn()
            seconds = time.process_time() - t0
            best[name] = (min(best[name][0], seconds), result)
    return best


# -- the 10x files -----------------------------------------------------------------------------
def _atomic(out: Path, write) -> Path:
    if not out.exists():
        WORK.mkdir(exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        write(tmp)
        tmp.replace(out)
    return out


def times_ten(path: Path, copies: int) -> Path:
    """``path`` replicated (PAutomaC: the header's count updated; a zip: every member's content)."""
    if copies == 1:
        return path
    out = WORK / f"x{copies}-{path.name}"
    if path.suffix == ".zip":
        def write(tmp):
            with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
                for name in src.namelist():
                    data = src.read(name)
                    dst.writestr(name, data if name.endswith("cats.txt") or name.endswith("/") else data * copies)
        return _atomic(out, write)
    data = path.read_bytes()
    if path.name.endswith(".pautomac.train"):
        header, _, body = data.partition(b"\n")
        n, k = header.split()
        return _atomic(out, lambda tmp: tmp.write_bytes(b"%d %s\n" % (int(n) * copies, k) + body * copies))
    return _atomic(out, lambda tmp: tmp.write_bytes(data * copies))


def brown_text(copies: int) -> Path:
    """Brown's universal tags as plain text (one sentence a line), ``copies`` times."""
    def write(tmp):
        from seqspectral.corpus import write_text
        from seqspectral.corpus.nltk_corpora import read_brown

        write_text(tmp, read_brown(BROWN))
    one = _atomic(WORK / "brown-upos.txt", write)
    return times_ten(one, copies)


# -- the sides -----------------------------------------------------------------------------------
def disk(path: Path):
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            return sum(len(z.read(n)) for n in z.namelist())
    return len(path.read_bytes())


def conllu_incr(path):
    import conllu

    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in conllu.parse_incr(f)), None


def nltk_brown(path: Path, tagged: bool):
    import nltk.data
    from nltk.corpus.reader import CategorizedTaggedCorpusReader

    nltk.data.path.append(str(path.parent.parent))  # the universal tagset mapping
    root = nltk.data.ZipFilePathPointer(str(path), "brown/")
    reader = CategorizedTaggedCorpusReader(root, r"c[a-z]\d\d", cat_file="cats.txt", tagset="brown", encoding="ascii")
    sents = reader.tagged_sents(tagset="universal") if tagged else reader.sents()
    n = t = 0
    for s in sents:
        n, t = n + 1, t + len(s)
    return n, t


def python_lines(path: Path, skip_header: bool):
    with open(path, encoding="utf-8") as f:
        if skip_header:
            next(f)
        rows = [line.split()[1 if skip_header else 0:] for line in f]
    return len(rows), sum(map(len, rows))


SPLEARN = """
import sys, time
from splearn.datasets.base import load_data_sample
best = float("inf")
for _ in range(int(sys.argv[2])):
    t = time.process_time(); d = load_data_sample(sys.argv[1]); best = min(best, time.process_time() - t)
print(best, d.nbEx)
"""


def splearn_seconds(path, repeats: int):
    run = subprocess.run([str(SPLEARN_VENV.ensure()), "-c", SPLEARN, str(path), str(repeats)], capture_output=True, text=True,
                         check=True)
    seconds, n = run.stdout.split()
    return float(seconds), int(n)


def ours(path: Path, fmt: str, field: str = "upos"):
    from seqspectral.corpus import read_corpus

    corpus = read_corpus(path, format=fmt, field=field)
    return len(corpus), corpus.n_tokens, corpus.nbytes


# -- the table -----------------------------------------------------------------------------------
def rows_for(name: str, path: Path, copies: int, fmt: str, peers: dict, repeats: int, field="upos",
             timed_apart: dict | None = None) -> list[str]:
    """The table row of one file; ``timed_apart``: peers timed elsewhere, name -> (seconds, sequences)."""
    sides = {"disk": lambda: (disk(path), None), "ours": lambda: ours(path, fmt, field), **peers}
    best = cpu_best(sides, repeats)
    best.update({side: (seconds, (n, None)) for side, (seconds, n) in (timed_apart or {}).items()})
    n, t, nbytes = best["ours"][1]
    size = best["disk"][1][0] / 1e6
    rows = []
    for side, (seconds, result) in best.items():
        if side in ("disk", "ours"):
            continue
        if result is not None and result[0] != n or result[1] is not None and result[1] != t:
            raise AssertionError(f"{name} {copies}x: {side} read {result}, ours {(n, t)}")
        rows.append(f"{side} {seconds:.2f} s ({seconds / best['ours'][0]:.1f}x ours)")
    disk_s, ours_s = best["disk"][0], best["ours"][0]
    return [f"{name} | {copies}x | {n:,} / {t:,} | {size:.1f} MB | {disk_s:.3f} | **{ours_s:.3f}** | "
            f"{size / ours_s:.0f} MB/s | {nbytes / 1e6:.2f} MB | " + "; ".join(rows)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    require_data(EWT_TRAIN, PAUTOMAC_36, BROWN, script="bench_readers.py")
    table = []
    for copies in args.sizes:
        conllu_path, pautomac_path, brown_path = (times_ten(p, copies) for p in (EWT_TRAIN, PAUTOMAC_36, BROWN))
        text_path = brown_text(copies)
        table += rows_for("CoNLL-U (EWT train), UPOS", conllu_path, copies, "conllu",
                          {"conllu.parse_incr": lambda: conllu_incr(conllu_path)}, args.repeats)
        table += rows_for("Brown (brown.zip), universal tags", brown_path, copies, "brown",
                          {"NLTK tagged_sents": lambda: nltk_brown(brown_path, True)}, args.repeats)
        table += rows_for("Brown (brown.zip), words", brown_path, copies, "brown",
                          {"NLTK sents": lambda: nltk_brown(brown_path, False)}, args.repeats, field="form")
        table += rows_for("PAutomaC 36 train", pautomac_path, copies, "pautomac",
                          {"Python lines": lambda: python_lines(pautomac_path, True)}, args.repeats,
                          timed_apart={"scikit-splearn": splearn_seconds(pautomac_path, args.repeats)})
        table += rows_for("text (Brown's tags, a sentence a line)", text_path, copies, "text",
                          {"Python lines": lambda: python_lines(text_path, False)}, args.repeats)
        log("\n".join(table[-5:]))
    text = f"""# Corpus readers

{describe("bench_readers", sys.argv[1:])}.

Every format the toolkit reads, at 1x and 10x (the file replicated ten times; Brown: each
member of the zip ten times), best of {args.repeats} on the CPU clock, interleaved in one
process (scikit-splearn in a child process of its own venv, on its own CPU clock). disk: the
bytes read whole (for the zip: read and decompressed). conllu {importlib.metadata.version("conllu")},
NLTK {importlib.metadata.version("nltk")}. MB/s: the file's size (uncompressed for the zip) over our time;
encoded: the Corpus in memory (symbols, offsets, heads).

| File | data | sequences / tokens | size | disk s | ours s | ours MB/s | encoded | peers (CPU s, ratio to ours) |
|---|---|---:|---:|---:|---:|---:|---:|---|
{chr(10).join("| " + row + " |" for row in table)}
"""
    write_results(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
