"""Each projection owns its tables (issue #26): only the module that creates a `p_` table
writes it. Others read it through that module's read models, or by a query of their own; none
inserts, updates or deletes another's rows, so a table's contents follow from one module's
handlers alone."""

from __future__ import annotations

import re
from pathlib import Path

from pos.ledger.projections import ALL

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pos", "kiosk", "web", "sync", "hardware")
CREATED = re.compile(r"CREATE TABLE (p_\w+)")
WRITTEN = re.compile(r"(?:INSERT(?: OR \w+)? INTO|UPDATE|DELETE FROM|REPLACE INTO)\s+(p_\w+)")


def _sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }


def test_every_projection_table_has_one_creating_module() -> None:
    creators: dict[str, list[str]] = {}
    for name, text in _sources().items():
        for table in CREATED.findall(text):
            creators.setdefault(table, []).append(name)
    assert set(creators) == set(ALL.tables())
    assert {t: c for t, c in creators.items() if len(c) > 1} == {}


def test_only_the_creating_module_writes_a_projection_table() -> None:
    sources = _sources()
    owner = {table: name for name, text in sources.items() for table in CREATED.findall(text)}
    foreign = sorted(
        (name, table)
        for name, text in sources.items()
        for table in WRITTEN.findall(text)
        if table in owner and owner[table] != name
    )
    assert foreign == []


def test_the_check_sees_a_write_across_modules() -> None:
    """The patterns catch the statements the projections write (a check that cannot fail
    would keep nothing)."""
    assert WRITTEN.findall('"INSERT OR IGNORE INTO p_sales (a) VALUES (?)"') == ["p_sales"]
    assert WRITTEN.findall('"UPDATE p_deals SET sold = sold - ?"') == ["p_deals"]
    assert WRITTEN.findall('"DELETE FROM p_close_markers WHERE"') == ["p_close_markers"]
