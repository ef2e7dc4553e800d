"""The day report's warnings: a drawer (or kiosk cash box) counted for a station whose events
are not all in here, so the over/short set against it may still change once it syncs.

"Not all in": for a session of the report, this ledger lacks the station's close marker or
the events up to it, or a peer said (at its last contact) it holds more of the station's
events than this ledger does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pos.domain.hall_link import behind_text
from pos.ledger.projections import closing as closing_read
from pos.services import link
from pos.services.station import Station


def drawer_warnings(
    st: Station, sessions: Sequence[str], cash: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    conn = st.ledger.conn
    behind = link.behind_by_origin(st)
    not_closed = {s: set(closing_read.stations_not_closed(conn, s, here=st.id)) for s in sessions}
    out = []
    for row in cash:
        name = row["station"]
        if row.get("counted") is None or name == st.id:
            continue
        open_in = [s for s in sessions if name in not_closed[s]]
        missing = behind.get(name, 0)
        if not open_in and not missing:
            continue
        why = []
        if open_in:
            why.append(f"its close for {', '.join(open_in)} is not here yet")
        if missing:
            why.append(f"peers hold {behind_text(missing).removesuffix(' behind')} more of it")
        out.append(
            {
                "kind": "drawer-counted-before-sync",
                "station": name,
                "counted": row["counted"],
                "message": f"the drawer of {name} was counted (${row['counted']}) but its events "
                f"are not all in here ({'; '.join(why)}): its over/short may change once "
                f"{name} syncs",
            }
        )
    return out
