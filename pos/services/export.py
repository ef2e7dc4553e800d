"""The inspector's export (rule E.1.f: inspectors examine everything): every event, the hall's
public keys, a CSV per table, and a README saying how to verify the chain."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from pos.errors import BadInput, StorageFailure
from pos.ledger.verify import verify
from pos.services.station import Station

README = """Booth inspector export
======================

Hall {hall} ({organisation}, {location}), exported from station {station} at {at}.

events.jsonl   every event held by this station, one JSON object a line, in the order the
               station stored them: origin, seq, type, hlc (clock stamp), prev (hash of the
               origin's previous event), body, hash, sig (Ed25519, by the origin station).
keys.json      the hall's public key and each station's certificate (signed by the hall key).
tables/*.csv   the derived tables (deals, sales, redemptions, voids, rentals, ...).
verify.json    this station's own verification at export time: {events} events, digest
               {digest}.

To verify the chain yourself, with Booth installed on any machine:

    booth --hall <a station directory holding this ledger> verify --json

`booth verify` recomputes every event's SHA-256 over its origin, seq, type, stamp, prev and
canonical body, checks it against `hash`, checks `sig` with the origin station's key (whose
certificate must be signed by the hall key in keys.json), and checks that each origin's events
are gapless and each `prev` equals the hash of the event before it. It names the first event
that fails. Without Booth: the same checks need only SHA-256 and Ed25519 (e.g. PyNaCl).
"""


def export_inspector(st: Station, directory: Path, *, operator: str | None) -> dict[str, Any]:
    st.operator(operator, "inspector", "manager")
    if directory.exists() and any(directory.iterdir()):
        raise BadInput("dir", f"{directory} is not empty; choose a new directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "tables").mkdir()
        count = 0
        with (directory / "events.jsonl").open("w") as handle:
            for event in st.ledger.events():
                handle.write(json.dumps(event.to_dict(), sort_keys=True) + "\n")
                count += 1
        stations = [
            dict(row)
            for row in st.ledger.db.query(
                "SELECT station, role, public_key, certificate, location FROM p_stations"
            )
        ]
        keys = {
            "hall": st.config.hall,
            "hall_public_key": st.config.hall_public_key,
            "stations": stations,
        }
        (directory / "keys.json").write_text(json.dumps(keys, indent=2, sort_keys=True))
        tables = [
            row[0]
            for row in st.ledger.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'p\\_%' "
                "ESCAPE '\\' ORDER BY name"
            )
        ]
        for table in tables:
            cursor = st.ledger.conn.execute(f"SELECT * FROM {table}")
            columns = [c[0] for c in cursor.description]
            with (directory / "tables" / f"{table[2:]}.csv").open("w", newline="") as handle:
                writer = csv.writer(handle)
                writer.writerow(columns)
                writer.writerows(cursor)
        report = verify(st.ledger)
        (directory / "verify.json").write_text(json.dumps(report.to_dict(), indent=2))
        (directory / "README.txt").write_text(
            README.format(
                hall=st.config.hall,
                organisation=st.hall.organisation,
                location=st.hall.location,
                station=st.id,
                at=st.clock.now().isoformat(timespec="seconds"),
                events=count,
                digest=report.digest,
            )
        )
    except OSError as exc:
        raise StorageFailure(f"cannot write the export to {directory}: {exc.strerror}") from None
    return {
        "directory": str(directory),
        "events": count,
        "tables": len(tables),
        "verified": report.ok,
        "digest": report.digest,
    }


def retention(st: Station) -> list[dict[str, Any]]:
    return [
        dict(row)
        for row in st.ledger.db.query(
            "SELECT serial, game, name, unsold, keep_until FROM p_deals WHERE state = 'closed' "
            "ORDER BY keep_until, serial"
        )
    ]


def deal_history(st: Station, serial: str) -> dict[str, Any]:
    from pos.services.deals import deal_summary

    summary = deal_summary(st, serial)
    key = summary["serial"]
    summary["sessions"] = [
        dict(r)
        for r in st.ledger.db.query(
            "SELECT session, qty, gross FROM p_session_sales WHERE serial = ? ORDER BY session",
            [key],
        )
    ]
    summary["redemptions"] = [
        dict(r)
        for r in st.ledger.db.query(
            "SELECT ticket, amount, by, origin, session FROM p_redemptions WHERE serial = ? "
            "ORDER BY hlc",
            [key],
        )
    ]
    summary["voids"] = [
        dict(r)
        for r in st.ledger.db.query(
            "SELECT kind, ticket, qty, amount, reason, by FROM p_voids WHERE serial = ? "
            "ORDER BY hlc",
            [key],
        )
    ]
    row = st.ledger.conn.execute("SELECT flare FROM p_deals WHERE serial = ?", (key,)).fetchone()
    summary["flare"] = json.loads(row[0])
    return summary
