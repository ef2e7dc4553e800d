"""The inspector's export (rule E.1.f: inspectors examine everything): every event, the hall's
public keys, a CSV per table, and a README saying how to verify the chain."""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pos.domain import identity
from pos.errors import BadInput, StorageFailure
from pos.ledger import tables as ledger_tables
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import winners as winners_read
from pos.ledger.verify import Report, verify
from pos.services.station import Station

README = """Booth inspector export
======================

Hall {hall} ({organisation}, {location}), exported from station {station} at {at}.

events.jsonl   every event held by this station, one JSON object a line, in the order the
               station stored them: origin, seq, type, hlc (clock stamp), prev (hash of the
               origin's previous event), body, hash, sig (Ed25519, by the origin station).
keys.json      the hall's public key and each station's certificate (signed by the hall key).
tables/*.csv   the derived tables (deals, sales, redemptions, voids, rentals, ...);
               house_rules.csv holds every version of every posted house rule (rule A),
               with the date it was posted; bingo_programs.csv every version of every
               bingo game program (issue #18), paper_sheets.csv each sheet of bingo paper
               by audit number and paper_sales.csv who bought which; raffles.csv,
               raffle_prizes.csv and raffle_tickets.csv each raffle, its prizes and their
               values (rule F2), and each ticket sold or voided.
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


def export_inspector(
    st: Station,
    directory: Path,
    *,
    operator: str | None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Everything for an inspector in `directory`. `progress(done, total)`: each event counts
    twice, written and then verified."""
    st.operator(operator, "inspector", "manager")
    if directory.exists() and any(directory.iterdir()):
        raise BadInput("dir", f"{directory} is not empty; choose a new directory")
    # Written beside it, then renamed into place: half an export never passes for a whole one,
    # whether the disk fills up or the process is killed.
    partial: Path | None = None
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(
            tempfile.mkdtemp(prefix=f".{directory.name}.", suffix=".partial", dir=directory.parent)
        )
        partial.chmod(0o755)
        count, tables, report = _write_export(st, partial, progress)
        os.rename(partial, directory)  # over the empty directory it was given, too
    except OSError as exc:
        if partial is not None:
            shutil.rmtree(partial, ignore_errors=True)
        raise StorageFailure(f"cannot write the export to {directory}: {exc.strerror}") from None
    return {
        "directory": str(directory),
        "events": count,
        "tables": tables,
        "verified": report.ok,
        "digest": report.digest,
    }


def _write_export(
    st: Station, directory: Path, progress: Callable[[int, int], None] | None
) -> tuple[int, int, Report]:
    """The export's files in `directory` (empty): (events, tables, the verification)."""
    (directory / "tables").mkdir()
    count = 0
    total = st.ledger.count() if progress is not None else 0
    with (directory / "events.jsonl").open("w") as handle:
        for event in st.ledger.events():
            handle.write(json.dumps(event.to_dict(), sort_keys=True) + "\n")
            count += 1
            if progress is not None and (count % 1000 == 0 or count == total):
                progress(min(count, total), 2 * total)
    stations = hall_read.station_certificates(st.ledger.conn)
    keys = {
        "hall": st.config.hall,
        "hall_public_key": st.config.hall_public_key,
        "stations": stations,
    }
    (directory / "keys.json").write_text(json.dumps(keys, indent=2, sort_keys=True))
    tables = ledger_tables.projection_tables(st.ledger.conn)
    for table in tables:
        columns, rows = ledger_tables.table_rows(st.ledger.conn, table)
        with (directory / "tables" / f"{table[2:]}.csv").open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            writer.writerows([identity.csv_cell(v) for v in row] for row in rows)
    verified = None
    if progress is not None:
        report_progress = progress
        verified = lambda done, _total: report_progress(total + done, 2 * total)  # noqa: E731
    report = verify(st.ledger, progress=verified)
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
    return count, len(tables), report


def retention(st: Station) -> list[dict[str, Any]]:
    return deals_read.closed_deals(st.ledger.conn)


def deal_history(st: Station, serial: str) -> dict[str, Any]:
    from pos.services.deals import deal_summary

    summary = deal_summary(st, serial)
    key = summary["serial"]
    summary["sessions"] = deals_read.session_sales_of(st.ledger.conn, key)
    summary["redemptions"] = winners_read.redemptions_of(st.ledger.conn, key)
    summary["voids"] = winners_read.voids_of(st.ledger.conn, key)
    flare = deals_read.deal_flare_json(st.ledger.conn, key)
    assert flare is not None  # deal_summary found the deal
    summary["flare"] = json.loads(flare)
    return summary
