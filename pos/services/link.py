"""The hall link as this station sees it (pos.domain.hall_link): for the status bars, the
manager's dashboard, `booth sync status` and the day report's warnings; and this station's
clock against the manager's (pos.domain.clock_skew)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from pos.domain import clock_skew, hall_link
from pos.ledger import heads, replication
from pos.ledger.projections import hall as hall_read
from pos.services.station import Station


def _instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def peers_seen(st: Station) -> list[hall_link.PeerSeen]:
    return [
        hall_link.PeerSeen(
            p["station"], _instant(p["last_contact"]), p["last_error"], p["heads"] or None
        )
        for p in replication.peers(st.ledger.conn)
    ]


def held(st: Station) -> dict[str, int]:
    return {origin: seq for origin, (seq, _) in heads.heads(st.ledger.conn).items()}


def hall_link_now(st: Station) -> hall_link.Link:
    return hall_link.link(peers_seen(st), held(st), st.clock.now(), ZoneInfo(st.hall.time_zone))


def behind_by_origin(st: Station) -> dict[str, int]:
    return hall_link.behind_by_origin(held(st), peers_seen(st))


def own_clock(st: Station) -> clock_skew.OwnClock:
    """This station's clock against the hall's reference (the manager), as measured at its last
    sync with it; nothing to say on the manager itself, or before any sync with it."""
    conn = st.ledger.conn
    managers = [s for s, role in hall_read.stations(conn) if role == clock_skew.REFERENCE_ROLE]
    if not managers or st.id in managers:
        return clock_skew.own_clock(None, reference=None)
    measured = replication.release_and_clock(conn)
    offset = measured.get(managers[0], (None, None))[1]
    return clock_skew.own_clock(offset, reference=managers[0])
