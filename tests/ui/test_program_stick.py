"""The Program tab offers the bingo program files found on the USB stick by touch (no typed
path); the Deals tab offers only deals' flares. Both are JSON or TOML: they are told apart by
what is in them, not by their names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ui.driver import Driver
from tests.ui.test_bingo_screens import PROGRAM
from tests.ui.test_touch_only import FLARE

PROGRAM_TOML = """name = "Sunday Matinee"
[[games]]
kind = "regular"
name = "Warm Up"
pattern = "any line"
paper = "6-on"
prize = "50.00"
"""


def _stick(tmp_path: Path) -> Path:
    stick = tmp_path / "BINGO"
    (stick / "deals").mkdir(parents=True)
    (stick / "saturday.json").write_text(json.dumps({**PROGRAM, "products": []}))
    (stick / "matinee.toml").write_text(PROGRAM_TOML)
    # names that say the opposite of what the files hold
    (stick / "deals" / "deal-november.json").write_text(json.dumps({**PROGRAM, "products": []}))
    (stick / "program.json").write_text(json.dumps(FLARE))
    (stick / "notes.json").write_text(json.dumps({"hello": "world"}))
    (stick / "broken.json").write_text("{not json")
    return stick


def _manager(demo_hall: Path, open_front: Any, stick: Path) -> Driver:
    ui: Driver = open_front(demo_hall / "manager")
    ui.front.media_roots = lambda: [stick]
    ui.scan("M100")
    return ui


def _offered(ui: Driver, kind: str) -> set[str]:
    return {
        ui.find(ident).text
        for ident in ui.idents()
        if ident.startswith(f"usb-{kind}-") and ident[-1].isdigit()
    }


def test_files_on_a_stick_are_told_apart_by_content(tmp_path: Path) -> None:
    from kiosk import stick_files  # here: the screens' tests below run without it

    stick = _stick(tmp_path)
    programs = {f.name for f in stick_files.find(stick_files.PROGRAM, [stick])}
    flares = {f.name for f in stick_files.find(stick_files.FLARE, [stick])}
    assert programs == {"saturday.json", "matinee.toml", "deal-november.json"}
    assert flares == {"program.json"}


@pytest.mark.slow  # Kivy renders the screen
def test_the_program_tab_loads_a_program_from_the_stick_by_touch(
    demo_hall: Path, open_front: Any, tmp_path: Path
) -> None:
    stick = _stick(tmp_path)
    (stick / "matinee.toml").unlink()  # three buttons at most: the two programs left, by touch
    ui = _manager(demo_hall, open_front, stick)
    ui.tap("tab-program")
    assert "program-path" not in ui.idents()  # no path to type
    assert _offered(ui, "program") == {"saturday.json", "deal-november.json"}
    ui.tap("program-load")  # nothing tapped yet: says what to do
    assert ui.find("program-headline").text == "Tap a program file first"
    ui.shot("manager-program-stick")
    programs = [i for i in ui.idents() if i.startswith("usb-program-") and i[-1].isdigit()]
    saturday = next(i for i in programs if ui.find(i).text == "saturday.json")
    ui.tap(saturday)
    assert ui.find("program-chosen").text == "Load saturday.json?"
    ui.tap("program-load")
    assert ui.find("program-headline").text == "PROGRAM Saturday Night v1"
    assert ui.find("program-heading").text.startswith("Saturday Night · version 1 by M100")
    ui.shot("manager-program-loaded", both=False)


@pytest.mark.slow  # Kivy renders the screen
def test_the_deals_tab_never_offers_a_program_file(
    demo_hall: Path, open_front: Any, tmp_path: Path
) -> None:
    ui = _manager(demo_hall, open_front, _stick(tmp_path))
    ui.tap("tab-deals")
    assert _offered(ui, "flare") == {"program.json"}  # a flare, whatever its name
    ui.tap("usb-flare-0")
    ui.tap("receive")
    assert ui.find("deal-headline").text == "RECEIVED U100001"
