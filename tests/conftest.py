"""Shared pytest fixtures: the real corpora in ../shared and the bundled samples."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPORA = REPO / "corpora"


def pytest_configure(config):
    """Interrupt tests send SIGINT: a run started as a background job of a non-interactive
    shell inherits SIGINT ignored, so Python's own handler is put back (children inherit it)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: tests that are units of work of their own in a parallel run (each prepares what it needs;
#: a listed test that came to need its module's shared state would still pass, only slower);
#: any other test runs with the rest of its module, in order, in one worker (they share
#: module-scoped fixtures and files: test_docs.py's README stories run once per session, in
#: order, and its pages read what they wrote)
ALONE = ("tests/test_docs.py::test_the_docs_examples_run[spectral-experts.md]",  # they read no file the
         "tests/test_docs.py::test_the_docs_examples_run[parsing.md]",  # README's stories write
         "tests/test_docs.py::test_the_docs_examples_run[mixtures.md]",
         "tests/test_docs.py::test_the_site_builds_with_warnings_as_errors")  # a process of its own
#: units that take longest (CPU seconds per unit of a profiled run, 2026-11-26), handed out
#: first in this order so that the short ones even out the two workers' ends; the rest follow
#: by number of tests
LONGEST_FIRST = ("tests/test_docs.py", "tests/cli/test_lm.py", "tests/cli/test_parse.py",
                 "tests/mixtures/test_convex_em.py", "tests/cli/test_determinism.py", ALONE[1],
                 "tests/workflows/test_rerank_build.py", "tests/automata/test_tensor_hmm.py",
                 "tests/mixtures/test_smooth_product.py", "tests/cli/test_fuzz.py", "tests/parsing/test_eisner.py",
                 "tests/cli/test_user_path.py", ALONE[0], ALONE[2], "tests/test_selection.py", "tests/cli/test_lossless.py",
                 "tests/test_kernel_cache.py", "tests/corpus/test_one_pass.py", "tests/cli/test_tree.py", ALONE[3])


def unit_of(nodeid: str) -> str:
    """The unit of work of a test: itself if in :data:`ALONE`, else its module."""
    return nodeid if nodeid in ALONE else nodeid.split("::", 1)[0]


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` (pyproject's addopts, ``-n auto``) by :func:`unit_of`, longest first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Units(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the queue is complete before the first unit is handed out
                for unit in reversed(LONGEST_FIRST):
                    if unit in self.workqueue:
                        self.workqueue.move_to_end(unit, last=False)
                self.ordered = True
            super()._assign_work_unit(node)

    return Units(config, log)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the clone (real EWT, PAutomaC, NLTK data); skips when missing."""
    if not (SHARED / "corpora").is_dir():
        pytest.skip(f"shared corpora not found at {SHARED}")
    return SHARED


def _shared_corpus(shared_dir: Path, name: str) -> Path:
    path = shared_dir / "corpora" / name
    if not path.is_dir():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="session")
def ewt_dir(shared_dir) -> Path:
    """The full UD English-EWT treebank (train/dev/test .conllu)."""
    return _shared_corpus(shared_dir, "ud-english-ewt")


@pytest.fixture(scope="session")
def pautomac_dir(shared_dir) -> Path:
    """The PAutomaC problems (<n>.pautomac.train/.test, <n>.pautomac_solution.txt)."""
    return _shared_corpus(shared_dir, "pautomac")


@pytest.fixture(scope="session")
def nltk_data_dir(shared_dir) -> Path:
    """NLTK data (Brown, dependency_treebank, ...); tests set NLTK_DATA to it."""
    return _shared_corpus(shared_dir, "nltk_data")


@pytest.fixture(scope="session")
def corpora_dir() -> Path:
    """The bundled sample corpora of the project (``corpora/``)."""
    return CORPORA


def _conllu(*sentences: list[str]) -> bytes:
    """CoNLL-U text from sentences given as lists of 'id form upos head' rows."""
    out = []
    for rows in sentences:
        for row in rows:
            i, form, upos, head = row.split(" ")
            out.append("\t".join([i, form, form.lower(), upos, "_", "_", head, "dep", "_", "_"]))
        out.append("")
    return ("\n".join(out) + "\n").encode("utf-8")


_GOOD = ["1 The DET 2", "2 dog NOUN 3", "3 barks VERB 0"]

# name -> (format, file bytes, line of the defect); every case the readers must reject
MALFORMED = {
    "conllu-columns": ("conllu", _conllu(_GOOD, ["1 A DET 2", "2 b NOUN 0"]).replace(b"\tb\tb\t", b"\tb\t", 1), 6),
    "conllu-id": ("conllu", _conllu(_GOOD, ["1 A DET 2", "two b NOUN 0"]), 6),
    "conllu-head": ("conllu", _conllu(_GOOD, ["1 A DET x", "2 b NOUN 0"]), 5),
    "conllu-head-range": ("conllu", _conllu(_GOOD, ["1 A DET 7", "2 b NOUN 0"]), 5),
    "conllu-cycle": ("conllu", _conllu(_GOOD, ["1 A DET 0", "2 b NOUN 3", "3 c VERB 2"]), 6),
    "conllu-no-root": ("conllu", _conllu(_GOOD, ["1 A DET 2", "2 b NOUN 1"]), 5),
    "conllx-latin1": ("conllx", _conllu(_GOOD, ["1 Año NOUN 0"]).replace("ñ".encode(), b"\xf1"), 5),
    "conllu-utf8": ("conllu", _conllu(_GOOD, ["1 A DET 2", "2 b NOUN 0"]).replace(b"\tA\ta\t", b"\t\xff\ta\t"), 5),
    "conllx-columns": ("conllx", _conllu(_GOOD).replace(b"\t_\t_\n", b"\n", 1), 1),
    "malttab-columns": ("malttab", b"The\tDT\t2\ndog\tNN\n\n", 2),
    "pautomac-length": ("pautomac", b"3 4\n2 0 1\n3 1 1\n0\n", 3),
    "pautomac-header-count": ("pautomac", b"4 4\n2 0 1\n1 3\n0\n", 1),
    "pautomac-symbol": ("pautomac", b"3 4\n2 0 1\n1 4\n0\n", 3),
    "pautomac-integer": ("pautomac", b"3 4\n2 0 1\n1 a\n0\n", 3),
    "pautomac-utf8": ("pautomac", b"3 4\n2 0 1\n1 \xc3\n0\n", 3),
    "pautomac-huge-alphabet": ("pautomac", b"1 99999999999999\n1 0\n", 1),
    "pautomac-cr-only-length": ("pautomac", b"3 4\r2 0 1\r3 1 1\r0\r", 3),
}


@pytest.fixture(scope="session")
def malformed_files(tmp_path_factory) -> dict[str, tuple[str, Path, int]]:
    """One small malformed file per defect: name -> (format, path, line of the defect)."""
    directory = tmp_path_factory.mktemp("malformed")
    suffix = {"conllu": ".conllu", "conllx": ".conllx", "malttab": ".dp", "pautomac": ".pautomac.train"}
    files = {}
    for name, (fmt, data, line) in MALFORMED.items():
        path = directory / f"{name}{suffix[fmt]}"
        path.write_bytes(data)
        files[name] = (fmt, path, line)
    return files
