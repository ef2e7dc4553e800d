"""The raffle drawing on a touch screen (11VAC15-40-60 F), driven by touches against the demo hall:
the raffle chosen at the booth that holds it; a wrong stub count refused (F1), the right one
counted in before a witness; a voided number drawn refused (F1); each prize's number shown
large; the claims, one with the winning ticket's code, one at the W-2G threshold asking for
the winner's data; a raffle held by another station shown to read only. And the view-model
without Kivy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.viewmodels import raffle as vm
from pos.clock import FixedClock
from pos.services import raffle, receipts
from pos.services.station import Station
from tests.ui.conftest import NOW, _converge
from tests.ui.driver import Driver

QUILT = "Handmade quilt;250.00;appraisal by Riverside Quilters"
CART = "Golf cart;2500.00;dealer's retail price"  # W-2G: at the $2,000 threshold, 300x $5


def raffle_night(hall: Path) -> dict[int, int]:
    """At the manager: raffle HAM26 (held there). At booth-1: raffle QUILT26 drawn tonight,
    a quilt and a golf cart, 5 tickets sold and ticket 3 voided. The receipts by ticket."""
    clock = FixedClock(NOW)
    with Station(hall / "manager", clock=clock) as st:
        ham = raffle.parse_terms(
            "HAM26", name="Easter ham", drawing_date="2026-12-05", price="2.00",
            prizes=["Spiral ham;40.00;store's shelf price"],
        )  # fmt: skip
        raffle.create(st, ham, operator="M100")
    _converge(hall, clock)
    with Station(hall / "booth-1", clock=clock) as st:
        quilt = raffle.parse_terms(
            "QUILT26", name="Quilt raffle", drawing_date="2026-11-28", price="5.00",
            prizes=[QUILT, CART],
        )  # fmt: skip
        raffle.create(st, quilt, operator="M100")
        sold = raffle.sell(st, "QUILT26", qty=5, operator="S200")
        raffle.void_ticket(st, "QUILT26", 3, reason="rung in error", operator="M100")
    return {t.ticket: t.receipt for t in sold.tickets}


def _ticket_code(ui: Driver, receipt: int) -> str:
    """The QR code printed on a ticket's buyer's part, as the winner presents it."""
    code = ui.runtime.worker_call(lambda st: receipts.receipt(st, st.id, receipt).qr)
    assert code, f"receipt {receipt} has no QR code"
    return str(code)


def _keypad(ui: Driver, digits: str) -> None:
    ui.tap("key-C")
    for key in digits:
        ui.tap(f"key-{key}")


@pytest.mark.slow
def test_the_booth_draws_its_raffle_by_touch(demo_hall: Path, open_front: Any) -> None:
    tickets = raffle_night(demo_hall)
    ui = open_front(demo_hall / "booth-1")
    ui.type("login-entry", "M100", enter=True)  # a manager runs the drawing
    ui.tap("tab-bingo")
    ui.tap("open-raffle-drawing")
    assert ui.screen == "raffle-drawing"
    shown = ui.text()
    assert "QUILT26 · Quilt raffle" in shown and "HAM26 · Easter ham" in shown
    assert "5 tickets sold · 1 voided" in shown
    assert "Held by station manager: drawn there, shown here to read" in shown
    assert "1. Handmade quilt $250.00; 2. Golf cart $2,500.00" in shown
    ui.shot("raffle-choose")

    # the raffle held by another station: read only, no keypad, no actions
    ui.tap("raffle-HAM26")
    assert "held by station manager" in ui.find("raffle-note").text
    assert "raffle-pad" not in ui.idents() and "count-stubs" not in ui.idents()
    ui.tap("raffle-all")

    # the raffle chosen: its terms, prizes at fair market value, the stubs to count
    ui.tap("raffle-QUILT26")
    shown = ui.text()
    assert "Drawing 2026-11-28 · $5.00 a ticket" in shown and "5 tickets sold · 1 voided" in shown
    assert "1st prize: Handmade quilt ($250.00)" in shown
    assert "value from appraisal by Riverside Quilters · not drawn yet" in shown
    assert "value from dealer's retail price · W-2G · not drawn yet" in shown
    assert ui.find("step-title").text == "Count the stubs in the receptacle"
    ui.shot("raffle-chosen")

    # a count that does not match the tickets sold less the voided one: refused (F1)
    _keypad(ui, "5")
    ui.tap("witness-S201")
    assert ui.find("count-stubs").text == "Count in: 1 witness"
    ui.shot("raffle-stubs")
    ui.tap("count-stubs")
    assert ui.find("raffle-headline").text == "STUBS DO NOT MATCH"
    detail = ui.find("raffle-detail").text
    assert "5 stubs counted, but 4 tickets were sold and not voided (5 sold, 1 voided)" in detail
    assert "Rule F1: 11VAC15-40-60 F 1" in detail
    ui.shot("raffle-stubs-refused")
    # the right count, the witnesses (one tapped, one scanned by badge)
    _keypad(ui, "4")
    ui.scan("S200")
    assert ui.find("count-stubs").text == "Count in: 2 witnesses"
    ui.tap("count-stubs")
    assert ui.find("raffle-headline").text == "4 STUBS COUNTED IN"
    assert "Robin Redeemer, Sam Seller" in ui.find("raffle-detail").text
    shown = ui.text()
    assert "4 stubs in, witnessed by Robin Redeemer, Sam Seller" in shown

    # the 1st prize: the voided ticket's number is refused (F1), then ticket 2 wins
    assert ui.find("step-title").text == "Draw the 1st prize: Handmade quilt ($250.00)"
    _keypad(ui, "3")
    ui.tap("draw-number")
    assert ui.find("raffle-headline").text == "NOT A WINNER"
    detail = ui.find("raffle-detail").text
    assert detail.startswith("Ticket 000003 was voided, so its stub cannot be in the receptacle")
    assert "Rule F1" in detail
    ui.shot("raffle-draw-refused", both=False)
    _keypad(ui, "9")  # never sold
    ui.tap("draw-number")
    assert "Ticket 000009 was never sold" in ui.find("raffle-detail").text
    _keypad(ui, "2")
    ui.tap("draw-number")
    assert ui.find("raffle-headline").text == "TICKET 000002 WINS"
    assert ui.find("winning-number").text == "000002"
    assert ui.find("winning-prize").text == "wins the 1st prize: Handmade quilt ($250.00)"
    ui.shot("raffle-winner")
    # the 2nd prize drawn before the 1st is claimed
    ui.tap("draw-next")
    _keypad(ui, "4")
    ui.tap("draw-number")
    assert ui.find("winning-number").text == "000004"
    assert "claim-winner" in ui.idents() and "draw-next" not in ui.idents()

    # the quilt claimed with the buyer's part of ticket 2 (its code); ticket 1's is refused
    ui.tap("prize-1")
    assert ui.find("step-title").text == "Claim the 1st prize: Handmade quilt ($250.00)"
    assert "w2g-name" not in ui.idents()
    ui.tap("claim-code")  # a touch station: the on-screen keyboard comes up to type a code
    assert "osk" in ui.idents()
    ui.tap("osk-done")
    assert "osk" not in ui.idents()
    ui.scan(_ticket_code(ui, tickets[1]))
    ui.tap("claim")
    assert ui.find("raffle-headline").text == "NOT CLAIMED"
    assert "The ticket presented is 000001, but 000002 won" in ui.find("raffle-detail").text
    ui.type("claim-code", _ticket_code(ui, tickets[2]))
    ui.shot("raffle-claim")
    ui.tap("claim")
    assert ui.find("raffle-headline").text == "1ST PRIZE CLAIMED"
    assert "hand over the Handmade quilt ($250.00)" in ui.find("raffle-detail").text
    # the golf cart: W-2G, the winner's data asked for before it is handed over
    assert ui.find("step-title").text == "Claim the 2nd prize: Golf cart ($2,500.00)"
    assert "w2g-name" in ui.idents()
    ui.type("claim-code", _ticket_code(ui, tickets[4]))
    ui.tap("claim")
    assert ui.find("raffle-headline").text == "W-2G: WINNER'S DATA"
    assert ui.find("raffle-detail").text.startswith("Rule W2G: 26 CFR 7.6041-1")
    assert "fill in the winner's data below for Form W-2G" in ui.find("claim-hint").text
    ui.type("w2g-name", "Pat Winner")
    ui.type("w2g-address", "1 Elm St, Richmond VA")
    ui.type("w2g-tin", "123-45-6789")
    ui.type("w2g-id", "VA DL T12345678")
    ui.shot("raffle-claim-w2g")
    ui.tap("claim")
    assert ui.find("raffle-headline").text == "2ND PRIZE CLAIMED"
    assert "W-2G data recorded" in ui.find("raffle-detail").text
    assert ui.find("step-title").text == "Drawing done"
    shown = ui.text()
    assert "1st prize: Handmade quilt ($250.00): ticket 000002 won · claimed" in shown
    assert "2nd prize: Golf cart ($2,500.00): ticket 000004 won · claimed" in shown
    shown = ui.runtime.worker_call(lambda st: raffle.show(st, "QUILT26"))
    assert [(p["ticket"], p["claimed"], p["w2g"]) for p in shown["prizes"]] == [
        ("000002", True, False),
        ("000004", True, True),
    ]
    assert (shown["stubs"], shown["witnesses"]) == (4, ["S201", "S200"])
    ui.shot("raffle-done", both=False)


@pytest.mark.slow
def test_the_manager_reaches_the_drawing_from_the_program_tab(
    demo_hall: Path, open_front: Any
) -> None:
    raffle_night(demo_hall)
    _converge(demo_hall, FixedClock(NOW))
    ui = open_front(demo_hall / "manager")
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-program")
    ui.shot("manager-program-raffle-button", both=False)
    ui.tap("open-raffle-drawing")
    assert ui.screen == "raffle-drawing"
    # the manager's own raffle first, booth-1's shown with who holds it
    assert "Held by station booth-1: drawn there, shown here to read" in ui.text()
    ui.tap("raffle-QUILT26")
    assert "raffle-pad" not in ui.idents()
    assert "held by station booth-1" in ui.find("raffle-note").text
    assert "1st prize: Handmade quilt ($250.00): not drawn yet" in ui.text()
    ui.shot("manager-raffle-read-only")
    ui.tap("raffle-all")
    ui.tap("raffle-HAM26")
    assert ui.find("step-title").text == "Count the stubs in the receptacle"
    _keypad(ui, "0")
    ui.tap("witness-S200")
    ui.tap("count-stubs")  # drawn on 2026-12-05, not before (RAFFLE)
    assert ui.find("raffle-headline").text == "NOT COUNTED IN"
    assert "drawn on 2026-12-05, not before" in ui.find("raffle-detail").text
    assert "Rule RAFFLE" in ui.find("raffle-detail").text


def test_the_drawing_view_model(demo_hall: Path) -> None:
    """Without Kivy: the steps a raffle goes through, the refusals in plain words with their
    rule, the W-2G prize known before its claim."""
    tickets = raffle_night(demo_hall)
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        screen = vm.drawing_screen(st, "S200")
        assert not screen.manager and vm.drawing_screen(st, "M100").manager
        assert [r.raffle for r in screen.raffles] == ["QUILT26", "HAM26"]  # held here first
        quilt, ham = screen.raffles
        assert (quilt.step, ham.step) == ("stubs", "elsewhere")
        assert ham.where == "Held by station manager: drawn there, shown here to read"
        assert (quilt.sold, quilt.voided, quilt.price) == (5, 1, "$5.00")
        assert [(p.title, p.reportable) for p in quilt.prizes] == [
            ("1st prize: Handmade quilt ($250.00)", False),
            ("2nd prize: Golf cart ($2,500.00)", True),
        ]
        assert "W-2G" not in quilt.prizes[0].text and "· W-2G ·" in quilt.prizes[1].text
        assert [w.badge for w in screen.staff][:2] == ["M100", "I300"]  # by name

        no_witness = vm.count_stubs(st, "QUILT26", "4", [], "M100")
        assert not no_witness.ok and "choose at least one witness" in no_witness.detail
        seller = vm.count_stubs(st, "QUILT26", "4", ["S201"], "S200")
        assert not seller.ok and seller.headline == "NOT COUNTED IN"  # a manager counts
        wrong = vm.count_stubs(st, "QUILT26", "5", ["S201"], "M100")
        assert wrong.headline == "STUBS DO NOT MATCH" and wrong.refusal is not None
        assert wrong.refusal.rule == "F1" and wrong.refusal.cited.startswith("Rule F1: 11VAC")
        assert wrong.detail.startswith("5 stubs counted, but 4 tickets were sold")
        assert vm.count_stubs(st, "QUILT26", "4", ["S201"], "M100").ok
        assert vm.drawing_screen(st).raffles[0].step == "draw"

        empty = vm.draw(st, "QUILT26", 1, " ", "M100")
        assert not empty.ok and "type the number drawn" in empty.detail.lower()
        voided = vm.draw(st, "QUILT26", 1, "3", "M100")
        assert voided.refusal is not None and voided.refusal.rule == "F1"
        assert voided.detail.endswith("Put that stub aside and draw again.")
        won = vm.draw(st, "QUILT26", 1, "2", "M100")
        assert won.ok and won.shout == "000002" and won.get("place") == 1
        again = vm.draw(st, "QUILT26", 2, "2", "M100")  # its stub is out of the receptacle
        assert again.refusal is not None and again.refusal.rule == "RAFFLE"
        assert vm.draw(st, "QUILT26", 2, "5", "M100").ok
        after = vm.drawing_screen(st).raffles[0]
        assert after.step == "claim" and after.to_claim is not None
        assert after.to_claim.place == 1 and after.to_claim.status.startswith("ticket 000002")

        code = receipts.receipt(st, st.id, tickets[5]).qr
        assert code
        bare = vm.claim(st, "QUILT26", 2, " ", "S200")
        assert not bare.ok and "scan the code" in bare.detail.lower()
        w2g = vm.claim(st, "QUILT26", 2, code, "S200")
        assert vm.needs_identity(w2g) and w2g.headline == "W-2G: WINNER'S DATA"
        who = vm.Identity("Pat Winner", "1 Elm St", "123-45-6789", "VA DL 1")
        claimed = vm.claim(st, "QUILT26", 2, code, "S200", who)
        assert claimed.ok and claimed.detail.endswith("W-2G data recorded")
        assert vm.drawing_screen(st).raffles[0].to_claim.place == 1  # type: ignore[union-attr]
