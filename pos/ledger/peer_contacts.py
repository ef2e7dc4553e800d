"""What this station last heard from each peer station (the local `sync_peers` table, never
replicated): for the manager's list of stations."""

from __future__ import annotations

import sqlite3


def last_contacts(conn: sqlite3.Connection) -> dict[str, tuple[str | None, str | None]]:
    """station -> (last contact, last error), over every address the station was reached at."""
    return {
        station: (last_contact, last_error)
        for station, last_contact, last_error in conn.execute(
            "SELECT station, max(last_contact), max(last_error) FROM sync_peers "
            "WHERE station IS NOT NULL GROUP BY station"
        )
    }
