"""The pure checks of pos/domain/checks: each returns the refusal (rule and sentence) or None,
from facts alone. The services' tests cover the same refusals through the ledger; these pin the
decisions and their boundaries."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from pos.domain import w2g
from pos.domain.checks import (
    Refusal,
    deals,
    devices,
    first,
    of_decision,
    sales,
    seals,
    sessions,
    staff,
    vouchers,
    winners,
)
from pos.domain.flare import GameType
from pos.domain.hlc import Stamp, local_minute
from pos.domain.money import MAX_AMOUNT, format_amount
from pos.domain.rulebook import Decision, Settings
from pos.errors import NotPermitted, RuleRefused, refuse

counts = hs.integers(min_value=0, max_value=1_000_000)
cents = hs.integers(min_value=0, max_value=MAX_AMOUNT)
TZ = "America/New_York"
# 2026-11-28 18:05 in New York (23:05 UTC)
STAMP = str(Stamp(1_795_907_100_000, 3))


# --- the Refusal value and how a service raises it ---------------------------------------------


def test_refuse_raises_rule_refused_with_the_rule_after_the_sentence() -> None:
    refuse(None)  # nothing refused: nothing raised
    with pytest.raises(RuleRefused) as refused:
        refuse(Refusal("C4", "deal A1 is already closed"))
    assert type(refused.value) is RuleRefused
    assert refused.value.rule == "C4"
    assert refused.value.message == "deal A1 is already closed (rule C4)"


def test_a_refusal_for_want_of_a_role_is_not_permitted() -> None:
    with pytest.raises(NotPermitted) as refused:
        refuse(Refusal.not_permitted("no badge"))
    assert refused.value.rule == "ROLE"
    assert refused.value.message == "no badge (rule ROLE)"
    # a ROLE refusal that is not for want of a role stays a plain RuleRefused
    with pytest.raises(RuleRefused) as plain:
        refuse(Refusal("ROLE", "scan first"))
    assert type(plain.value) is RuleRefused


def test_a_decision_refuses_unless_allowed_and_first_keeps_the_order() -> None:
    assert of_decision(Decision.allow()) is None
    assert of_decision(Decision.refuse("AGE", "too young")) == Refusal("AGE", "too young")
    assert of_decision(Decision.needs_override("D", "a worker")) == Refusal("D", "a worker")
    one, two = Refusal("A", "one"), Refusal("B", "two")
    assert first(None, one, two) == one
    assert first(None, None) is None


def test_local_minute_is_the_halls_clock() -> None:
    assert local_minute(STAMP, TZ) == "2026-11-28 18:05"
    assert local_minute(STAMP, "UTC") == "2026-11-28 23:05"


# --- sessions ----------------------------------------------------------------------------------


def test_sessions() -> None:
    assert sessions.session_open("2026-11-28/1") is None
    assert sessions.session_open(None) == Refusal(
        "SESSION", "no session is open: a manager opens one with 'booth session open'"
    )
    assert sessions.none_open(None) is None
    assert sessions.none_open("2026-11-28/1") == Refusal(
        "SESSION", "session 2026-11-28/1 is still open; close it first"
    )


def test_a_hall_wide_close_names_only_the_stations_not_explained() -> None:
    assert sessions.hall_wide_close("S", [], {}) is None
    assert sessions.hall_wide_close("S", ["kiosk-1"], {"kiosk-1": "burnt"}) is None
    refusal = sessions.hall_wide_close("S", ["booth-1", "kiosk-1", "kiosk-2"], {"kiosk-1": "x"})
    assert refusal == Refusal(
        "CLOSE",
        "session S cannot close yet: no close marker or events from booth-1, kiosk-2; sync, "
        "or close without them (--without STATION --reason TEXT)",
    )


# --- deals -------------------------------------------------------------------------------------


def test_a_deal_goes_in_play_once_and_never_after_its_close() -> None:
    for state in ("received", "carried-over"):
        assert deals.openable("A1", state=state, bin_name=None, holder=None) is None
    assert deals.openable("A1", state="closed", bin_name=None, holder=None) == Refusal(
        "C4", "deal A1 is closed and cannot be put in play"
    )
    assert deals.openable("A1", state="in-play", bin_name="d-1", holder="booth-1") == Refusal(
        "OWNER", "deal A1 is already in play in bin d-1 at booth-1"
    )


@given(tickets=counts, sold=counts, unsold=counts)
def test_a_deal_closes_only_with_the_count_the_ledger_expects(
    tickets: int, sold: int, unsold: int
) -> None:
    refusal = deals.closable("A1", state="in-play", tickets=tickets, sold=sold, unsold=unsold)
    if unsold == tickets - sold:
        assert refusal is None
    else:
        assert refusal == Refusal(
            "C4",
            f"deal A1: {unsold} unsold counted but the ledger says {tickets - sold} "
            f"({tickets} tickets, {sold} sold); recount before closing",
        )
    closed = deals.closable("A1", state="closed", tickets=tickets, sold=sold, unsold=unsold)
    assert closed == Refusal("C4", "deal A1 is already closed")


def test_release_and_acquire() -> None:
    assert deals.releasable("A1", holder="booth-1", here="booth-1") is None
    assert deals.releasable("A1", holder=None, here="booth-1") == Refusal(
        "OWNER", "deal A1 is not held by booth-1 (holder: none)"
    )
    ok = {"holder": "booth-1", "released_to": "booth-2", "here": "booth-2", "forced": False}
    assert deals.acquirable("A1", **ok) is None  # type: ignore[arg-type]
    assert deals.acquirable(
        "A1", holder="booth-2", released_to=None, here="booth-2", forced=True
    ) == Refusal("OWNER", "deal A1 is already held here")
    assert deals.acquirable(
        "A1", holder="booth-1", released_to=None, here="booth-2", forced=False
    ) == Refusal("OWNER", "deal A1 is held by booth-1, which has not released it to this station")
    assert (
        deals.acquirable("A1", holder="booth-1", released_to=None, here="booth-2", forced=True)
        is None
    )


# --- sales -------------------------------------------------------------------------------------


def test_a_sale_comes_from_a_deal_in_play_held_here() -> None:
    here = {"here": "booth-1"}
    assert (
        sales.sells_here("A1", state="in-play", holder="booth-1", released_to=None, **here) is None
    )
    assert sales.sells_here(
        "A1", state="closed", holder="booth-1", released_to=None, **here
    ) == Refusal("BIN", "deal A1 is closed, not in play in a bin")
    assert sales.sells_here(
        "A1", state="in-play", holder="kiosk-1", released_to=None, **here
    ) == Refusal(
        "OWNER",
        "deal A1 is held by kiosk-1; only its holder records its sales; "
        "to take it over here: booth handover A1",
    )
    assert sales.sells_here(
        "A1", state="in-play", holder="booth-1", released_to="kiosk-1", **here
    ) == Refusal("OWNER", "deal A1 was released to kiosk-1; it records no more sales here")


def test_kiosk_and_booth_buyers() -> None:
    assert sales.at_kiosk(pull_tabs_allowed=True, buyer="P1") is None
    assert sales.at_kiosk(pull_tabs_allowed=False, buyer="P1") == Refusal(
        "A", "the house rules do not allow pull-tab sales at a kiosk; buy at the booth"
    )
    assert sales.at_kiosk(pull_tabs_allowed=True, buyer=None) == Refusal(
        "ID", "a kiosk sells only to an identified buyer: scan your card or ID"
    )
    assert sales.at_booth(buyer=None, id_required=False) is None
    assert sales.at_booth(buyer="P1", id_required=True) is None
    assert sales.at_booth(buyer=None, id_required=True) == Refusal(
        "ID", "the house rules ask every buyer for a player card or ID"
    )


@given(value=cents, qty=hs.integers(min_value=1, max_value=10_000), price=cents)
def test_a_voucher_pays_for_tickets_up_to_its_value(value: int, qty: int, price: int) -> None:
    cost = qty * price
    refusal = sales.voucher_covers("kiosk-1", 7, value=value, qty=qty, cost=cost)
    if value >= cost:
        assert refusal is None
    else:
        assert refusal == Refusal(
            "VOUCHER",
            f"voucher 7 of kiosk-1 is for ${format_amount(value)}; "
            f"{qty} tickets cost ${format_amount(cost)}",
        )


# --- vouchers ----------------------------------------------------------------------------------


@given(amount=cents.filter(bool), printed=cents.filter(bool))
def test_a_voucher_pays_once_for_its_own_amount(amount: int, printed: int) -> None:
    shown = format_amount(printed)
    facts = {"redeemed_by": None, "redeemed_hlc": None, "time_zone": TZ}
    refusal = vouchers.payable("booth-1", 3, printed=shown, amount=amount, **facts)  # type: ignore[arg-type]
    if amount == printed:
        assert refusal is None
    else:
        assert refusal == Refusal(
            "VOUCHER", f"voucher 3 of booth-1 was issued for ${format_amount(amount)}, not ${shown}"
        )


def test_a_voucher_not_on_file_or_paid_is_not_paid() -> None:
    facts = {"printed": "5.00", "time_zone": TZ}
    assert vouchers.payable(
        "booth-1", 3, amount=None, redeemed_by=None, redeemed_hlc=None, **facts
    ) == Refusal(
        "VOUCHER",
        "voucher 3 of booth-1 is not on file at this station yet (sync, or redeem it at a "
        "station that holds it): not paid",
    )
    assert vouchers.payable(
        "booth-1", 3, amount=500, redeemed_by="S1", redeemed_hlc=STAMP, **facts
    ) == Refusal("VOUCHER", "voucher 3 of booth-1 was already paid, by S1 at 2026-11-28 18:05")


# --- winners -----------------------------------------------------------------------------------


def test_who_pays_a_winner() -> None:
    assert winners.deal_known("A1", known=True) is None
    assert winners.deal_known("A1", known=False) == Refusal(
        "DEAL", "deal A1 is not known at this station"
    )
    assert winners.pays_here("A1", holder="b", released_to=None, here="b") is None
    assert winners.pays_here("A1", holder=None, released_to=None, here="b") == Refusal(
        "OWNER", "deal A1 is held by no station; only its holder pays its winners"
    )
    assert winners.pays_here("A1", holder="b", released_to="k", here="b") == Refusal(
        "OWNER", "deal A1 was released to k; only its holder pays its winners"
    )


def test_voided_and_paid_tickets() -> None:
    assert winners.not_voided("A1/7", None, time_zone=TZ) is None
    void = winners.Void(STAMP, "R1", "torn")
    assert winners.not_voided("A1/7", void, time_zone=TZ) == Refusal(
        "C1", "ticket A1/7 was voided at 2026-11-28 18:05 by badge R1 (torn); it never pays"
    )
    flag = winners.double_payment(
        paid_hlc=STAMP, by="Rita Redeemer (R1)", origin="booth-1", time_zone=TZ
    )
    assert flag.kind == "double-payment"
    assert flag.refusal("A1/7") == Refusal(
        "C2",
        "ticket A1/7: already paid at 2026-11-28 18:05 by Rita Redeemer (R1) at booth-1; "
        "pay nothing",
    )
    assert winners.voidable("A1/7", voided=False, paid=False) is None
    assert winners.voidable("A1/7", voided=True, paid=True) == Refusal(
        "C1", "ticket A1/7 is already voided"
    )
    assert winners.voidable("A1/7", voided=False, paid=True) == Refusal(
        "C2", "ticket A1/7 was already paid; it cannot be voided"
    )
    assert winners.sale_voidable(4, voided=False) is None
    assert winners.sale_voidable(4, voided=True) == Refusal(
        "DEAL", "the sale on receipt 4 is already voided"
    )


@given(amount=cents.filter(bool), left=hs.integers(min_value=-3, max_value=1000))
def test_one_winner_too_many_is_a_probable_counterfeit(amount: int, left: int) -> None:
    flag = winners.counterfeit("A1", amount=amount, winners_left=left)
    if left > 0:
        assert flag is None
    else:
        assert flag is not None and flag.kind == "probable-counterfeit"
        assert flag.refusal("A1/9") == Refusal(
            "DEAL",
            f"ticket A1/9: every ${format_amount(amount)} winner of deal A1 is already paid: "
            "a probable counterfeit; pay nothing",
        )


def test_prizes_are_claimed_in_a_session_on_a_game_date_of_sale() -> None:
    today = date(2026, 11, 28)
    assert winners.session_for_claim("2026-11-28", today) is None
    no_session = Refusal(
        "B",
        "prizes are paid during a session, on the game date they were sold; no session is "
        "open today",
    )
    assert winners.session_for_claim(None, today) == no_session
    assert winners.session_for_claim("2026-11-27", today) == no_session
    assert winners.sold_today("A1", today, sold=True, last_sale=None) is None
    assert winners.sold_today("A1", today, sold=False, last_sale="2026-11-21") == Refusal(
        "B",
        "deal A1 sold no tickets today (2026-11-28); its prizes were to be claimed on the game "
        "date of sale (last 2026-11-21)",
    )
    refusal = winners.sold_today("A1", today, sold=False, last_sale=None)
    assert refusal is not None and refusal.message.endswith("the game date of sale")


@given(
    game=hs.sampled_from(list(GameType)),
    price=hs.integers(min_value=1, max_value=10_000),
    amount=cents.filter(bool),
    threshold=cents.filter(bool),
    multiple=hs.integers(min_value=1, max_value=1000),
)
def test_w2g_reporting(
    game: GameType, price: int, amount: int, threshold: int, multiple: int
) -> None:
    """One decision for every game: the threshold, and for a game with a wager that counts
    (pull-tabs, raffles) the multiple of it, both rulebook settings."""
    rules = Settings(w2g_threshold=threshold, w2g_multiple=multiple)
    wager = price if game == GameType.PULL_TAB else None
    reportable = w2g.reportable(amount, rules, wager=wager)
    expected = amount >= threshold and (wager is None or amount >= multiple * price)
    assert reportable is expected
    assert w2g.identity_recorded(amount, recorded=True) is None
    missing = w2g.identity_recorded(amount, recorded=False)
    assert missing is not None and missing.rule == "W2G"
    assert missing.message.startswith(f"a ${format_amount(amount)} prize is reportable")


# --- seals -------------------------------------------------------------------------------------


def test_signing_a_seal_card_line() -> None:
    assert seals.kiosk_signer("P1") is None
    assert seals.kiosk_signer(None) == Refusal(
        "ROLE", "at a kiosk, scan your player card or ID first to sign a seal card line"
    )
    holds = ("013", "113")
    ok = {"holder": "b", "here": "b", "hold_tickets": holds}
    assert seals.may_sign("S1", ticket="013", **ok) is None  # type: ignore[arg-type]
    assert seals.may_sign("S1", holder="k", here="b", ticket="013", hold_tickets=holds) == (
        Refusal("OWNER", "deal S1 is held by k; to take it over here: booth handover S1")
    )
    assert seals.may_sign("S1", ticket="999", **ok) == Refusal(  # type: ignore[arg-type]
        "C5", "ticket 999 is not a hold ticket of deal S1 (hold tickets: 013, 113)"
    )
    free = {"seal_open": False, "ticket": "013", "line": 4}
    assert seals.line_free("S1", signed_line=None, line_ticket=None, **free) is None  # type: ignore[arg-type]
    assert seals.line_free(
        "S1", seal_open=True, ticket="013", signed_line=2, line=4, line_ticket="113"
    ) == Refusal("C5", "the seal of deal S1 is already open")
    assert seals.line_free("S1", signed_line=2, line_ticket="113", **free) == Refusal(  # type: ignore[arg-type]
        "C5", "hold ticket 013 already signed line 2"
    )
    assert seals.line_free("S1", signed_line=None, line_ticket="113", **free) == Refusal(  # type: ignore[arg-type]
        "C5", "line 4 is already signed (hold ticket 113)"
    )


@given(left=hs.integers(min_value=-5, max_value=100_000))
def test_the_seal_opens_once_when_every_ticket_is_sold(left: int) -> None:
    refusal = seals.may_open("S1", seal_open=False, tickets_left=left)
    if left <= 0:
        assert refusal is None
    else:
        assert refusal == Refusal(
            "C5",
            f"deal S1 is not sold out ({left} tickets left): the seal is opened only when "
            "every ticket is sold",
        )
    assert seals.may_open("S1", seal_open=True, tickets_left=left) == Refusal(
        "C5", "the seal of deal S1 is already open"
    )


@given(days=hs.integers(min_value=-40, max_value=40))
def test_a_seal_prize_is_claimed_within_its_window(days: int) -> None:
    until = date(2026, 12, 28)
    today = until + timedelta(days=days)
    refusal = seals.claimable(
        "S1",
        2,
        state="open",
        carried_to=None,
        claim_until=until.isoformat(),
        today=today,
        holder="b",
        here="b",
    )
    if days <= 0:
        assert refusal is None
    else:
        assert refusal == Refusal(
            "B", "seal card prizes are claimed within the window, which ended 2026-12-28"
        )


def test_a_seal_prize_is_paid_once_for_a_winning_line_at_the_holder() -> None:
    facts = {"line": 2, "today": date(2026, 12, 1), "here": "b"}
    window = {"claim_until": "2026-12-28", "carried_to": None}
    assert seals.claimable(
        "S1",
        state=None,
        claim_until=None,
        carried_to=None,
        holder="b",
        **facts,  # type: ignore[arg-type]
    ) == Refusal("B", "line 2 of deal S1 is not a winning line (or the seal is not open)")
    assert seals.claimable("S1", state="paid", holder="b", **window, **facts) == Refusal(  # type: ignore[arg-type]
        "C2", "the prize of line 2 of deal S1 was already paid"
    )
    assert seals.claimable(
        "S1",
        state="carried",
        holder="b",
        claim_until="2026-12-28",
        carried_to="S2",
        **facts,  # type: ignore[arg-type]
    ) == Refusal("C6", "the unclaimed prize of line 2 moved to deal S2")
    assert seals.claimable("S1", state="open", holder="k", **window, **facts) == Refusal(  # type: ignore[arg-type]
        "OWNER", "deal S1 is held by k; to take it over here: booth handover S1"
    )


# --- devices -----------------------------------------------------------------------------------


@given(
    faces=hs.integers(min_value=1, max_value=10_000), most=hs.integers(min_value=1, max_value=1000)
)
def test_a_device_plays_at_most_the_faces_allowed(faces: int, most: int) -> None:
    refusal = devices.faces_per_game(faces, most=most)
    if faces <= most:
        assert refusal is None
    else:
        assert refusal == Refusal(
            "E1c",
            f"{faces} card faces per game is more than the {most} a device may hold for one game",
        )


def test_device_rentals() -> None:
    assert devices.retirable("D1", state="free") is None
    assert devices.retirable("D1", state="rented") == Refusal(
        "E1d", "D1 is rented: take it back before retiring it"
    )
    assert devices.free_device("D1") is None
    assert devices.free_device(None) == Refusal(
        "E1d", "no device is free: the next one returned goes to the next player in line"
    )
    assert devices.renter_identified(kiosk=False, buyer=None) is None
    assert devices.renter_identified(kiosk=True, buyer="P1") is None
    assert devices.renter_identified(kiosk=True, buyer=None) == Refusal(
        "ID", "a kiosk rents only to an identified player"
    )
    assert devices.on_premises("k", stands_at="12 Main", premises="12 Main") is None
    assert devices.on_premises("k", stands_at="Barn", premises="12 Main") == Refusal(
        "E1g",
        "station k stands at 'Barn', not on the premises ('12 Main'): devices are loaded only "
        "there",
    )
    assert devices.exchange_confirmed(no_numbers_keyed=True) is None
    refusal = devices.exchange_confirmed(no_numbers_keyed=False)
    assert refusal is not None and refusal.rule == "E2"


# --- staff -------------------------------------------------------------------------------------


def test_the_first_person_is_the_manager() -> None:
    assert staff.first_is_manager(["seller", "manager"]) is None
    refusal = staff.first_is_manager(["seller"])
    assert refusal == Refusal.not_permitted(
        "this hall has no manager yet: the first person added must have the manager role"
    )
    assert refusal is not None and refusal.role
