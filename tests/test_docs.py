"""The README and the documentation site cannot drift from the code: the site builds with
warnings as errors (MkDocs, API pages from the docstrings), the README's ```sh blocks run as
written and in order from a directory holding the bundled ``corpora/`` (the stories), then
every docs page's ```sh blocks (a line the README already ran is not run again: same command,
same inputs, same files) and its ```python blocks (one namespace per page). ```text and ```py
blocks are shown, not run (data the clone lacks, long experiments)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from seqspectral.cli.main import main

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(path: Path, language: str) -> list[str]:
    """The bodies of ``path``'s fenced blocks of ``language``, in order."""
    return [body for lang, body in FENCE.findall(path.read_text(encoding="utf-8")) if lang == language]


def commands(block: str) -> list[str]:
    """The command lines of a shell block (comments dropped, backslash continuations joined)."""
    joined = block.replace("\\\n", " ")
    return [line.split(" #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A fresh directory with the bundled corpora, like the root of a clone."""
    directory = tmp_path_factory.mktemp("clone")
    (directory / "corpora").symlink_to(REPO / "corpora", target_is_directory=True)
    return directory


#: the lines run in each working directory (what a story ran there, a page does not run again)
RAN: dict[Path, set[str]] = {}


def run(line: str, capsys) -> None:
    words = shlex.split(line)
    if words[0] == "seqspectral":
        status = main(words[1:])
        out, err = capsys.readouterr()
    else:
        done = subprocess.run(words, capture_output=True, text=True)
        status, out, err = done.returncode, done.stdout, done.stderr
    assert status == 0, f"{line}\n{out}\n{err}"
    for flag in ("-o", "--html", "--plot"):
        if flag in words:
            assert Path(words[words.index(flag) + 1]).exists(), f"{line}: wrote no {words[words.index(flag) + 1]}"
    RAN.setdefault(Path.cwd(), set()).add(line)


README_BLOCKS = blocks(REPO / "README.md", "sh")


def files(sh: list[str], python: list[str] = ()) -> tuple[set[str], set[str]]:
    """(the files these blocks read that they did not write first, the files they write),
    the bundled ``corpora/`` aside; a file named in a python block counts as read."""
    read: set[str] = set()
    made: set[str] = set()
    for line in (line for block in sh for line in commands(block)):
        words = shlex.split(line)
        outputs = {words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--html", "--plot")}
        read |= {w for w in words[1:] if w not in outputs | made and _is_path(w) and not w.startswith("corpora/")}
        made |= outputs
    read |= {name for block in python for name in re.findall(r"[\"']([\w./-]+\.\w+)[\"']", block)
             if not name.startswith("corpora/")}
    return read, made


def _is_path(word: str) -> bool:
    try:
        float(word)
        return False
    except ValueError:
        return not word.startswith("-") and ("." in word or "/" in word)


def run_stories_before(read: set[str], capsys) -> None:
    """Run here, in order, the README stories that write a file of ``read`` and have not run
    here (and, first, those they read from): every story and page runs alone too, as a
    parallel run (pytest-xdist) may give it a worker of its own."""
    for block in README_BLOCKS:
        story_read, made = files([block])
        lines = [line for line in commands(block) if line not in RAN.get(Path.cwd(), ())]
        if made & read and lines:
            run_stories_before(story_read, capsys)
            for line in lines:
                run(line, capsys)


@pytest.mark.parametrize("index", range(len(README_BLOCKS)))
def test_the_readme_stories_run_as_written_in_order(index, workdir, monkeypatch, capsys):
    monkeypatch.chdir(workdir)
    run_stories_before(files([README_BLOCKS[index]])[0], capsys)
    for line in commands(README_BLOCKS[index]):
        if line not in RAN.get(Path.cwd(), ()):
            run(line, capsys)


def test_the_readme_shows_the_main_job_and_four_stories():
    assert len(README_BLOCKS) >= 5
    text = "\n".join(README_BLOCKS)
    for command in ("lm train", "lm eval", "tree train", "rerank build", "rerank run", "tag run", "rerank apply", "show"):
        assert f"seqspectral {command}" in text


PAGES = sorted(DOCS.glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_docs_examples_run(page, workdir, monkeypatch, capsys):
    monkeypatch.chdir(workdir)
    run_stories_before(files(blocks(page, "sh"), blocks(page, "python"))[0], capsys)
    for block in blocks(page, "sh"):
        for line in commands(block):
            if line not in RAN.get(Path.cwd(), ()):
                run(line, capsys)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for number, block in enumerate(blocks(page, "python"), 1):
        exec(compile(block, f"{page.name} python block {number}", "exec"), namespace)  # noqa: S102


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "api" / "display" / "index.html").exists()
    built = {p.parent.name for p in (tmp_path / "site").glob("*/index.html")}
    assert {p.stem for p in PAGES if p.stem != "index"} <= built  # every page is in the site
