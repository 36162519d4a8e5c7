"""Size and shape rules of the linecnn package, checked so they hold without anyone watching.

The core's freedom from Streamlit is checked in test_headless.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "linecnn"
MAX_MODULE_LINES = 250
MAX_FUNCTION_LINES = 50


def modules() -> dict[str, Path]:
    """Every module of linecnn by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported(path: Path, known: dict[str, Path]) -> set[str]:
    """The linecnn modules ``path`` names in an absolute import anywhere in it, functions included."""
    found = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:  # ``from package import module`` names the module
                module = f"{node.module}.{alias.name}"
                found.add(module if module in known else node.module)
    return {name for name in found if name in known}


def import_graph() -> dict[str, set[str]]:
    """Each linecnn module -> the linecnn modules it imports."""
    known = modules()
    return {name: imported(path, known) - {name} for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of more than one node (or a node importing itself)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_is_over_250_lines():
    """Every module under linecnn/ has at most 250 lines."""
    offenders = {
        str(path.relative_to(ROOT)): lines
        for path in modules().values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    print(offenders)
    assert offenders == {}


def test_no_function_is_over_50_lines():
    """Every function and method under linecnn/ spans at most 50 lines, decorators aside."""
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in modules().values()
        for node in ast.walk(tree(path))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    print("\n".join(offenders))
    assert offenders == []


def test_no_import_cycle_between_modules():
    """No linecnn module imports itself back through others, counting imports inside functions too."""
    found = cycles(import_graph())
    print("\n".join(" <-> ".join(group) for group in found))
    assert found == []


def test_no_import_cycle_between_packages():
    """The top-level packages (train, bench, parallel, serve, ...) depend on each other one way only."""

    def top(name: str) -> str:
        parts = name.split(".")
        return ".".join(parts[:2])  # linecnn.bench for linecnn.bench.plan; linecnn.device for itself

    graph: dict[str, set[str]] = {}
    for source, targets in import_graph().items():
        graph.setdefault(top(source), set()).update(top(t) for t in targets if top(t) != top(source))
    found = cycles(graph)
    print("\n".join(" <-> ".join(group) for group in found))
    assert found == []


def test_no_module_has_dunder_all():
    """No module under linecnn/ defines __all__: every name is imported from the module that defines it."""
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in modules().values()
        for node in ast.walk(tree(path))
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        and any(
            isinstance(target, ast.Name) and target.id == "__all__"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    print("\n".join(offenders))
    assert offenders == []


def test_no_file_keeps_a_merge_conflict():
    """A merge that was committed half-resolved would ship its markers: in the README, a catalog, code."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    kinds = (".py", ".md", ".toml", ".txt", ".cfg", ".yml", ".yaml", ".json", ".sh")
    marked = []
    for name in tracked.stdout.splitlines():
        path = ROOT / name
        if not name.endswith(kinds) or not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if any(line.startswith(("<<<<<<< ", ">>>>>>> ")) for line in lines):
            marked.append(name)
    assert marked == []


def test_streamlit_private_apis_are_imported_from_one_module():
    """Only linecnn/ui/streamlit_private.py reaches into Streamlit's modules; the rest use ``st.`` or it."""
    private = PACKAGE / "ui" / "streamlit_private.py"
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), *(ROOT / "deploy").glob("*.py")]
    offenders = []
    for path in [*files, ROOT / "app.py"]:
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "streamlit":
                names = ", ".join(alias.name for alias in node.names)
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module} import {names}")
            elif isinstance(node, ast.Import):
                offenders += [
                    f"{path.relative_to(ROOT)}:{node.lineno} import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("streamlit.")
                ]
    offenders = [line for line in offenders if not line.startswith(str(private.relative_to(ROOT)))]
    print("\n".join(offenders))
    assert offenders == []
