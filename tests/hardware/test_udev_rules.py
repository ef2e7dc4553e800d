"""packaging/udev/60-booth-hardware.rules: every rule line well-formed, every device covered."""

from __future__ import annotations

import re
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "packaging" / "udev" / "60-booth-hardware.rules"

TOKEN = re.compile(
    r'^(?P<key>[A-Z]+(?:\{[A-Za-z_]+\})?)(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"$'
)
MATCH_KEYS = {"SUBSYSTEM", "ENV{DEVTYPE}", "KERNEL", "ATTRS{idVendor}", "ATTRS{idProduct}"}
ASSIGN_KEYS = {"MODE", "GROUP"}
HEX4 = re.compile(r"^[0-9a-f]{4}$")

PRINTERS = {"04b8", "0519", "1504", "1d90", ("0416", "5011"), ("0fe6", "811e")}
SCANNERS = {"0c2e", "05e0", "05f9", "1eab"}


def rule_lines() -> list[tuple[int, dict[str, tuple[str, str]]]]:
    rules = []
    for number, line in enumerate(RULES.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        assert not line.endswith("\\"), f"line {number}: keep each rule on one line"
        fields: dict[str, tuple[str, str]] = {}
        for token in line.split(", "):
            found = TOKEN.match(token)
            assert found, f"line {number}: malformed token {token!r}"
            key, op, value = found["key"], found["op"], found["value"]
            assert key not in fields, f"line {number}: {key} twice"
            if key in MATCH_KEYS:
                assert op in ("==", "!="), f"line {number}: {key} needs == (has {op})"
            elif key in ASSIGN_KEYS:
                assert op == "=", f"line {number}: {key} needs = (has {op})"
            else:
                raise AssertionError(f"line {number}: unexpected key {key}")
            fields[key] = (op, value)
        rules.append((number, fields))
    return rules


def test_each_rule_is_well_formed() -> None:
    rules = rule_lines()
    assert len(rules) >= 20
    for number, fields in rules:
        assert HEX4.match(fields["ATTRS{idVendor}"][1]), f"line {number}: idVendor"
        if "ATTRS{idProduct}" in fields:
            assert HEX4.match(fields["ATTRS{idProduct}"][1]), f"line {number}: idProduct"
        assert fields["MODE"] == ("=", "0660"), f"line {number}: MODE"
        assert fields["GROUP"] == ("=", "booth"), f"line {number}: GROUP"
        assert fields["SUBSYSTEM"][1] in {"usb", "usbmisc", "input", "tty"}, f"line {number}"
        if fields["SUBSYSTEM"][1] == "usb":
            assert fields["ENV{DEVTYPE}"] == ("==", "usb_device"), f"line {number}"


def covered(subsystem: str) -> set[str | tuple[str, str]]:
    found: set[str | tuple[str, str]] = set()
    for _, fields in rule_lines():
        if fields["SUBSYSTEM"][1] != subsystem:
            continue
        vendor = fields["ATTRS{idVendor}"][1]
        product = fields.get("ATTRS{idProduct}")
        found.add((vendor, product[1]) if product else vendor)
    return found


def test_printers_and_scanners_are_all_covered() -> None:
    assert covered("usb") >= PRINTERS | SCANNERS  # libusb: python-escpos and pyusb
    assert covered("usbmisc") >= PRINTERS  # /dev/usb/lpN
    assert covered("input") >= SCANNERS  # keyboard-wedge scanners through evdev
    assert covered("tty") >= SCANNERS  # scanners in serial (CDC) mode


def test_the_file_says_how_to_add_a_model() -> None:
    text = RULES.read_text()
    for step in ("lsusb", "udevadm control --reload", "udevadm trigger", "groupadd", "usermod"):
        assert step in text
