"""Issue #28, "What an inspector still finds", for the games of a bingo session: each finding
shown through the `booth` command, its figures worked out here by hand from the rule it cites.

- The games paid above the regular limit are counted per session, across program versions
  (Code of Virginia § 18.2-340.33 (9) b).
- Decision bingo fees are paid for the cards in play, never more than the faces entered
  (11VAC15-40-60 G 2, G 3).
- An event game decided by its seal card opens its seal (K 4), within its session (K 5).

The paper's reconciliation, the session's expected cash and rule D from the record have their
own files (tests/test_inspector_paper.py, _cash.py, _rule_d.py).
"""

from __future__ import annotations

import json
from typing import Any

from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, flare, refused, seal_flare
from tests.test_bingo_session import ok

S = ("--as", "S1")


def kinds(hall: Hall) -> list[str]:
    """The type of every event on the hall's ledger, oldest first."""
    with Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as station:
        return [row[0] for row in station.ledger.conn.execute("SELECT type FROM events")]


def _program(hall: Hall, data: dict[str, Any]) -> None:
    path = hall.tmp / f"program-{len(list(hall.tmp.iterdir()))}.json"
    path.write_text(json.dumps(data))
    ok(hall("program", "create", "--file", str(path), "--json"))


# --- the games above the regular limit, per session -------------------------------------------


SMALL = {
    "name": "Small",
    "house_rules": "Players must be present to win.",
    "games": [
        {"kind": "special", "name": "Raised", "pattern": "letter X", "prize": "150.00"},
        {"kind": "regular", "name": "Plain", "pattern": "any line", "prize": "100.00"},
        {"kind": "decision", "name": "Decision", "pattern": "any line", "entry": "1.00",
         "fee": "0.25"},
    ],
}  # fmt: skip


def test_the_games_above_the_regular_limit_are_counted_across_program_versions(
    hall: Hall,
) -> None:
    """§ 18.2-340.33 (9) b: a regular or special prize is at most $100, except on at most
    `special_prize_games` games a session (here set to 1) at up to $200. Game 1 pays $150 under
    version 1; version 3 moves the raised prize to game 2: paying it $150 would make two games
    of the session above $100, one more than the law allows (LIMIT). $100 is still paid."""
    ok(hall("rules", "set", "special_prize_games", "1"))
    _program(hall, SMALL)
    ok(hall("session", "open"))
    ok(hall("bingo", "pay", "--game", "1", "--amount", "150.00", *S))
    ok(hall("program", "edit", "Small", "--game", "1", "--set", "prize=100.00"))
    ok(hall("program", "edit", "Small", "--game", "2", "--set", "prize=150.00"))
    before = kinds(hall)
    result = hall("bingo", "pay", "--game", "2", "--amount", "150.00", *S)
    refused(result, "LIMIT")
    assert "150.00" in result.stderr and "game 1" in result.stderr, result.stderr
    assert kinds(hall) == before
    ok(hall("bingo", "pay", "--game", "2", "--amount", "100.00", *S))


# --- decision bingo fees: cards in play -------------------------------------------------------


def test_decision_fees_are_for_the_cards_that_entered(hall: Hall) -> None:
    """G 2: players enter paying for each card face in play; G 3: the fee for each set of three
    numbers is paid for each card in play. 10 faces entered: a round for 11 cards is refused
    (rule G3, nothing recorded); a round for 10 is $0.25 x 10 = $2.50."""
    _program(hall, SMALL)
    ok(hall("session", "open"))
    ok(hall("bingo", "decision", "enter", "--game", "3", "--faces", "10", *S))
    before = kinds(hall)
    result = hall("bingo", "decision", "fees", "--game", "3", "--cards", "11", *S)
    refused(result, "G3")
    assert "11" in result.stderr and "10" in result.stderr, result.stderr
    assert kinds(hall) == before
    shown = ok(hall("bingo", "decision", "fees", "--game", "3", "--cards", "10", *S, "--json"))
    assert shown["fees"] == "2.50"


def test_no_decision_fees_before_any_card_entered(hall: Hall) -> None:
    _program(hall, SMALL)
    ok(hall("session", "open"))
    refused(hall("bingo", "decision", "fees", "--game", "3", "--cards", "1", *S), "G3")


# --- the seal of an event game ------------------------------------------------------------------


def test_the_seal_of_an_event_game_opens_and_its_line_is_paid(hall: Hall) -> None:
    """K 4: an event game may be decided by a seal card, with no sign-up sheet; its seal opens
    once the deal is sold out (as a seal card's) and names the winning number, whose prize
    ($250.00, the flare's seal prize) is paid once."""
    event = seal_flare("EV1", game="event", tickets=20, sheet_and_seal_present=False)
    ok(hall.receive(event))
    ok(hall("deal", "open", "EV1", "--bin", "drawer-3"))
    ok(hall("session", "open"))
    refused(hall("seal", "open", "EV1", "--line", "7"), "C5")  # not sold out
    ok(hall("sell", "EV1", "--qty", "20"))
    opened = hall("seal", "open", "EV1", "--line", "7", "--json")
    assert opened.exit_code == 0, opened.stderr
    assert opened.json["lines"][6]["winner"] is True
    paid = ok(hall("seal", "claim", "EV1", "--line", "7", *S, "--json"))
    assert paid["pay"] == "250.00"


def test_an_event_games_seal_is_opened_within_its_session(hall: Hall) -> None:
    """K 5: the winners of an event game are decided in the session its tickets are sold; the
    game ends with the session, and its seal is not opened afterwards (rule K5)."""
    event = seal_flare("EV2", game="event", tickets=20, sheet_and_seal_present=False)
    ok(hall.receive(event))
    ok(hall("deal", "open", "EV2", "--bin", "drawer-3"))
    ok(hall("session", "open"))
    ok(hall("sell", "EV2", "--qty", "10"))
    ok(hall("session", "close"))
    ok(hall("session", "open"))
    before = kinds(hall)
    refused(hall("seal", "open", "EV2", "--line", "7"), "K5")
    assert kinds(hall) == before


def test_a_deal_without_a_seal_has_none_to_open(hall: Hall) -> None:
    ok(hall.receive(flare("E9", game="event")))
    ok(hall("deal", "open", "E9", "--bin", "drawer-3"))
    ok(hall("session", "open"))
    result = hall("seal", "open", "E9", "--line", "1")
    assert result.exit_code == 2 and "E9" in result.stderr, result.stderr
