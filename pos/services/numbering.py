"""Receipt numbers: sequential per station, allocated inside the command's transaction."""

from __future__ import annotations

from pos.services.station import Station


def next_receipt_number(st: Station) -> int:
    row = st.ledger.conn.execute(
        "SELECT last FROM p_receipt_numbers WHERE station = ?", (st.id,)
    ).fetchone()
    return (int(row[0]) if row else 0) + 1
