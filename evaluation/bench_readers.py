"""Benchmark: reading corpora with seqspectral's readers against their peers, in one run.

EWT (UD English-EWT v2.15, ../shared): the ``conllu`` package alone parsing each file
(``conllu.parse_incr`` over the open file, the faster of its two entry points, and
``conllu.parse`` on the text) against ``read_corpus`` (the UPOS column straight into an
encoded Corpus with heads, trees validated) and ``read_conllu`` (every column, as
Sentence objects). PAutomaC (the largest training file, 36: 100,000 strings): a plain
line-by-line Python parse and scikit-splearn's ``load_data_sample`` (when its venv
``evaluation/.venv-splearn`` exists, see ``_splearn.py``) against ``read_pautomac``.
Times are the best of ``--repeats`` runs; memory is ``Corpus.nbytes`` (symbols, offsets,
heads).

    python -m evaluation bench_readers        # writes evaluation/results/readers.md
"""

from __future__ import annotations

import argparse
import importlib.metadata
import subprocess
import sys
import time
from pathlib import Path

import conllu

from .common import EVALUATION, PAUTOMAC, RESULTS, describe, ewt, require_data

from seqspectral.corpus import read_conllu, read_corpus, read_pautomac



def best_time(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def conllu_incr(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in conllu.parse_incr(f))


def conllu_parse(path):
    with open(path, encoding="utf-8") as f:
        return len(conllu.parse(f.read()))


def pautomac_by_lines(path):
    with open(path) as f:
        next(f)
        return [[int(s) for s in line.split()[1:]] for line in f if line.strip()]


SPLEARN = """
import sys, time
from splearn.datasets.base import load_data_sample
best = float("inf")
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); d = load_data_sample(sys.argv[1]); best = min(best, time.perf_counter() - t)
print(best, d.nbEx)
"""


def splearn_time(path, repeats: int) -> tuple[float, int] | None:
    python = EVALUATION / ".venv-splearn" / "bin" / "python"
    if not python.exists():
        return None
    run = subprocess.run([str(python), "-c", SPLEARN, str(path), str(repeats)], capture_output=True, text=True)
    if run.returncode:
        return None
    seconds, n = run.stdout.split()
    return float(seconds), int(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "readers.md"))
    args = parser.parse_args()
    require_data(*(ewt(s) for s in ("train", "dev", "test")),
                 PAUTOMAC / "36.pautomac.train", script="bench_readers.py")
    rows = []
    for split in ("train", "dev", "test"):
        path = ewt(split)
        t_incr, n_incr = best_time(lambda: conllu_incr(path), args.repeats)
        t_parse, _ = best_time(lambda: conllu_parse(path), args.repeats)
        t_ours, corpus = best_time(lambda: read_corpus(path), args.repeats)
        t_sent, sentences = best_time(lambda: read_conllu(path), args.repeats)
        assert len(corpus) == len(sentences) == n_incr
        rows.append(
            f"| EWT {split} | {len(corpus):,} / {corpus.n_tokens:,} | {t_incr:.2f} | {t_parse:.2f} | "
            f"{t_ours:.2f} | **{t_ours / t_incr:.2f}x** | {t_sent:.2f} ({t_sent / t_incr:.2f}x) | "
            f"{corpus.nbytes / 1e6:.2f} MB |"
        )
        print(rows[-1], flush=True)
    path = PAUTOMAC / "36.pautomac.train"
    t_lines, strings = best_time(lambda: pautomac_by_lines(path), args.repeats)
    t_ours, corpus = best_time(lambda: read_pautomac(path), args.repeats)
    assert len(strings) == len(corpus)
    splearn = splearn_time(path, args.repeats)
    splearn_cell = f"{splearn[0]:.3f} ({splearn[0] / t_ours:.0f}x ours)" if splearn else "not run (no venv)"
    pautomac_row = (
        f"| PAutomaC 36 train | {len(corpus):,} / {corpus.n_tokens:,} | {t_lines:.3f} ({t_lines / t_ours:.0f}x ours) | "
        f"{splearn_cell} | **{t_ours:.3f}** | {corpus.nbytes / 1e6:.2f} MB |"
    )
    print(pautomac_row, flush=True)
    text = f"""# Corpus readers

{describe("evaluation/bench_readers.py", sys.argv[1:])}.
conllu {importlib.metadata.version("conllu")}; wall times, best of {args.repeats} runs; the ratios are measured side by
side in the same run (scikit-splearn in its own venv process on the same core).

## CoNLL-U (UD English-EWT v2.15)

`conllu.parse_incr` / `conllu.parse`: the `conllu` package alone parsing the file (every
column, Token dicts). `read_corpus`: the UPOS column into an encoded int32 Corpus with
heads, every id checked and every tree validated (token lines split on tabs; ids and
comments parsed by `conllu`'s `parse_id_value` / `parse_comment_line`). Ratio: `read_corpus` over `parse_incr` (target: at most 1.5x).
`read_conllu`: every column as Sentence objects. Memory: the encoded corpus
(symbols + offsets + heads).

| File | sentences / words | parse_incr s | parse s | read_corpus s | ratio | read_conllu s | encoded size |
|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

## PAutomaC

Python lines: `[[int(s) for s in line.split()[1:]] for line in f]`; scikit-splearn:
`load_data_sample` (its own numpy<2 venv); `read_pautomac`: one Numba pass over the bytes
(tokens and their lines), then every length field and symbol checked against the header.

| File | strings / symbols | Python lines s | scikit-splearn s | read_pautomac s | encoded size |
|---|---|---|---|---|---|
{pautomac_row}
"""
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
