"""The Sync button of the session screens (the booth's Close tab, the manager's Session tab):
one pull from every station this one knows, now, said in plain words (how many stations were
reached, how many events came in). Runs on the StationWorker: the UI thread never waits on
the network."""

from __future__ import annotations

from urllib.parse import urlsplit

from kiosk.viewmodels.common import ERROR, INFO, OK, WARN, Outcome
from pos.errors import BoothError
from pos.services.station import Station
from sync import now

#: shown at once when the button is tapped, while the worker reaches the other stations
SYNCING = Outcome(False, "Syncing…", "Reaching the hall's other stations.", INFO)


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def said(result: now.SyncNow) -> Outcome:
    """What the button says after a sync."""
    if not result.tried:
        return Outcome(
            False,
            "No other station found",
            "This station works alone: it knows no other station of the hall yet.",
            INFO,
        )
    names = ", ".join(sorted({r.station for r in result.reached}))
    reached = f"Reached {len(result.reached)} of {_count(result.tried, 'station', 'stations')}"
    reached += f" ({names})" if names else ""
    brought = result.brought_in
    sentences = [
        f"{reached}: {_count(brought, 'event', 'events')} brought in"
        if brought
        else f"{reached}: nothing new to bring in"
    ]
    if result.refused:
        sentences.append(
            f"{_count(result.refused, 'event', 'events')} refused as not genuine: see Exceptions"
        )
    detail = ". ".join(sentences) + "."
    if result.unreached:
        hosts = ", ".join(urlsplit(u.url).netloc or u.url for u in result.unreached)
        detail += f" Not reached: {hosts}. Is it switched on?"
    if not result.reached:
        return Outcome(False, "NO STATION REACHED", detail, ERROR)
    if result.unreached or result.refused:
        return Outcome(True, "SYNCED IN PART", detail, WARN)
    return Outcome(True, "SYNCED", detail, OK)


def sync_now(st: Station) -> Outcome:
    try:
        return said(now.sync_now(st))
    except BoothError as error:  # this station's own side failed (its TLS files, its disk)
        return Outcome(False, "Cannot sync", error.message, ERROR)
