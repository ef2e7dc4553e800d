"""Every command in the README, on a live station: the same result as on an idle one.

Two copies of the demo hall's manager and booth stations take the same commands in the same
order: one copy with nothing running, the other held by its owner (`booth serve`, with its
replicator running, the booth's zeroconf discovery running, and another station pulling from
the manager; or the touch screen, `booth run
--headless`). Each command must give the same exit code and, where its output is
deterministic, the same output. A command added to the README without a row here fails.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live.owners import ROOT, Ran, booth, make_demo_hall, owner, sync_url

pytestmark = pytest.mark.slow

MANAGER, BOOTH = "manager", "booth-1"
M, S, I = ("--as", "M100"), ("--as", "S200"), ("--as", "I300")  # noqa: E741


@dataclass(frozen=True)
class Case:
    command: str  # as the README names it
    station: str
    args: tuple[str, ...]
    exact: bool = True  # False: the output carries fresh keys, ids or wall-clock times
    stdin: str | None = None


CASES = [
    Case("init", MANAGER, ("init", "--org", "X", "--location", "Y",
                           "--time-zone", "America/New_York")),
    Case("join", BOOTH, ("join", "booth-9.join.json")),
    Case("staff add", MANAGER, ("staff", "add", "--name", "Pat New", "--badge", "S900",
                                "--role", "seller", "--dob", "1990-01-01", *M)),
    Case("staff consent", MANAGER, ("staff", "consent", "S200", "--guardian", "Pat Parent",
                                    "--signed", "2026-11-01", *M)),
    Case("staff list", MANAGER, ("staff", "list", *M)),
    Case("verify", MANAGER, ("verify", "--json")),
    Case("deal receive", MANAGER, ("deal", "receive", "--flare", "flare.json", *M, "--json")),
    Case("deal list", MANAGER, ("deal", "list")),
    Case("deal show", MANAGER, ("deal", "show", "A100001", "--json", *M)),
    Case("deal open", MANAGER, ("deal", "open", "A777777", "--bin", "drawer-9", *M)),
    Case("house set", MANAGER, ("house", "set", "buyer-id-required", "off", *M)),
    Case("house show", MANAGER, ("house", "show")),
    Case("house post", MANAGER, ("house", "post", "conduct", "--text", "No smoking.", *M)),
    Case("house posted", MANAGER, ("house", "posted", "--all")),
    Case("house sheet", MANAGER, ("house", "sheet", "--pdf", "house.pdf")),
    Case("rules", MANAGER, ("rules",)),
    Case("rules set", MANAGER, ("rules", "set", "prize_cap", "2000.00", *M)),
    Case("roster import", MANAGER, ("roster", "import", "roster.csv", *M)),
    Case("roster show", MANAGER, ("roster", "show", "--date", "2026-11-28", *M)),
    Case("roster add", MANAGER, ("roster", "add", "--badge", "S901", "--name", "Lee Helper",
                                 "--dob", "1980-03-04",
                                 "--organisation", "Riverside VFC", "--date", "2026-11-28",
                                 "--start", "20:00", "--end", "23:00", "--duty", "bingo", *M)),
    Case("roster change", MANAGER, ("roster", "change", "{S901}", "--end", "23:30",
                                    *M)),
    Case("roster cancel", MANAGER, ("roster", "cancel", "{S901}", *M)),
    Case("check-buyer", MANAGER, ("check-buyer", "S900", "--json", *M)),
    Case("device add", BOOTH, ("device", "add", "D1", "D2", "D3", "--model", "TED-C", *M)),
    Case("device retire", BOOTH, ("device", "retire", "D3", *M)),
    Case("device package", BOOTH, ("device", "package", "Basic", "--faces", "12",
                                     "--games", "10", "--price", "15.00", *M)),
    Case("device list", BOOTH, ("device", "list")),
    Case("sell", BOOTH, ("sell", "A100001", "--qty", "3", *S, "--json")),
    Case("player register", BOOTH, ("player", "register", "P-1001", "--dob", "1970-01-01",
                                     "--initials", "JQ", *S, "--json")),
    Case("dispenser set", BOOTH, ("dispenser", "set", "sim", *M)),
    Case("acceptor set", BOOTH, ("acceptor", "set", "sim:fail=jam", *M, "--json")),
    Case("redeem", BOOTH, ("redeem", "A100001/0042/25000", *S, "--json")),
    Case("punch", BOOTH, ("punch", "A100001/0042/25000", *S, "--json")),
    Case("void", BOOTH, ("void", "A100002/0007/10000", "--reason", "torn", *S)),
    Case("check", BOOTH, ("check", "A100001/0042/25000", "--json")),
    Case("scanner set", BOOTH, ("scanner", "set", "stdin", *M)),
    Case("scan", BOOTH, ("scan", "--limit", "2", *S), stdin="A100001/0043/5000\nGARBLED\n"),
    Case("seal sign", BOOTH, ("seal", "sign", "S200001", "--line", "3", "--ticket", "013",
                              "--player", "P-1001", *S)),
    Case("seal sheet", BOOTH, ("seal", "sheet", "S200001", *M)),
    Case("seal open", BOOTH, ("seal", "open", "S200001", "--line", "3", *M)),
    Case("seal claim", BOOTH, ("seal", "claim", "S200001", "--line", "3", *S)),
    Case("rent", BOOTH, ("rent", "--faces", "12", "--games", "10", *S, "--json")),
    Case("device return", BOOTH, ("device", "return", "D1", *S)),
    Case("device exchange", BOOTH, ("device", "exchange", "D1", "--witness", "P-1001",
                                    "--no-numbers-keyed", *S)),
    Case("device faces", BOOTH, ("device", "faces", "D1", "--game", "1")),
    Case("paper receive", BOOTH, ("paper", "receive", "--series", "R6", "--manufacturer", "Arrow",
                                  "--faces", "6-on", "--first", "1001", "--last", "1100",
                                  "--invoice", "INV-7", *M)),
    Case("paper receive", BOOTH, ("paper", "receive", "--series", "PROG", "--manufacturer",
                                  "Arrow", "--faces", "1-on", "--first", "1", "--last", "50",
                                  "--invoice", "INV-7", "--progressive", *M)),
    Case("paper pack", BOOTH, ("paper", "pack", "Door", "--price", "20.00", "--item", "R6:2",
                               "--games", "6-on, 9 games + 2 specials", *M)),
    Case("paper packs", BOOTH, ("paper", "packs")),
    Case("program create", BOOTH, ("program", "create", "--file", "program.json", *M, "--json")),
    Case("program edit", BOOTH, ("program", "edit", "Live Night", "--game", "1", "--set",
                                 "prize=90.00", *M)),
    Case("program show", BOOTH, ("program", "show", "--json")),
    Case("program print", BOOTH, ("program", "print", "--pdf", "program.pdf")),
    Case("paper sell", BOOTH, ("paper", "sell", "--pack", "Door", "--qty", "2", *S, "--json")),
    Case("paper sell", BOOTH, ("paper", "sell", "--series", "PROG", "--qty", "3", *S)),
    Case("paper return", BOOTH, ("paper", "return", "999999", *M)),
    Case("paper issue", BOOTH, ("paper", "issue", "R6", "--first", "1090", "--last", "1100",
                                "--to", "manager", *M)),
    Case("paper void", BOOTH, ("paper", "void", "R6", "--first", "1080", "--last", "1080",
                               "--reason", "torn", *S)),
    Case("paper stock", BOOTH, ("paper", "stock", "--json", *M)),
    Case("paper reconcile", BOOTH, ("paper", "reconcile", "--session", "2026-11-28/1", "--json",
                                    *M)),
    Case("bingo pay", BOOTH, ("bingo", "pay", "--game", "1", "--amount", "90.00", "--winners",
                              "2", *S, "--json")),
    Case("bingo decision enter", BOOTH, ("bingo", "decision", "enter", "--game", "2",
                                         "--faces", "30", *S)),
    Case("bingo decision fees", BOOTH, ("bingo", "decision", "fees", "--game", "2",
                                        "--cards", "30", *S)),
    Case("bingo decision announce", BOOTH, ("bingo", "decision", "announce", "--game", "2", *S)),
    Case("bingo decision show", BOOTH, ("bingo", "decision", "show", "--game", "2", "--json", *M)),
    Case("bingo progressive result", BOOTH, ("bingo", "progressive", "result", "--game", "3",
                                             "--not-won", *M)),
    Case("bingo progressive posting", BOOTH, ("bingo", "progressive", "posting", "--pdf",
                                              "posting.pdf")),
    Case("bingo chest sell", BOOTH, ("bingo", "chest", "sell", "--game", "4", "--qty", "5", *S)),
    Case("bingo chest participant", BOOTH, ("bingo", "chest", "participant", "--game", "4",
                                            "--via", "1", *S)),
    Case("bingo chest show", BOOTH, ("bingo", "chest", "show", "--game", "4", "--json", *M)),
    Case("bingo chest open", BOOTH, ("bingo", "chest", "open", "--game", "4", "--opened",
                                     "--prize", "25.00", *S)),
    Case("exception list", MANAGER, ("exception", "list", "--json", *M)),
    Case("exception resolve", MANAGER, ("exception", "resolve", "booth-1:1",
                                        "--decision", "noted", "--note", "seen", *M)),
    Case("receipt verify", BOOTH, ("receipt", "verify", "NOT-A-RECEIPT")),
    Case("receipt show", BOOTH, ("receipt", "show", "1", "--png", "receipt-1.png", *M)),
    Case("printer set", BOOTH, ("printer", "set", "file:printer.bin", *M)),
    Case("receipt reprint", BOOTH, ("receipt", "reprint", "1", *S)),
    Case("printer status", BOOTH, ("printer", "status", "--json", *M)),
    Case("printer test", BOOTH, ("printer", "test")),
    Case("voucher issue", BOOTH, ("voucher", "issue", "5.00", *S, "--json")),
    Case("voucher redeem", BOOTH, ("voucher", "redeem", "NOT-A-VOUCHER", *S)),
    Case("raffle create", BOOTH, ("raffle", "create", "LIVE1", "--name", "Live raffle",
                                  "--drawing", "2026-11-28", "--price", "5.00",
                                  "--prize", "Quilt;250.00;appraisal", *M, "--json")),
    Case("raffle sell", BOOTH, ("raffle", "sell", "LIVE1", "--qty", "3", *S, "--json")),
    Case("raffle void", BOOTH, ("raffle", "void", "LIVE1", "2", "--reason", "misprint", *M)),
    Case("raffle stubs", BOOTH, ("raffle", "stubs", "LIVE1", "--count", "3",
                                 "--witness", "S200", *M)),
    Case("raffle stubs", BOOTH, ("raffle", "stubs", "LIVE1", "--count", "2",
                                 "--witness", "S200", *M)),
    Case("raffle draw", BOOTH, ("raffle", "draw", "LIVE1", "3", *M, "--json")),
    Case("raffle claim", BOOTH, ("raffle", "claim", "LIVE1", "--place", "1", *S, "--json")),
    Case("raffle show", BOOTH, ("raffle", "show", "LIVE1", "--json", *M)),
    Case("raffle list", BOOTH, ("raffle", "list", *M)),
    Case("drawer count", MANAGER, ("drawer", "count", "114.50", "--station", "booth-1", *M)),
    Case("drawer verify", MANAGER, ("drawer", "verify", "114.50", "--station", "booth-1", *S)),
    Case("drawer variances", MANAGER, ("drawer", "variances", *M)),
    Case("deposit record", MANAGER, ("deposit", "record", "--bag", "B-1", "--session",
                                     "2026-11-28/1", "--cash", "100.00", "--taken-by", "M100",
                                     "--on", "2026-11-30", *M)),
    Case("deposit confirm", MANAGER, ("deposit", "confirm", "B-1", "--credited", "100.00",
                                      "--on", "2026-12-01", *M)),
    Case("deposit list", MANAGER, ("deposit", "list", "--json", *M)),
    Case("disbursement record", MANAGER, ("disbursement", "record", "--payee", "Bingo Supply Co",
                                          "--amount", "250.00", "--check", "1001", "--on",
                                          "2026-11-30", "--category", "supplies", "--invoice",
                                          "INV-9", *M)),
    Case("disbursement list", MANAGER, ("disbursement", "list", *M)),
    Case("bank balance", MANAGER, ("bank", "balance", "--on", "2026-11-30", "--amount", "5000.00",
                                   *M)),
    Case("session close", BOOTH, ("session", "close", *M)),
    Case("session reopen", BOOTH, ("session", "reopen", "--manager", "M100", "--reason",
                                   "a late sale to ring up")),
    Case("session close", BOOTH, ("session", "close", *M)),
    Case("session open", MANAGER, ("session", "open", *M)),
    Case("report day", MANAGER, ("report", "day", "--date", "2026-11-28", "--json", *M)),
    Case("report form", MANAGER, ("report", "form", "--date", "2026-11-28", "--pdf", "form.pdf",
                                  *M)),
    Case("report deal", MANAGER, ("report", "deal", "A100001", *M)),
    Case("report retention", MANAGER, ("report", "retention")),
    Case("report quarter", MANAGER, ("report", "quarter", "--year", "2026", "--quarter", "4",
                                     "--xlsx", "q4.xlsx", "--pdf", "q4.pdf", "--csv", "q4.csv",
                                     *M)),
    Case("report quarter-final", MANAGER, ("report", "quarter-final", "--year", "2026",
                                           "--quarter", "3", *M)),
    Case("report annual", MANAGER, ("report", "annual", "--year", "2026", "--json", *M)),
    Case("deal close", MANAGER, ("deal", "close", "A777777", "--unsold", "4000",
                                 "--note", "offered all week", *M)),
    Case("session schedule", MANAGER, ("session", "schedule", "2026-12-05", *M)),
    Case("export", MANAGER, ("export", "--inspector", "inspection", *I), exact=False),
    Case("web pair", MANAGER, ("web", "pair", "--role", "treasurer", "--url",
                               "https://127.0.0.1:8443", *M), exact=False),
    Case("web sessions", MANAGER, ("web", "sessions", *M)),
    Case("web revoke", MANAGER, ("web", "revoke", "--all", *M)),
    Case("sync now", MANAGER, ("sync", "now")),
    Case("sync status", MANAGER, ("sync", "status"), exact=False),
    Case("sync peer add", MANAGER, ("sync", "peer", "add", "https://127.0.0.1:9/", *M)),
    Case("sync peer remove", MANAGER, ("sync", "peer", "remove", "https://127.0.0.1:9/", *M)),
    Case("sync upstream set", MANAGER, ("sync", "upstream", "set", "https://127.0.0.1:9/hall",
                                        "--user", "hall", "--password-file", "pw.txt", *M)),
    Case("sync finish-restore", MANAGER, ("sync", "finish-restore", *M)),
    Case("sync upstream status", MANAGER, ("sync", "upstream", "status")),
    Case("sync upstream push", MANAGER, ("sync", "upstream", "push")),
    Case("sync upstream pull", MANAGER, ("sync", "upstream", "pull")),
    Case("sync upstream remove", MANAGER, ("sync", "upstream", "remove", *M)),
    Case("handover", BOOTH, ("handover", "A100003", "--bin", "drawer-8", *M)),
    Case("rebuild", MANAGER, ("rebuild",)),
    Case("station add", MANAGER, ("station", "add", "booth-9", "--role", "booth",
                                  "--out", "booth-9.join.json", *M), exact=False),
    Case("backup", MANAGER, ("backup", "."), exact=False),
    Case("restore", MANAGER, ("restore", "no-such-backup", "--hall", "restored")),
    # last: a PIN's hash has a random salt, so the ledgers' digests differ after it
    Case("staff pin", MANAGER, ("staff", "pin", "S200", "--pin-stdin", *M), stdin="4826\n"),
]  # fmt: skip

#: README commands with no row, and why.
NOT_HERE = {
    "serve": "the owner itself: a second one on a live station is refused by design",
    "run": "the owner itself: a second one on a live station is refused by design",
    "demo": "makes a hall of its own, not a command on a station",
}


def readme_commands() -> set[str]:
    text = (ROOT / "README.md").read_text()
    return set(re.findall(r"^\| `booth ([a-z][a-z -]*?)`", text, re.M))


def test_every_readme_command_has_a_row() -> None:
    named = {case.command for case in CASES} | set(NOT_HERE)
    assert readme_commands() - named == set()


FLARE = {
    "serial": "A777777", "game": "pull-tab", "name": "Live Wire", "form": "LW-1",
    "manufacturer": "Arrow", "tickets": 4000, "price": "1.00",
    "prizes": [{"amount": "100.00", "count": 2}, {"amount": "5.00", "count": 100}],
    "supplier": {"name": "Bingo Supply Co", "address": "1 Main St"}, "invoice": "INV-9",
}  # fmt: skip
PROGRAM = {
    "name": "Live Night", "house_rules": "Players must be present to win.",
    "games": [
        {"kind": "regular", "name": "Early Bird", "pattern": "any line", "prize": "100.00"},
        {"kind": "decision", "name": "Decision", "entry": "1.00", "fee": "0.25"},
        {"kind": "progressive", "name": "Lucky 7", "paper": "PROG", "price": "1.00",
         "calls": 50, "prize": "500.00", "increase": "100.00"},
        {"kind": "treasure-chest", "price": "2.00", "house_rules": "The winner tries a key."},
        {"kind": "raffle", "name": "50/50 drawing", "raffle": "R1"},
    ],
    "products": [{"kind": "pack", "name": "Door"}],
}  # fmt: skip
ROSTER = "name,date_of_birth,badge,organisation,date,start,end,duty\n" + (
    "Pat New,1990-01-01,S900,Riverside VFC,2026-11-28,17:00,23:00,sell\n"
)


def _copy(demo: Path, into: Path) -> Path:
    into.mkdir()
    for name in (MANAGER, BOOTH):
        shutil.copytree(demo / name, into / name)
        for stale in ("control.sock", "station.lock"):
            (into / name / stale).unlink(missing_ok=True)
    (into / "flare.json").write_text(json.dumps(FLARE))
    (into / "roster.csv").write_text(ROSTER)
    (into / "pw.txt").write_text("secret\n")
    (into / "program.json").write_text(json.dumps(PROGRAM))
    return into


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")


def _normal(text: str, root: Path) -> str:
    # An owner does work of its own between commands (the touch screen prints the receipts
    # waiting when it starts), so the seq of a command's event may differ: not its content.
    text = re.sub(r'"(event|payment)": "([\w-]+):\d+"', r'"\1": "\2:#"', text)
    # A voucher's short code comes from its issue's signature, over an event stamped when it
    # was written: the same voucher issued in two halls has two codes.
    text = re.sub(r'"code": "[0-9A-Z-]+"', '"code": "#"', text)
    return text.replace(str(root), "<HALL>")


def _shift_key(station: Path, badge: str) -> str:
    shifts = json.loads(
        booth(station, "roster", "show", "--date", "2026-11-28", "--json", *M).stdout
    )
    return next(str(shift["key"]) for shift in shifts if shift["badge"] == badge)


def _args(case: Case, station: Path) -> list[str]:
    return [_shift_key(station, "S901") if arg == "{S901}" else arg for arg in case.args]


def _run_both(idle: Path, live: Path) -> Iterator[tuple[Case, Ran, Ran]]:
    for case in CASES:
        a = booth(idle / case.station, *_args(case, idle / case.station), stdin=case.stdin)
        b = booth(live / case.station, *_args(case, live / case.station), stdin=case.stdin)
        yield case, a, b


def _check(idle: Path, live: Path) -> None:
    differences, succeeded = [], 0
    for case, a, b in _run_both(idle, live):
        succeeded += a.exit_code == 0
        same = a.exit_code == b.exit_code
        if same and case.exact:
            same = _normal(a.stdout, idle) == _normal(b.stdout, live)
            same = same and _normal(a.stderr, idle) == _normal(b.stderr, live)
        if not same:
            differences.append((case.command, a, b))
    assert not differences, "\n\n".join(
        f"{name}:\n  idle {a.exit_code}: {a.stdout[-600:]!r} {a.stderr[-300:]!r}\n"
        f"  live {b.exit_code}: {b.stdout[-600:]!r} {b.stderr[-300:]!r}"
        for name, a, b in differences
    )
    assert succeeded >= 48, "most commands must do their work, not only refuse alike"
    assert (live / "form.pdf").read_bytes()[:4] == b"%PDF"
    assert (live / "inspection").is_dir() and any((live / "inspection").iterdir())
    assert (live / "receipt-1.png").read_bytes()[:4] == b"\x89PNG"
    assert (live / "q4.pdf").read_bytes()[:4] == b"%PDF"
    assert (live / "q4.xlsx").read_bytes()[:2] == b"PK" and (live / "q4.csv").read_text()


# 126 commands run twice each (idle and live) in their own processes: a hang guard, not a
# speed target, above pytest's default 300 s.
@pytest.mark.timeout(1200)
def test_every_command_beside_booth_serve(demo: Path, tmp_path: Path) -> None:
    idle, live = _copy(demo, tmp_path / "idle"), _copy(demo, tmp_path / "live")
    peer = tmp_path / "peer"
    shutil.copytree(demo / "kiosk-1", peer)
    serve = ("serve", "--port", "0", "--no-discovery", "--interval", "0.5")
    with ExitStack() as owners:
        manager_log = owners.enter_context(owner(live / MANAGER, *serve))
        # the booth runs zeroconf discovery (on 127.0.0.1): it browses and announces; nothing
        # else announces, so it pulls from nobody and stays comparable with its idle copy
        owners.enter_context(owner(live / BOOTH, "serve", "--port", "0", "--interval", "0.5"))
        url = sync_url(manager_log)
        assert url is not None
        # another station pulls from the live manager all along
        owners.enter_context(owner(peer, "serve", "--port", "0", "--no-discovery",
                                   "--interval", "0.3"))  # fmt: skip
        assert booth(peer, "sync", "peer", "add", url, *M).exit_code == 0
        _check(idle, live)


# 126 commands run twice each (idle and live) in their own processes: a hang guard, not a
# speed target, above pytest's default 300 s.
@pytest.mark.timeout(1200)
def test_every_command_beside_the_touch_screen(demo: Path, tmp_path: Path) -> None:
    idle, live = _copy(demo, tmp_path / "idle"), _copy(demo, tmp_path / "live")
    with ExitStack() as owners:
        for name in (MANAGER, BOOTH):
            owners.enter_context(owner(live / name, "run", "--headless"))
        _check(idle, live)
