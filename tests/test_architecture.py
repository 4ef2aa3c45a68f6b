"""The house rules of the code base, checked: stages import only the stages below them, no import
cycle, no import hidden inside a function (outside the CLI's lazy loading), thin commands, and
the column table of the docs made from the one declaration of the columns."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from auditor.output.columns import markdown_table

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "auditor"

# Bottom to top: a module may import modules of its own layer or of layers below it. A module
# sits in the layer of its longest root listed here ("auditor.run.stages", the stage clock every
# stage reads, is below "auditor.run").
LAYERS = [
    {
        "auditor.model",
        "auditor.redact",
        "auditor.rules_loader",
        "auditor.cue_filter",
        "auditor.catalogue",
        "auditor.faults",
        "auditor.run.stages",
    },
    {"auditor.readers"},
    {"auditor.audit"},
    {"auditor.output"},
    {"auditor.run", "auditor.settings"},
    {"auditor.evaluate"},
    {"auditor.views"},
    {"auditor.notebook", "auditor.bench", "auditor.views.bench", "auditor"},
    {"auditor.cli"},
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, ast.Module]:
    return {module_name(p): ast.parse(p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))}


def project_imports(tree: ast.Module, *, top_level_only: bool) -> list[tuple[str, int]]:
    """(imported module, line) of every import of the project in a module."""
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("auditor"):
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found.extend((name, node.lineno) for name in names)
        elif isinstance(node, ast.Import):
            found.extend((a.name, node.lineno) for a in node.names if a.name.startswith("auditor"))
    return found


def resolve(imported: str, known: set[str]) -> str:
    """The module an import names: ``auditor.audit.words.tokens`` is ``auditor.audit.words``."""
    while imported not in known and "." in imported:
        imported = imported.rsplit(".", 1)[0]
    return imported


def layer_of(module: str) -> int:
    """The layer of a module: the one whose root is the module or its longest package. The
    package itself (``auditor``, its re-exports) is a root of its own, not the parent of all."""
    best: tuple[int, int] | None = None  # (length of the root, layer)
    for index, layer in enumerate(LAYERS):
        for root in layer:
            named = module == root or (root != "auditor" and module.startswith(root + "."))
            if named and (best is None or len(root) > best[0]):
                best = (len(root), index)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best[1]


def test_no_module_imports_the_project_inside_a_function_outside_the_cli():
    hidden = []
    for name, tree in modules().items():
        if name == "auditor.cli":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import | ast.ImportFrom):
                        module = getattr(inner, "module", None) or inner.names[0].name
                        if module.startswith("auditor"):
                            hidden.append(f"{name}:{inner.lineno} imports {module}")
    assert hidden == []


def test_the_import_graph_has_no_cycle():
    trees = modules()
    known = set(trees)
    graph = {
        name: {
            resolve(imported, known)
            for imported, _ in project_imports(tree, top_level_only=True)
            if resolve(imported, known) != name
        }
        for name, tree in trees.items()
    }
    graph["auditor"] = set()  # the package's own re-exports sit on top of everything

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            raise AssertionError(" -> ".join([*path[path.index(node) :], node]))
        for following in graph.get(node, ()):
            if following.startswith("auditor.") and following in graph:
                visit(following, [*path, node])

    for start in graph:
        visit(start, [])


def test_each_stage_imports_only_the_stages_below_it():
    trees = modules()
    known = set(trees)
    upward = []
    for name, tree in trees.items():
        for imported, line in project_imports(tree, top_level_only=True):
            target = resolve(imported, known)
            if target != "auditor" and layer_of(target) > layer_of(name):
                upward.append(f"{name}:{line} imports {target}")
    assert upward == []


@pytest.mark.parametrize(
    "command",
    [
        node
        for node in ast.parse((PACKAGE / "cli.py").read_text()).body
        if isinstance(node, ast.FunctionDef)
        and any("command" in ast.unparse(d) for d in node.decorator_list)
    ],
    ids=lambda node: node.name,
)
def test_every_command_of_the_cli_is_thin(command: ast.FunctionDef):
    first = command.body[0]
    has_docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    start = command.body[1 if has_docstring else 0].lineno
    assert command.end_lineno - start + 1 <= 30


def test_the_docs_column_table_is_the_declared_one():
    page = (ROOT / "docs" / "calls-table.md").read_text()
    table = page.split("<!-- columns:start -->\n", 1)[1].split("<!-- columns:end -->", 1)[0]
    assert table.strip() == markdown_table()


def test_a_module_sits_in_the_layer_of_its_longest_root():
    assert layer_of("auditor.audit.claims.judge") == layer_of("auditor.audit")
    assert layer_of("auditor.run.stages") == 0 < layer_of("auditor.run.local")
    assert layer_of("auditor") > layer_of("auditor.output.tables")
