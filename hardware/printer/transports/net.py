"""`net:HOST[:PORT]`: a printer on the LAN (raw TCP, port 9100), through python-escpos
`Network`."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

from escpos.escpos import Escpos
from escpos.printer import Network

from hardware.printer.errors import BadPrinterSpec, PrinterError, PrinterOffline
from hardware.printer.transports.base import EscposPrinter

DEFAULT_PORT = 9100


class NetworkPrinter(EscposPrinter):
    """A printer on the LAN (raw TCP, port 9100), through python-escpos `Network`."""

    kind = "net"

    def __init__(self, host: str, port: int = DEFAULT_PORT, **options: Any) -> None:
        options.setdefault("timeout", 5.0)
        super().__init__(**options)
        self.host = host
        self.port = port

    def describe(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"printer net:{host}:{self.port}"

    def _open(self) -> Escpos:
        printer = Network(
            self.host, self.port, timeout=self.timeout, profile=self.profile.escpos_profile
        )
        # Connected here rather than by Network.open(), which opens IPv4 sockets only and
        # leaves the socket of a refused connection unclosed; python-escpos then writes,
        # reads and closes it as its own.
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise PrinterOffline(self._why_not(exc)) from exc
        printer.device = sock
        return printer

    def _why_not(self, cause: BaseException) -> str:
        if isinstance(cause, ConnectionRefusedError):
            return f"{self.describe()} refuses the connection: is it switched on and on the LAN?"
        if isinstance(cause, TimeoutError):
            return f"{self.describe()} does not answer within {self.timeout:g} s: is it on?"
        return f"{self.describe()} cannot be reached: {cause}"

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        sock = printer._device
        if sock:
            sock.settimeout(seconds)

    def _query(self, printer: Escpos, request: bytes) -> int | None:
        try:
            return super()._query(printer, request)
        except OSError as exc:
            if isinstance(exc, TimeoutError):
                return None
            raise PrinterOffline(f"{self.describe()} dropped the connection: {exc}") from exc

    def _write_error(self, exc: Exception) -> PrinterError:
        if isinstance(exc, TimeoutError):
            return PrinterOffline(
                f"{self.describe()} stopped taking data for {self.timeout:g} s "
                "(paper out, cover open or off-line?)"
            )
        return PrinterOffline(f"{self.describe()} dropped the connection mid-job: {exc}")


def parse_net(options: str) -> tuple[str, int]:
    """`HOST`, `HOST:PORT` or `[IPv6]:PORT`."""
    text = options.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":")
    else:
        host, _, port_text = text.partition(":")
    if not host or not re.fullmatch(r"[A-Za-z0-9._:%-]+", host):
        raise BadPrinterSpec(
            f"printer net:{options} should name a host, e.g. net:192.168.1.50:9100"
        )
    if not port_text:
        return host, DEFAULT_PORT
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise BadPrinterSpec(f"printer net:{options}: port {port_text!r} is not 1-65535")
    return host, int(port_text)


def net_printer(options: str, station_dir: Path) -> NetworkPrinter:
    """Entry point `booth.printers` `net`: `net:HOST[:PORT]` (port 9100 by default)."""
    host, port = parse_net(options)
    return NetworkPrinter(host, port)
