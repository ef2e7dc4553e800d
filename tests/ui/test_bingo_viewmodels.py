"""The bingo screens' view-models without Kivy (issue #18): what the booth lists and sells, how a
prize asks for W-2G data, and which fields each kind of program game offers for editing."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

from kiosk.viewmodels import bingo
from kiosk.viewmodels.common import ERROR, Outcome, Refusal
from pos.clock import FixedClock
from pos.services import bingo_program, roster
from pos.services.station import Station
from tests.ui.conftest import NOW
from tests.ui.test_bingo_screens import bingo_night


def test_sale_items_say_what_they_are() -> None:
    pack = bingo.SaleItemVM("pack", "Door", "$20.00", "6-on · 200 packs here")
    assert pack.ident == "pack-Door"
    assert pack.text == "Pack Door · $20.00\n6-on · 200 packs here"
    assert bingo.SaleItemVM("paper", "R6", "", "3 sheets here").text.startswith("Paper R6\n")
    assert bingo.PrizeGameVM(4, "Lucky 7", "progressive", "500.00").text == "4. Lucky 7 · $500.00"
    assert bingo.PrizeGameVM(3, "Decision", "decision", "").text == "3. Decision"


def test_only_a_w2g_refusal_asks_for_the_winners_data() -> None:
    w2g = Outcome(False, "DO NOT PAY", "x", ERROR, Refusal("DO NOT PAY", "x", "W2G"))
    limit = Outcome(False, "DO NOT PAY", "x", ERROR, Refusal("DO NOT PAY", "x", "LIMIT"))
    assert bingo.needs_identity(w2g) and not bingo.needs_identity(limit)
    assert not bingo.needs_identity(Outcome(True, "PAY $5.00"))
    assert not bingo.Identity().given and bingo.Identity(tin=" 1 ").given


def test_the_booth_and_program_view_models(demo_hall: Path) -> None:
    bingo_night(demo_hall)
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        booth = bingo.booth_screen(st)
        assert booth.program == "Saturday Night v1" and booth.session_open
        assert [i.ident for i in booth.items] == ["pack-Door", "paper-PROG", "raffle-QUILT26"]
        payable = [(g.number, g.kind, g.prize) for g in booth.games]
        assert payable == [
            (1, "regular", "100.00"),
            (2, "special", "150.00"),
            (3, "decision", ""),
            (4, "progressive", "500.00"),
        ]  # the raffle drawing pays no bingo prize
        program = bingo.program_screen(st)
        fields = {g.number: [(k, v) for k, _, v in g.fields] for g in program.games}
        assert fields == {
            1: [("prize", "100.00")],
            2: [("prize", "150.00")],
            3: [("entry", "1.00"), ("fee", "0.25")],
            4: [("price", "1.00"), ("prize", "500.00")],
            5: [],
        }
        unchanged = bingo.edit_game(st, "Saturday Night", 1, {"prize": "100.00"},
                                    {"prize": "100.00"}, "M100")  # fmt: skip
        assert unchanged.headline == "Nothing changed"
        changed = bingo.edit_game(st, "Saturday Night", 3, {"entry": "1.00", "fee": "0.50"},
                                  {"entry": "1.00", "fee": "0.25"}, "M100")  # fmt: skip
        assert changed.ok and changed.detail == "Game 3: fee 0.50"
        game = bingo_program.program_in_effect(st)
        assert game is not None and game[1] == 2 and game[0].games[2].fee == 50
        first = bingo_program.program_history(st, "Saturday Night")[0]
        assert (first.version, first.games[2].fee) == (1, "0.25")  # kept as it was


def test_the_session_games_and_what_each_records(demo_hall: Path) -> None:
    bingo_night(demo_hall, chest=True)
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        vm = bingo.games_screen(st)
        assert vm.program == "Saturday Night v1"
        shown = [(g.number, g.kind, [a.name for a in g.actions]) for g in vm.games]
        assert shown == [
            (3, "decision", ["enter", "fees", "announce"]),
            (4, "progressive", ["won", "not-won"]),
            (6, "treasure-chest", ["sell", "participant", "opened", "keys"]),
        ]
        decision = vm.games[0]
        missing = bingo.game_action(st, decision, "enter", {"count": " "}, "S200")
        assert not missing.ok and "enter faces or cards first" in missing.detail
        assert bingo.game_action(st, decision, "enter", {"count": "40"}, "S200").ok
        announced = bingo.game_action(st, decision, "announce", {}, "S200")
        assert announced.shout == "$40.00" and "the prize is $40.00" in announced.detail


def test_a_player_card_typed_at_a_session_game_is_checked_for_rule_d(demo_hall: Path) -> None:
    """The Games tab's player card goes with decision and chest entries: a volunteer on
    tonight's bingo floor is refused there as at the paper table (rule D)."""
    bingo_night(demo_hall, chest=True)
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        tonight = st.clock.now().astimezone(ZoneInfo(st.hall.time_zone)).date().isoformat()
        roster.add_shift(
            st,
            {
                "name": "Sam Seller",
                "date_of_birth": "1985-09-14",
                "badge": "S200",
                "organisation": st.hall.organisation,
                "date": tonight,
                "start": "23:00",
                "end": "23:45",
                "duty": "bingo",
            },
            operator="M100",
        )
        decision, _progressive, chest = bingo.games_screen(st).games
        entry = {"count": "4", "player": "S200"}
        refused = bingo.game_action(st, decision, "enter", entry, "M100")
        assert not refused.ok and refused.refusal is not None
        assert refused.refusal.rule == "D", refused
        chest_refused = bingo.game_action(st, chest, "sell", entry, "M100").refusal
        assert chest_refused is not None and chest_refused.rule == "D"
        decision_now, _progressive, chest_now = bingo.games_screen(st).games
        assert "0 faces, 0 fee rounds · paid in $0.00" in decision_now.status, "nothing entered"
        assert chest_now.status.startswith("0 entries"), chest_now.status
        assert bingo.game_action(st, decision, "enter", {"count": "4"}, "M100").ok
