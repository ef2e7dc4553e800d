"""Receipt numbers: sequential per station, allocated inside the command's transaction."""

from __future__ import annotations

from pos.ledger.projections import receipts as receipts_read
from pos.services.station import Station


def next_receipt_number(st: Station) -> int:
    return receipts_read.last_receipt_number(st.ledger.conn, st.id) + 1
