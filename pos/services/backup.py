"""Backups of a station to a directory (a USB stick or a path), and a verified restore.

A backup is one folder, `booth-backup-{hall}-{station}-{UTC time}`, holding:
  - `ledger.db`: the ledger, copied with SQLite's online backup API, then made a single
    self-contained file (rollback journal, not WAL);
  - the station's other files (station.json, station.key, player.secret, hall.key on the
    manager, tls/ and whatever else the station directory holds), each 0600;
  - `manifest.json`, written last: what was copied, each file's SHA-256, and the ledger's
    event count and digest as `booth verify` computed them on the copy.

The folder is written under a `.partial` name and renamed only once the copy verifies, so a
pulled stick or a full disk never leaves something that looks like a finished backup.

The station lock is *not* taken. The lock is held for the whole life of the station's process
(`booth run`), so taking it would mean stopping the station to back it up. Instead the ledger is
opened read-only and copied by the online backup API in one step: SQLite copies the database as
of one read transaction, which in WAL mode never blocks the station's writers, so the copy is a
consistent snapshot even while sales go on. The key files are written once (atomically) when the
station is set up, so reading them beside a running station is safe.

A restore goes into an empty (or new) station directory only. The copy is checked against its
manifest, then `verify` runs on the restored ledger; if anything fails, everything the restore
wrote is removed again.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from pos import __version__
from pos.clock import SystemClock
from pos.errors import BadInput, BoothError, IntegrityFailure, NotFound, StorageFailure
from pos.ledger import Ledger
from pos.ledger import files as ledger_files
from pos.ledger import restored as restored_mark
from pos.ledger.keys import Certificate, StationKey
from pos.ledger.verify import CERTIFYING_KINDS, Report, verify
from pos.services.inputs import MANIFEST_MAX, read_input_text
from pos.services.station import (
    CONFIG_FILE,
    LEDGER_FILE,
    PRIVATE_DIR,
    STATION_DIR,
    STATION_KEY_FILE,
    StationConfig,
    make_private_dir,
)

FORMAT = "booth-backup-1"
MANIFEST = "manifest.json"
PREFIX = "booth-backup-"
PARTIAL = ".partial"

# Never copied as files: the ledger (copied through SQLite), its journals, the lock, temp files.
_SKIPPED = {
    LEDGER_FILE,
    LEDGER_FILE + "-wal",
    LEDGER_FILE + "-shm",
    LEDGER_FILE + "-journal",
    "station.lock",
}


# --- backup ------------------------------------------------------------------------------------


def backup(
    directory: Path,
    dest: Path,
    *,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Copy the station in `directory` into a new folder under `dest`, verified. `now` is UTC.
    `progress(done, total)`: the copy's events verified so far."""
    config = StationConfig.load(directory)
    ledger_path = directory / LEDGER_FILE
    if not ledger_path.is_file():
        raise NotFound(f"station {config.station} in {directory} has no ledger ({LEDGER_FILE})")
    if not dest.exists():
        raise BadInput(
            "destination", f"{dest} does not exist (is the USB stick plugged in and mounted?)"
        )
    if not dest.is_dir():
        raise BadInput("destination", f"{dest} is not a directory")

    name = _free_name(dest, f"{PREFIX}{config.hall}-{config.station}-{now:%Y%m%dT%H%M%SZ}")
    final = dest / name
    partial = dest / (name + PARTIAL)
    with _storage(f"cannot write the backup in {dest}"):
        partial.mkdir(mode=0o700)
        _private(partial, 0o700)
    try:
        files: dict[str, dict[str, Any]] = {}
        with _storage(f"cannot copy the ledger to {dest}"):
            _copy_ledger(ledger_path, partial / LEDGER_FILE)
            # The answers kept for request ids stay with the station (see restored.py).
            restored_mark.forget_answers_in_file(partial / LEDGER_FILE)
            _fsync(partial / LEDGER_FILE)
        files[LEDGER_FILE] = _describe(partial / LEDGER_FILE, mode=0o600)
        for relative in _station_files(directory):
            target = partial / relative
            with _storage(f"cannot copy {relative} to {dest}"):
                target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                _private(target.parent, 0o700)
                mode = (directory / relative).stat().st_mode & 0o777
                _write_file(target, (directory / relative).read_bytes())
            files[relative.as_posix()] = _describe(target, mode=mode)

        report = _verify_file(partial / LEDGER_FILE, config, progress)
        if not report.ok:
            raise IntegrityFailure(
                f"the copy of station {config.station}'s ledger does not verify: "
                f"{report.problems[0]} (the station's own ledger is damaged: run 'booth verify')"
            )
        manifest = {
            "format": FORMAT,
            "created": now.isoformat(),
            "booth_version": __version__,
            "hall": config.hall,
            "station": config.station,
            "role": config.role,
            "hall_public_key": config.hall_public_key,
            "events": _events(report),
            "digest": report.digest,
            "origins": report.to_dict()["origins"],
            "files": files,
        }
        with _storage(f"cannot finish the backup in {dest}"):
            _write_file(partial / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
            os.rename(partial, final)
            _fsync_dir(dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return {
        "path": str(final),
        "hall": config.hall,
        "station": config.station,
        "role": config.role,
        "events": manifest["events"],
        "digest": report.digest,
        "files": sorted(files),
    }


def _free_name(dest: Path, base: str) -> str:
    name, n = base, 1
    while (dest / name).exists() or (dest / (name + PARTIAL)).exists():
        n += 1
        name = f"{base}-{n}"
    return name


def _station_files(directory: Path) -> list[Path]:
    """Every regular file of the station directory except the ledger, its journals and the lock."""
    found: list[Path] = []
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if path.is_symlink() or not path.is_file():
            continue
        if str(relative) in _SKIPPED or path.name.endswith(".tmp"):
            continue
        found.append(relative)
    return found


def _copy_ledger(source: Path, target: Path) -> None:
    """SQLite's online backup of `source` (opened read-only) into a new file `target`."""
    # Created 0600 before SQLite sees it: SQLite would make it 0644, and chmod fails on FAT.
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    _private(target, 0o600)
    ledger_files.copy_ledger_file(source, target)
    _fsync(target)


def _private(path: Path, mode: int) -> None:
    """`mode` whatever the umask, where the file system keeps modes (FAT refuses chmod)."""
    with contextlib.suppress(OSError):
        os.chmod(path, mode)


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    _private(path, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # some file systems (FAT) refuse to fsync a directory
        _fsync(path)


def _describe(path: Path, *, mode: int) -> dict[str, Any]:
    return {"sha256": _sha256(path), "size": path.stat().st_size, "mode": f"{mode:04o}"}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _events(report: Report) -> int:
    return sum(summary.events for summary in report.origins.values())


@contextlib.contextmanager
def _storage(what: str) -> Iterator[None]:
    """OS and SQLite errors while writing become StorageFailure, naming the likely cause."""
    try:
        yield
    except BoothError:
        raise
    except OSError as exc:
        raise StorageFailure(f"{what}: {_cause(exc)}") from None
    except sqlite3.Error as exc:
        raise StorageFailure(f"{what}: {exc}") from None


def _cause(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EROFS:
        return "the disk is read-only (a locked or failing USB stick?)"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)


# --- verification --------------------------------------------------------------------------


def _open_readonly(path: Path, config: StationConfig) -> Ledger:
    """A ledger file opened read-only, as it is: no migrations, no projections rebuilt."""
    return ledger_files.open_read_only(
        path, station=config.station, hall_public_key=config.hall_public_key
    )


def _verify_file(
    path: Path,
    config: StationConfig,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    ledger = _open_readonly(path, config)
    try:
        try:
            return verify(ledger, progress=progress)
        except sqlite3.DatabaseError as exc:
            raise BadInput("backup", f"{path} is not a Booth ledger: {exc}") from None
    finally:
        ledger.close()


# --- restore -------------------------------------------------------------------------------


def restore(
    source: Path,
    directory: Path,
    *,
    progress: Callable[[int, int], None] | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Restore the backup folder `source` into `directory`, which must be empty or absent.

    Checked, in order: the manifest (BadInput when missing or garbled), every file against its
    SHA-256 (IntegrityFailure), then the restored ledger with `verify`, its digest against the
    manifest, the hall key against the hall's first event and the station key against its
    certificate (IntegrityFailure). On any failure nothing is left in `directory`.
    `progress(done, total)`: the restored ledger's events verified so far.

    The restored station is left catching up (pos/ledger/restored.py): it records nothing until
    its peers gave back its events newer than the backup. The answers kept for request ids are
    dropped (a backup made before this version still carries them).
    """
    manifest = _read_manifest(source)
    config = _manifest_config(manifest, source)
    _check_files(manifest, source)
    _check_is_ledger(source / LEDGER_FILE)
    created = _prepare_target(directory)
    try:
        with _storage(f"cannot restore into {directory}"):
            _copy_ledger(source / LEDGER_FILE, directory / LEDGER_FILE)
        report = _verify_file(directory / LEDGER_FILE, config, progress)
        if not report.ok:
            raise IntegrityFailure(
                f"the backup's ledger does not verify: {report.problems[0]}"
                + (f" (and {len(report.problems) - 1} more)" if len(report.problems) > 1 else "")
            )
        if report.digest != manifest.get("digest") or _events(report) != manifest.get("events"):
            raise IntegrityFailure(
                "the backup's ledger is not the one its manifest describes "
                f"(digest {report.digest[:16]}, manifest {str(manifest.get('digest'))[:16]})"
            )
        _check_keys(directory / LEDGER_FILE, config, source)
        files = manifest["files"]
        with _storage(f"cannot restore into {directory}"):
            for relative in sorted(files):
                if relative in (LEDGER_FILE, CONFIG_FILE):
                    continue
                _restore_file(
                    source / relative, directory / relative, files[relative]["mode"], directory
                )
            # The ledger opens with this version's migrations and projections before the
            # station is declared complete.
            ledger = Ledger.open(
                directory / LEDGER_FILE,
                station=config.station,
                key=None,
                hall_public_key=config.hall_public_key,
            )
            try:
                # Catching up: nothing recorded before the peers gave back this station's
                # events newer than the backup (pos/ledger/restored.py).
                with ledger.transaction():
                    restored_mark.start(
                        ledger.conn,
                        restored_mark.Restored(
                            station=config.station,
                            backup_created=manifest.get("created"),
                            own_seq=_own_seq(report, config.station),
                            restored_at=(now or SystemClock().now()).isoformat(),
                        ),
                    )
            finally:
                ledger.close()
            # Last: a directory holding station.json is a complete station.
            _restore_file(
                source / CONFIG_FILE, directory / CONFIG_FILE, files[CONFIG_FILE]["mode"], directory
            )
    except BaseException:
        _clean(directory, created)
        raise
    return {
        "directory": str(directory),
        "hall": config.hall,
        "station": config.station,
        "role": config.role,
        "hall_public_key": config.hall_public_key,
        "events": _events(report),
        "digest": report.digest,
        "backup_created": manifest.get("created"),
        "own_seq": _own_seq(report, config.station),
        "catching_up": True,
    }


def _own_seq(report: Report, station: str) -> int:
    summary = report.origins.get(station)
    return summary.last_seq if summary is not None else 0


def _read_manifest(source: Path) -> dict[str, Any]:
    if not source.is_dir():
        raise BadInput("backup", f"{source} is not a directory (name the backup's folder)")
    path = source / MANIFEST
    if not path.is_file():
        inside = sorted(p.name for p in source.glob(PREFIX + "*") if not p.name.endswith(PARTIAL))
        if inside:
            listing = ", ".join(inside[-5:])
            raise BadInput(
                "backup", f"{source} holds backups; name one of them (the newest last): {listing}"
            )
        raise BadInput("backup", f"{source} is not a Booth backup (it has no {MANIFEST})")
    try:
        data = json.loads(read_input_text(path, "backup", limit=MANIFEST_MAX))
    except ValueError as exc:
        raise BadInput("backup", f"{path} is garbled: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput("backup", f"{path} is not a {FORMAT} manifest")
    files = data.get("files")
    if (
        not isinstance(files, dict)
        or LEDGER_FILE not in files
        or CONFIG_FILE not in files
        or not all(_valid_entry(name, entry) for name, entry in files.items())
    ):
        raise BadInput("backup", f"{path} does not list the backup's files properly")
    return data


def _valid_entry(name: str, entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
        return False
    mode = entry.get("mode")
    if not isinstance(mode, str) or not all(c in "01234567" for c in mode) or not mode:
        return False
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts


def _manifest_config(manifest: dict[str, Any], source: Path) -> StationConfig:
    try:
        config = StationConfig.load(source)
    except NotFound:
        raise BadInput("backup", f"{source} lacks {CONFIG_FILE}") from None
    for field in ("hall", "station", "role", "hall_public_key"):
        if manifest.get(field) != getattr(config, field):
            raise IntegrityFailure(
                f"{source}: {CONFIG_FILE} and the manifest disagree about the "
                f"{field.replace('_', ' ')}"
            )
    return config


def _check_files(manifest: dict[str, Any], source: Path) -> None:
    for relative, entry in sorted(manifest["files"].items()):
        path = source / relative
        if not path.is_file():
            raise BadInput("backup", f"{source} lacks {relative}: the backup is incomplete")
        if _sha256(path) != entry["sha256"]:
            raise IntegrityFailure(
                f"{relative} in {source} is not the file that was backed up (its SHA-256 "
                "differs from the manifest): the backup was altered or damaged"
            )


def _check_is_ledger(path: Path) -> None:
    try:
        ledger_files.probe_ledger_file(path)
    except sqlite3.DatabaseError as exc:
        raise BadInput("backup", f"{path} is not a Booth ledger: {exc}") from None


def _check_keys(ledger_path: Path, config: StationConfig, source: Path) -> None:
    """The hall key named in station.json is the hall's, and station.key is the certified key."""
    ledger = _open_readonly(ledger_path, config)
    try:
        rows = ledger_files.bodies_of_kinds(ledger, CERTIFYING_KINDS)
    finally:
        ledger.close()
    hall_keys = {
        json.loads(body).get("hall_public_key") for kind, body in rows if kind == "HallCreated"
    }
    if hall_keys != {config.hall_public_key}:
        raise IntegrityFailure(
            f"{source}: the ledger was not created by the hall key in {CONFIG_FILE}"
        )
    certified = set()
    for _kind, body in rows:
        with contextlib.suppress(ValueError, AttributeError, BoothError):
            cert = Certificate.from_dict(json.loads(body).get("certificate"))
            if cert.station == config.station:
                certified.add(cert.key)
    key_path = source / STATION_KEY_FILE
    if not key_path.is_file():
        raise BadInput("backup", f"{source} lacks {STATION_KEY_FILE}")
    try:
        public = StationKey.from_hex(key_path.read_text()).public_hex
    except (ValueError, BoothError) as exc:
        raise BadInput("backup", f"{key_path} is garbled: {exc}") from None
    if public not in certified:
        raise IntegrityFailure(
            f"{source}: {STATION_KEY_FILE} is not the key the hall certified for {config.station}"
        )


def _prepare_target(directory: Path) -> bool:
    """Refuse a directory that holds anything. True when the restore creates it."""
    if directory.exists():
        if not directory.is_dir():
            raise BadInput("hall", f"{directory} is not a directory")
        if any(directory.iterdir()):
            raise BadInput(
                "hall",
                f"{directory} is not empty: restore only into an empty or new directory "
                "(move the old station aside first)",
            )
        make_private_dir(directory, STATION_DIR)
        return False
    make_private_dir(directory, STATION_DIR)
    return True


def _restore_file(source: Path, target: Path, mode_text: str, station: Path) -> None:
    mode = (int(mode_text, 8) & 0o644) | 0o600  # never wider than 0644; keys stay 0600
    make_private_dir(target.parent, STATION_DIR if target.parent == station else PRIVATE_DIR)
    tmp = target.with_name(target.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(source.read_bytes())
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(tmp, mode)  # whatever the umask
    os.replace(tmp, target)


def _clean(directory: Path, created: bool) -> None:
    if created:
        shutil.rmtree(directory, ignore_errors=True)
        return
    if not directory.exists():
        return
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                child.unlink()
