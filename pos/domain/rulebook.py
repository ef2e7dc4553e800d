"""The hall's rulebook: each rule with its citation, the hall's settings, and pure checks.

A check returns a Decision: allowed, refused (a rule that can never be overridden), or needs a
manager's override (any other rule). Whether a failing rule refuses or asks for an override is
the rule's `overridable` flag, so it lives in one place: the RULES table.

Citations are data. The rules of play are 11VAC15-40-60 (../shared/regulation); Virginia moved its
charitable gaming chapter to 11VAC20-20 in 2023, so when the citations are renumbered only the
RULES table changes. Limits the law may change are Settings with the Virginia defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import date, timedelta
from enum import StrEnum

from pos.domain.business_days import CALENDARS
from pos.domain.flare import Flare, GameType
from pos.domain.money import (
    MAX_AMOUNT,
    InvalidAmount,
    format_amount,
    format_money,
    parse_amount,
    parse_count,
)

# -- rules -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    id: str
    citation: str
    sentence: str  # plain language, for the person at the booth; limits are in `settings`
    overridable: bool  # False: never; True: only by a manager, recorded with rule and reason
    settings: tuple[str, ...] = ()  # the Settings fields this rule uses


_RULE_LIST = (
    Rule(
        "C1",
        "11VAC15-40-60 C 1 (event games: K 1)",
        "No marked, defaced, altered or tampered pull-tab, instant bingo or seal card may be put "
        "into play.",
        overridable=False,
    ),
    Rule(
        "C2",
        "11VAC15-40-60 C 2 (event games: K 6)",
        "A winning ticket is punched or defaced right after it is paid, by someone the "
        "organisation authorised; a ticket already paid is never paid again.",
        overridable=True,
    ),
    Rule(
        "C3",
        "11VAC15-40-60 C 3",
        "Unsold pull-tabs may be mixed with at most one more pull-tab deal, and only when the "
        "posted house rules say so; a seal card deal is never mixed with another deal.",
        overridable=False,
        settings=("commingle_additional_deals",),
    ),
    Rule(
        "C4",
        "11VAC15-40-60 C 4 (event games: K 7)",
        "A deal not sold out is sold at the next session that sells that kind of ticket; it "
        "closes unfinished only when no such session is scheduled, after diligent efforts to "
        "sell it (the sessions it was offered in and a note are recorded); once closed, its "
        "unsold tickets are kept unopened for the retention years after the end of "
        "the fiscal year it closed in.",
        overridable=True,
        settings=("retention_years", "fiscal_year_start_month", "fiscal_year_start_day"),
    ),
    Rule(
        "C5",
        "11VAC15-40-60 C 5",
        "A seal card deal must come with its sign-up sheet, its seal and its cards packed "
        "together, and its flare must give the seal's terms.",
        overridable=False,
    ),
    Rule(
        "K4",
        "11VAC15-40-60 K 4",
        "An event game whose winners are decided with a seal card needs no sign-up sheet: it is "
        "taken in with its seal terms alone, and no line of a sheet is signed for it.",
        overridable=False,
    ),
    Rule(
        "C6",
        "11VAC15-40-60 C 6",
        "A progressive seal card prize not claimed in time moves to the next progressive seal "
        "card game in progress and is paid to its winner.",
        overridable=True,
        settings=("progressive_carry_days",),
    ),
    Rule(
        "B",
        "11VAC15-40-60 B",
        "A seal card prize that is known only once the seal is opened must be claimed within the "
        "claim window after the deal closes; every other prize must be claimed on the day of "
        "the game.",
        overridable=True,
        settings=("seal_claim_days",),
    ),
    Rule(
        "K2",
        "11VAC15-40-60 K 2",
        "Event game tickets are sold only at the price printed on the deal's flare.",
        overridable=False,
    ),
    Rule(
        "K3",
        "11VAC15-40-60 K 3; Code of Virginia § 18.2-340.33 (9)",
        "No single pull-tab, instant bingo or seal card prize may be larger than the prize cap "
        "set by Virginia law.",
        overridable=False,
        settings=("prize_cap",),
    ),
    Rule(
        "K5",
        "11VAC15-40-60 K 5",
        "The winners of an event game are decided in the same session its tickets are sold; the "
        "game ends with that session.",
        overridable=True,
    ),
    Rule(
        "AGE",
        "Code of Virginia § 18.2-340.28 C",
        "No one under the minimum age may buy, play or redeem.",
        overridable=False,
        settings=("minimum_age",),
    ),
    Rule(
        "MINOR",
        "11VAC20-20-60 E (formerly 11VAC15-40-50 E)",
        "Nobody under 18 manages or operates bingo (the manager and treasurer roles, a manage "
        "or bingo shift, verifying a cash count); a worker aged 14 through 17 helps only with "
        "the written consent of a parent or legal guardian on file; nobody under 14 works. Ages "
        "are counted on the day of the work from the date of birth on file, which every worker "
        "needs.",
        overridable=False,
        settings=("worker_minimum_age", "operator_minimum_age"),
    ),
    Rule(
        "D",
        "11VAC15-40-60 D",
        "Anyone who sold or redeemed pull-tabs, instant bingo or seal cards may not buy them from "
        "this organisation on a day they worked, nor from a deal they helped sell or redeem; "
        "anyone working a bingo session may not play in it.",
        overridable=True,
    ),
    Rule(
        "E1c",
        "11VAC15-40-60 E 1 c",
        "An electronic bingo device plays at most the maximum number of card faces per game.",
        overridable=False,
        settings=("max_faces_per_game",),
    ),
    Rule(
        "E1d",
        "11VAC15-40-60 E 1 d",
        "Electronic bingo devices cannot be reserved: first come, first served.",
        overridable=True,
    ),
    Rule(
        "E1g",
        "11VAC15-40-60 E 1 g",
        "Electronic bingo devices are loaded and enabled only on the premises where the game is "
        "played.",
        overridable=True,
    ),
    Rule(
        "E2",
        "11VAC15-40-60 E 2",
        "A defective device is exchanged only when a disinterested player verifies the fault "
        "and no numbers called in the game in progress are keyed into the replacement.",
        overridable=False,
    ),
    Rule(
        "F1",
        "11VAC15-40-60 F 1",
        "Before a raffle's drawing, the stub of every ticket sold is in the receptacle: the stubs "
        "counted in must equal the tickets sold (voided tickets taken out), and every number "
        "drawn must be a ticket sold and not voided. Once the stubs are in, no ticket is sold "
        "or voided.",
        overridable=False,
    ),
    Rule(
        "F2",
        "11VAC15-40-60 F 2",
        "Every raffle prize is valued at fair market value: each prize has its value and the "
        "basis for it (a receipt, an appraisal, a retail price).",
        overridable=False,
    ),
    Rule(
        "RAFFLE",
        "Booth: raffles (11VAC15-40-60 F; § 18.2-340.22 C for a drawing anyone can check)",
        "A raffle's tickets are sold and drawn at the station that holds the raffle, tickets "
        "only before its drawing, the drawing on or after its date, each prize drawn and "
        "claimed once.",
        overridable=False,
    ),
    Rule(
        "A",
        "11VAC15-40-60 A",
        "The hall's posted house rules govern the session; what they do not allow (for example "
        "pull-tab sales at a kiosk) is not done.",
        overridable=False,
    ),
    Rule(
        "SESSION",
        "Booth: sales happen in an open session (11VAC15-40-60 C 4, K 5)",
        "Tickets are sold only while a session is open.",
        overridable=False,
    ),
    Rule(
        "GAMEDATE",
        "Booth: a session's game date (11VAC20-20-90 records; 11VAC20-20-100 quarterly reports)",
        "A session opens on today's hall date. A manager may open one on a past date only with "
        "the reason on the record, never on a future date, and never into a quarter whose "
        "report has been produced without saying so (then it is an exception). A training hall "
        "sets its dates freely.",
        overridable=False,
    ),
    Rule(
        "OWNER",
        "Booth: deal ownership",
        "Only the station that holds a deal in one of its bins records that deal's sales and "
        "redemptions.",
        overridable=False,
    ),
    Rule(
        "DEAL",
        "Booth: deal checks",
        "A deal must add up: a price above zero, no more winners than tickets, a serial number "
        "not already taken in, tickets sold at the flare's price and never more than remain.",
        overridable=False,
    ),
    Rule(
        "BIN",
        "Booth: deals sell from bins (11VAC15-40-60 C 3, C 4)",
        "Tickets are sold only from a deal that is in play in a bin (a booth drawer or a kiosk "
        "dispenser column); a deal received, carried over or closed is not sold.",
        overridable=False,
    ),
    Rule(
        "ID",
        "Booth: buyer identification (Code of Virginia § 18.2-340.28 C; 11VAC15-40-60 D)",
        "A kiosk sells only to a buyer it has identified (player card or ID), and so does the "
        "booth where the house rules ask for it.",
        overridable=False,
    ),
    Rule(
        "ROLE",
        "Booth: operators (11VAC20-20-90: workers are identified by unique operator IDs)",
        "Every change is made by a logged-in person whose role allows it: seller, redeemer, "
        "manager or inspector (read-only).",
        overridable=False,
    ),
    Rule(
        "TRAINING",
        "Booth: training halls",
        "Only a training hall may run on a set clock (BOOTH_NOW); its receipts and reports say "
        "TRAINING.",
        overridable=False,
    ),
    Rule(
        "JOIN",
        "Booth: station pairing",
        "A station joins the hall once, with a one-time join bundle from the manager.",
        overridable=False,
    ),
    Rule(
        "CLOSE",
        "11VAC20-20-90 (records); Booth: the day's close",
        "A session closes hall-wide only when the manager holds every station's close marker "
        "and events, or decides, on the record, to close without a named station. A station that "
        "recorded its close marker sells and pays nothing more in that session, unless a manager "
        "reopens it with a reason on the record.",
        overridable=False,
    ),
    Rule(
        "PAID",
        "11VAC15-40-60 C 2 (a winner paid once); Booth: one payment per prize",
        "Every prize is paid once: a ticket, a seal line, a bingo game's prize, a raffle prize, "
        "the treasure chest, a voucher. Paying it again is refused and names the first payment; "
        "a prize split between winners is one payment whose shares add up to it.",
        overridable=False,
    ),
    Rule(
        "VOUCHER",
        "Booth: vouchers",
        "A voucher pays once, for its own amount, and only where its issue can be checked.",
        overridable=False,
    ),
    Rule(
        "LIMIT",
        "Code of Virginia § 18.2-340.33 (9) b, d (as amended 2021, c. 491); 11VAC15-40-60 G 4, J 5",
        "No regular or special bingo game prize may be larger than the regular game limit, except "
        "on the few games a session may play at the higher limit; no bingo jackpot may be larger "
        "than the jackpot limit, nor the jackpots of one day together.",
        overridable=False,
        settings=(
            "regular_prize_limit",
            "special_prize_limit",
            "special_prize_games",
            "jackpot_prize_limit",
            "jackpot_daily_limit",
        ),
    ),
    Rule(
        "G3",
        "11VAC15-40-60 G 2, G 3",
        "A decision bingo fee is paid for each card in play, and only the card faces entered are "
        "in play: no round of fees counts more cards than were entered.",
        overridable=False,
    ),
    Rule(
        "G4",
        "11VAC15-40-60 G 4",
        "A decision bingo prize is the total of the fees paid in, never more than the regular "
        "bingo prize limit; whatever is above the limit is kept by the organisation.",
        overridable=False,
        settings=("regular_prize_limit",),
    ),
    Rule(
        "G5",
        "11VAC15-40-60 G 2, G 3, G 5",
        "A decision bingo game's price per card face and fee per three numbers called are printed "
        "on the game program; its prize is announced before it is paid.",
        overridable=False,
    ),
    Rule(
        "H1",
        "11VAC15-40-60 H 1, H 2",
        "A treasure chest game is listed on the program as a Treasure Chest Raffle, with posted "
        "house rules that say how it is played.",
        overridable=False,
    ),
    Rule(
        "H3",
        "11VAC15-40-60 H 3",
        "The treasure chest participant is chosen only through another authorised game of the "
        "same bingo session: the winner of that game, recorded.",
        overridable=False,
    ),
    Rule(
        "H5",
        "11VAC15-40-60 H 5",
        "When the player does not open the treasure chest, every key is tried until one opens "
        "it, to show the players that one of the keys opens the lock.",
        overridable=False,
    ),
    Rule(
        "I2",
        "11VAC15-40-60 I 2, I 4",
        "Progressive bingo paper is never part of an admission pack: it is sold on its own, at "
        "the price listed on the game program.",
        overridable=False,
    ),
    Rule(
        "I7",
        "11VAC15-40-60 I 3, I 5, I 6, I 7; Code of Virginia § 18.2-340.33 (10)",
        "A progressive game's prize and number of calls are announced and posted; not won within "
        "the calls, the calls go up by one the next session it is played and the game goes on as "
        "a regular game for a regular prize; its prize and its growth each session stay within "
        "the progressive limits.",
        overridable=False,
        settings=(
            "progressive_prize_limit",
            "progressive_increase_limit",
            "progressive_games_per_session",
        ),
    ),
    Rule(
        "J4",
        "11VAC15-40-60 J 4, J 5",
        "A WINGO game has house rules that say how players show they have won, and is reported "
        "as a traditional bingo game.",
        overridable=False,
    ),
    Rule(
        "PAPER",
        "Booth: bingo paper by audit number (11VAC20-20-90 records; 11VAC15-40-60 I 1)",
        "Bingo paper is sold by its audit numbers from stock this station holds, each sheet once, "
        "at the program's price; a sheet sold or voided is not sold again.",
        overridable=False,
    ),
    Rule(
        "W2G",
        "26 CFR 7.6041-1; IRC § 6041(a) as amended by the One Big Beautiful Bill Act (2025) "
        "§ 70433",
        "A prize at or above the IRS reporting threshold is reported on Form W-2G (for pull-tabs "
        "and raffles only when it is also at least 300 times the ticket price); the winner "
        "shows ID.",
        overridable=False,
        settings=("w2g_threshold", "w2g_multiple"),
    ),
    Rule(
        "COUNT2",
        "Booth: two-person cash counts (11VAC20-20-90 records; 11VAC20-20-80 D deposits)",
        "Cash is counted blind (the counter sees what the ledger expects only once the count "
        "is recorded) and verified by a second person with another badge; a count by one "
        "person alone is not verified.",
        overridable=False,
    ),
    Rule(
        "DEPOSIT",
        "11VAC20-20-80 D",
        "A session's receipts are deposited by the second business day after the session "
        "(weekends and state holidays are not business days), electronic gaming receipts at "
        "least once every seven days; a late or short deposit is an exception. A deposit is "
        "made on or after the game date of each session whose receipts it holds.",
        overridable=False,
        settings=("deposit_business_days", "electronic_deposit_days", "holiday_calendar"),
    ),
    Rule(
        "DISBURSE",
        "11VAC20-20-80 B",
        "Expenses other than prizes and meals paid in cash are paid by check from the "
        "charitable gaming account, and recorded with the invoice's reference.",
        overridable=False,
    ),
    Rule(
        "FEE",
        "11VAC20-20-100 B, C; Code of Virginia § 18.2-340.31 B",
        "The quarterly and annual reports carry the audit and administration fee: a share of "
        "the gross receipts (of electronic gaming, of its adjusted gross receipts).",
        overridable=False,
        settings=("audit_fee_basis_points", "audit_fee_additional_basis_points"),
    ),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULE_LIST}


# -- settings --------------------------------------------------------------------------------------


class InvalidSetting(ValueError):
    """A rulebook setting that cannot be accepted; `.field` names the setting."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


_MONEY_SETTINGS = frozenset(
    {
        "prize_cap",
        "w2g_threshold",
        "regular_prize_limit",
        "special_prize_limit",
        "jackpot_prize_limit",
        "jackpot_daily_limit",
        "progressive_prize_limit",
        "progressive_increase_limit",
    }
)
# Settings that name something rather than count it: the allowed names, each.
_TEXT_SETTINGS: dict[str, tuple[str, ...]] = {"holiday_calendar": tuple(CALENDARS)}
# Sanity bounds per setting (inclusive): a hall may be stricter than Virginia, and the law may
# change, but a typo must not turn the cap into $0.01 or the age into 1 year.
_BOUNDS: dict[str, tuple[int, int]] = {
    "prize_cap": (1, MAX_AMOUNT),
    "minimum_age": (16, 99),
    "worker_minimum_age": (10, 99),
    "operator_minimum_age": (16, 99),
    "seal_claim_days": (1, 3650),
    "progressive_carry_days": (1, 3650),
    "commingle_additional_deals": (0, 9),
    "retention_years": (1, 99),
    "fiscal_year_start_month": (1, 12),
    "fiscal_year_start_day": (1, 31),
    "w2g_threshold": (1, MAX_AMOUNT),
    "w2g_multiple": (1, 100_000),
    "max_faces_per_game": (1, 1000),
    "regular_prize_limit": (1, MAX_AMOUNT),
    "special_prize_limit": (1, MAX_AMOUNT),
    "special_prize_games": (0, 100),
    "jackpot_prize_limit": (1, MAX_AMOUNT),
    "jackpot_daily_limit": (1, MAX_AMOUNT),
    "progressive_prize_limit": (1, MAX_AMOUNT),
    "progressive_increase_limit": (1, MAX_AMOUNT),
    "progressive_games_per_session": (0, 100),
    "deposit_business_days": (1, 30),
    "electronic_deposit_days": (1, 60),
    "audit_fee_basis_points": (0, 125),  # § 18.2-340.31 B: at most 1.25% in all
    "audit_fee_additional_basis_points": (0, 125),
}


# Where each setting's Virginia default comes from (the law it follows), for docs/rules.md.
SETTING_SOURCES: dict[str, str] = {
    "prize_cap": "Code of Virginia § 18.2-340.33 (9): $2,000 per instant bingo, pull-tab or "
    "seal card prize (raised in 2021)",
    "minimum_age": "Code of Virginia § 18.2-340.28 C: no sale to, play or redemption by anyone "
    "under 18",
    "worker_minimum_age": "11VAC20-20-60 E: individuals 14 through 17 may participate in the "
    "conduct of a bingo game with written parental consent on file; nobody younger",
    "operator_minimum_age": "11VAC20-20-60 E: no individual under the age of 18 may participate "
    "in the management or operation of bingo games",
    "seal_claim_days": "11VAC15-40-60 B: claimed within 30 days of the close of a deal",
    "progressive_carry_days": "11VAC15-40-60 C 6: not claimed within 30 days",
    "commingle_additional_deals": "11VAC15-40-60 C 3: no more than one additional deal",
    "retention_years": "11VAC15-40-60 C 4, K 7: three years following the close of the fiscal year",
    "fiscal_year_start_month": "the organisation's fiscal year (C 4 counts from its close)",
    "fiscal_year_start_day": "the organisation's fiscal year (C 4 counts from its close)",
    "w2g_threshold": "IRS Form W-2G (26 U.S.C. § 6041(a)), not Virginia law: $1,200 for bingo "
    "winnings paid before 2026, $2,000 for payments in calendar year 2026 (One Big Beautiful "
    "Bill Act § 70433; IRS draft 2026 Instructions for Forms W-2G and 5754, 15 December 2025; "
    "REG-113229-25), indexed for inflation after 2026",
    "w2g_multiple": "26 CFR 7.6041-1 (c): for wagers other than bingo, keno and slot machines "
    "(pull-tabs, raffles) the winnings are reportable only when also at least 300 times the "
    "wager",
    "max_faces_per_game": "11VAC15-40-60 E 1 c: a maximum of 54 card faces per device per game",
    "regular_prize_limit": "Code of Virginia § 18.2-340.33 (9) b: no regular or special bingo "
    "game prize above $100 (HB 1843, 2021 Acts Sp. Sess. I c. 491, kept it for all but 10 games "
    "of a session)",
    "special_prize_limit": "Code of Virginia § 18.2-340.33 (9) b as amended in 2021 (HB 1843): "
    "up to 10 games per session may pay a regular or special game prize of up to $200",
    "special_prize_games": "Code of Virginia § 18.2-340.33 (9) b as amended in 2021 (HB 1843): "
    "up to 10 games per session at the higher limit",
    "jackpot_prize_limit": "Code of Virginia § 18.2-340.33 (9) d: no bingo jackpot above $1,000 "
    "(the 2021 bill's raise to $2,000 was not enacted)",
    "jackpot_daily_limit": "Code of Virginia § 18.2-340.33 (9) d: bingo jackpots awarded in one "
    "calendar day total at most $1,000",
    "progressive_prize_limit": "Code of Virginia § 18.2-340.33 (10) (11VAC15-40-60 I 7): a "
    "progressive bingo prize of at most $5,000",
    "progressive_increase_limit": "Code of Virginia § 18.2-340.33 (10) as amended in 2021 (HB "
    "1843): a progressive prize grows by at most $200 a session (and at most half of that "
    "session's sales of its paper)",
    "progressive_games_per_session": "Code of Virginia § 18.2-340.33 (10) (HB 950, 2009): at most "
    "six progressive bingo games a session",
    "deposit_business_days": "11VAC20-20-80 D: deposited by the second business day following "
    "the session",
    "electronic_deposit_days": "11VAC20-20-80 D: electronic gaming receipts deposited at least "
    "once every seven calendar days",
    "holiday_calendar": "Code of Virginia § 2.2-3300: Virginia's legal holidays (computed per "
    "year, observed Friday/Monday when on a weekend) are not business days",
    "audit_fee_basis_points": "11VAC20-20-100 B, C: the audit and administration fee of 0.5% of "
    "gross receipts (electronic gaming: of adjusted gross receipts); Virginia Administrative "
    "Code current through Register Vol. 41 No. 3 (September 2024)",
    "audit_fee_additional_basis_points": "11VAC20-20-100 B, C: and an additional fee of 0.25%; "
    "§ 18.2-340.31 B caps the fee at 1.25% of gross receipts",
}


@dataclass(frozen=True)
class Settings:
    """The hall's rulebook settings; the defaults are Virginia's."""

    # § 18.2-340.33 (9): $2,000 per instant bingo, pull-tab or seal card prize (raised in 2021).
    prize_cap: int = 200_000
    # § 18.2-340.28 C: no sale to, play or redemption by anyone under 18.
    minimum_age: int = 18
    # 11VAC20-20-60 E: workers 14 and over (14 through 17 with a parent's written consent on
    # file), and 18 and over to manage or operate bingo.
    worker_minimum_age: int = 14
    operator_minimum_age: int = 18
    # 11VAC15-40-60 B: seal card prizes claimed within 30 days of the deal's close.
    seal_claim_days: int = 30
    # 11VAC15-40-60 C 6: unclaimed progressive seal card prizes carry forward after 30 days.
    progressive_carry_days: int = 30
    # 11VAC15-40-60 C 3: "no more than one additional deal".
    commingle_additional_deals: int = 1
    # 11VAC15-40-60 C 4, K 7 and the records rule: 3 years after the close of the fiscal year.
    retention_years: int = 3
    fiscal_year_start_month: int = 1
    fiscal_year_start_day: int = 1
    # IRS Form W-2G threshold for bingo (and, with the 300-times-the-wager test, pull-tab)
    # winnings: $1,200 until 2025; $2,000 for payments from 1 January 2026 after the One Big
    # Beautiful Bill Act (2025) § 70433 raised the § 6041(a) threshold, indexed for inflation
    # after 2026 - hence a setting.
    w2g_threshold: int = 200_000
    # 26 CFR 7.6041-1 (c): a pull-tab's or raffle's winnings are reportable only when also at
    # least 300 times the wager (bingo has no such test).
    w2g_multiple: int = 300
    # 11VAC15-40-60 E 1 c: at most 54 card faces per device per game.
    max_faces_per_game: int = 54
    # § 18.2-340.33 (9) b: a regular or special bingo game prize is at most $100; since HB 1843
    # (2021 Acts Sp. Sess. I c. 491, in force 1 July 2021) up to 10 games a session may pay up to
    # $200.
    regular_prize_limit: int = 10_000
    special_prize_limit: int = 20_000
    special_prize_games: int = 10
    # § 18.2-340.33 (9) d: a bingo jackpot is at most $1,000, and so are one calendar day's
    # jackpots together (the introduced HB 1843 raised both to $2,000; the enacted text did not).
    jackpot_prize_limit: int = 100_000
    jackpot_daily_limit: int = 100_000
    # § 18.2-340.33 (10) (11VAC15-40-60 I 7): a progressive bingo prize is at most $5,000 and
    # grows by at most $200 a session (raised from $100 by HB 1843, 2021), and by at most half of
    # that session's sales of the game's paper.
    progressive_prize_limit: int = 500_000
    progressive_increase_limit: int = 20_000
    # § 18.2-340.33 (10) (HB 950, 2009): at most six progressive games a session.
    progressive_games_per_session: int = 6
    # 11VAC20-20-80 D: a session's receipts deposited by the second business day after it,
    # electronic gaming receipts at least once every seven calendar days.
    deposit_business_days: int = 2
    electronic_deposit_days: int = 7
    # Code of Virginia § 2.2-3300: the legal holidays that are not business days.
    holiday_calendar: str = "virginia"
    # 11VAC20-20-100 B, C: the audit and administration fee, 0.5% plus an additional 0.25%.
    audit_fee_basis_points: int = 50
    audit_fee_additional_basis_points: int = 25

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name in _TEXT_SETTINGS:
                if value not in _TEXT_SETTINGS[item.name]:
                    raise InvalidSetting(
                        item.name,
                        f"{value!r} is not one of {', '.join(_TEXT_SETTINGS[item.name])}",
                    )
                continue
            low, high = _BOUNDS[item.name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidSetting(item.name, f"{value!r} is not a whole number")
            if not low <= value <= high:
                shown = _show_setting(item.name, value)
                raise InvalidSetting(
                    item.name,
                    f"{shown} is outside {_show_setting(item.name, low)}"
                    f"..{_show_setting(item.name, high)}",
                )
        try:
            date(2001, self.fiscal_year_start_month, self.fiscal_year_start_day)
        except ValueError:
            raise InvalidSetting(
                "fiscal_year_start_day",
                f"{self.fiscal_year_start_day} is not a day of month "
                f"{self.fiscal_year_start_month} in every year",
            ) from None

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object]) -> Settings:
        """Settings from a mapping (as `to_mapping` gives it, or typed in); missing keys default.

        Money settings are decimal strings of dollars ("2000.00"); the others whole numbers, as
        ints or digit strings. Keys may use '-' for '_'. Unknown keys are refused.
        """
        if not isinstance(mapping, Mapping):
            raise InvalidSetting("settings", "expected a mapping of setting names to values")
        names = {item.name for item in fields(cls)}
        values: dict[str, int | str] = {}
        for raw_key, raw in mapping.items():
            key = str(raw_key).strip().replace("-", "_")
            if key not in names:
                raise InvalidSetting(
                    str(raw_key), f"is not a setting (known: {', '.join(sorted(names))})"
                )
            if key in _TEXT_SETTINGS:
                values[key] = str(raw).strip().lower()
                continue
            low, high = _BOUNDS[key]
            try:
                if key in _MONEY_SETTINGS:
                    value = parse_amount(raw, key, maximum=high)  # type: ignore[arg-type]
                else:
                    value = parse_count(raw, key, minimum=low, maximum=high)
            except InvalidAmount as exc:
                raise InvalidSetting(key, exc.reason) from None
            values[key] = value
        return cls(**values)  # type: ignore[arg-type]

    def to_mapping(self) -> dict[str, object]:
        """The settings as `from_mapping` reads them: money as decimal strings, the rest ints."""
        return {
            item.name: (
                format_amount(getattr(self, item.name))
                if item.name in _MONEY_SETTINGS
                else getattr(self, item.name)
            )
            for item in fields(self)
        }


def _show_setting(name: str, value: int) -> str:
    return format_money(value) if name in _MONEY_SETTINGS else f"{value:,}"


# -- decisions -------------------------------------------------------------------------------------


class Verdict(StrEnum):
    ALLOWED = "allowed"
    REFUSED = "refused"
    NEEDS_OVERRIDE = "needs-override"


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    rule: str | None
    message: str

    @classmethod
    def allow(cls) -> Decision:
        return cls(Verdict.ALLOWED, None, "")

    @classmethod
    def refuse(cls, rule: str, message: str) -> Decision:
        return cls(Verdict.REFUSED, rule, message)

    @classmethod
    def needs_override(cls, rule: str, message: str) -> Decision:
        return cls(Verdict.NEEDS_OVERRIDE, rule, message)

    @property
    def allowed(self) -> bool:
        return self.verdict is Verdict.ALLOWED

    @property
    def citation(self) -> str | None:
        """The citation of the rule that failed, from RULES (None when allowed)."""
        return RULES[self.rule].citation if self.rule in RULES else None

    def to_dict(self) -> dict[str, object]:
        return {
            "verdict": self.verdict.value,
            "rule": self.rule,
            "citation": self.citation,
            "message": self.message,
        }


def _fail(rule_id: str, message: str) -> Decision:
    """A failed check: refused for a rule that can never be overridden, else needs an override."""
    if RULES[rule_id].overridable:
        return Decision.needs_override(rule_id, message)
    return Decision.refuse(rule_id, message)


def _tickets(count: int) -> str:
    return f"{count:,} ticket" + ("" if count == 1 else "s")


# -- checks ----------------------------------------------------------------------------------------


def check_intake(flare: Flare, settings: Settings, *, known_serials: frozenset[str]) -> Decision:
    """May this deal be taken in? The first failing check wins, in this fixed order:

    1. DEAL  the serial number was already taken in (compared in upper case);
    2. C5    a seal-card deal without its sign-up sheet and seal confirmed, or without seal terms;
             an event game decided by a seal card is not asked for a sheet (K4: "A sign-up
             sheet is not required for event games in which the winner or winners are
             determined using a seal card"; see `sign_up_sheet_required`);
    3. DEAL  a price of zero;
    4. K3    a prize tier above the cap, in the flare's order, then the seal prize;
    5. DEAL  more winning tickets than tickets.

    A deal marked as tampered (C1) is taken in on record, so its purchase is kept and an
    inspector sees the mark, but it never goes into play: `tampered_deal` refuses it.
    """
    serial = flare.serial.upper()
    if serial in {known.upper() for known in known_serials}:
        return _fail("DEAL", f"a deal with serial number {serial} was already taken in")
    if sign_up_sheet_required(flare):
        if flare.seal is None:
            return _fail(
                "C5",
                f"seal card deal {serial} has no seal terms on its flare "
                "(lines, seal prize, hold tickets)",
            )
        if not flare.sheet_and_seal_present:
            return _fail(
                "C5",
                f"seal card deal {serial} is not confirmed to hold its sign-up sheet, seal and "
                "cards together",
            )
    if flare.price <= 0:
        return _fail(
            "DEAL", f"deal {serial} has a price of {format_money(flare.price)}; it must be above $0"
        )
    cap = format_money(settings.prize_cap)
    for number, tier in enumerate(flare.prizes, start=1):
        if tier.amount > settings.prize_cap:
            return _fail(
                "K3",
                f"a {format_money(tier.amount)} prize (tier {number} of the flare) is above the "
                f"{cap} cap per ticket",
            )
    if flare.seal is not None and flare.seal.prize > settings.prize_cap:
        return _fail(
            "K3",
            f"a {format_money(flare.seal.prize)} seal prize is above the {cap} cap per ticket",
        )
    if flare.winners > flare.tickets:
        return _fail(
            "DEAL",
            f"the flare lists {flare.winners:,} winners but deal {serial} has only "
            f"{_tickets(flare.tickets)}",
        )
    return Decision.allow()


def sign_up_sheet_required(flare: Flare) -> bool:
    """C5: a seal card deal comes with its sign-up sheet. K4: an event game decided by a seal
    card (an event deal with seal terms) needs none, and neither does any other event game."""
    return flare.game is GameType.SEAL_CARD


def check_bin(
    holding: Sequence[GameType], adding: GameType, *, commingling: bool, settings: Settings
) -> Decision:
    """May a deal of type `adding` go into a bin already holding deals of types `holding`? (C3)

    - an empty bin takes any deal;
    - a seal card deal never shares a bin, either way (C 3: "Seal card deals shall not be
      commingled");
    - an event game deal never shares a bin either: C 3 allows commingling "unsold instant bingo
      cards and pull-tabs", but an event game's winners are decided within its session (K 5) and
      its tickets sell only at its own flare's price (K 2), so its tickets must stay apart;
    - pull-tab deals share only when the posted house rules disclose commingling (`commingling`),
      and at most 1 + settings.commingle_additional_deals deals (two, in Virginia) share a bin.
    """
    if not holding:
        return Decision.allow()
    kinds = ", ".join(str(kind) for kind in holding)
    if adding is GameType.SEAL_CARD or GameType.SEAL_CARD in holding:
        return _fail(
            "C3",
            f"a seal card deal never shares a bin; this bin holds {kinds} and the new deal is "
            f"{adding}",
        )
    if adding is GameType.EVENT or GameType.EVENT in holding:
        return _fail(
            "C3",
            f"an event game deal never shares a bin; this bin holds {kinds} and the new deal is "
            f"{adding}",
        )
    if not commingling:
        return _fail(
            "C3",
            f"this bin already holds {len(holding)} pull-tab deal(s), and the house rules do not "
            "disclose commingling deals",
        )
    most = 1 + settings.commingle_additional_deals
    if len(holding) + 1 > most:
        return _fail(
            "C3",
            f"this bin already holds {len(holding)} pull-tab deal(s); at most {most} deal(s) "
            "may be commingled in one bin",
        )
    return Decision.allow()


def check_sale_price(flare: Flare, price: int) -> Decision:
    """Tickets sell only at the flare's price: K2 for event games, DEAL for the others."""
    if price == flare.price:
        return Decision.allow()
    wanted, shown = format_money(flare.price), format_money(price)
    if flare.game is GameType.EVENT:
        return _fail(
            "K2",
            f"event game tickets of deal {flare.serial} sell only at the flare's price of "
            f"{wanted}, not {shown}",
        )
    return _fail(
        "DEAL",
        f"tickets of deal {flare.serial} sell at the flare's price of {wanted}, not {shown}",
    )


def check_quantity(remaining: int, qty: int) -> Decision:
    """A sale is at least one ticket and never more than remain in the deal (DEAL)."""
    if qty < 1:
        return _fail("DEAL", f"a sale is at least 1 ticket, not {qty:,}")
    if remaining <= 0:
        return _fail("DEAL", f"no tickets remain in this deal; {_tickets(qty)} cannot be sold")
    if qty > remaining:
        return _fail(
            "DEAL", f"only {_tickets(remaining)} remain in this deal; {qty:,} cannot be sold"
        )
    return Decision.allow()


def age_on(date_of_birth: date, on: date) -> int:
    """Whole years of age on a day. Someone born on 29 February has a birthday on 1 March in
    years without a 29 February (never on 28 February: the later day, so no one is sold to
    early)."""
    before_birthday = (on.month, on.day) < (date_of_birth.month, date_of_birth.day)
    return on.year - date_of_birth.year - int(before_birthday)


def check_age(date_of_birth: date, on: date, settings: Settings) -> Decision:
    """AGE: the buyer is at least settings.minimum_age years old on `on`.

    The message gives the age, never the date of birth (it may be recorded with the refusal).
    """
    minimum = settings.minimum_age
    if date_of_birth > on:
        return _fail(
            "AGE",
            f"the date of birth given is after {on.isoformat()}; the buyer cannot be confirmed "
            f"to be {minimum} or older",
        )
    age = age_on(date_of_birth, on)
    if age < minimum:
        return _fail(
            "AGE",
            f"the buyer is {age} on {on.isoformat()}; no one under {minimum} may buy, play or "
            "redeem",
        )
    return Decision.allow()


def _fiscal_year_start(day: date, settings: Settings) -> date:
    start = date(day.year, settings.fiscal_year_start_month, settings.fiscal_year_start_day)
    if day < start:
        start = date(day.year - 1, start.month, start.day)
    return start


def keep_until(closed_on: date, settings: Settings) -> date:
    """The last day a closed deal's unsold tickets (and its records) must be kept (C4):
    retention_years after the close of the fiscal year containing `closed_on`.

    The fiscal year ends the day before the next one starts; the keep-until day is the day before
    the fiscal-year start `retention_years` later, so leap days take care of themselves.
    """
    start = _fiscal_year_start(closed_on, settings)
    years = 1 + settings.retention_years
    return date(start.year + years, start.month, start.day) - timedelta(days=1)


def claim_deadline_for_seal(deal_closed_on: date, settings: Settings) -> date:
    """B: the last day (inclusive) to claim a seal card prize known only once the seal is opened:
    seal_claim_days after the deal's close."""
    return deal_closed_on + timedelta(days=settings.seal_claim_days)


def rules_table(settings: Settings) -> list[dict[str, object]]:
    """Every rule for `booth rules --json`, with the settings it uses and their values."""
    values = settings.to_mapping()
    return [
        {
            "id": rule.id,
            "citation": rule.citation,
            "sentence": rule.sentence,
            "overridable": rule.overridable,
            "settings": {name: values[name] for name in rule.settings},
        }
        for rule in RULES.values()
    ]
