"""One pull from every station this one knows, now: the Sync button of a staff screen (run on
the station's worker, never on the UI thread) and what it says afterwards. The same pull and
the same contact record as `booth sync now`, on the station's own connection.

The peers are the ones this station knows: listed (`booth sync peer add`) or found on the LAN
and reached before (zeroconf, while LAN sync runs beside the UI).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pos.errors import BoothError
from pos.ledger import replication
from pos.services.station import Station
from sync.client import Peer, client_context
from sync.replicator import pull, record_contact


@dataclass(frozen=True)
class Reached:
    station: str
    brought_in: int  # events new to this station
    refused: int = 0  # events that failed verification: not stored, each an incident


@dataclass(frozen=True)
class Unreached:
    url: str
    why: str


@dataclass(frozen=True)
class SyncNow:
    reached: tuple[Reached, ...] = ()
    unreached: tuple[Unreached, ...] = field(default_factory=tuple)

    @property
    def tried(self) -> int:
        return len(self.reached) + len(self.unreached)

    @property
    def brought_in(self) -> int:
        return sum(r.brought_in for r in self.reached)

    @property
    def refused(self) -> int:
        return sum(r.refused for r in self.reached)


def sync_now(st: Station) -> SyncNow:
    """Pull from every known peer once; each contact (or its failure) recorded, as the CLI
    records it. Nothing known: an empty answer (this station works alone)."""
    conn = st.ledger.conn
    urls = replication.peer_urls(conn)
    if not urls:
        return SyncNow()
    listed = set(replication.peer_urls(conn, source="static"))
    context = client_context(st.directory)
    reached: list[Reached] = []
    unreached: list[Unreached] = []
    for url in urls:
        source = "static" if url in listed else "zeroconf"
        peer = Peer(url, context)
        try:
            result = pull(st.ledger, peer, wall=st.clock)
        except BoothError as error:
            unreached.append(Unreached(url, error.message))
            with st.ledger.transaction():
                record_contact(
                    st.ledger, url, station=None, error=error.message, pulled=0, source=source
                )
            continue
        finally:
            peer.close()
        refused_note = f"refused {result.refused} event(s)" if result.refused else None
        with st.ledger.transaction():
            record_contact(
                st.ledger,
                url,
                station=result.station,
                error=refused_note,
                pulled=result.applied,
                source=source,
                heads=result.heads,
                release=result.release,
                clock_offset_ms=result.clock_offset_ms,
            )
        reached.append(Reached(result.station, result.applied, result.refused))
    return SyncNow(tuple(reached), tuple(unreached))
