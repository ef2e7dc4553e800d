"""K4: an event game decided by a seal card needs no sign-up sheet (C5 asks one of every seal
card deal)."""

from __future__ import annotations

import pytest

from pos.domain import rulebook
from pos.domain.flare import parse_flare
from tests.halls import Hall, refused, seal_flare


def _event_with_seal(serial: str = "EV1") -> dict[str, object]:
    return seal_flare(serial, game="event", sheet_and_seal_present=False)


def test_the_rulebook_asks_no_sheet_of_an_event_game_decided_by_a_seal() -> None:
    event = parse_flare(_event_with_seal())
    assert event.seal is not None and not rulebook.sign_up_sheet_required(event)
    assert rulebook.check_intake(event, rulebook.Settings(), known_serials=frozenset()).allowed
    seal_card = parse_flare(seal_flare(sheet_and_seal_present=False))
    assert rulebook.sign_up_sheet_required(seal_card)
    decision = rulebook.check_intake(seal_card, rulebook.Settings(), known_serials=frozenset())
    assert decision.rule == "C5"
    assert "K 4" in rulebook.RULES["K4"].citation


@pytest.mark.rule("K4")
def test_an_event_game_decided_by_a_seal_is_taken_in_without_a_sheet(hall: Hall) -> None:
    received = hall.receive(_event_with_seal())
    assert received.exit_code == 0, received.stderr
    refused(hall.receive(seal_flare("S9", sheet_and_seal_present=False)), "C5")


def test_no_line_is_signed_for_it(hall: Hall) -> None:
    assert hall.receive(_event_with_seal()).exit_code == 0
    assert hall("deal", "open", "EV1", "--bin", "drawer-3").exit_code == 0
    assert hall("session", "open").exit_code == 0
    before = hall.count()
    refused(hall("seal", "sign", "EV1", "--ticket", "013", "--line", "1", "--as", "S1"), "K4")
    assert hall.count() == before
