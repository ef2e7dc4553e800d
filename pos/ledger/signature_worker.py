"""Signature checks in a process of their own, for a long pull.

Checking Ed25519 signatures is half of what a pull costs. In threads of the pulling process the
checks share its GIL with the page being applied: each check gives the GIL up around libsodium
and takes it back after, and the applying thread, which gives it up at every SQLite step, then
waits to have it back. Measured on a 100,000-event pull: the applying thread ran 45% of the
time it spent applying. A worker process has a GIL of its own, so the checks and the applying
each keep a core busy.

The worker only says whether signatures verify. Whatever it answers, an event it does not vouch
for is checked again by the ledger itself (`Ledger.apply_batch`), so a worker that died or
answered wrongly can slow a pull down, never let a forged event in; and it is Booth's own code,
started from this installation, as trusted as the process that starts it.

The wire, on the worker's standard input and output:
- a request: the number of signatures N (4 bytes, little-endian), then N times the signer's
  public key (32 bytes), the signed digest (32 bytes) and the signature (64 bytes);
- its answer: N bytes, 1 where the signature verifies and 0 where it does not.
"""

from __future__ import annotations

import contextlib
import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import BinaryIO

from pos.errors import BoothError

KEY, DIGEST, SIGNATURE = 32, 32, 64
ITEM = KEY + DIGEST + SIGNATURE
MAX_ITEMS = 100_000  # signatures in one request: more is not a request of this ledger's
_COUNT = struct.Struct("<I")
_STOP_WAIT = 5.0  # seconds the worker has to exit once its input is closed


class WorkerFailure(BoothError):
    """The worker cannot check (it did not start, died, or answered out of turn)."""

    exit_code = 3


def request(items: Sequence[tuple[bytes, bytes, bytes]]) -> bytes:
    """The request for `items`: (public key, digest, signature) each, of the wire's sizes."""
    parts = [_COUNT.pack(len(items))]
    for key, digest, signature in items:
        if (len(key), len(digest), len(signature)) != (KEY, DIGEST, SIGNATURE):
            raise ValueError(
                f"a signature check takes a {KEY}-byte key, a {DIGEST}-byte digest and a "
                f"{SIGNATURE}-byte signature, not {len(key)}, {len(digest)} and {len(signature)}"
            )
        parts += (key, digest, signature)
    return b"".join(parts)


def answer(data: bytes) -> bytes:
    """The answer to one request's items (`data`, without its count): pure, for the worker."""
    from nacl.bindings import crypto_sign_open
    from nacl.exceptions import BadSignatureError

    verdicts = bytearray(len(data) // ITEM)
    for index in range(len(verdicts)):
        at = index * ITEM
        key = data[at : at + KEY]
        digest = data[at + KEY : at + KEY + DIGEST]
        signature = data[at + KEY + DIGEST : at + ITEM]
        try:
            crypto_sign_open(signature + digest, key)
        except (BadSignatureError, ValueError, TypeError):
            continue
        verdicts[index] = 1
    return bytes(verdicts)


def serve(source: BinaryIO, sink: BinaryIO) -> None:
    """The worker's loop: answer each request on `source` until it ends."""
    while True:
        head = source.read(_COUNT.size)
        if len(head) < _COUNT.size:
            return  # the pull is over (or its process is gone)
        (count,) = _COUNT.unpack(head)
        if count > MAX_ITEMS:
            raise SystemExit(f"booth signature worker: a request of {count} signatures")
        data = source.read(count * ITEM)
        if len(data) < count * ITEM:
            return
        sink.write(answer(data))
        sink.flush()


class SignatureWorker:
    """A worker process checking signatures for one pull. `check` may be called from any
    thread, one request at a time; `close` ends the process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._lock = threading.Lock()
        self._broken: str | None = None

    @classmethod
    def start(cls) -> SignatureWorker:
        """A worker run by this interpreter from this installation. Raises WorkerFailure."""
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "pos.ledger.signature_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            raise WorkerFailure(f"the signature worker did not start: {exc}") from None
        return cls(process)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def broken(self) -> str | None:
        """Why the worker no longer checks, or None while it does."""
        return self._broken

    def check(self, items: Sequence[tuple[bytes, bytes, bytes]]) -> list[bool]:
        """Whether each (public key, digest, signature) verifies. Raises WorkerFailure."""
        if not items:
            return []
        data = request(items)
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        with self._lock:
            if self._broken is not None:
                raise WorkerFailure(self._broken)
            try:
                stdin.write(data)
                stdin.flush()
                verdicts = stdout.read(len(items))
            except (OSError, ValueError) as exc:
                verdicts = b""
                self._broken = f"the signature worker is gone: {exc}"
            if len(verdicts) != len(items):
                self._broken = self._broken or (
                    f"the signature worker answered {len(verdicts)} of {len(items)} checks "
                    f"(exit status {self._process.poll()})"
                )
                raise WorkerFailure(self._broken)
        return [verdict == 1 for verdict in verdicts]

    def close(self) -> None:
        """End the worker: its input closes, it exits; one that does not is killed."""
        self._broken = self._broken or "the signature worker was closed"
        process = self._process
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            process.wait(timeout=_STOP_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> SignatureWorker:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def main() -> None:
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
