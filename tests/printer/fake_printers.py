"""Printers on the other end of a real wire: a TCP printer on 127.0.0.1 and a USB printer on
a pyusb backend (built on tests/hardware/fake_usb.py), both answering DLE EOT status requests
the way an Epson does."""

from __future__ import annotations

import array
import errno
import queue
import socket
import struct
import threading
from typing import Any

import usb.backend
import usb.core

from tests.hardware.fake_usb import ENDPOINT, INTERFACE, FakeInterface, FakeScannerBackend

PAPER_OK = {1: 0x12, 2: 0x12, 4: 0x12}  # DLE EOT 1, 2, 4: on-line, no cause, paper present
PAPER_OUT = {1: 0x1A, 2: 0x32, 4: 0x72}  # off-line; printing stopped at paper end; sensor: out
COVER_OPEN = {1: 0x1A, 2: 0x16, 4: 0x12}  # off-line; cover open


def status_request(chunk: bytes) -> tuple[bytes, int | None]:
    """(the data, the DLE EOT n at its end or None)."""
    if len(chunk) >= 3 and chunk[-3:-1] == b"\x10\x04" and chunk[-1] in (1, 2, 3, 4):
        return chunk[:-3], chunk[-1]
    return chunk, None


class TcpPrinter:
    """A raw-TCP (port 9100) printer: one thread accepting connections and reading them; each
    connection's bytes are one job. `status` None: it never answers status requests."""

    def __init__(self, status: dict[int, int] | None = PAPER_OK) -> None:
        self.status = status
        self.jobs: list[bytes] = []
        self.status_requests = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.02)
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name="tcp-printer", daemon=False)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(0.02)
                job = bytearray()
                while not self._stop.is_set():
                    try:
                        chunk = conn.recv(65536)
                    except TimeoutError:
                        continue
                    except OSError:
                        break
                    if not chunk:
                        break
                    data, request = status_request(chunk)
                    job += data
                    if request is not None:
                        with self._lock:
                            self.status_requests += 1
                        if self.status is not None:
                            conn.sendall(bytes([self.status[request]]))
                with self._lock:
                    if job:
                        self.jobs.append(bytes(job))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._listener.close()


class PrinterInterface(FakeInterface):
    """A USB printer class interface (7/1/2) with a bulk OUT and a bulk IN endpoint."""

    def descriptor(self) -> bytes:
        interface = struct.pack("<BBBBBBBBB", 9, INTERFACE, self.number, 0, 2, 7, 1, 2, 0)
        out_ep = struct.pack("<BBBBHB", 7, ENDPOINT, 0x01, 0x02, 64, 0)
        in_ep = struct.pack("<BBBBHB", 7, ENDPOINT, 0x82, 0x02, 64, 0)
        return interface + out_ep + in_ep


class UsbPrinterBackend(FakeScannerBackend):
    """An Epson-like USB printer (04b8:0e15) on the fake bus: bulk writes are kept, DLE EOT
    requests answered from `status`; `stall` makes writes time out (and `status_on_stall`, if
    set, becomes the status then), `unplug_after` pulls the cable after that many bytes of the
    next write."""

    def __init__(self, status: dict[int, int] | None = PAPER_OK) -> None:
        super().__init__(
            0x04B8,
            0x0E15,
            (PrinterInterface(0, 7, 1, 2, 0x82),),
            strings=("EPSON", "TM-T20III", "X5E1234567"),
        )
        self.status = status
        self.received = bytearray()
        self.stall = False
        self.status_on_stall: dict[int, int] | None = None
        self.unplug_after: int | None = None

    def reset_device(self, dev_handle: Any) -> None:
        self._check(dev_handle)
        self._record("reset")

    def bulk_write(
        self, dev_handle: Any, ep: int, intf: int, data: array.array[int], timeout: int
    ) -> int:
        self._check(dev_handle)
        chunk, request = status_request(bytes(data))
        if self.unplug_after is not None and chunk:
            self.received += chunk[: self.unplug_after]
            self.present = False
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, 19)
        if self.stall and chunk:
            if self.status_on_stall is not None:
                self.status = self.status_on_stall
            raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
        self.received += chunk
        if request is not None and self.status is not None:
            self.reports[0x82].put(bytes([self.status[request]]))
        return len(data)

    def bulk_read(
        self, dev_handle: Any, ep: int, intf: int, buff: array.array[int], timeout: int
    ) -> int:
        self._check(dev_handle)
        try:
            item = self.reports[ep].get(timeout=timeout / 1000)
        except queue.Empty:
            raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT) from None
        assert isinstance(item, bytes)
        buff[: len(item)] = array.array("B", item)
        return len(item)


class EmptyBus(usb.backend.IBackend):  # type: ignore[misc]
    """A pyusb backend with nothing plugged in."""

    def enumerate_devices(self) -> list[Any]:
        return []
