"""The manager's exceptions by touches: each row says what happened in plain words and what
Accept and Reject mean for it, has its own note, and a decision (for every station) takes a
second tap on the same button."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen

ROOT = Path(__file__).resolve().parents[2]


def _decisions(ui: Driver) -> list[tuple[str, str, str, str]]:
    return list(
        ui.runtime.worker_call(
            lambda st: st.ledger.conn.execute(
                "SELECT kind, decision, note, resolved_by FROM p_flags WHERE decision IS NOT NULL"
                " ORDER BY kind"
            ).fetchall()
        )
    )


def test_rows_say_what_happened_each_with_its_note_and_two_taps(
    demo_hall: Path, open_front: Any
) -> None:
    ui: Driver = open_front(demo_hall / "manager")
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-exceptions")
    shown = ui.text()
    # a second try at a paid ticket was refused: nothing was paid twice
    assert "Second try refused: ticket already paid · A100001/0007" in shown
    assert "Paid twice" not in shown
    assert "Accept: The refusal was right: the ticket was paid once" in shown
    assert "Reject: The first payment is in doubt" in shown
    assert "Accept: Cleared and the player was looked after." in shown  # the kiosk's jam
    assert not re.search(r"\b(booth|kiosk|manager)-1?:\d+", shown)  # no ORIGIN:SEQ
    notes = [i for i in ui.idents() if i.startswith("note-")]
    assert len(notes) == 2  # one note field per row
    ui.shot("manager-exceptions-words")
    paid, jam = (next(i for i in notes if i.startswith(f"note-{s}")) for s in ("booth", "kiosk"))
    ui.type(paid, "same player scanned twice; paid once")
    ui.type(jam, "column cleared, player credited")
    assert ui.find(paid).text == "same player scanned twice; paid once"
    accept = paid.replace("note-", "accept-")
    ui.tap(accept)  # the first tap asks: nothing recorded yet
    assert ui.find(accept).text == "Accept for every station? Tap again to confirm"
    assert ui.find("exception-headline").text == "Accept for every station?"
    assert "2 exceptions to decide" in ui.text()
    assert _decisions(ui) == []
    ui.shot("manager-exceptions-confirm", both=False)
    ui.tap(jam.replace("note-", "reject-"))  # another button: it asks for that one instead
    assert ui.find(accept).text == "Accept"
    assert _decisions(ui) == []
    ui.tap(accept)  # asks again
    ui.tap(accept)  # the second tap decides
    assert ui.find("exception-headline").text == "ACCEPTED"
    detail = ui.find("exception-detail").text
    assert "Second try refused: ticket already paid" in detail
    assert "same player scanned twice; paid once" in detail
    assert "1 exception to decide" in ui.text()
    assert ui.find(jam).text == "column cleared, player credited"  # its own note kept
    ui.shot("manager-exceptions-decided", both=False)
    reject = jam.replace("note-", "reject-")
    ui.tap(reject)
    ui.tap(reject)
    assert ui.find("exception-headline").text == "REJECTED"
    assert _decisions(ui) == [
        ("dispenser-jam", "rejected", "column cleared, player credited", "M100"),
        ("double-payment", "accepted", "same player scanned twice; paid once", "M100"),
    ]


def _raised_kinds() -> set[str]:
    """Every exception kind the services can raise: the flags they record and the kinds the
    exceptions list yields itself."""
    services = ROOT / "pos" / "services"
    found: set[str] = set()
    flag = re.compile(
        r'(?:"flag":\s*|_call_staff\(\s*st,\s*|_flag\(st,\s*|_refuse_flagged\(\s*st,\s*\w+,\s*)'
        r'"([a-z-]+)"'
    )
    for path in services.glob("*.py"):
        found |= set(flag.findall(path.read_text()))
    checks = (ROOT / "pos" / "domain" / "checks" / "winners.py").read_text()
    found |= set(re.findall(r'Flag\(\s*"([a-z-]+)"', checks))
    listed = (services / "exceptions.py").read_text()
    found |= set(re.findall(r'_item\([^)]*?\b(?:seq|first_seq|seq),\s*"([a-z-]+)"', listed))
    found |= {f"refused-{name}" for name in re.findall(r'"(bad-[a-z]+)"', listed)}
    deposits = (services / "books_deposits.py").read_text()
    found |= set(re.findall(r'"(deposit-[a-z-]+)"', deposits))
    found |= {"deposit-late", "deposit-short", "deposit-late-short"}  # "deposit-" + late/short
    return found


def test_every_kind_the_ledger_raises_has_its_words() -> None:
    from pos.domain.exception_words import kind_of, kind_words, known

    kinds = _raised_kinds()
    assert {"double-payment", "dispenser-jam", "paid-twice", "fork", "near-match"} <= kinds
    missing = sorted(k for k in kinds if not known(k))
    assert missing == []
    for kind in kinds:
        words = kind_words(kind)
        assert words.title and words.accept_means and words.reject_means
        assert words.accept_means != words.reject_means
    assert kind_words(kind_of("double-payment", None)).title.startswith("Voucher used twice")
