"""The soak test's hall, its clients and its LAN neighbour (tests/live/test_soak.py).

    python -m tests.live.soak client STATION_DIR PLAN.json ACKS.jsonl
    python -m tests.live.soak flood HOST PORT COUNT SECONDS

`client` plays one station's part of the night: each operation of its plan at its time, sent as
a `booth` command through pos.cli.client (the path the `booth` script takes) with its own request
id and BOOTH_NOW set to the hall time of the moment; one JSON line per operation, written as it
is acknowledged (or given up on). `flood` is a neighbour on the LAN: COUNT TCP connections to a
station's sync port that never start TLS, held for SECONDS, then closed.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pos.cli import client

HALL_START = datetime(2026, 11, 28, 23, 0, tzinfo=UTC)  # 18:00 in the hall: the session opens
PLAY_FROM = HALL_START + timedelta(minutes=5)  # the night's 30 minutes: 18:05-18:35
HALL_MINUTES = 30
STATIONS = {
    "manager": "manager",
    "booth-1": "booth",
    "booth-2": "booth",
    "booth-3": "booth",
    "kiosk-1": "kiosk",
    "kiosk-2": "kiosk",
}
SELLERS = [name for name, role in STATIONS.items() if role != "manager"]
DEALS = {name: f"A2000{n}" for n, name in enumerate(SELLERS, start=1)}  # one deal a station
BINS = {"booth": "drawer-1", "kiosk": "col-1"}
PLAYERS = ("C-1001", "C-1002", "C-1003", "C-1004")
RENTALS_AT = "booth-1"  # the device pool is first come first served: one station rents
DEVICES = [f"TED{n:03d}" for n in range(1, 81)]
SELLER = "S200"
MANAGER = "M100"
BOOTH = str(Path(sys.executable).parent / "booth")
# A busy hall's rate, per station and hall minute (a booth: a sale every ~12 s, a kiosk every
# ~20 s; a winner paid for every ~4 sales at a booth; a rental every ~45 s at the rental booth).
RATES = {"booth": {"sell": 5.0, "redeem": 1.3}, "kiosk": {"sell": 3.0}}
RENTAL_RATE = 1.3


def flare(serial: str) -> dict[str, Any]:
    return {
        "serial": serial,
        "game": "pull-tab",
        "name": f"Lucky 7s {serial[-1]}",
        "form": "LS-4000",
        "manufacturer": "Arrow",
        "tickets": 4000,
        "price": "1.00",
        "prizes": [
            {"amount": "500.00", "count": 1},
            {"amount": "100.00", "count": 2},
            {"amount": "5.00", "count": 300},
        ],
        "supplier": {"name": "Bingo Supply Co", "address": "1 Main St, Richmond VA"},
        "invoice": f"INV-{serial}",
    }


# -- the hall ---------------------------------------------------------------------------------


def build_hall(root: Path, urls: dict[str, str]) -> dict[str, Path]:
    """A training hall of six stations, set up in this process through the services (as
    `booth init`, `station add` and `join` would): staff, players, a deal in play at each booth
    and kiosk, devices and a package for rent, a session open; every station holds every event
    of the set-up, and lists every other station as a peer (`booth sync peer add`) at its URL
    in `urls`."""
    from pos.clock import FixedClock
    from pos.ledger import replication
    from pos.services import deals, devices_rental, players, sessions, settings, staff
    from pos.services import hall as hall_service
    from pos.services.replicate import pull
    from pos.services.station import Station, write_private

    environ = {"BOOTH_NOW": HALL_START.isoformat()}
    manager = root / "manager"
    hall_service.init_hall(
        manager,
        organisation="Soak Test Post",
        location="1 Soak Road",
        time_zone="America/New_York",
        training=True,
        environ=environ,
    )
    clock = FixedClock(HALL_START)
    with Station(manager, clock=clock) as st:
        for badge, name, roles in (
            (MANAGER, "Mo Manager", ["manager"]),
            (SELLER, "Sam Seller", ["seller", "redeemer"]),
        ):
            staff.add_staff(
                st,
                badge=badge,
                name=name,
                roles=roles,
                date_of_birth="1980-01-01",
                operator=MANAGER,
            )
        settings.set_house_rule(st, "kiosk-pull-tab-sales", "on", operator=MANAGER)
        for n, card in enumerate(PLAYERS):
            players.register_player(
                st,
                card=card,
                date_of_birth=f"196{n}-03-14",
                initials=f"P{n}",
                id_number=None,
                operator=SELLER,
            )
        for serial in DEALS.values():
            deals.receive_deal(st, deals.flare_from_mapping(flare(serial)), operator=MANAGER)
        devices_rental.add_devices(st, DEVICES, model="TED", operator=MANAGER)
        devices_rental.define_package(
            st, "Basic", faces="12", games="10", price="15.00", operator=MANAGER
        )
        sessions.open_session(st, operator=MANAGER)
        bundles = []
        for name in SELLERS:
            bundle = hall_service.add_station(st, name=name, role=STATIONS[name], operator=MANAGER)
            path = root / f"{name}.join.json"
            write_private(path, json.dumps(bundle))
            bundles.append((name, path))
    for name, path in bundles:
        hall_service.join(root / name, path, environ=environ)
    stations = {name: root / name for name in STATIONS}
    with contextlib.ExitStack() as stack:
        opened = {
            name: stack.enter_context(Station(path, clock=clock)) for name, path in stations.items()
        }
        for name in SELLERS:
            pull(opened["manager"].ledger, opened[name].ledger)
            deals.open_deal(
                opened[name], DEALS[name], bin_name=BINS[STATIONS[name]], operator=MANAGER
            )
        for _ in range(2):  # everyone holds everything, relayed events included
            for target in opened.values():
                for source in opened.values():
                    if source is not target:
                        pull(source.ledger, target.ledger)
        for name, st in opened.items():
            with st.ledger.transaction():
                for other, url in urls.items():
                    if other != name:
                        replication.list_peer(st.ledger.conn, url)
    return stations


# -- the night's plan -------------------------------------------------------------------------


def plan(name: str, seed: int) -> list[dict[str, Any]]:
    """One station's operations over the night: (hall second, kind, arguments, request id),
    at a busy hall's rate, in hall time order. Redemptions pay distinct $5 winners of the
    station's own deal; now and then a winner already paid is presented again (refused, C2)."""
    rng = random.Random(f"{seed}-{name}")
    role = STATIONS[name]
    serial = DEALS[name]
    rates = dict(RATES[role])
    if name == RENTALS_AT:
        rates["rent"] = RENTAL_RATE
    ops: list[dict[str, Any]] = []
    for kind, per_minute in rates.items():
        at = 0.0
        while True:
            at += rng.expovariate(per_minute / 60.0)
            if at >= HALL_MINUTES * 60:
                break
            ops.append({"at": at, "kind": kind})
    ops.sort(key=lambda op: op["at"])
    # a deal's winners are paid on a day it sold tickets (rule B): none before its first sale
    first_sale = next(op["at"] for op in ops if op["kind"] == "sell")
    ops = [op for op in ops if op["kind"] != "redeem" or op["at"] > first_sale]
    paid: list[int] = []
    for n, op in enumerate(ops):
        op["rid"] = f"soak-{name}-{n:04d}"
        kind = op["kind"]
        if kind == "sell" and role == "kiosk":
            buyer = rng.choice(PLAYERS)
            qty = rng.choice([1, 2, 3, 5])
            op["args"] = ["sell", serial, "--qty", str(qty), "--buyer", buyer, "--json"]
        elif kind == "sell":
            qty = rng.choice([1, 1, 2, 3, 5, 10])
            op["args"] = ["sell", serial, "--qty", str(qty), "--as", SELLER, "--json"]
        elif kind == "redeem":
            if paid and rng.random() < 0.08:
                ticket = rng.choice(paid)  # presented again: refused (C2), nothing paid
                op["again"] = True
            else:
                ticket = 100 + len(paid)
                paid.append(ticket)
            op["args"] = ["redeem", f"{serial}/{ticket:04d}/500", "--as", SELLER, "--json"]
        else:
            op["args"] = ["rent", "--faces", "12", "--games", "10", "--as", SELLER, "--json"]
    return ops


# -- a client ---------------------------------------------------------------------------------

GIVE_UP = 150.0  # seconds an operation is retried with its request id before it is given up


def _send(hall: Path, args: list[str], rid: str) -> tuple[int, str, str, str]:
    """The command once, as the `booth` script sends it: to the running owner, or (none
    answering: it was killed) run in a `booth` process of its own. (exit, stdout, stderr, how)."""
    try:
        result = client.forward(hall, args, rid, explicit_id=True)
    except client.RunHere:
        env = {k: v for k, v in os.environ.items()}
        done = subprocess.run(
            [BOOTH, "--hall", str(hall), *args, "--request-id", rid],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        return done.returncode, done.stdout, done.stderr, "here"
    except client.ControlRefused as refused:
        return client.EXIT_FAILURE, "", str(refused), "lost"
    return result.exit_code, result.stdout, result.stderr, "owner"


def run_client(hall: Path, plan_file: Path, out: Path) -> None:
    setup = json.loads(plan_file.read_text())
    started, factor = float(setup["started"]), float(setup["factor"])
    ops: list[dict[str, Any]] = setup["ops"]
    deadline = started + HALL_MINUTES * 60 / factor + GIVE_UP

    def hall_now() -> datetime:
        return PLAY_FROM + timedelta(seconds=(time.time() - started) * factor)

    with out.open("a") as acks:
        for op in ops:
            due = started + op["at"] / factor
            time.sleep(max(0.0, due - time.time()))
            tries: list[dict[str, Any]] = []
            first = time.time()
            while True:
                os.environ["BOOTH_NOW"] = hall_now().isoformat()
                code, stdout, stderr, how = _send(hall, op["args"], op["rid"])
                tries.append({"exit": code, "how": how, "at": time.time(), "err": stderr[-300:]})
                # exit 3 (storage, or the owner gone past the client's own retries): the same
                # request id again, as a seller would press again; never past GIVE_UP
                if code != client.EXIT_FAILURE:
                    break
                if time.time() - first > GIVE_UP or time.time() > deadline:
                    break
                time.sleep(1.0)
            answer: Any = None
            if code == 0:
                with contextlib.suppress(ValueError):
                    answer = json.loads(stdout)
            record = {
                "rid": op["rid"],
                "kind": op["kind"],
                "station": hall.name,
                "exit": code,
                "acked": time.time() if code == 0 else None,
                "due": due,
                "hall_now": os.environ["BOOTH_NOW"],
                "answer": answer,
                "again": bool(op.get("again")),
                "tries": tries,
            }
            acks.write(json.dumps(record) + "\n")
            acks.flush()


# -- the neighbour ----------------------------------------------------------------------------


def flood(host: str, port: int, count: int, seconds: float) -> None:
    """Connect `count` TCP sockets to host:port and hold them, saying nothing, for `seconds`."""
    held: list[socket.socket] = []
    refused = 0
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.settimeout(2.0)
            try:
                sock.connect((host, port))
            except OSError:
                refused += 1
                sock.close()
                continue
            held.append(sock)
        print(json.dumps({"held": len(held), "refused": refused}), flush=True)
        time.sleep(seconds)
    finally:
        for sock in held:
            sock.close()


def main(argv: list[str]) -> None:
    if argv[0] == "client":
        run_client(Path(argv[1]), Path(argv[2]), Path(argv[3]))
    elif argv[0] == "flood":
        flood(argv[1], int(argv[2]), int(argv[3]), float(argv[4]))
    else:
        raise SystemExit(f"unknown: {argv[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
