"""What a station's print queue holds: the receipts it numbered and has not printed yet.

Apart from pos.services.receipts (what a receipt says, and printing it) so that every write
command can ask whether it queued anything without importing how a receipt is made."""

from __future__ import annotations

from typing import Any

from pos.ledger.projections import receipts as receipts_read
from pos.services.station import Station


def pending(st: Station) -> list[int]:
    return [row["number"] for row in receipts_read.unprinted(st.ledger.conn, st.id)]


def queue_status(st: Station) -> dict[str, Any]:
    rows = receipts_read.unprinted(st.ledger.conn, st.id)
    return {
        "queued": [r["number"] for r in rows],
        "last_error": next((r["last_error"] for r in rows if r["last_error"]), None),
    }
