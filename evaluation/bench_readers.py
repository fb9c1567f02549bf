"""Benchmark: every corpus reader against the disk and against its peers, 1x and 10x data (issue 30).

For each format the toolkit reads, at 1x and 10x (the files replicated ten times into
``evaluation/_work``, ``common.replicated``), in one process, the sides interleaved, best of
``--repeats`` on the wall clock (our readers use every core this process may run on, so the
run belongs under the team's timing lock on a quiet machine; our CPU time is given beside):

- the floors: the file's bytes in memory (a zip's inflated) passed over twice, their line feeds
  counted in numpy (vectorised) and a compiled loop that loads and compares each byte once,
  looking again at white space and bytes beyond ASCII (``_kernels.byte_loop``), on one thread
  and on as many as ours use (the bytes cut at line feeds): what no reader can beat, and
  whether a reader that looks at every byte can keep up with the disk at all;
- the disk: the file read cold, bypassing the page cache (``O_DIRECT`` into an aligned
  buffer, as ``dd iflag=direct``; where the file system refuses ``O_DIRECT``, its cached pages
  are dropped with ``posix_fadvise(DONTNEED)`` first), wall seconds, best of ``--repeats``:
  how fast the disk hands this file over, the speed a reader would have to keep up with
  (for ``brown.zip``: the compressed bytes); and ``Path.read_bytes`` in this process, warm
  (for ``brown.zip``: every member read and decompressed by ``zipfile``, NLTK's way in too);
- ours: ``read_corpus`` (CoNLL-U, CoNLL-X and Malt-TAB: the UPOS column into an int32 Corpus, every
  tree checked; PAutomaC; plain text; Brown: universal tags, and the words), from the page
  cache; and *cold*: the file's cached pages dropped first (``posix_fadvise(DONTNEED)``), so
  that ours reads it from the disk as a user's first read does — the reader keeps up with the
  disk when that takes no longer than the disk alone;
- peers: the ``conllu`` library (``parse_incr``, CoNLL-U and CoNLL-X), NLTK's
  ``DependencyGraph`` (Malt-TAB: what ``DependencyGraph.load`` and NLTK's
  ``dependency_treebank`` reader run), NLTK's
  ``CategorizedTaggedCorpusReader`` (``tagged_sents(tagset="universal")`` and ``sents()``, what
  ``nltk.corpus.brown`` runs), a line-by-line Python split (PAutomaC, text), scikit-splearn's
  ``load_data_sample`` (in its numpy<2 venv, a child process timed on its own wall clock).

Every side's output is checked to have the same number of sequences (and tokens where the
peer gives them). Then one more run of ours at 1x on one thread, under cProfile, splits its
CPU time into phases (the bytes in, the compiled pass, numbering the symbols, the vocabulary, the tree
check): what is left between ours and the disk. Last, Brown's unzipping alone: ``zipfile``,
zlib in one call a member, and libdeflate when the optional ``deflate`` package is there.

    python -m evaluation bench_readers [--repeats 3] [--sizes 1 10]   # writes results/readers.md
"""

from __future__ import annotations

import argparse
import importlib.metadata
import mmap
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from ._splearn import SPLEARN as SPLEARN_VENV
from .common import NLTK_DATA, PAUTOMAC, RESULTS, WORK, describe, ewt, log, replicated, require_data, write_results, written_once

EWT_TRAIN = ewt("train")
PAUTOMAC_36 = PAUTOMAC / "36.pautomac.train"
BROWN = NLTK_DATA / "corpora" / "brown.zip"
WSJ_DEPENDENCIES = NLTK_DATA / "corpora" / "dependency_treebank.zip"
OUT = RESULTS / "readers.md"


def best_of(functions: dict, repeats: int, clock=time.perf_counter, before: dict | None = None) -> dict:
    """name -> (best seconds on ``clock``, last result) of each function, the functions
    interleaved; ``before``: name -> what to do, untimed, before each timed call."""
    best = {name: (float("inf"), None) for name in functions}
    for _ in range(repeats):
        for name, fn in functions.items():
            if before and name in before:
                before[name]()
            t0 = clock()
            result = fn()
            seconds = clock() - t0
            best[name] = (min(best[name][0], seconds), result)
    return best


# -- the files -----------------------------------------------------------------------------------
def brown_text() -> Path:
    """Brown's universal tags as plain text (one sentence a line)."""
    def write(tmp):
        from seqspectral.corpus import write_text
        from seqspectral.corpus.nltk_corpora import read_brown

        write_text(tmp, read_brown(BROWN))
    return written_once(WORK / "brown-upos.txt", write)


def ewt_conllx() -> Path:
    """EWT train as CoNLL-X: the comment, multiword-token and empty-node lines dropped."""
    def write(tmp):
        lines = EWT_TRAIN.read_text(encoding="utf-8").split("\n")
        tmp.write_text("\n".join(line for line in lines if not line.startswith("#")
                                 and not ("\t" in line and not line.split("\t", 1)[0].isdigit())), encoding="utf-8")
    return written_once(WORK / "ewt-train.conllx", write)


def wsj_malttab() -> Path:
    """NLTK's WSJ dependency sample (its 199 Malt-TAB ``.dp`` files) as one Malt-TAB file."""
    def write(tmp):
        with zipfile.ZipFile(WSJ_DEPENDENCIES) as z:
            files = sorted(n for n in z.namelist() if n.endswith(".dp"))
            tmp.write_bytes(b"".join(z.read(n).rstrip(b"\n") + b"\n\n" for n in files))
    return written_once(WORK / "wsj.malttab", write)


# -- the sides -----------------------------------------------------------------------------------
def read_bytes(path: Path):
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            return sum(len(z.read(n)) for n in z.namelist()), None
    return len(path.read_bytes()), None


def in_memory(path: Path) -> bytes:
    """The bytes a reader parses: the file's, or for a zip every member's, inflated."""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            return b"".join(z.read(n) for n in z.namelist())
    return path.read_bytes()


def floors(data: bytes, repeats: int) -> tuple[float, float, float]:
    """Wall seconds (best of ``repeats``) of the least passes over ``data`` already in memory:
    counting its line feeds in numpy (vectorised, the memory's speed) and the compiled byte
    loop (``_kernels.byte_loop``: one load and compare a byte, the floor of a parser that looks
    at every byte), on one thread and on the threads ours use (the bytes cut at line feeds)."""
    import numpy as np

    from seqspectral.corpus.chunks import chunk_bounds, thread_map

    from ._kernels import byte_loop

    buf = np.frombuffer(data, np.uint8)
    byte_loop(buf[:1])  # the Numba cache loaded
    bounds = chunk_bounds(buf, (b"\n",)).tolist()
    pieces = [buf[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    best = best_of({"count": lambda: np.count_nonzero(buf == 10), "loop": lambda: byte_loop(buf),
                    "threads": lambda: thread_map(byte_loop, pieces)}, repeats)
    return best["count"][0], best["loop"][0], best["threads"][0]


def cold_read_seconds(path: Path, repeats: int) -> tuple[float, str]:
    """The best wall seconds of reading ``path`` from the disk, not from the page cache, and how:
    ``O_DIRECT`` (4 MiB reads into an aligned buffer), or, where the file system refuses it,
    ``fadvise``: the file's cached pages dropped, then read."""
    best, how = float("inf"), "O_DIRECT"
    buffer = mmap.mmap(-1, 1 << 22)  # page-aligned, as O_DIRECT needs
    for _ in range(repeats):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        except OSError:
            fd, how = os.open(path, os.O_RDONLY), "fadvise"
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        try:
            start = time.perf_counter()
            while os.readv(fd, [buffer]):
                pass
            best = min(best, time.perf_counter() - start)
        finally:
            os.close(fd)
    return best, how


def conllu_incr(path):
    import conllu

    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in conllu.parse_incr(f)), None


def nltk_dependency_graphs(path: Path):
    """NLTK's Malt-TAB reading: ``DependencyGraph.load``'s (the file split at blank lines, a
    ``DependencyGraph`` each), on the text read here (``load`` opens only NLTK's data paths)."""
    from nltk.parse.dependencygraph import DependencyGraph

    text = path.read_text(encoding="utf-8")
    graphs = [DependencyGraph(block, top_relation_label="ROOT") for block in text.split("\n\n") if block.strip()]
    return len(graphs), sum(len(g.nodes) - 1 for g in graphs)


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
    t = time.perf_counter(); d = load_data_sample(sys.argv[1]); best = min(best, time.perf_counter() - t)
print(best, d.nbEx)
"""


def splearn_seconds(path, repeats: int):
    run = subprocess.run([str(SPLEARN_VENV.ensure()), "-c", SPLEARN, str(path), str(repeats)], capture_output=True, text=True,
                         check=True)
    seconds, n = run.stdout.split()
    return float(seconds), int(n)


#: the rows of the table, in order (``--formats``)
FORMATS = ("conllu", "conllx", "malttab", "brown", "brown-words", "pautomac", "text")

#: phase of our reading -> the library functions whose time it is (file suffix, function name)
PHASES = {
    "bytes in (read, map, unzip)": [["pathlib.py", "read_bytes"], ["corpus/textfile.py", "mapped_bytes"],
                                    ["corpus/zipmembers.py", "joined_members"]],
    "compiled pass": [["corpus/_kernels.py", "tabular_words"], ["corpus/_kernels.py", "split_tokens"],
                      ["corpus/_kernels.py", "integer_lines"]],
    "numbering the symbols": [["corpus/_kernels.py", "number_parts"],
                              ["corpus/chunks.py", "joined_numbering"], ["corpus/tokens.py", "distinct_strings"]],
    "vocabulary": [["corpus/vocabulary.py", "encode_codes"]],
    "tree check": [["corpus/tabular.py", "_tree_check"]],
}


def ours_phases(path: Path, fmt: str, field: str, repeats: int) -> dict:
    """{phase: CPU seconds} of ours on one thread under cProfile (best of ``repeats``), and "total":
    the best CPU seconds of ``repeats`` runs on one thread without the profiler (whose own cost
    on the Python between the phases — e.g. ``zipfile`` parsing brown.zip's directory, 2 ms
    that take 27 ms under cProfile — would otherwise count as reading)."""
    import cProfile
    import pstats

    from seqspectral.corpus import read_corpus

    from ._phases import _phase_seconds

    phases = {name: float("inf") for name in PHASES}
    for _ in range(repeats):
        profile = cProfile.Profile(time.process_time)
        profile.runcall(one_thread(read_corpus), path, format=fmt, field=field)
        stats = pstats.Stats(profile)
        phases = {name: min(phases[name], _phase_seconds(stats, fns)) for name, fns in PHASES.items()}
    total = best_of({"ours": lambda: one_thread(ours)(path, fmt, field)}, repeats, time.process_time)["ours"][0]
    return {"total": total, **phases}


def ours(path: Path, fmt: str, field: str = "upos"):
    from seqspectral.corpus import read_corpus

    corpus = read_corpus(path, format=fmt, field=field)
    return len(corpus), corpus.n_tokens, corpus.nbytes


def drop_cached(path: Path) -> None:
    """Drop ``path``'s pages from the page cache (``posix_fadvise(DONTNEED)``), after the
    mappings of the runs before are gone (a mapped page is not dropped)."""
    import gc

    gc.collect()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def one_thread(fn):
    """``fn`` with our readers held to one thread."""
    from seqspectral.corpus import chunks

    def run(*args, **kwargs):
        saved, chunks.reading_threads = chunks.reading_threads, lambda: 1
        try:
            return fn(*args, **kwargs)
        finally:
            chunks.reading_threads = saved
    return run


# -- the table -----------------------------------------------------------------------------------
def rows_for(name: str, path: Path, copies: int, fmt: str, peers: dict, repeats: int, field="upos",
             timed_apart=None) -> tuple[str, dict | None]:
    """The table row of one file and, at 1x, the phases of our reading; ``timed_apart``:
    peers timed elsewhere, a function giving name -> (seconds, sequences)."""
    sides = {"read_bytes": lambda: read_bytes(path), "ours": lambda: ours(path, fmt, field),
             "ours, one thread": lambda: one_thread(ours)(path, fmt, field),
             "ours, cold": lambda: ours(path, fmt, field), **peers}
    ours(path, fmt, field)  # warm-up: the Numba cache loaded once per process
    best = best_of(sides, repeats, before={"ours, cold": lambda: drop_cached(path)})
    cpu = best_of({"ours": lambda: ours(path, fmt, field)}, repeats, time.process_time)["ours"][0]
    best.update({side: (seconds, (n, None)) for side, (seconds, n) in (timed_apart() if timed_apart else {}).items()})
    n, t, nbytes = best["ours"][1]
    size = best["read_bytes"][1][0] / 1e6
    cells = []
    for side, (seconds, result) in best.items():
        if side in ("read_bytes", "ours", "ours, one thread", "ours, cold"):
            continue
        if result is not None and result[0] != n or result[1] is not None and result[1] != t:
            raise AssertionError(f"{name} {copies}x: {side} read {result}, ours {(n, t)}")
        cells.append(f"{side} {seconds:.2f} s ({seconds / best['ours'][0]:.1f}x ours)")
    bytes_s, ours_s = best["read_bytes"][0], best["ours"][0]
    single_s, cold_s = best["ours, one thread"][0], best["ours, cold"][0]
    disk_s, how = cold_read_seconds(path, repeats)
    count_s, loop_s, loops_s = floors(in_memory(path), repeats)
    disk_mb = path.stat().st_size / 1e6
    row = (f"{name} | {copies}x | {n:,} / {t:,} | {size:.1f} MB | {disk_s:.3f} ({disk_mb / disk_s:.0f} MB/s{'' if how == 'O_DIRECT' else ', ' + how}) | "
           f"{count_s:.3f} | {loop_s:.3f} / {loops_s:.3f} ({loops_s / disk_s:.2f}) | {bytes_s:.3f} | **{ours_s:.3f}** | "
           f"{cpu:.3f} | {single_s:.3f} | {size / ours_s:.0f} MB/s | **{ours_s / disk_s:.2f}** | {cold_s:.3f} (**{cold_s / disk_s:.2f}**) | "
           f"{ours_s / loops_s:.1f} | {nbytes / 1e6:.2f} MB | " + "; ".join(cells))
    return row, (ours_phases(path, fmt, field, repeats) if copies == 1 else None)


def phase_table(profiles: dict) -> list[str]:
    """Our reading's phases at 1x, one column a file."""
    lines = ["| phase | " + " | ".join(profiles) + " |", "|---|" + "---:|" * len(profiles)]
    for phase in list(PHASES) + ["the rest", "total"]:
        cells = []
        for p in profiles.values():
            value = p["total"] - sum(p[k] for k in PHASES) if phase == "the rest" else p[phase]
            cells.append(f"{value:.3f}" + ("" if phase == "total" else f" ({value / p['total']:.0%})"))
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    return lines


def unzip_rows(path: Path, repeats: int) -> list[str]:
    """Brown's unzipping alone, every member: ``zipfile``, zlib one call a member, libdeflate."""
    from seqspectral.corpus import zipmembers

    archive = zipfile.ZipFile(path)
    names = [n for n in archive.namelist() if not n.endswith("/")]
    data = path.read_bytes()
    sides = {"zipfile (zlib, a stream object a member)": lambda: [archive.read(n) for n in names]}
    inflaters = {"zlib": None} | ({"libdeflate": zipmembers._libdeflate} if zipmembers._libdeflate else {})
    for label, inflate in inflaters.items():
        def read(inflate=inflate):
            saved, zipmembers._libdeflate = zipmembers._libdeflate, inflate
            try:
                return zipmembers.read_members(archive, data, names)
            finally:
                zipmembers._libdeflate = saved
        sides[f"read_members, {label} (one call a member)"] = read
    best = best_of(sides, repeats, time.process_time)
    expected = best["zipfile (zlib, a stream object a member)"][1]
    size = sum(map(len, expected)) / 1e6
    rows = []
    for side, (seconds, result) in best.items():
        assert result == expected, side
        rows.append(f"| {side} | {seconds:.3f} | {size / seconds:.0f} MB/s |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS),
                        help="the files to read (default: all)")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    require_data(EWT_TRAIN, PAUTOMAC_36, BROWN, WSJ_DEPENDENCIES, script="bench_readers.py")
    table, profiles = [], {}
    for copies in args.sizes:
        conllu_path, conllx_path, malttab_path, pautomac_path, brown_path, text_path = (
            replicated(p, copies) for p in (EWT_TRAIN, ewt_conllx(), wsj_malttab(), PAUTOMAC_36, BROWN, brown_text()))
        files = [
            ("CoNLL-U (EWT train), UPOS", conllu_path, "conllu", {"conllu.parse_incr": lambda: conllu_incr(conllu_path)},
             {}),
            ("CoNLL-X (EWT train without comments, multiword tokens, empty nodes), UPOS", conllx_path, "conllx",
             {"conllu.parse_incr": lambda: conllu_incr(conllx_path)}, {}),
            ("Malt-TAB (NLTK's WSJ dependency sample), tags", malttab_path, "malttab",
             {"NLTK DependencyGraph": lambda: nltk_dependency_graphs(malttab_path)}, {}),
            ("Brown (brown.zip), universal tags", brown_path, "brown",
             {"NLTK tagged_sents": lambda: nltk_brown(brown_path, True)}, {}),
            ("Brown (brown.zip), words", brown_path, "brown", {"NLTK sents": lambda: nltk_brown(brown_path, False)},
             {"field": "form"}),
            ("PAutomaC 36 train", pautomac_path, "pautomac", {"Python lines": lambda: python_lines(pautomac_path, True)},
             {"timed_apart": lambda: {"scikit-splearn": splearn_seconds(pautomac_path, args.repeats)}}),
            ("text (Brown's tags, a sentence a line)", text_path, "text",
             {"Python lines": lambda: python_lines(text_path, False)}, {}),
        ]
        for name, path, fmt, peers, extra in (f for f, key in zip(files, FORMATS) if key in args.formats):
            row, profile = rows_for(name, path, copies, fmt, peers, args.repeats, **extra)
            table.append(row)
            log(row)
            if profile is not None:
                profiles[name.split(" (")[0] + (", words" if extra.get("field") == "form" else "")] = profile
    from seqspectral.corpus.chunks import reading_threads
    from seqspectral.corpus.zipmembers import inflater

    unzip = unzip_rows(BROWN, args.repeats)
    text = f"""# Corpus readers

{describe("bench_readers", sys.argv[1:])}.

Every format the toolkit reads, at 1x and 10x (the file replicated ten times; Brown: each
member of the zip ten times), best of {args.repeats} on the wall clock, interleaved in one
process after one untimed run of ours (the Numba cache loaded; scikit-splearn in a child
process of its own venv), under the team's timing lock. Ours reads on {reading_threads()} threads
(every CPU this process may run on; `ours CPU` is its CPU time, `one thread` its wall time on one).
The disk, the reference: `disk` = the file read cold, bypassing the page cache (`O_DIRECT`, as
`dd iflag=direct`; best of {args.repeats}, and the file's MB/s; for the zip, its compressed
bytes), `bytes` = `Path.read_bytes` in Python, warm (for the zip: every member read and
decompressed by `zipfile`). conllu {importlib.metadata.version("conllu")}, NLTK {importlib.metadata.version("nltk")};
brown.zip inflated by {inflater()}. MB/s: the file's size (uncompressed for the zip) over our
time; **ours / disk**: our time from the page cache over the disk's (at most 1: reading is no
slower than the disk delivering the bytes); **cold**: ours on the file dropped from the page
cache first (`posix_fadvise(DONTNEED)`), a user's first read, and its time over the disk's (at
most 1: the reader keeps up with the disk); encoded: the Corpus in memory (symbols, offsets,
heads). The floors, what any reader pays on these bytes once they are in memory (for the zip,
inflated): `count LF` = `np.count_nonzero(buf == 10)` (vectorised: the memory's speed), `byte
loop` = a compiled loop loading and comparing every byte once and looking again at white space,
control bytes and bytes beyond ASCII (`evaluation/_kernels.py`; the least a parser that looks at
each byte does) on one thread / on ours' threads (the bytes cut at line feeds), beside it the
latter's time over the disk's: above 1, no byte-at-a-time reader on these cores can keep up with
this disk; ours / loop: our time over the threaded byte loop's.

| File | data | sequences / tokens | size | disk s (MB/s) | count LF s | byte loop s, 1 / all threads (/ disk) | bytes s | ours s | ours CPU s | one thread s | ours MB/s | ours / disk | cold s (/ disk) | ours / loop | encoded | peers (wall s, ratio to ours) |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
{chr(10).join("| " + row + " |" for row in table)}

Our reading at 1x on one thread, by phase (cProfile, CPU seconds and share of the total, which
is timed without the profiler; the rest: the Python between the phases — checks, arrays, the Corpus; a memory-mapped file's pages are brought in during
the compiled pass, so its bytes in are the mapping alone):

{chr(10).join(phase_table(profiles))}

Brown's unzipping alone (every member of brown.zip, CPU seconds, best of {args.repeats}; MB/s of
the inflated bytes):

| how | s | MB/s |
|---|---:|---:|
{chr(10).join(unzip)}
"""
    write_results(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
