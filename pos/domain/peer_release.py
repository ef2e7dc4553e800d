"""A peer's release (its Booth version) in words, as `booth sync status`, the manager's Stations
and the phone say it. Pure.

A station tells its release at every sync from 0.2.0 on; 0.1.0 never did. So a peer that
answered a pull and said no release runs 0.1.0 or older: a gap in the hall to close, not an
unknown. The sync state keeps that answer as UNSAID (""), apart from a peer not heard from yet
(None).
"""

from __future__ import annotations

from dataclasses import dataclass

UNSAID = ""  # kept for a peer that answered a pull without saying its release


@dataclass(frozen=True)
class PeerRelease:
    state: str  # "said", "unsaid" (answered, said none: before 0.2.0) or "unknown" (not heard)
    release: str | None  # its version, when it said one
    text: str
    level: str  # ok, warn (older than 0.2.0: upgrade it) or off (not known yet)


def peer_release(stored: str | None) -> PeerRelease:
    """`stored`: the release as the sync state keeps it (a version, UNSAID or None)."""
    if stored:
        return PeerRelease("said", stored, f"Booth {stored}", "ok")
    if stored == UNSAID:
        return PeerRelease(
            "unsaid",
            None,
            "Booth 0.1.0 or older (it does not say its version): upgrade it",
            "warn",
        )
    return PeerRelease("unknown", None, "Booth ? (not synced with it yet)", "off")


def as_told(release: str | None) -> str:
    """What a pull that got an answer keeps of the peer's release: UNSAID when it said none."""
    return release if release is not None else UNSAID
