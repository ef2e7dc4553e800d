"""Rule A: house rules are text the hall posts, versioned with the date posted; a printable
sheet; the inspector's export holds every version. The on/off switches stay."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.halls import Hall

pytestmark = pytest.mark.rule("A")


def test_posting_versions_each_rule_with_its_date(hall: Hall, tmp_path: Path) -> None:
    first = hall("house", "post", "conduct", "--text", "No smoking in the hall.", "--json")
    assert first.exit_code == 0, first.stderr
    assert (first.json["version"], first.json["posted_on"]) == (1, "2026-11-28")
    text = tmp_path / "conduct.txt"
    text.write_text("No smoking in the hall.\n\nPlayers must be 18 or older for pull-tabs.\n")
    second = hall(
        "house",
        "post",
        "conduct",
        "--file",
        str(text),
        "--json",
        BOOTH_NOW="2026-12-01T23:00:00+00:00",
    )
    assert second.exit_code == 0, second.stderr
    assert (second.json["version"], second.json["posted_on"]) == (2, "2026-12-01")
    current = hall("house", "posted", "--json").json
    assert [(r["key"], r["version"]) for r in current] == [("conduct", 2)]
    every = hall("house", "posted", "--all", "--json").json
    assert [r["version"] for r in every] == [1, 2]
    assert every[0]["text"] == "No smoking in the hall."
    assert hall("house", "set", "commingling", "on").exit_code == 0  # the switches stay
    assert hall("house", "show", "--json").json["commingling"] is True


def test_bad_posts_record_nothing(hall: Hall, tmp_path: Path) -> None:
    before = hall.count()
    for args in (
        ("house", "post", "Bad Key!", "--text", "x"),
        ("house", "post", "conduct"),
        ("house", "post", "conduct", "--text", "   "),
        ("house", "post", "conduct", "--text", "x" * 4001),
        ("house", "post", "conduct", "--file", str(tmp_path / "missing.txt")),
    ):
        assert hall(*args).exit_code == 2, args
    assert hall("house", "post", "conduct", "--text", "x", "--as", "S1").exit_code == 1
    assert hall.count() == before


def test_the_sheet_prints_the_posted_rules(hall: Hall, tmp_path: Path) -> None:
    assert hall("house", "post", "conduct", "--text", "Be kind <always> & fair.").exit_code == 0
    pdf = tmp_path / "house.pdf"
    result = hall("house", "sheet", "--pdf", str(pdf), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["rules"] == 1
    assert pdf.read_bytes().startswith(b"%PDF")


def test_the_inspectors_export_holds_every_version(hall: Hall, tmp_path: Path) -> None:
    assert hall("house", "post", "conduct", "--text", "First.").exit_code == 0
    assert hall("house", "post", "conduct", "--text", "Second.").exit_code == 0
    out = tmp_path / "export"
    assert hall("export", "--inspector", str(out)).exit_code == 0
    with (out / "tables" / "house_rules.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [row["text"] for row in rows] == ["First.", "Second."]
    assert all(row["posted_on"] == "2026-11-28" for row in rows)
    events = (out / "events.jsonl").read_text()
    assert events.count('"HouseRulePosted"') == 2
