"""Who may see the manager's phone (`booth serve --web`): one-time pairing links, sign-in with
badge and PIN, and sessions limited to a role, revocable.

- A pairing link (`booth web pair --role R`, or the manager screen's pairing panel) carries a
  random token that expires quickly (5 minutes unless said) and is spent by the first sign-in it
  opens. Only the token's hash is stored.
- Sign-in: a person holding the link's role, with their badge and PIN (StaffPinSet, a slow
  hash). Wrong badges or PINs are counted on the link: the fifth burns it.
- The session is a cookie `ID.EXPIRES.MAC`, the MAC an HMAC-SHA256 under a key only this station
  holds (tls/web-cookie.key); every request checks the MAC, the expiry and that the session was
  not revoked (`booth web revoke`, the manager screen).

Security times are the wall clock's (pos.clock.SystemClock), never a training hall's scripted
clock: a scripted clock stands still, and a link must still expire.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pos.clock import Clock, SystemClock
from pos.domain.pins import InvalidPin, check_pin, verify_pin
from pos.errors import BadInput, NotFound, NotPermitted
from pos.ledger import web_access as web_read
from pos.ledger.projections import signon as signon_read
from pos.services.station import TLS_DIR, Station, make_private_dir, write_private

WEB_ROLES = ("manager", "treasurer", "inspector")
PAIR_TTL = 300  # seconds a pairing link stays good
MAX_PAIR_TTL = 3600
SESSION_TTL = 12 * 3600  # a night on the floor
MAX_FAILURES = 5  # wrong badges or PINs on one link before it is burned
COOKIE = "booth_web"
COOKIE_KEY_FILE = "web-cookie.key"
WEB_STATE_FILE = "web.json"  # the address the running web app serves on (for pairing links)


class SignInRefused(NotPermitted):
    """A sign-in that is refused: the link, the badge or the PIN is wrong."""


@dataclass(frozen=True)
class WebSession:
    id: str
    role: str
    badge: str
    expires_at: str


def _wall() -> Clock:
    return SystemClock()


def _iso(at: datetime) -> str:
    return at.isoformat(timespec="seconds")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def cookie_key(directory: Path) -> bytes:
    """The station's key for signing session cookies (made on first use, 0600)."""
    tls = directory / TLS_DIR
    path = tls / COOKIE_KEY_FILE
    try:
        return bytes.fromhex(path.read_text().strip())
    except FileNotFoundError:
        make_private_dir(tls)
        write_private(path, secrets.token_hex(32) + "\n")
        return bytes.fromhex(path.read_text().strip())


def web_role(role: str) -> str:
    if role not in WEB_ROLES:
        raise BadInput("role", f"{role!r} is not one of {', '.join(WEB_ROLES)}")
    return role


def served_url(directory: Path) -> str | None:
    """The URL the station's running web app serves on, as it wrote it when it started."""
    try:
        data = json.loads((directory / WEB_STATE_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return None
    url = data.get("url") if isinstance(data, dict) else None
    return url if isinstance(url, str) else None


def record_served(directory: Path, url: str, ca_fingerprint: str) -> None:
    write_private(
        directory / WEB_STATE_FILE,
        json.dumps({"url": url, "ca_fingerprint": ca_fingerprint, "pid": os.getpid()}) + "\n",
    )


def forget_served(directory: Path) -> None:
    (directory / WEB_STATE_FILE).unlink(missing_ok=True)


def served_state(directory: Path) -> dict[str, Any]:
    try:
        data = json.loads((directory / WEB_STATE_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def create_pairing(
    st: Station,
    role: str,
    *,
    operator: str | None,
    base_url: str | None = None,
    ttl: int = PAIR_TTL,
    clock: Clock | None = None,
) -> dict[str, Any]:
    """A one-time pairing link for `role`, made by a manager. `base_url`: the web app's address
    (default: where this station's web app says it serves)."""
    st.operator(operator, "manager")
    web_role(role)
    if not 1 <= ttl <= MAX_PAIR_TTL:
        raise BadInput("expires-in", f"{ttl} is not 1 to {MAX_PAIR_TTL} seconds")
    url = base_url or served_url(st.directory)
    if not url:
        raise NotFound(
            "no web app runs at this station: start it with 'booth serve --web ADDRESS:PORT' "
            "(or 'booth run --web ADDRESS:PORT')"
        )
    now = (clock or _wall()).now()
    token = secrets.token_urlsafe(24)
    expires = now + timedelta(seconds=ttl)
    with st.ledger.transaction():
        web_read.add_pairing(st.ledger.conn, token_hash(token), role, _iso(now), _iso(expires))
    state = served_state(st.directory)
    return {
        "role": role,
        "url": f"{url.rstrip('/')}/pair/{token}",
        "expires_at": _iso(expires),
        "expires_in": ttl,
        "ca_fingerprint": state.get("ca_fingerprint"),
    }


def pairing_role(st: Station, token: str, *, clock: Clock | None = None) -> str:
    """The role a pairing link is for, while it is good; SignInRefused otherwise."""
    row = web_read.pairing(st.ledger.conn, token_hash(token))
    now = _iso((clock or _wall()).now())
    if row is None:
        raise SignInRefused("this pairing link is not one of this station's")
    if row["used_at"] is not None:
        raise SignInRefused(f"this pairing link was used at {row['used_at']}: ask for a new one")
    if row["expires_at"] <= now:
        raise SignInRefused(f"this pairing link expired at {row['expires_at']}: ask for a new one")
    if int(row["failures"]) >= MAX_FAILURES:
        raise SignInRefused("this pairing link was tried too often: ask for a new one")
    return str(row["role"])


def sign_in(
    st: Station, token: str, badge: str, pin: str, *, clock: Clock | None = None
) -> tuple[WebSession, str]:
    """Spend a pairing link on a sign-in: the session and its cookie value."""
    wall = clock or _wall()
    role = pairing_role(st, token, clock=wall)
    person = st.staff(badge.strip()) if badge.strip() else None
    ok = person is not None and role in person.roles
    stored = signon_read.pin_hash(st.ledger.conn, badge.strip())
    try:
        ok = stored is not None and verify_pin(check_pin(pin), stored) and ok
    except InvalidPin:
        ok = False
    now = wall.now()
    if not ok:
        with st.ledger.transaction():
            failures = web_read.pairing_failed(st.ledger.conn, token_hash(token))
        left = max(0, MAX_FAILURES - failures)
        raise SignInRefused(
            f"badge or PIN not right for the {role} role ({left} tries left on this link)"
        )
    with st.ledger.transaction():
        if not web_read.use_pairing(st.ledger.conn, token_hash(token), _iso(now)):
            raise SignInRefused("this pairing link was used already: ask for a new one")
        session = WebSession(
            secrets.token_urlsafe(16),
            role,
            badge.strip(),
            _iso(now + timedelta(seconds=SESSION_TTL)),
        )
        web_read.add_session(
            st.ledger.conn, session.id, role, session.badge, _iso(now), session.expires_at
        )
    return session, sign_cookie(st.directory, session.id, now + timedelta(seconds=SESSION_TTL))


def _mac(key: bytes, text: str) -> str:
    digest = hmac.new(key, text.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def sign_cookie(directory: Path, session_id: str, expires: datetime) -> str:
    body = f"{session_id}.{int(expires.timestamp())}"
    return f"{body}.{_mac(cookie_key(directory), body)}"


def check_cookie(
    st: Station, value: str | None, *, clock: Clock | None = None
) -> WebSession | None:
    """The session a cookie stands for, or None: a bad MAC, expired, revoked or unknown."""
    if not value or value.count(".") != 2:
        return None
    session_id, expires, mac = value.split(".")
    body = f"{session_id}.{expires}"
    if not hmac.compare_digest(mac, _mac(cookie_key(st.directory), body)):
        return None
    now = (clock or _wall()).now()
    if not expires.isdigit() or int(expires) <= int(now.timestamp()):
        return None
    row = web_read.session(st.ledger.conn, session_id)
    if row is None or row["revoked_at"] is not None or row["expires_at"] <= _iso(now):
        return None
    return WebSession(row["id"], row["role"], row["badge"], row["expires_at"])


def list_sessions(st: Station, *, clock: Clock | None = None) -> list[dict[str, Any]]:
    now = _iso((clock or _wall()).now())
    return [
        {
            **row,
            "state": "revoked"
            if row["revoked_at"]
            else ("expired" if row["expires_at"] <= now else "active"),
        }
        for row in web_read.sessions(st.ledger.conn)
    ]


def revoke(
    st: Station, session_id: str | None, *, operator: str | None, clock: Clock | None = None
) -> list[str]:
    """Revoke one web session, or every one (None); a manager's act. The ids revoked."""
    by = st.operator(operator, "manager")
    now = _iso((clock or _wall()).now())
    with st.ledger.transaction():
        if session_id is not None and web_read.session(st.ledger.conn, session_id) is None:
            raise BadInput("session", f"no web session {session_id!r} here")
        return web_read.revoke(st.ledger.conn, session_id, now, by.badge)
