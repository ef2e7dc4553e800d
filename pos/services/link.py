"""The hall link as this station sees it (pos.domain.hall_link): for the status bars, the
manager's dashboard, `booth sync status` and the day report's warnings."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from pos.domain import hall_link
from pos.ledger import heads, replication
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
