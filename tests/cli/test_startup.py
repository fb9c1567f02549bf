"""Start-up: ``seqspectral --help``, every command group's ``--help`` and a command line of
each group parsed up to the point its handler starts import no numerical library and no
reader, model or kernel of the package, only the option lists they show, and not ``typing``,
``dataclasses`` nor ``inspect`` (a tenth of the start-up between them; the time is measured by
``python -m evaluation model_layer --startup``; issue 43: the 50 ms class)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from seqspectral.cli.main import COMMAND_GROUPS  # light: the command's own module

#: what the help of a command may not import: the numerical stack and the parsers of files
HEAVY = ("numpy", "scipy", "numba", "sklearn", "conllu", "nltk", "tqdm", "threadpoolctl")
#: the standard library's slow imports, which the option lists do without
SLOW_STDLIB = ("typing", "dataclasses", "inspect")


def imported(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported after ``seqspectral ARGV`` returns or exits."""
    code = ("import json, sys\nfrom seqspectral.cli.main import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stderr.rsplit("MODULES ", 1)[1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY + SLOW_STDLIB)


def test_top_level_help_imports_no_library_code():
    modules = imported(["--help"])
    assert _heavy(modules) == []  # no inspect either: dataclasses imports it (the bounds table is a named tuple)
    assert sorted(m for m in modules if m.startswith("seqspectral.") and not m.startswith("seqspectral.cli")) \
        == ["seqspectral.bounds", "seqspectral.interrupts"]  # the bounds table: the options' types


#: the library modules the option lists read: the bounds, the format registry, fields, tagsets, methods
OPTION_LISTS = {"seqspectral.bounds", "seqspectral.interrupts", "seqspectral.exports", "seqspectral.corpus",
                "seqspectral.corpus.errors", "seqspectral.corpus.formats", "seqspectral.corpus.options",
                "seqspectral.corpus.tagsets", "seqspectral.lm", "seqspectral.lm.methods"}


@pytest.mark.parametrize("group", COMMAND_GROUPS)
def test_a_command_group_help_imports_only_its_option_lists(group):
    modules = imported([group, "--help"])
    assert _heavy(modules) == [], f"`seqspectral {group} --help` imports the numerical stack"
    library = {m for m in modules if m.startswith("seqspectral.") and not m.startswith("seqspectral.cli")}
    assert sorted(library - OPTION_LISTS) == []
    others = {f"seqspectral.cli.{g}" for g in COMMAND_GROUPS if g != group}
    assert sorted(modules & others) == [], f"`seqspectral {group} --help` imports other groups' modules"


#: a command line of each group (its files need not exist: it is parsed, not run); OUT: an output path
COMMAND_LINES = {
    "corpus": ["corpus", "stats", "train.conllu"],
    "lm": ["lm", "train", "train.txt", "--method", "spectral-substring", "-o", "OUT"],
    "embed": ["embed", "train.txt", "--dim", "50", "-o", "OUT"],
    "tree": ["tree", "train", "train.conllu", "--selection", "ranking", "-o", "OUT"],
    "parse": ["parse", "train", "train.conllu", "-o", "OUT"],
    "rerank": ["rerank", "train", "lists.conllu", "--gold", "gold.conllu", "-o", "OUT"],
    "evaluate": ["evaluate", "parse", "gold.conllu", "pred.conllu"],
    "tag": ["tag", "train", "train.conllu", "-o", "OUT"],
    "show": ["show", "train.conllu"],
    "grammar": ["grammar", "train", "train.mrg", "-o", "OUT"],
}


def started(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported when ``seqspectral ARGV`` has parsed its
    arguments and checked its outputs: the moment its handler would start the work."""
    code = ("import json, sys\nfrom seqspectral.cli import main as m\ncheck = m._check_outputs\n"
            "def at_work(args):\n    check(args)\n    args.handler = lambda a: print('MODULES ' + "
            "json.dumps(sorted(sys.modules)))\n"
            f"m._check_outputs = at_work\nm.main({argv!r})\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.rsplit("MODULES ", 1)[1]))


def test_every_group_has_a_command_line():
    assert sorted(COMMAND_LINES) == sorted(COMMAND_GROUPS)


@pytest.mark.parametrize("group", COMMAND_GROUPS)
def test_a_command_line_parsed_up_to_its_work_imports_only_its_option_lists(group, tmp_path):
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in COMMAND_LINES[group]]
    modules = started(argv)
    assert _heavy(modules) == [], f"`seqspectral {' '.join(argv)}` imports them before its work"
    library = {m for m in modules if m.startswith("seqspectral.") and not m.startswith("seqspectral.cli")}
    assert sorted(library - OPTION_LISTS - {"seqspectral.io"}) == []  # io: the outputs checked before the work


def test_the_check_sees_what_a_running_command_imports():
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "corpora" / "ewt-sample.conllu"
    assert "numpy" in imported(["corpus", "stats", str(sample)])  # reading does need it
    assert _heavy({"numpy.linalg", "seqspectral.corpus", "scipy", "inspect"}) == ["inspect", "numpy.linalg", "scipy"]
