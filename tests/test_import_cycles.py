"""No import cycles among Booth's modules, read statically from the source with ast.

Every import a module runs counts: at module level and inside functions (a function-level
import only puts a cycle off until the function runs). `from x import y` counts as importing
the submodule x.y when y is one, otherwise x. Imports under `if TYPE_CHECKING:` never run and
do not count: they are how two modules name each other's types without importing each other.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pos", "kiosk", "sync", "hardware")

#: Cycles known and being untangled: none.
KNOWN_CYCLES: set[frozenset[str]] = set()


def module_files() -> dict[str, Path]:
    """Dotted module name -> its file, for every module of Booth's packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth, skipping `if TYPE_CHECKING:`
    bodies (their `else:` runs)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _runtime_imports(ast.Module(body=[child], type_ignores=[]))
        else:
            yield from _runtime_imports(node)


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of Booth that module `name` imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _runtime_imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = []
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                targets.append(submodule if submodule in modules else source)
        for target in targets:
            # `import a.b.c` binds and runs a.b.c; the nearest module of Booth it names
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    modules = set(files)
    return {name: imports_of(name, path, modules) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one cycle
    through some of its modules, printed `a -> b -> ... -> a`; sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_a_cycle(graph, component) for component in components)


def _a_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module, inside the component."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & component):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Each cycle's whole component (every module that is on some cycle with it)."""
    members = []
    for cycle in cycles(graph):
        start = cycle[0]
        reach = _reachable(graph, start)
        members.append(frozenset(m for m in reach if start in _reachable(graph, m)))
    return members


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


# -- the scan itself ---------------------------------------------------------------------------


def test_the_scan_reads_every_kind_of_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from . import leaf\nfrom .leaf import VALUE\n")
    (package / "sub" / "leaf.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import pkg.other\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import typed_only\n"
        "else:\n"
        "    from pkg import at_run_time\n"
        "def later():\n"
        "    from ..late import thing\n"
        "VALUE = 1\n"
    )
    for leaf in ("other", "typed_only", "at_run_time", "late"):
        (package / f"{leaf}.py").write_text("")
    modules = {
        "pkg",
        "pkg.sub",
        "pkg.sub.leaf",
        "pkg.other",
        "pkg.typed_only",
        "pkg.at_run_time",
        "pkg.late",
    }
    sub = imports_of("pkg.sub", package / "sub" / "__init__.py", modules)
    leaf = imports_of("pkg.sub.leaf", package / "sub" / "leaf.py", modules)
    assert sub == {"pkg.sub.leaf"}
    assert leaf == {"pkg.other", "pkg.at_run_time", "pkg.late"}


def test_cycles_are_found_and_printed() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert strongly_connected(graph) == [frozenset({"a", "b", "c"})]


def test_the_graph_covers_every_package() -> None:
    graph = import_graph()
    for package in PACKAGES:
        assert package in graph
    assert "hardware.printer.transports.usb" in graph["hardware.printer.transports"]
    assert "pos.plugins" in graph["pos.cli.lazy_group"]  # a function-level import


# -- Booth -------------------------------------------------------------------------------------


def test_no_import_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    unknown = [
        cycle
        for cycle, members in zip(found, strongly_connected(graph), strict=True)
        if not any(members <= known for known in KNOWN_CYCLES)  # or a part of one, untangling
    ]
    assert not unknown, "import cycles:\n" + "\n".join(" -> ".join(c) for c in unknown)
