"""The manager screen's pairing panel for the manager's phone (no Kivy here): a one-time
pairing link for a role, as a QR code, and the phones signed in, each revocable."""

from __future__ import annotations

import io
from dataclasses import dataclass

from kiosk.viewmodels.common import ERROR, MUTED, OK, WARN, Outcome, attempt
from pos.services import web_access
from pos.services.station import Station

ROLES = web_access.WEB_ROLES


@dataclass(frozen=True)
class PhoneSessionVM:
    id: str
    text: str
    detail: str
    colour: str
    active: bool


@dataclass(frozen=True)
class PhoneVM:
    served: str | None  # the web app's address, or None when it does not run here
    served_text: str
    fingerprint: str
    sessions: tuple[PhoneSessionVM, ...]


def phone_screen(st: Station) -> PhoneVM:
    state = web_access.served_state(st.directory)
    url = state.get("url") if isinstance(state.get("url"), str) else None
    rows = []
    for s in web_access.list_sessions(st):
        active = s["state"] == "active"
        colour = OK if active else (ERROR if s["state"] == "revoked" else MUTED)
        ended = f" · revoked by {s['revoked_by']}" if s["revoked_at"] else ""
        rows.append(
            PhoneSessionVM(
                s["id"],
                f"{s['role']} {s['badge']} · {s['state']}",
                f"signed in {s['created_at'][:16].replace('T', ' ')} · until "
                f"{s['expires_at'][:16].replace('T', ' ')}{ended}",
                colour,
                active,
            )
        )
    fingerprint = str(state.get("ca_fingerprint") or "")
    return PhoneVM(
        url,
        f"The phone's web app: {url}\nThe hall's certificate, SHA-256:\n"
        f"{fingerprint[:48]}\n{fingerprint[48:]}"
        if url
        else "The phone's web app is not running here: start the station with --web",
        fingerprint,
        tuple(rows),
    )


def qr_png(link: str) -> bytes:
    import qrcode

    image = qrcode.make(link, border=2, box_size=8)
    out = io.BytesIO()
    image.save(out)
    return out.getvalue()


def pair(st: Station, role: str, operator: str) -> Outcome:
    """A pairing link for `role`: its QR code (PNG) and link in the outcome's data."""

    def run() -> Outcome:
        made = web_access.create_pairing(st, role, operator=operator)
        return Outcome(
            True,
            "SCAN TO PAIR",
            f"A {role}: one sign-in, until {made['expires_at'][11:19]} UTC",
            OK,
            data=(("url", made["url"]), ("png", qr_png(made["url"]))),
        )

    return attempt(run, "Cannot pair")


def revoke(st: Station, session_id: str, operator: str) -> Outcome:
    def run() -> Outcome:
        done = web_access.revoke(st, session_id, operator=operator)
        return Outcome(True, "REVOKED", f"Web session {', '.join(done) or session_id} ended.", WARN)

    return attempt(run, "Cannot revoke")
