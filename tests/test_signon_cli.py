"""`booth staff pin`, the sign-on house settings, and what a volunteer types on the first
evening, through the CLI (issue 20)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pos.domain import pins
from pos.services import signon
from pos.services.station import Station
from tests.halls import Hall


def _pin(hall: Hall, monkeypatch: pytest.MonkeyPatch, badge: str, pin: str, **env: str) -> object:
    monkeypatch.setattr("sys.stdin", io.StringIO(pin + "\n"))
    return hall("staff", "pin", badge, "--pin-stdin", "--json", **env)


def test_a_pin_is_kept_only_as_a_slow_hash(
    hall: Hall, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = _pin(hall, monkeypatch, "s1", "4826")  # the badge in any case
    assert result.exit_code == 0, result.stderr
    assert result.json["badge"] == "S1" and "4826" not in result.stdout
    with Station(hall.directory) as st:
        [event] = [e for e in st.ledger.events() if e.kind == "StaffPinSet"]
        stored = signon_hash = event.body["hash"]
        assert "4826" not in json.dumps(event.body)
        assert stored.startswith("scrypt$16384$8$1$") and pins.verify_pin("4826", signon_hash)
        assert signon.sign_on(st, "S1", "4826", "seller").person is not None
    listed = hall("staff", "list", "--json")
    assert "scrypt" not in listed.stdout
    export = hall("export", "--inspector", str(tmp_path / "inspection"))
    assert export.exit_code == 0, export.stderr
    with (tmp_path / "inspection" / "tables" / "staff_pins.csv").open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["badge", "by", "hlc"] and rows[1][0] == "S1"
    for table in (tmp_path / "inspection" / "tables").iterdir():
        assert "scrypt$" not in table.read_text(), table.name


def test_who_may_set_a_pin_and_what_a_pin_is(hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    own = _pin(hall, monkeypatch, "S1", "2580", BOOTH_OPERATOR="S1")
    assert own.exit_code == 0, own.stderr
    other = _pin(hall, monkeypatch, "M1", "2580", BOOTH_OPERATOR="S1")
    assert other.exit_code == 1 and "may set only their own PIN" in other.stderr
    for bad in ("12", "12ab", "1111"):
        short = _pin(hall, monkeypatch, "S1", bad)
        assert short.exit_code == 2 and "like 4826" in short.stderr, short.stderr


def test_sign_on_house_settings(hall: Hall) -> None:
    assert hall("house", "set", "sign-on", "badge-and-pin").exit_code == 0
    assert hall("house", "set", "lock-minutes", "5").exit_code == 0
    shown = hall("house", "show", "--json").json
    assert shown["sign-on"] == "badge-and-pin" and shown["lock-minutes"] == "5"
    refused = hall("house", "set", "lock-minutes", "soon")
    assert refused.exit_code == 2 and "like 5" in refused.stderr
    refused = hall("house", "set", "sign-on", "retina")
    assert refused.exit_code == 2 and "badge or badge-and-pin" in refused.stderr


def test_a_volunteer_types_as_people_write(hall: Hall) -> None:
    added = hall(
        "staff", "add", "--name", "Dee Volunteer", "--badge", "V1", "--role", "Seller",
        "--dob", "5/5/1990", "--json",
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    assert added.json["roles"] == ["seller"]
    lower = hall("house", "set", "commingling", "on", "--as", "m1")  # a badge in any case
    assert lower.exit_code == 0, lower.stderr


def test_a_fixed_offset_zone_is_refused_naming_the_zone(tmp_path: Path) -> None:
    from tests.conftest import run_booth

    for zone, named in (("EST", "America/New_York"), ("HST", "Pacific/Honolulu")):
        result = run_booth(
            "--hall", str(tmp_path / zone), "init", "--org", "O", "--location", "L",
            "--time-zone", zone,
        )  # fmt: skip
        assert result.exit_code == 2 and named in result.stderr
        assert not (tmp_path / zone / "station.json").exists()


def test_deal_options_take_amounts_as_typed(hall: Hall) -> None:
    received = hall(
        "deal", "receive", "--serial", "T9", "--game", "pull-tab", "--name", "Typed Luck",
        "--form", "TL-1", "--manufacturer", "Arrow", "--tickets", "1000", "--price", "$1.00",
        "--prize", "$1,000.00x1", "--prize", "$5x20", "--supplier-name", "Bingo Supply Co",
        "--supplier-address", "1 Main St", "--invoice", "INV-T9", "--json",
    )  # fmt: skip
    assert received.exit_code == 0, received.stderr
    assert received.json["price"] == "1.00"
    bad = hall(
        "deal", "receive", "--serial", "T8", "--game", "pull-tab", "--name", "Bad",
        "--form", "B-1", "--manufacturer", "Arrow", "--tickets", "10", "--price", "$1,00",
        "--prize", "5x1", "--supplier-name", "S", "--supplier-address", "A", "--invoice", "I",
    )  # fmt: skip
    assert bad.exit_code == 2 and "1,234.50" in bad.stderr
    assert hall("session", "open").exit_code == 0
    counted = hall("drawer", "count", "$412.50", "--station", "manager", "--json")
    assert counted.exit_code == 0, counted.stderr
    assert counted.json["counted"] == "412.50"
