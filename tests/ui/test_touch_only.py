"""Touch only (issue 20), by touches: the on-screen keyboard wherever a staff station needs
text; choices instead of text (void reasons, the witness by scan); flares and rosters from a
USB stick in two taps. The stick's mounts are found from /proc/mounts and /sys/block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kiosk import usb
from tests.ui.driver import Driver
from tests.ui.test_booth import log_in

pytestmark = pytest.mark.slow  # Kivy renders every screen

FLARE = {
    "serial": "U100001", "game": "pull-tab", "name": "Stick Luck", "form": "SL-1",
    "manufacturer": "Arrow", "tickets": 500, "price": "1.00",
    "prizes": [{"amount": "50.00", "count": 2}, {"amount": "2.00", "count": 50}],
    "supplier": {"name": "Bingo Supply Co", "address": "1 Main St"}, "invoice": "INV-U1",
}  # fmt: skip
ROSTER = (
    "Name,Date of Birth,Badge,Organization,Date,Start Time,End Time,Duty\n"
    "Uma Usher,3/3/1980,U1,Riverside VFC,11/28/2026,5:30 PM,11 PM,Sell\n"
)


def test_removable_mounts_are_found_from_proc_and_sys(tmp_path: Path) -> None:
    sys_block = tmp_path / "sys" / "block"
    for disk, removable in (("sda", "0"), ("sdb", "1"), ("mmcblk0", "0")):
        (sys_block / disk).mkdir(parents=True)
        (sys_block / disk / "removable").write_text(removable + "\n")
    (sys_block / "sdb" / "sdb1").mkdir()
    (sys_block / "sda" / "sda2").mkdir()
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/sda2 / ext4 rw 0 0\n"
        "proc /proc proc rw 0 0\n"
        "/dev/sdb1 /media/ann/BINGO\\040STICK vfat rw 0 0\n"
    )
    assert usb.removable_roots(mounts, sys_block) == [Path("/media/ann/BINGO STICK")]
    stick = tmp_path / "stick"
    (stick / "flares" / "deep" / "deeper").mkdir(parents=True)
    (stick / "lucky.json").write_text("{}")
    (stick / "flares" / "cherry.toml").write_text("")
    (stick / "flares" / "deep" / "deeper" / "lost.json").write_text("{}")
    (stick / "roster.csv").write_text("")
    (stick / ".hidden.json").write_text("{}")
    assert {f.name for f in usb.find("flare", [stick])} == {"lucky.json", "cherry.toml"}
    assert [f.name for f in usb.find("roster", [stick])] == ["roster.csv"]


def _stick(tmp_path: Path) -> Path:
    stick = tmp_path / "BINGO"
    stick.mkdir()
    (stick / "stick-luck.json").write_text(json.dumps(FLARE))
    (stick / "november.csv").write_text(ROSTER)
    return stick


def _manager(demo_hall: Path, open_front: Any, stick: Path) -> Driver:
    ui: Driver = open_front(demo_hall / "manager")
    ui.front.media_roots = lambda: [stick]
    ui.scan("M100")
    return ui


def test_a_flare_and_a_roster_from_a_usb_stick_in_two_taps(
    demo_hall: Path, open_front: Any, tmp_path: Path
) -> None:
    ui = _manager(demo_hall, open_front, _stick(tmp_path))
    ui.tap("tab-deals")
    assert ui.find("usb-flare-0").text == "stick-luck.json"
    ui.shot("manager-deals-usb")
    ui.tap("usb-flare-0")  # one
    ui.tap("receive")  # two
    assert ui.find("deal-headline").text == "RECEIVED U100001"
    ui.tap("tab-roster")
    assert ui.find("usb-roster-0").text == "november.csv"
    ui.tap("usb-roster-0")
    ui.tap("import")
    assert ui.find("roster-headline").text == "ROSTER IMPORTED"
    ui.shot("manager-roster-usb")


def test_no_stick_says_so_and_looks_again(demo_hall: Path, open_front: Any, tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    ui = _manager(demo_hall, open_front, empty)
    ui.tap("tab-deals")
    assert "No flare on a USB stick" in ui.find("usb-flare-none").text
    (empty / "late.json").write_text(json.dumps(FLARE))  # plugged in now
    ui.tap("usb-flare-again")
    assert ui.find("usb-flare-0").text == "late.json"


def test_the_on_screen_keyboard_types_where_a_field_is_touched(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "manager")
    ui.scan("M100")
    ui.tap("tab-session")
    assert "osk" not in ui.idents()
    ui.tap("session-reason")  # a finger on the field
    assert "osk" in ui.idents()
    for key in ("L", "A", "T", "E"):
        ui.tap(f"osk-{key}")
    ui.tap("osk-space")
    ui.tap("osk-case")
    for key in ("b", "u", "s"):
        ui.tap(f"osk-{key.upper()}")
    ui.tap("osk-del")
    assert ui.find("session-reason").text == "LATE bu"
    assert ui.find("osk-preview").text == "Why close without them: LATE bu_"
    ui.shot("manager-keyboard")
    ui.tap("osk-done")
    assert "osk" not in ui.idents()


def test_void_reasons_are_choices_and_the_witness_is_scanned(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("tab-void")
    assert "void-reason" not in ui.idents()  # no typing the reason
    ui.type("void-receipt", "1")
    ui.tap("void-why-wrong-quantity")
    ui.tap("void-sale")
    assert "is not a manager" in ui.find("void-detail").text
    ui.shot("booth-void-choices")
    ui.tap("tab-devices")
    ui.scan("C-1001")  # no exchange under way: the renter
    assert ui.find("rent-buyer").text == "C-1001"
    ui.tap("rent-Starter")
    ui.type("device", "D-01")
    ui.scan("C-1002")  # an exchange under way: the witness
    assert ui.find("witness").text == "C-1002"
