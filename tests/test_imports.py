"""The house's import rules, read from the source (every ``import`` statement, at the top of a
module or inside a function): the layers drawn in docs/design.md ("Layers") — each module in
exactly one, no import from a layer to a later one, nothing below the workflows layer importing
it — no two modules importing each other, and no private name of seqspectral imported by the
benchmarks."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the directories of the checkout that hold modules, and the package each one is
ROOTS = {REPO / "seqspectral": "seqspectral", REPO / "cli": "seqspectral.cli", REPO / "evaluation": "evaluation"}
#: private imports of evaluation/ from code another branch replaces (issue 39: reranking/build.py becomes
#: seqspectral.workflows, whose public fold_blocks / load_trees evaluation/reranking.py then imports);
#: an entry whose module is gone is ignored
REPLACED = {("evaluation.reranking", "seqspectral.reranking.build._fold_blocks"),
            ("evaluation.reranking", "seqspectral.reranking.build._load_trees")}


def layer_table(text: str) -> list[list[str]]:
    """The layers of the drawing under "## Layers" in docs/design.md, first to last: the names
    before the first double space of each unindented line of its code block."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    return [re.split(r"\s{2,}", line.strip())[0].split() for line in block.splitlines()[1:]
            if line.strip() and not line[0].isspace()]


@cache
def modules() -> dict[str, tuple[Path, bool]]:
    """Every module's dotted name -> (file, is a package's __init__)."""
    found = {}
    for root, package in ROOTS.items():
        for path in sorted(root.rglob("*.py")):
            if any(part.startswith(".") for part in path.relative_to(root).parts):  # evaluation/.venv-*: peers' venvs
                continue
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _imports(name: str) -> list[tuple[str, list[str]]]:
    """(module imported, names imported from it) for every import statement of module ``name``."""
    path, is_package = modules()[name]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.append((module, [alias.name for alias in node.names]))
    return out


def _own(module: str) -> str | None:
    """The module of ours that importing ``module`` runs (its longest known prefix), else None."""
    known = modules()
    while module not in known and "." in module:
        module = module.rsplit(".", 1)[0]
    return module if module in known else None


@cache
def graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (``from package import submodule`` imports the
    submodule; ``from package import name`` the package)."""
    known = modules()
    edges = {}
    for name in known:
        targets = set()
        for module, names in _imports(name):
            subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in known]
            for target in subs if subs and len(subs) == len(names) else [module, *subs]:
                own = _own(target)
                if own is not None and own != name:
                    targets.add(own)
        edges[name] = targets
    return edges


def layer_entry(module: str) -> str:
    """The drawing's name for ``module``'s place: ``x/`` (a package), ``x.py`` or ``__init__.py``."""
    parts = module.split(".")
    if parts[0] == "evaluation":
        return "evaluation/"
    if len(parts) == 1:
        return "__init__.py"
    path, is_package = modules()[".".join(parts[:2])]
    return f"{parts[1]}/" if is_package else f"{parts[1]}.py"


@pytest.fixture(scope="module")
def layers() -> dict[str, int]:
    table = layer_table((REPO / "docs" / "design.md").read_text(encoding="utf-8"))
    assert len(table) > 10 and ["cli/"] in table and ["evaluation/"] in table
    index = {}
    for i, names in enumerate(table):
        for entry in names:
            assert entry not in index, f"{entry} is in two layers of docs/design.md"
            index[entry] = i
    return index


def test_the_drawing_is_read_as_drawn():
    text = "# Design\n\n## Layers\n\nwords\n\n```\na/ b.py   first\n    more of it\nc/        second\n```\n\n## Next\n"
    assert layer_table(text) == [["a/", "b.py"], ["c/"]]


def test_every_module_has_a_layer(layers):
    missing = sorted({layer_entry(m) for m in modules()} - set(layers))
    assert not missing, f"not in the layers of docs/design.md: {missing}"


def upward_imports(edges: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    return [f"{a} (layer {layers[layer_entry(a)]}: {layer_entry(a)}) imports {b} "
            f"(layer {layers[layer_entry(b)]}: {layer_entry(b)})"
            for a, targets in sorted(edges.items()) for b in sorted(targets)
            if layers[layer_entry(b)] > layers[layer_entry(a)]]


def test_no_import_runs_upward(layers):
    upward = upward_imports(graph(), layers)
    assert not upward, "\n".join(upward)


def test_nothing_below_the_workflows_layer_imports_it(layers):
    below = [a for a, targets in sorted(graph().items())
             if layers[layer_entry(a)] < layers["workflows/"]
             and any(t == "seqspectral.workflows" or t.startswith("seqspectral.workflows.") for t in targets)]
    assert not below, f"below the workflows layer, importing it: {below}"


def test_no_two_modules_import_each_other():
    edges = graph()
    mutual = sorted((a, b) for a, targets in edges.items() for b in targets if a < b and a in edges.get(b, ()))
    assert not mutual, f"modules importing each other: {mutual}"


def test_the_checks_see_an_upward_import_and_a_circle(tmp_path, monkeypatch):
    """The graph is built from the real statements: a planted upward import and a planted
    circle, in files of a fake checkout, are found."""
    for name, text in {"seqspectral/__init__.py": "", "seqspectral/corpus/__init__.py": "",
                       "seqspectral/corpus/a.py": "def f():\n    from ..cli import main\n",
                       "seqspectral/corpus/b.py": "from . import c\n", "seqspectral/corpus/c.py": "from .b import x\n",
                       "cli/__init__.py": "", "cli/main.py": "from seqspectral.corpus import a\n",
                       "evaluation/__init__.py": ""}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.setitem(globals(), "ROOTS", {tmp_path / "seqspectral": "seqspectral", tmp_path / "cli": "seqspectral.cli",
                                             tmp_path / "evaluation": "evaluation"})
    modules.cache_clear()
    graph.cache_clear()
    try:
        edges = graph()
        assert edges["seqspectral.corpus.a"] == {"seqspectral.cli.main"}  # inside a function, relative, upward
        assert edges["seqspectral.corpus.b"] == {"seqspectral.corpus.c"}
        assert edges["seqspectral.corpus.c"] == {"seqspectral.corpus.b"}
        assert edges["seqspectral.cli.main"] == {"seqspectral.corpus.a"}
        assert upward_imports(edges, {"__init__.py": 0, "corpus/": 1, "cli/": 2, "evaluation/": 3}) == [
            "seqspectral.corpus.a (layer 1: corpus/) imports seqspectral.cli.main (layer 2: cli/)"]
    finally:
        modules.cache_clear()
        graph.cache_clear()


def test_evaluation_imports_no_private_name():
    known = modules()
    private = []
    for name in sorted(n for n in known if n.split(".")[0] == "evaluation"):
        for module, names in _imports(name):
            if not module.startswith("seqspectral"):
                continue
            for imported in [f"{module}.{n}" for n in names] or [module]:
                if any(part.startswith("_") for part in imported.split(".")[1:]):
                    if (name, imported) in REPLACED and module in known:
                        continue
                    private.append(f"{name}: {imported}")
    assert not private, "private names of seqspectral imported by evaluation/:\n" + "\n".join(private)
