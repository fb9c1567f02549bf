"""The README and the documentation site cannot drift from the code: the site builds with
warnings as errors (MkDocs, API pages from the docstrings), the README's ```sh and ```python
blocks run as written and in order from a directory holding the bundled ``corpora/`` (the
stories; run once per session and shared), then every docs page's ```sh blocks (a line the
README or an earlier page already ran is not run again: same words, same inputs, same files)
and its ```python blocks (one namespace per page). ```text and ```py blocks are shown, not run
(data the clone lacks, long experiments)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from seqspectral.cli.main import main

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
RUN = ("sh", "python")


def fenced(path: Path) -> list[tuple[str, str]]:
    """``path``'s fenced blocks as (language, body), in order."""
    return FENCE.findall(path.read_text(encoding="utf-8"))


def blocks(path: Path, language: str) -> list[str]:
    """The bodies of ``path``'s fenced blocks of ``language``, in order."""
    return [body for lang, body in fenced(path) if lang == language]


def commands(block: str) -> list[str]:
    """The command lines of a shell block (comments dropped, backslash continuations joined)."""
    joined = block.replace("\\\n", " ")
    return [line.split(" #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@dataclass
class Clone:
    """A directory like the root of a fresh clone (the bundled corpora), what ran in it (each
    command line as its words) and how each README block ended (None: it ran)."""

    directory: Path
    ran: set = field(default_factory=set)
    readme: list = field(default_factory=list)

    @contextlib.contextmanager
    def inside(self):
        before = os.getcwd()
        os.chdir(self.directory)
        try:
            yield
        finally:
            os.chdir(before)

    def run(self, line: str) -> None:
        """Run a command line as a user would (``seqspectral`` in-process); a line run before
        with the same words is not run again."""
        words = shlex.split(line)
        if tuple(words) in self.ran:
            return
        if words[0] == "seqspectral":
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(words[1:])
            out, err = out.getvalue(), err.getvalue()
        else:
            done = subprocess.run(words, capture_output=True, text=True)
            status, out, err = done.returncode, done.stdout, done.stderr
        assert status == 0, f"{line}\n{out}\n{err}"
        for flag in ("-o", "--html", "--plot"):
            if flag in words:
                assert Path(words[words.index(flag) + 1]).exists(), f"{line}: wrote no {words[words.index(flag) + 1]}"
        self.ran.add(tuple(words))


def run_blocks(clone: Clone, name: str, found: list[tuple[str, str]], namespace: dict) -> None:
    for number, (language, body) in enumerate(found, 1):
        if language == "sh":
            for line in commands(body):
                clone.run(line)
        else:
            exec(compile(body, f"{name} python block {number}", "exec"), namespace)  # noqa: S102


README_BLOCKS = [b for b in fenced(REPO / "README.md") if b[0] in RUN]


@pytest.fixture(scope="session")
def clone(tmp_path_factory) -> Clone:
    """The README's blocks run once, in order, in a fresh directory with the bundled corpora;
    the docs pages run after them there. A failing block stops the stories (the next ones
    read what it writes)."""
    clone = Clone(tmp_path_factory.mktemp("clone"))
    (clone.directory / "corpora").symlink_to(REPO / "corpora", target_is_directory=True)
    namespace: dict = {"__name__": "readme"}
    with clone.inside():
        for index, block in enumerate(README_BLOCKS):
            failed = next((i for i, outcome in enumerate(clone.readme) if outcome), None)
            if failed is not None:
                clone.readme.append(f"not run: README block {failed + 1} failed")
                continue
            try:
                run_blocks(clone, "README.md", [block], namespace)
                clone.readme.append(None)
            except Exception as e:  # noqa: BLE001 — reported by the block's own test
                clone.readme.append(f"{type(e).__name__}: {e}")
    CLONES.append(clone)
    return clone


@pytest.mark.parametrize("index", range(len(README_BLOCKS)))
def test_the_readme_stories_run_as_written_in_order(index, clone):
    assert clone.readme[index] is None, f"README block {index + 1}:\n{README_BLOCKS[index][1]}\n{clone.readme[index]}"


def test_the_readme_shows_the_main_job_and_the_stories():
    text = "\n".join(body for lang, body in README_BLOCKS if lang == "sh")
    for command in ("lm train", "lm eval", "tree train", "rerank build", "rerank run", "tag run", "rerank apply",
                    "show", "evaluate parse", "evaluate tag"):
        assert f"seqspectral {command}" in text
    assert re.search(r"^seqspectral rerank run \S+ \S+\.txt ", text, re.M)  # raw text in, one command
    python = "\n".join(body for lang, body in README_BLOCKS if lang == "python")
    for estimator in ("PerceptronTagger", "DependencyParser", "Reranker"):
        assert f"{estimator}(" in python


PAGES = sorted(DOCS.glob("*.md"))


def reads_nothing_written(found: list[tuple[str, str]]) -> bool:
    """Whether these blocks read no file but the bundled corpora and what their own earlier
    command lines wrote (a python block: names no other file): then they need not the
    stories' clone (a parallel run may give them a worker of their own)."""
    made: set[str] = set()
    for language, body in found:
        if language == "python":
            if any(not name.startswith("corpora/") for name in re.findall(r"[\"']([\w./-]+\.\w+)[\"']", body)):
                return False
            continue
        for line in commands(body):
            words = shlex.split(line)
            outputs = {words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--html", "--plot")}
            if any(_file(w) and not w.startswith("corpora/") and w not in made | outputs for w in words[1:]):
                return False
            made |= outputs
    return True


def _file(word: str) -> bool:
    try:
        float(word)
        return False
    except ValueError:
        return not word.startswith("-") and ("." in word or "/" in word)


CLONES: list = []  # the session's clone, once made in this process


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_docs_examples_run(page, request, tmp_path):
    found = [b for b in fenced(page) if b[0] in RUN]
    if not CLONES and reads_nothing_written(found):  # run alone (or nothing to run): a fresh clone
        clone = Clone(tmp_path)
        (tmp_path / "corpora").symlink_to(REPO / "corpora", target_is_directory=True)
    else:
        clone = request.getfixturevalue("clone")
        assert not any(clone.readme), "the README's stories failed: the pages read what they write"
    with clone.inside():
        run_blocks(clone, page.name, found, {"__name__": f"docs_{page.stem}"})


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "api" / "display" / "index.html").exists()
    built = {p.parent.name for p in (tmp_path / "site").glob("*/index.html")}
    assert {p.stem for p in PAGES if p.stem != "index"} <= built  # every page is in the site
