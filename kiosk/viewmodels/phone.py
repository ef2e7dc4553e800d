"""The manager screen's pairing panel for the manager's phone (no Kivy here): a one-time
pairing link for a role, as a QR code, and the phones signed in, each revocable; and what to
tap when the phone's browser warns of the hall's own certificate, with the address (a second
QR code) of that certificate for the phone to install. Times on the hall's clock."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from kiosk.viewmodels.common import ERROR, INFO, MUTED, OK, WARN, Outcome, attempt
from pos.services import web_access
from pos.services.station import Station
from web.tls import CA_ROUTE

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
    ca_url: str | None  # where a phone downloads the hall's certificate (None: not served)
    ca_png: bytes | None  # ca_url as a QR code
    trust_steps: tuple[str, ...]  # what to tap when the phone warns, in a few short lines


def trust_steps(url: str | None) -> tuple[str, ...]:
    """What to tap when the phone's browser warns of the hall's own certificate, as the
    browsers word their screens; the details are in docs/managers-day.md."""
    host = urlsplit(url).hostname if url else None
    return (
        "The hall makes its own certificate, so a phone warns until it has it. "
        "Check the fingerprint above, then:",
        'Android (Chrome), "Your connection is not private": '
        f"Advanced > Proceed to {host or 'the address'} (unsafe).",
        'iPhone (Safari), "This Connection Is Not Private": '
        "Show Details > visit this website > Visit Website.",
        "To stop the warning for good, scan the certificate code and install it:",
        "Android: Settings > Security > Encryption & credentials > Install a certificate > "
        "CA certificate, then choose the file.",
        "iPhone: Allow the profile, Settings > Profile Downloaded > Install; then General > "
        "About > Certificate Trust Settings > turn on full trust.",
        "Every step: the manager's guide, 'On the floor, by phone'.",
    )


def certificate_outcome(ca_url: str | None) -> Outcome:
    """What the banner says while the tab shows the hall's certificate instead of a pairing."""
    if ca_url is None:
        return Outcome(False, "NOT SERVED", "Start the station with --web first", WARN)
    return Outcome(True, "CERTIFICATE", "Scan it to install it: once per phone", INFO)


def hall_time(iso: str, zone: str, *, day: bool = True) -> str:
    """A stored time (ISO 8601, UTC) on the hall's clock: 4 Dec 19:05, or 19:05."""
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    local = at.astimezone(ZoneInfo(zone))
    return f"{local.day} {local:%b %H:%M}" if day else f"{local:%H:%M}"


def phone_screen(st: Station) -> PhoneVM:
    state = web_access.served_state(st.directory)
    url = state.get("url") if isinstance(state.get("url"), str) else None
    zone = st.hall.time_zone
    rows = []
    for s in web_access.list_sessions(st):
        active = s["state"] == "active"
        colour = OK if active else (ERROR if s["state"] == "revoked" else MUTED)
        ended = f" · revoked by {s['revoked_by']}" if s["revoked_at"] else ""
        rows.append(
            PhoneSessionVM(
                s["id"],
                f"{s['role']} {s['badge']} · {s['state']}",
                f"signed in {hall_time(s['created_at'], zone)} · until "
                f"{hall_time(s['expires_at'], zone)}{ended}",
                colour,
                active,
            )
        )
    fingerprint = str(state.get("ca_fingerprint") or "")
    ca_url = f"{url}{CA_ROUTE}" if url else None
    return PhoneVM(
        url,
        f"The phone's web app: {url}\nThe hall's certificate, SHA-256:\n"
        f"{fingerprint[:48]}\n{fingerprint[48:]}"
        if url
        else "The phone's web app is not running here: start the station with --web",
        fingerprint,
        tuple(rows),
        ca_url,
        qr_png(ca_url) if ca_url else None,
        trust_steps(url),
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
        until = hall_time(made["expires_at"], st.hall.time_zone, day=False)
        return Outcome(
            True,
            "SCAN TO PAIR",
            f"A {role}: one sign-in, until {until}",
            OK,
            data=(("url", made["url"]), ("png", qr_png(made["url"]))),
        )

    return attempt(run, "Cannot pair")


def revoke(st: Station, session_id: str, operator: str) -> Outcome:
    def run() -> Outcome:
        done = web_access.revoke(st, session_id, operator=operator)
        return Outcome(True, "REVOKED", f"Web session {', '.join(done) or session_id} ended.", WARN)

    return attempt(run, "Cannot revoke")
