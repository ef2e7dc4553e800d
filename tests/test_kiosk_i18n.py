"""Issue #20: the kiosk's player screens in English and Spanish (gettext). Every player-facing
string the kiosk translates has a Spanish entry with the same placeholders; the shipped .mo
files are the compiled .po files; staff screens stay in English."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kiosk import i18n
from kiosk.viewmodels import hold_ticket
from kiosk.viewmodels import kiosk as vm_kiosk

ROOT = Path(__file__).resolve().parents[1]
PLAYER_MODULES = [
    "kiosk/viewmodels/kiosk.py",
    "kiosk/ui/screens/kiosk_idle.py",
    "kiosk/ui/screens/kiosk_games.py",
    "kiosk/ui/screens/kiosk_pay.py",
    "kiosk/ui/screens/kiosk_more.py",
    "kiosk/ui/screens/seal.py",  # the kiosk's seal screen is the booth's, for a player
    "kiosk/viewmodels/hold_ticket.py",
    "kiosk/viewmodels/booth.py",  # the seal sheet's lines, shown on the kiosk's seal screen
]
CONSTANTS = {
    name: getattr(vm_kiosk, name)
    for name in ("VOUCHER_PROMPT", "VOUCHER_READY", "CHECK_AGAIN", "DO_NOT_PAY")
} | {"SCAN_IT": hold_ticket.SCAN_IT}


def translated_strings() -> set[str]:
    found: set[str] = set()
    for module in PLAYER_MODULES:
        tree = ast.parse((ROOT / module).read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name == "_" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id in CONSTANTS:
                    found.add(CONSTANTS[arg.id])
            if name == "translated" and len(node.args) > 1:
                label = node.args[1]
                if isinstance(label, ast.Constant):
                    found.add(label.value)
    found |= {"Pay with voucher", "Rent a device", "Sign a seal line"}  # labels in a loop
    return found


def catalog() -> dict[str, str]:
    return i18n.parse_po((i18n.LOCALE_DIR / "es/LC_MESSAGES/booth.po").read_text("utf-8"))


def test_every_player_string_has_spanish_with_the_same_placeholders() -> None:
    spanish = catalog()
    strings = translated_strings()
    assert len(strings) > 60
    missing = sorted(s for s in strings if not spanish.get(s))
    assert missing == []
    for english in strings:
        assert set(re.findall(r"\{\w+\}", english)) == set(
            re.findall(r"\{\w+\}", spanish[english])
        ), english


def test_the_shipped_catalog_is_the_compiled_po() -> None:
    mo = i18n.LOCALE_DIR / "es/LC_MESSAGES/booth.mo"
    assert mo.read_bytes() == i18n.compile_mo(catalog()), "run: python -m kiosk.i18n"


@pytest.fixture
def spanish() -> object:
    i18n.set_language("es")
    yield
    i18n.set_language(i18n.DEFAULT)


def test_gettext_reads_the_catalog(spanish: object) -> None:
    assert i18n._("Buy {qty} · {amount}").format(qty=2, amount="$2.00") == "Comprar 2 · $2.00"
    assert vm_kiosk.buy_label(2, 100) == "Comprar 2 · $2.00"
    assert i18n._("a sentence no catalog has") == "a sentence no catalog has"
    assert i18n.other_language() == "en"


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="'fr' is not one of en, es"):
        i18n.set_language("fr")
