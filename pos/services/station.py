"""A station directory: its identity, keys, lock and ledger, opened as one thing."""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import stat
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pos import __version__
from pos.clock import Clock, clock_for
from pos.domain import event_time
from pos.errors import (
    BadInput,
    IntegrityFailure,
    NotFound,
    NotPermitted,
    RuleRefused,
    StorageFailure,
)
from pos.ledger import Ledger, store
from pos.ledger.keys import Certificate, StationKey
from pos.ledger.projections import hall as hall_projection
from pos.ledger.projections import releases as releases_read
from pos.services.lock import StationLock

CONFIG_FILE = "station.json"
STATION_KEY_FILE = "station.key"
HALL_KEY_FILE = "hall.key"
PLAYER_SECRET_FILE = "player.secret"
LEDGER_FILE = "ledger.db"
TLS_DIR = "tls"


@dataclass(frozen=True)
class StationConfig:
    hall: str
    station: str
    role: str
    hall_public_key: str

    def save(self, directory: Path) -> None:
        write_private(directory / CONFIG_FILE, json.dumps(asdict(self), indent=2) + "\n", 0o644)

    @classmethod
    def load(cls, directory: Path) -> StationConfig:
        path = directory / CONFIG_FILE
        try:
            data = json.loads(path.read_text())
            return cls(**{k: str(data[k]) for k in ("hall", "station", "role", "hall_public_key")})
        except FileNotFoundError:
            raise NotFound(
                f"no station in {directory}: run 'booth init' (a new hall) or 'booth join'"
            ) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise BadInput(str(path), f"station configuration is damaged: {exc}") from None


def write_private(path: Path, text: str, mode: int = 0o600) -> None:
    """Write a file whole or not at all (temp file, fsync, rename)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise StorageFailure(f"cannot write {path}: {exc.strerror}") from None


PRIVATE_DIR = 0o700
#: The station directory itself: its owner's, and the group may only pass through it, to reach
#: the running station's control.sock by name (issue #15); it can list and read nothing there
#: (the ledger and keys are 0600), so staff names and dates of birth stay the owner's (#16).
STATION_DIR = 0o710


def make_private_dir(path: Path, mode: int = PRIVATE_DIR) -> None:
    """A directory of the station (tls/, a backup's folders): made if missing, with `mode`
    (0700 unless said) whatever the umask. It holds keys, staff names and dates of birth."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
        os.chmod(path, mode)
    except OSError as exc:
        raise StorageFailure(f"cannot make {path}: {exc.strerror}") from None


#: The most each of the station's own files may allow (an older release left some wider).
_MOST_ALLOWED = {
    ".": STATION_DIR,
    TLS_DIR: PRIVATE_DIR,
    STATION_KEY_FILE: 0o600,
    HALL_KEY_FILE: 0o600,
    PLAYER_SECRET_FILE: 0o600,
}


def keep_private(directory: Path) -> None:
    """Take from the station's directory, tls/ and keys any permission a new station's lack
    (a station set up by an older release kept its folder 0755); never add one."""
    for name, most in _MOST_ALLOWED.items():
        path = directory / name
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & ~most:
                os.chmod(path, mode & most)
        except (FileNotFoundError, PermissionError):
            continue
        except OSError as exc:
            raise StorageFailure(f"cannot keep {path} private: {exc.strerror}") from None


def _own_key(directory: Path, *, required: bool) -> StationKey | None:
    """The station's signing key from station.key. A reader may lack it (a copy without keys,
    an account that may not read it): its certificate is still checked. A writer may not."""
    path = directory / STATION_KEY_FILE
    try:
        text = path.read_text()
    except (FileNotFoundError, PermissionError):
        if required:
            raise IntegrityFailure(
                f"{path} is missing or unreadable: this station cannot sign; restore its own "
                "files (docs/backup-and-restore.md)"
            ) from None
        return None
    except OSError as exc:
        raise StorageFailure(f"cannot read {path}: {exc.strerror}") from None
    return StationKey.from_hex(text)


@dataclass(frozen=True)
class Operator:
    badge: str
    name: str
    roles: frozenset[str]


@dataclass(frozen=True)
class HallSettings:
    hall: str
    organisation: str
    location: str
    time_zone: str
    training: bool


class Station:
    """An open station: lock held, ledger open, clock chosen. Use as a context manager."""

    def __init__(
        self,
        directory: Path,
        *,
        environ: dict[str, str] | None = None,
        clock: Clock | None = None,
        read_only: bool = False,
        lock_wait: float = 0.0,
        log_only: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """`log_only` (with `read_only`): the command reads the log itself (`verify`), so
        projections another version made are not replayed for it. `progress(done, total)`: a
        rebuild of such projections while opening to write."""
        self.directory = directory
        self._is_view = False
        self._owns_connection = False
        self.read_only = read_only
        self.config = StationConfig.load(directory)
        if not (directory / LEDGER_FILE).exists():
            # Never made anew here: an empty ledger would sell as a new station, from seq 1.
            raise StorageFailure(store.MISSING)
        # A reader takes no lock: WAL lets it read beside the station's writer.
        self._lock = StationLock(directory)
        if not read_only:
            self._lock.acquire(wait=lock_wait)
        try:
            if not read_only:
                keep_private(directory)
            key = _own_key(directory, required=not read_only)
            if read_only:
                self.ledger = Ledger.open_read_only(
                    directory / LEDGER_FILE,
                    station=self.config.station,
                    hall_public_key=self.config.hall_public_key,
                    log_only=log_only,
                )
            else:
                self.ledger = Ledger.open(
                    directory / LEDGER_FILE,
                    station=self.config.station,
                    key=key,
                    hall_public_key=self.config.hall_public_key,
                    progress=progress,
                )
            self._check_identity(key)
            self.hall = self._hall_settings()
            if clock is not None and not self.hall.training:
                raise RuleRefused("TRAINING", "only a training hall may run on a set clock")
            self.clock: Clock = clock or clock_for(self.hall.training, environ)
            self.ledger.clock = self.clock  # its incidents are dated by the station's clock
        except sqlite3.DatabaseError as exc:
            self._lock.release()
            if store.is_damaged(exc):
                raise store.damaged(exc, directory / LEDGER_FILE) from None
            raise StorageFailure(f"cannot read the ledger: {exc}") from None
        except BaseException:
            self._lock.release()
            raise

    @property
    def id(self) -> str:
        return self.config.station

    def _check_identity(self, key: StationKey | None) -> None:
        """The station opens only as itself: its ledger holds its certificate, signed by the
        hall key station.json names (the hall that created the ledger), for the key in
        station.key. Else IntegrityFailure (exit 4), before the command writes anything: a
        swapped card or a mixed restore would sell under another station's key, and those
        sales would never replicate."""
        restore = "restore this station's own files (docs/backup-and-restore.md)"
        found = hall_projection.station_identity(self.ledger.conn, self.id)
        if found is None:
            raise IntegrityFailure(
                f"this ledger holds no certificate for station {self.id}: {restore}"
            )
        hall_key, certified_key, certificate_json = found
        if hall_key != self.config.hall_public_key:
            raise IntegrityFailure(
                f"station {self.id}: {CONFIG_FILE} names hall key "
                f"{self.config.hall_public_key[:16]} but the ledger's hall has key "
                f"{hall_key[:16]}: {restore}"
            )
        try:
            certificate = Certificate.from_dict(json.loads(certificate_json))
        except ValueError as exc:
            raise IntegrityFailure(
                f"station {self.id}: its certificate is damaged: {exc}"
            ) from None
        if (
            certificate.station != self.id
            or certificate.key != certified_key
            or not certificate.is_signed_by(self.config.hall_public_key)
        ):
            raise IntegrityFailure(
                f"station {self.id}: its certificate in the ledger is not signed by the hall: "
                f"{restore}"
            )
        if key is not None and key.public_hex != certificate.key:
            raise IntegrityFailure(
                f"{STATION_KEY_FILE} is not the key the hall certified for station {self.id} "
                f"(it holds key {key.public_hex[:16]}, the certificate names "
                f"{certificate.key[:16]}): another station's key? {restore}"
            )

    def _hall_settings(self) -> HallSettings:
        found = hall_projection.hall_settings(self.ledger.conn)
        if found is None:
            raise NotFound(f"station {self.id} holds no hall record yet")
        return HallSettings(*found)

    def hall_key(self) -> StationKey:
        path = self.directory / HALL_KEY_FILE
        if not path.exists():
            raise NotPermitted(
                f"station {self.id} does not hold the hall's key: do this on the manager station"
            )
        return StationKey.from_hex(path.read_text())

    def player_secret(self) -> bytes:
        return bytes.fromhex((self.directory / PLAYER_SECRET_FILE).read_text().strip())

    # --- people ------------------------------------------------------------------------------

    def staff(self, badge: str) -> Operator | None:
        found = hall_projection.active_staff_member(self.ledger.conn, badge)
        if found is None:
            return None
        return Operator(found[0], found[1], frozenset(found[2]))

    def named(self, badge: str) -> str:
        """A badge as people are told it: "Sam Seller (S1)", or "badge S9" when not on staff."""
        person = self.staff(badge)
        return f"{person.name} ({badge})" if person else f"badge {badge}"

    def operator(self, badge: str | None, *roles: str) -> Operator:
        """The logged-in person, if they hold one of `roles` (any role when none are named).

        A manager may do whatever a seller or redeemer may: the game manager covers the booth.
        """
        if not badge:
            raise NotPermitted(
                "this command needs an operator: pass --as BADGE or set BOOTH_OPERATOR"
            )
        person = self.staff(badge)
        if person is None:
            raise NotPermitted(f"badge {badge!r} is not on this hall's staff")
        allowed = set(roles) | ({"manager"} if {"seller", "redeemer"} & set(roles) else set())
        if roles and not person.roles.intersection(allowed):
            raise NotPermitted(
                f"badge {badge} ({person.name}) is not a {' or '.join(roles)}; "
                f"their roles: {', '.join(sorted(person.roles))}"
            )
        return person

    def has_manager(self) -> bool:
        return hall_projection.has_manager(self.ledger.conn)

    # --- lifetime ----------------------------------------------------------------------------

    def on_ledger(self, ledger: Ledger) -> Station:
        """This station seen through another connection to its ledger (a server thread's);
        closing the view closes nothing: the station's own lock stays with the station."""
        view = copy.copy(self)
        view.ledger = ledger
        view.read_only = ledger.read_only
        view._is_view = True
        return view

    def own_connection(self, *, write: bool = False) -> Station:
        """This station on a connection of its own to its ledger, for another thread (a web
        server's): read-only, or (`write`) for the records that need no station key. Closing
        the view closes that connection and nothing else."""
        path = self.directory / LEDGER_FILE
        if write:
            ledger = Ledger.open(
                path, station=self.id, key=None, hall_public_key=self.config.hall_public_key
            )
        else:
            ledger = Ledger.open_read_only(
                path, station=self.id, hall_public_key=self.config.hall_public_key
            )
        view = self.on_ledger(ledger)
        view._owns_connection = True
        return view

    def with_clock(self, clock: Clock) -> Station:
        """This station on another clock (a training hall's request that set BOOTH_NOW);
        closing the view closes nothing."""
        if not self.hall.training:
            raise RuleRefused("TRAINING", "only a training hall may run on a set clock")
        view = copy.copy(self)
        view.clock = clock
        view._is_view = True
        return view

    def close(self) -> None:
        if self._owns_connection:
            self.ledger.close()
            return
        if self._is_view:
            return
        self.ledger.close()
        self._lock.release()

    def __enter__(self) -> Station:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def append(self, kind: str, body: dict[str, Any]) -> Any:
        """Record an event of this station, carrying the hall's clock as it reads here now
        (`when`): the event's legal day, whatever stamps other stations' clocks give."""
        now = self.clock.now()
        when = event_time.hall_time(now, self.hall.time_zone)
        with self.ledger.transaction():
            self._record_release(now, when)
            return self.ledger.append(kind, {**body, "when": when}, now=now)

    def _record_release(self, now: datetime, when: str) -> None:
        """The first event this station records under this release follows ReleaseInstalled,
        in the same transaction (so once, whoever writes first): every event of it after that
        one was written by this release, every one before by an older (pos.domain.rule_records).
        Not at opening: a read, a rebuild or a sync changes no release's record."""
        conn = self.ledger.conn
        if releases_read.recorded(conn, self.id, __version__):
            return
        from pos.domain.rule_records import UNRECORDED_RELEASE  # once a release

        previous = releases_read.latest(conn, self.id) or UNRECORDED_RELEASE
        self.ledger.append(
            "ReleaseInstalled",
            {"release": __version__, "previous": previous, "when": when},
            now=now,
        )
