"""The layout of the code: each kind of code has one home (DESIGN.md, "Layout and dependency
direction"). These tests read the source; they run nothing of it."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("pos", "sync", "kiosk", "hardware")
SQL_HOME = "pos/ledger/"

# Files that still hold SQL and are being moved (issue #22). Emptied as they move; a file that
# is clean must leave this list (the test says so), and no file may join it.
PENDING_SQL: frozenset[str] = frozenset()

_SQL_METHODS = frozenset({"execute", "executemany", "executescript", "query", "table"})
# DELETE only with FROM: alone it is the HTTP method the sync server routes
_SQL_TEXT = re.compile(
    r"\s*((SELECT|INSERT|UPDATE|REPLACE|CREATE|DROP|ALTER|WITH|PRAGMA|BEGIN|COMMIT|"
    r"ROLLBACK|SAVEPOINT|RELEASE)\b|DELETE\s+FROM\b)"
)


def _is_database(node: ast.expr) -> bool:
    """`db` or `something.db`: how the code names its sqlite-utils Database."""
    return (isinstance(node, ast.Name) and node.id == "db") or (
        isinstance(node, ast.Attribute) and node.attr == "db"
    )


def _leading_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def sql_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) for each use of SQL in a module's source."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source)
    inside_fstring = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _SQL_METHODS
        ):
            found.append((node.lineno, f".{node.func.attr}()"))
        elif isinstance(node, ast.Subscript) and _is_database(node.value):
            found.append((node.lineno, "db[...]"))
        elif isinstance(node, ast.Constant | ast.JoinedStr) and id(node) not in inside_fstring:
            text = _leading_text(node)
            if text is not None and _SQL_TEXT.match(text):
                found.append((node.lineno, "SQL text"))
    return sorted(found)


def sql_outside_the_ledger() -> dict[str, list[tuple[int, str]]]:
    """Every file outside pos/ledger that uses SQL, with where and how."""
    found: dict[str, list[tuple[int, str]]] = {}
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name.startswith(SQL_HOME):
                continue
            uses = sql_uses(path.read_text(encoding="utf-8"))
            if uses:
                found[name] = uses
    return found


def test_the_scanner_sees_each_kind_of_sql() -> None:
    source = (
        "conn.execute('x')\n"
        "ledger.db.query('x')\n"
        "db['t'].insert({})\n"
        "q = 'SELECT 1'\n"
        "f = f'UPDATE {t} SET x = 1'\n"
        "prose = 'Select a deal'\n"
    )
    kinds = Counter(what for _, what in sql_uses(source))
    assert kinds == {".execute()": 1, ".query()": 1, "db[...]": 1, "SQL text": 2}


def test_no_sql_outside_the_ledger() -> None:
    found = sql_outside_the_ledger()
    new = {name: uses for name, uses in found.items() if name not in PENDING_SQL}
    assert not new, (
        "SQL belongs in pos/ledger: a projection's read models, or a local table's module "
        f"(DESIGN.md). Found outside it: {new}"
    )
    done = sorted(PENDING_SQL - set(found))
    assert not done, f"these files hold no SQL any more: take them off PENDING_SQL: {done}"


# -- refusals are decided in pos/domain (DESIGN.md: services gather facts, pure checks decide) --

REFUSALS = frozenset({"RuleRefused", "NotPermitted"})

# Files of pos/services that may still raise a refusal inline, and how many times. No file may
# join this list, and a count may only go down (the test says when one does).
INLINE_REFUSALS_ALLOWED = {
    # Station.operator and Station.open: who is at the keyboard (ROLE) and whether the station
    # may run on a set clock (TRAINING) are decided where the station's staff and configuration
    # are read; they are the station's own gate before any command's facts exist.
    "pos/services/station.py": 6,
    # join: a used bundle (JOIN). hall.py is being reworked on another branch (issue #22);
    # its one check moves to pos/domain/checks when that lands.
    "pos/services/hall.py": 1,
}


def inline_refusals(source: str) -> list[int]:
    """The lines of `raise RuleRefused(...)` / `raise NotPermitted(...)` in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in REFUSALS:
                found.append(node.lineno)
    return found


def test_the_refusal_scanner_sees_each_form() -> None:
    source = (
        "def f():\n"
        "    raise RuleRefused('C4', 'closed')\n"
        "    raise errors.NotPermitted('no badge')\n"
        "    raise BadInput('x', 'y')\n"
        "    refuse(checks.closable('A1', state='closed', tickets=1, sold=1, unsold=0))\n"
    )
    assert inline_refusals(source) == [2, 3]


def test_services_raise_no_refusal_they_decided_inline() -> None:
    counts = {
        str(path.relative_to(ROOT)): len(inline_refusals(path.read_text(encoding="utf-8")))
        for path in sorted((ROOT / "pos" / "services").rglob("*.py"))
    }
    over = {
        name: count
        for name, count in counts.items()
        if count > INLINE_REFUSALS_ALLOWED.get(name, 0)
    }
    assert not over, (
        "a service gathers facts; a pure check in pos/domain/checks decides and returns the "
        f"Refusal, which the service raises with pos.errors.refuse (DESIGN.md). Inline: {over}"
    )
    fewer = {
        name: (allowed, counts.get(name, 0))
        for name, allowed in INLINE_REFUSALS_ALLOWED.items()
        if counts.get(name, 0) < allowed
    }
    assert not fewer, f"lower INLINE_REFUSALS_ALLOWED to what is left (allowed, found): {fewer}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(top: str) -> dict[str, set[str]]:
    """module -> the modules of `top` it imports anywhere in its source (inside functions too:
    an import in a function hides a cycle from the interpreter, not from the design)."""
    paths = {_module_name(path): path for path in (ROOT / top).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*parent, base] if base else parent)
                # `from package import module` imports the module; `from module import name`
                # the module (a package's own __init__ is not an edge: Python runs it first
                # for any of its modules, so it cannot close a cycle by itself).
                wanted = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base
                    for alias in node.names
                ]
            else:
                continue
            for target in wanted:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_cycle_finder_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles_in_pos() -> None:
    assert import_cycles(import_graph("pos")) == []
