"""The serial scanner on pyserial's `loop://` port: what is written comes back to be read, so the
real pyserial read path runs."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

import pytest
import serial

from hardware.scanner.serial_port import SerialScanner
from tests.hardware.helpers import Collector, wait_until


class LoopPorts:
    """An opener handing out `loop://` ports, keeping them so the test can write to them."""

    def __init__(self) -> None:
        self.ports: list[Any] = []
        self.refuse: OSError | None = None

    def __call__(self, url: str, **settings: Any) -> Any:
        if self.refuse is not None:
            raise self.refuse
        port = serial.serial_for_url("loop://", **settings)
        self.ports.append(port)
        self.settings = settings
        return port

    @property
    def current(self) -> Any:
        wait_until(lambda: bool(self.ports), "the port to be opened")
        return self.ports[-1]


@pytest.fixture
def loop(request: pytest.FixtureRequest) -> Iterator[tuple[SerialScanner, LoopPorts, Collector]]:
    ports = LoopPorts()
    scanner = SerialScanner(
        "loop://",
        19200,
        opener=ports,
        read_timeout=0.01,
        scan_timeout=getattr(request, "param", 1.0),
        retry_initial=0.005,
        retry_max=0.02,
    )
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    yield scanner, ports, got
    scanner.stop()


def test_lines_ending_cr_lf_or_crlf_are_scans(
    loop: tuple[SerialScanner, LoopPorts, Collector],
) -> None:
    _, ports, got = loop
    ports.current.write(b"A123456/0042/10000\r\nB2\rC3\n\r\n\n")
    assert got.wait_scans(3) == ["A123456/0042/10000", "B2", "C3"]
    assert got.threads == {"booth-scanner-serial"}
    assert ports.settings == {"baudrate": 19200, "timeout": 0.01}
    assert got.errors == []


def test_a_line_split_across_reads_is_one_scan(
    loop: tuple[SerialScanner, LoopPorts, Collector],
) -> None:
    _, ports, got = loop
    ports.current.write(b"SPL")
    ports.current.write(b"IT\r")
    assert got.wait_scans(1) == ["SPLIT"]


@pytest.mark.parametrize("loop", [0.03], indirect=True)  # scan_timeout
def test_an_unterminated_scan_is_reported_partial_after_a_pause(
    loop: tuple[SerialScanner, LoopPorts, Collector],
) -> None:
    _, ports, got = loop
    ports.current.write(b"PART")
    assert "'PART'" in got.wait_error("partial scan")
    ports.current.write(b"NEXT\r")
    assert got.wait_scans(1) == ["NEXT"]


def test_bytes_that_are_not_text_are_reported_not_delivered(
    loop: tuple[SerialScanner, LoopPorts, Collector],
) -> None:
    _, ports, got = loop
    ports.current.write(b"\xff\xfe1\r\nOK\r\n")
    assert got.wait_scans(1) == ["OK"]
    assert "not UTF-8" in got.wait_error("discarded")


def test_a_port_that_goes_away_is_reported_and_reopened(
    loop: tuple[SerialScanner, LoopPorts, Collector],
) -> None:
    _, ports, got = loop
    first = ports.current
    first.write(b"HALF")
    wait_until(lambda: first.in_waiting == 0, "the bytes to be read")
    ports.refuse = serial.SerialException(errno.ENOENT, "could not open port: No such file")
    first.close()  # unplugged under the reader
    assert "serial:loop://" in got.wait_error("unplugged (")
    assert "'HALF'" in got.wait_error("partial scan")
    ports.refuse = None
    wait_until(lambda: len(ports.ports) == 2, "the port to be reopened")
    ports.current.write(b"AGAIN\r")
    assert got.wait_scans(1) == ["AGAIN"]


def test_a_missing_device_node_is_reported_by_real_pyserial() -> None:
    scanner = SerialScanner("/dev/ttyBOOTH-NO-SUCH", retry_initial=0.005, retry_max=0.01)
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    try:
        message = got.wait_error("not found")
        assert "serial:/dev/ttyBOOTH-NO-SUCH" in message
    finally:
        scanner.stop()
