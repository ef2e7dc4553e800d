"""Every product kind the hall sells, as one shape the money contract suite runs against.

A kind names, as the `booth` command at booth-1 takes them: its sale (one write of money in), a
sale the kind's limits refuse, a sale with a bad value, whether its sale takes a buyer (for
rule D and the age rule), its line on the day report, and, for a kind that pays a prize, the
steps that make the prize payable and the payment itself. A new kind joins the suite by joining
KINDS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tests.contract.hall_night import RAFFLE

S = ("--as", "S1")
M = ("--as", "M1")

Steps = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Kind:
    name: str
    sale: tuple[str, ...]
    over_limit: tuple[str, ...]  # refused by the kind's limits (stock, a prize limit...)
    bad_value: tuple[str, ...]  # a value no person means: exit 2, nothing recorded
    report_line: str | None  # the day report's product line (None: not a product sold)
    takes_buyer: bool = True
    prepare_prize: Steps = ()
    prize: tuple[str, ...] | None = None
    prize_over_limit: tuple[str, ...] | None = None
    #: the voucher's payment needs its printed code: filled in by the suite
    prize_needs_code: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def with_buyer(self, buyer: str) -> tuple[str, ...]:
        return (*self.sale, "--buyer", buyer)


def _ticket_kind(name: str, serial: str, tier: str, tickets: int, line: str) -> Kind:
    return Kind(
        name=name,
        sale=("sell", serial, "--qty", "2", *S),
        over_limit=("sell", serial, "--qty", str(tickets + 1), *S),
        bad_value=("sell", serial, "--qty", "-1", *S),
        report_line=line,
        prepare_prize=(("sell", serial, "--qty", "10", *S),),
        prize=("redeem", f"{serial}/0042/{tier}", *S),
        prize_over_limit=("redeem", f"{serial}/0043/99999", *S),
    )


KINDS: tuple[Kind, ...] = (
    _ticket_kind("pull-tab", "A123456", "10000", 4000, "pull-tabs"),
    _ticket_kind("seal card", "S777", "5000", 300, "seal cards"),
    _ticket_kind("event game", "E100", "2000", 500, "event games"),
    Kind(
        name="device rental",
        sale=("rent", "--faces", "12", "--games", "10", *S),
        over_limit=("rent", "--faces", "55", "--games", "10", *S),
        bad_value=("rent", "--faces", "-3", *S),
        report_line="bingo paper, packs and devices",
    ),
    Kind(
        name="bingo paper",
        sale=("paper", "sell", "--series", "R6", "--qty", "2", "--price", "1.00", *S),
        over_limit=("paper", "sell", "--series", "R6", "--qty", "101", "--price", "1.00", *S),
        bad_value=("paper", "sell", "--series", "R6", "--qty", "two", "--price", "1.00", *S),
        report_line="bingo paper, packs and devices",
        prize=("bingo", "pay", "--game", "1", "--amount", "100.00", *S),
        prize_over_limit=("bingo", "pay", "--game", "1", "--amount", "100.01", *S),
    ),
    Kind(
        name="pack",
        sale=("paper", "sell", "--pack", "Door", "--qty", "1", *S),
        over_limit=("paper", "sell", "--pack", "Door", "--qty", "51", *S),
        bad_value=("paper", "sell", "--pack", "Door", "--qty", "0", *S),
        report_line="bingo paper, packs and devices",
        prize=("bingo", "pay", "--game", "2", "--amount", "100.00", *S),
        prize_over_limit=("bingo", "pay", "--game", "2", "--amount", "100.01", *S),
    ),
    Kind(
        name="decision",
        sale=("bingo", "decision", "enter", "--game", "4", "--faces", "150", *S),
        over_limit=("bingo", "decision", "enter", "--game", "4", "--faces", "100001", *S),
        bad_value=("bingo", "decision", "enter", "--game", "4", "--faces", "1.5", *S),
        report_line="decision bingo",
        prepare_prize=(
            ("bingo", "decision", "enter", "--game", "4", "--faces", "150", *S),
            ("bingo", "decision", "announce", "--game", "4", *S),
        ),
        prize=("bingo", "pay", "--game", "4", "--amount", "100.00", *S),
        prize_over_limit=("bingo", "pay", "--game", "4", "--amount", "150.00", *S),
    ),
    Kind(
        name="progressive",
        sale=("paper", "sell", "--series", "PROG", "--qty", "2", *S),
        over_limit=("paper", "sell", "--series", "PROG", "--qty", "51", *S),
        bad_value=("paper", "sell", "--series", "PROG", "--qty", "", *S),
        report_line="progressive bingo",
        prepare_prize=(("bingo", "progressive", "result", "--game", "5", "--won", *S),),
        prize=("bingo", "pay", "--game", "5", "--amount", "500.00", *S),
        prize_over_limit=("bingo", "pay", "--game", "5", "--amount", "500.01", *S),
    ),
    Kind(
        name="treasure chest",
        sale=("bingo", "chest", "sell", "--game", "8", "--qty", "3", *S),
        over_limit=("bingo", "chest", "sell", "--game", "8", "--qty", "100001", *S),
        bad_value=("bingo", "chest", "sell", "--game", "8", "--qty", "3x", *S),
        report_line="treasure chest",
        prepare_prize=(
            ("bingo", "chest", "sell", "--game", "8", "--qty", "3", *S),
            ("bingo", "pay", "--game", "7", "--amount", "50.00", *S),
            ("bingo", "chest", "participant", "--game", "8", "--via", "7", *S),
        ),
        prize=("bingo", "chest", "open", "--game", "8", "--opened", "--prize", "6.00", *S),
        prize_over_limit=(
            "bingo",
            "chest",
            "open",
            "--game",
            "8",
            "--not-opened",
            "--prize",
            "6.00",
            *S,
        ),
    ),
    Kind(
        name="raffle",
        sale=("raffle", "sell", RAFFLE, "--qty", "2", *S),
        over_limit=("raffle", "sell", RAFFLE, "--qty", "1000001", *S),
        bad_value=("raffle", "sell", RAFFLE, "--qty", "NaN", *S),
        report_line="raffles",
        prepare_prize=(
            ("raffle", "sell", RAFFLE, "--qty", "3", *S),
            ("raffle", "stubs", RAFFLE, "--count", "3", "--witness", "S1", "--witness", "M1", *M),
            ("raffle", "draw", RAFFLE, "1", *M),
        ),
        prize=("raffle", "claim", RAFFLE, "--place", "1", *S),
        prize_over_limit=("raffle", "claim", RAFFLE, "--place", "2", *S),  # not drawn yet
    ),
    Kind(
        name="voucher",
        sale=("voucher", "issue", "5.00", *S),
        over_limit=("voucher", "issue", "1000000.01", *S),
        bad_value=("voucher", "issue", "-5.00", *S),
        report_line=None,
        takes_buyer=False,
        prepare_prize=(("voucher", "issue", "5.00", *S),),
        prize=("voucher", "redeem", *S),
        prize_needs_code=True,
    ),
)

KIND_NAMES = tuple(kind.name for kind in KINDS)


def by_name(name: str) -> Kind:
    return next(kind for kind in KINDS if kind.name == name)


def paying(predicate: Callable[[Kind], bool] = lambda kind: kind.prize is not None) -> list[str]:
    return [kind.name for kind in KINDS if predicate(kind)]
