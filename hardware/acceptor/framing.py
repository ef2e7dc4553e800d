"""Reading frames that open with a start byte and then say their whole length (ID-003's SYNC,
EBDS's STX): pure bytes in, whole frames out. Each protocol says how long a frame may be and
how to check and decode one; the search for the start byte is the same for both."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class StartLengthReader(Generic[T]):
    """Anything before the start byte is skipped. A length outside `lengths`, or a frame that
    `decode` refuses (None: a bad checksum, a missing end byte), is dropped and counted, and the
    search for the start byte goes on from the byte after it."""

    def __init__(self, start: int, lengths: range, decode: Callable[[bytes], T | None]) -> None:
        self._start = bytes([start])
        self._lengths = lengths
        self._decode = decode
        self._buffer = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> Iterator[T]:
        self._buffer += chunk
        while True:
            start = self._buffer.find(self._start)
            if start < 0:
                self._buffer.clear()
                return
            del self._buffer[:start]
            if len(self._buffer) < 2:
                return
            length = self._buffer[1]
            if length not in self._lengths:
                self._drop_start()
                continue
            if len(self._buffer) < length:
                return
            frame = self._decode(bytes(self._buffer[:length]))
            if frame is None:
                self._drop_start()
                continue
            del self._buffer[:length]
            yield frame

    def _drop_start(self) -> None:
        del self._buffer[:1]
        self.dropped += 1
