"""Every value a bingo-night, raffle or bookkeeping command takes, given as a careless or hostile
user would type it: a clear message naming the field, exit 2 (bad input) or 1 (refused by a
rule), and nothing recorded. Never a traceback, never a crash, never a half-written event."""

from __future__ import annotations

import pytest

from tests.halls import Hall
from tests.test_bingo_session import RAFFLE, S, bingo_hall, ok  # noqa: F401

HOSTILE = [
    "",
    "   ",
    "-1",
    "0",
    "1e9",
    "99999999999999999999999",
    "NaN",
    "inf",
    "$-5.00",
    "1.005",
    "12abc",
    "\x00",
    "\u202e01",  # right-to-left override
    "💥",
    "9" * 5000,
    "../../etc/passwd",
    "1,000,000.00",
    "0x10",
    "Robert'); DROP TABLE events;--",
]

# Each command line with one value replaced by {}: the value under attack.
COMMANDS = [
    ("bingo", "decision", "enter", "--game", "{}", "--faces", "5", *S),
    ("bingo", "decision", "enter", "--game", "4", "--faces", "{}", *S),
    ("bingo", "decision", "enter", "--game", "4", "--faces", "5", "--buyer", "{}", *S),
    ("bingo", "decision", "fees", "--game", "4", "--cards", "{}", *S),
    ("bingo", "decision", "show", "--game", "{}"),
    ("bingo", "pay", "--game", "{}", "--amount", "10.00", *S),
    ("bingo", "pay", "--game", "1", "--amount", "{}", *S),
    ("bingo", "pay", "--game", "1", "--amount", "10.00", "--winners", "{}", *S),
    ("bingo", "pay", "--game", "1", "--amount", "10.00", "--player", "{}", *S),
    ("bingo", "chest", "sell", "--game", "8", "--qty", "{}", *S),
    ("bingo", "chest", "participant", "--game", "8", "--via", "{}", *S),
    ("bingo", "chest", "open", "--game", "8", "--opened", "--prize", "{}", *S),
    ("bingo", "chest", "open", "--game", "8", "--opened", "--keys-tried", "{}", *S),
    ("bingo", "chest", "show", "--game", "{}"),
    ("bingo", "progressive", "result", "--game", "{}", "--won", *S),
    ("paper", "sell", "--pack", "{}", *S),
    ("paper", "sell", "--series", "{}", *S),
    ("paper", "sell", "--series", "R6", "--qty", "{}", *S),
    ("paper", "sell", "--series", "R6", "--price", "{}", *S),
    ("paper", "return", "{}", *S),
    ("paper", "issue", "R6", "--first", "{}", "--last", "1010", "--to", "booth-1"),
    ("paper", "issue", "R6", "--first", "1001", "--last", "1010", "--to", "{}"),
    ("paper", "void", "R6", "--first", "1001", "--last", "{}", "--reason", "torn"),
    ("paper", "receive", "--series", "{}", "--manufacturer", "Arrow", "--faces", "6-on",
     "--first", "1", "--last", "10", "--invoice", "INV-9"),
    ("paper", "receive", "--series", "Q1", "--manufacturer", "Arrow", "--faces", "{}",
     "--first", "1", "--last", "10", "--invoice", "INV-9"),
    ("paper", "receive", "--series", "Q1", "--manufacturer", "Arrow", "--faces", "6-on",
     "--first", "{}", "--last", "10", "--invoice", "INV-9"),
    ("paper", "receive", "--series", "Q1", "--manufacturer", "Arrow", "--faces", "6-on",
     "--first", "1", "--last", "10", "--invoice", "INV-9", "--cost", "{}"),
    ("raffle", "sell", "{}", *S),
    ("raffle", "sell", RAFFLE, "--qty", "{}", *S),
    ("raffle", "void", RAFFLE, "{}", "--reason", "misprinted"),
    ("raffle", "stubs", RAFFLE, "--count", "{}", "--witness", "S1"),
    ("raffle", "draw", RAFFLE, "{}"),
    ("raffle", "claim", RAFFLE, "--place", "{}"),
    ("raffle", "claim", RAFFLE, "--place", "1", "--code", "{}"),
    ("raffle", "create", "{}", "--name", "Quilt", "--drawing", "2026-12-24", "--price", "5.00",
     "--prize", "Quilt;250.00;appraisal"),
    ("raffle", "create", "R-Q", "--name", "Quilt", "--drawing", "{}", "--price", "5.00",
     "--prize", "Quilt;250.00;appraisal"),
    ("raffle", "create", "R-Q", "--name", "Quilt", "--drawing", "2026-12-24", "--price", "{}",
     "--prize", "Quilt;250.00;appraisal"),
    ("raffle", "create", "R-Q", "--name", "Quilt", "--drawing", "2026-12-24", "--price", "5.00",
     "--prize", "{}"),
    ("drawer", "count", "{}"),
    ("drawer", "count", "100.00", "--station", "{}"),
    ("drawer", "count", "100.00", "--session", "{}"),
    ("drawer", "verify", "{}", "--as", "S1"),
    ("deposit", "record", "--bag", "{}", "--session", "2026-11-28/1", "--cash", "10.00",
     "--taken-by", "M1"),
    ("deposit", "record", "--bag", "B1", "--session", "{}", "--cash", "10.00",
     "--taken-by", "M1"),
    ("deposit", "record", "--bag", "B1", "--session", "2026-11-28/1", "--cash", "{}",
     "--taken-by", "M1"),
    ("deposit", "record", "--bag", "B1", "--session", "2026-11-28/1", "--cash", "10.00",
     "--taken-by", "{}"),
    ("deposit", "record", "--bag", "B1", "--session", "2026-11-28/1", "--cash", "10.00",
     "--taken-by", "M1", "--on", "{}"),
    ("deposit", "confirm", "{}", "--credited", "10.00"),
    ("disbursement", "record", "--payee", "Hall rent", "--amount", "{}", "--check", "1001",
     "--category", "rent"),
    ("disbursement", "record", "--payee", "Hall rent", "--amount", "300.00", "--check", "1001",
     "--category", "{}"),
    ("disbursement", "record", "--payee", "{}", "--amount", "300.00", "--check", "1001",
     "--category", "rent"),
    ("bank", "balance", "--on", "{}", "--amount", "100.00"),
    ("bank", "balance", "--on", "2026-11-27", "--amount", "{}"),
    ("report", "quarter", "--year", "{}", "--quarter", "4"),
    ("report", "quarter", "--year", "2026", "--quarter", "{}"),
    ("report", "annual", "--year", "{}"),
    ("program", "edit", "Saturday Night", "--game", "1", "--set", "{}"),
    ("program", "edit", "Saturday Night", "--game", "1", "--set", "prize={}"),
    ("program", "edit", "{}", "--game", "1", "--set", "prize=50.00"),
    ("web", "revoke", "{}"),
    ("acceptor", "set", "{}"),
]  # fmt: skip


def _line(command: tuple[str, ...], value: str) -> list[str]:
    return [value if part == "{}" else part for part in command]


@pytest.fixture
def night(bingo_hall: Hall) -> Hall:  # noqa: F811
    """The bingo hall with its session open, one decision entry and a raffle with a ticket."""
    ok(bingo_hall("session", "open"))
    ok(bingo_hall("bingo", "decision", "enter", "--game", "4", "--faces", "5", *S))
    ok(
        bingo_hall(
            "raffle", "create", RAFFLE, "--name", "Holiday Raffle", "--drawing", "2026-12-20",
            "--price", "5.00", "--prize", "Handmade quilt;250.00;appraisal",
        )
    )  # fmt: skip
    ok(bingo_hall("raffle", "sell", RAFFLE, "--qty", "2", *S))
    return bingo_hall


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(p for p in c[:4] if p))
def test_a_hostile_value_is_a_clear_refusal_that_records_nothing(
    night: Hall, command: tuple[str, ...]
) -> None:
    before = night.count()
    for value in HOSTILE:
        result = night(*_line(command, value))
        shown = f"{' '.join(_line(command, value[:40]))!r}: {result.exit_code} {result.stderr}"
        assert "Traceback" not in result.stderr + result.stdout, shown
        if result.exit_code == 0:
            # some values are good ones (0 keys tried is refused, "0" as a bag is a bag...)
            before = night.count()
            continue
        assert result.exit_code in (1, 2), shown
        assert result.stderr.strip(), shown
        assert len(result.stderr) < 2000, f"a message, not a dump: {shown[:300]}"
        assert night.count() == before, f"recorded something: {shown}"
