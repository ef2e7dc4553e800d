"""Creating a hall, adding stations to it, and joining a station from its bundle."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from pos import __version__
from pos.clock import clock_for
from pos.domain import identity, typed
from pos.domain.hlc import Stamp
from pos.errors import BadInput, IntegrityFailure, RuleRefused
from pos.ledger import Event, Ledger, heads, replication
from pos.ledger.keys import Certificate, StationKey
from pos.ledger.projections import hall as hall_read
from pos.services.inputs import BUNDLE_MAX, checked_input, read_input_text
from pos.services.station import (
    CONFIG_FILE,
    HALL_KEY_FILE,
    LEDGER_FILE,
    PLAYER_SECRET_FILE,
    STATION_DIR,
    STATION_KEY_FILE,
    TLS_DIR,
    Station,
    StationConfig,
    make_private_dir,
    write_private,
)

BUNDLE_FORMAT = "booth-join-1"


def _new_hall_id() -> str:
    return base64.b32encode(secrets.token_bytes(5)).decode().lower()


def _write_tls(directory: Path, ca: bytes, cert: bytes, key: StationKey) -> None:
    from pos.ledger import x509

    tls = directory / TLS_DIR
    make_private_dir(tls)
    write_private(tls / x509.CA_FILE, ca.decode(), 0o644)
    write_private(tls / x509.CERT_FILE, cert.decode(), 0o644)
    write_private(tls / x509.KEY_FILE, x509.key_pem(key).decode())


def _check_empty(directory: Path) -> None:
    if (directory / CONFIG_FILE).exists():
        raise BadInput("hall", f"{directory} already holds a station; use another directory")


def _time_zone(name: str) -> str:
    """The IANA zone (fixed offsets such as EST and old aliases refused, naming the zone)."""
    with checked_input("time-zone"):
        return typed.time_zone(name)


def init_hall(
    directory: Path,
    *,
    organisation: str,
    location: str,
    time_zone: str,
    training: bool,
    station: str = "manager",
    environ: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A new hall in `directory`, with this station as its first manager station."""
    from pos.ledger import (
        x509,
    )  # cryptography's X.509 costs ~35 ms: only where certificates are made

    _check_empty(directory)
    with checked_input():
        station = identity.station_id(station)
        organisation = identity.person_name(organisation)
        location = identity.person_name(location)
    time_zone = _time_zone(time_zone)
    now = clock_for(training, environ).now()
    make_private_dir(directory, STATION_DIR)

    hall = _new_hall_id()
    hall_key, station_key = StationKey.generate(), StationKey.generate()
    certificate = Certificate.issue(
        hall_key,
        hall=hall,
        station=station,
        role="manager",
        key=station_key.public_hex,
        issued=now.isoformat(),
    )
    write_private(directory / HALL_KEY_FILE, hall_key.to_hex() + "\n")
    write_private(directory / STATION_KEY_FILE, station_key.to_hex() + "\n")
    write_private(directory / PLAYER_SECRET_FILE, secrets.token_hex(32) + "\n")
    _write_tls(
        directory,
        x509.hall_ca(hall_key, hall, now),
        x509.station_cert(hall_key, hall, station, station_key.public_hex, now),
        station_key,
    )
    config = StationConfig(hall, station, "manager", hall_key.public_hex)
    ledger = Ledger.open(
        directory / LEDGER_FILE,
        station=station,
        key=station_key,
        hall_public_key=hall_key.public_hex,
        create=True,
    )
    try:
        ledger.append(
            "HallCreated",
            {
                "hall": hall,
                "organisation": organisation,
                "location": location,
                "time_zone": time_zone,
                "training": training,
                "hall_public_key": hall_key.public_hex,
                "certificate": certificate.to_dict(),
                "release": __version__,
            },
            now=now,
        )
    finally:
        ledger.close()
    config.save(directory)  # last: a directory with station.json is a complete station
    return {"hall": hall, "station": station, "directory": str(directory), "training": training}


def add_station(
    st: Station, *, name: str, role: str, operator: str | None, location: str | None = None
) -> dict[str, Any]:
    """Certify a new station and return its one-time join bundle (secret: keep it safe)."""
    from pos.ledger import x509

    by = st.operator(operator, "manager")
    with checked_input():
        name = identity.station_id(name)
        role = identity.station_role(role)
    hall_key = st.hall_key()
    station_key = StationKey.generate()
    now = st.clock.now()
    certificate = Certificate.issue(
        hall_key,
        hall=st.config.hall,
        station=name,
        role=role,
        key=station_key.public_hex,
        issued=now.isoformat(),
    )
    token = secrets.token_hex(16)
    with st.ledger.transaction():
        if st.ledger.public_key(name) is not None:
            raise BadInput("station", f"{name!r} is already a station of this hall")
        st.append(
            "StationAdded",
            {
                "certificate": certificate.to_dict(),
                "token_sha256": hashlib.sha256(token.encode()).hexdigest(),
                "by": by.badge,
                "location": location or st.hall.location,
            },
        )
        events = [event.to_dict() for event in st.ledger.events()]
    return {
        "format": BUNDLE_FORMAT,
        "hall": st.config.hall,
        "station": name,
        "role": role,
        "hall_public_key": st.config.hall_public_key,
        "station_key": station_key.to_hex(),
        "certificate": certificate.to_dict(),
        "player_secret": st.player_secret().hex(),
        "token": token,
        "tls_ca": x509.hall_ca(hall_key, st.config.hall, now).decode(),
        "tls_cert": x509.station_cert(
            hall_key, st.config.hall, name, station_key.public_hex, now
        ).decode(),
        "events": events,
    }


def _read_bundle(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_input_text(path, "bundle", limit=BUNDLE_MAX))
    except ValueError as exc:
        raise BadInput("bundle", f"{path} is not a join bundle: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT:
        raise BadInput("bundle", f"{path} is not a Booth join bundle")
    if "used" in data:
        used = data["used"]
        raise RuleRefused(
            "JOIN",
            f"this join bundle was already used by station {used.get('station')} "
            f"at {used.get('at')}; ask the manager for a new one",
        )
    required = (
        "hall",
        "station",
        "role",
        "hall_public_key",
        "station_key",
        "certificate",
        "player_secret",
        "token",
        "events",
    )
    missing = [key for key in required if key not in data]
    if missing:
        raise BadInput("bundle", f"{path} lacks {', '.join(missing)}")
    return data


def join(
    directory: Path, bundle_path: Path, *, environ: dict[str, str] | None = None
) -> dict[str, Any]:
    """Set up a station from its bundle; the bundle is consumed (its secrets wiped) on success."""
    _check_empty(directory)
    bundle = _read_bundle(bundle_path)
    if not os.access(bundle_path, os.W_OK):
        raise BadInput("bundle", f"{bundle_path} must be writable: joining consumes it")
    key = StationKey.from_hex(bundle["station_key"])
    certificate = Certificate.from_dict(bundle["certificate"])
    if not certificate.is_signed_by(bundle["hall_public_key"]) or certificate.key != key.public_hex:
        raise IntegrityFailure(f"{bundle_path}: its certificate does not match its keys")
    if certificate.station != bundle["station"]:
        raise IntegrityFailure(f"{bundle_path}: certificate is for {certificate.station}")
    try:
        events = [Event.from_dict(item) for item in bundle["events"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput("bundle", f"{bundle_path} holds a malformed event: {exc}") from None

    created = not directory.exists()
    make_private_dir(directory, STATION_DIR)
    try:
        write_private(directory / STATION_KEY_FILE, key.to_hex() + "\n")
        write_private(directory / PLAYER_SECRET_FILE, str(bundle["player_secret"]) + "\n")
        _write_tls(
            directory,
            str(bundle.get("tls_ca", "")).encode(),
            str(bundle.get("tls_cert", "")).encode(),
            key,
        )
        ledger = Ledger.open(
            directory / LEDGER_FILE,
            station=certificate.station,
            key=key,
            hall_public_key=bundle["hall_public_key"],
            create=True,
        )
        try:
            with ledger.transaction():
                for event in events:
                    ledger.apply(event)
                training = hall_read.hall_is_training(ledger.conn)
                if training is None:
                    raise IntegrityFailure(f"{bundle_path} holds no HallCreated event")
                now = clock_for(training, environ).now()
                # This instance of the station, made here and now: a copy of the bundle joined
                # elsewhere makes another instance, whose first event differs from this one's
                # (even on the same clock), so any peer holding one refuses the other as a fork.
                ledger.append(
                    "StationJoined",
                    {
                        "certificate": certificate.to_dict(),
                        "token": bundle["token"],
                        "instance": secrets.token_hex(16),
                        "release": __version__,
                    },
                    now=now,
                )
        finally:
            ledger.close()
        StationConfig(
            bundle["hall"], certificate.station, certificate.role, bundle["hall_public_key"]
        ).save(directory)
    except BaseException:
        if created:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            shutil.rmtree(directory / TLS_DIR, ignore_errors=True)
            for name in (
                STATION_KEY_FILE,
                PLAYER_SECRET_FILE,
                LEDGER_FILE,
                LEDGER_FILE + "-wal",
                LEDGER_FILE + "-shm",
            ):
                (directory / name).unlink(missing_ok=True)
        raise
    used = {"station": certificate.station, "at": now.isoformat(), "directory": str(directory)}
    write_private(bundle_path, json.dumps({"format": BUNDLE_FORMAT, "used": used}, indent=2) + "\n")
    return {
        "hall": bundle["hall"],
        "station": certificate.station,
        "role": certificate.role,
        "directory": str(directory),
        "events": len(events) + 1,
    }


def stations_overview(st: Station) -> list[dict[str, Any]]:
    """Every station of the hall and what this ledger holds of it: last event and its time."""
    held = heads.heads(st.ledger.conn)
    contacts = replication.last_contacts(st.ledger.conn)
    measured = replication.release_and_clock(st.ledger.conn)
    rows = []
    for station, role in hall_read.stations(st.ledger.conn):
        seq, hlc = held.get(station, (0, ""))
        release, clock_offset_ms = measured.get(station, (None, None))
        if station == st.id:
            release, clock_offset_ms = __version__, 0
        rows.append(
            {
                "station": station,
                "role": role,
                "events": seq,
                "last": Stamp.parse(hlc).instant if hlc else None,
                "this": station == st.id,
                "contact": _parsed_instant(contacts.get(station, (None, None))[0]),
                "sync_error": contacts.get(station, (None, None))[1],
                # its Booth version as it last told this station (None: not yet, or a release
                # before 0.2.0), and how far its clock was ahead of this one's (ms)
                "release": release,
                "clock_offset_ms": clock_offset_ms,
            }
        )
    return rows


def _parsed_instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
