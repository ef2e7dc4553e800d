"""Where print jobs go: python-escpos's `Usb`, `Network`, `Serial` and `File`, a directory of
job files for tests and the demo, and the in-memory fake (hardware.printer.fake). One module
per transport, as python-escpos has one per printer: base (what they share), usb, net, serial,
file and dir; each holds its printer, the parser of its setting and its `booth.printers`
entry point.

Every printer has `send(job_bytes, name)` and `status()`. `send` opens the connection, asks the
printer how it is where the transport can read an answer (DLE EOT 1, 2 and 4: off-line, cover,
paper), writes the whole job, asks again, and closes: a printer switched off and on between two
jobs is simply found again. It raises PrinterOffline, PaperOut, CoverOpen or PrinterUnplugged
(all PrinterError) as python-escpos and the operating system report them; the print queue keeps
the job and tries again later. A job that failed after some of its bytes went out may have
printed in part: the queue prints it again marked REPRINT.

`status()` never raises: it returns what the transport can tell (None where it cannot).
"""

from __future__ import annotations

from hardware.printer.transports.base import (
    GONE_ERRNOS,
    RT_STATUS_OFFLINE_CAUSE,
    UDEV_HINT,
    EscposPrinter,
    Printer,
    PrinterFactory,
    job_name,
)
from hardware.printer.transports.dir import FAIL_FILE, JOB_NAME, DirPrinter, dir_printer
from hardware.printer.transports.file import FilePrinter, file_printer
from hardware.printer.transports.net import DEFAULT_PORT, NetworkPrinter, net_printer, parse_net
from hardware.printer.transports.serial import (
    DEFAULT_BAUD,
    SerialPrinter,
    parse_serial,
    serial_printer,
)
from hardware.printer.transports.usb import UsbPrinter, parse_usb, usb_printer

__all__ = [
    "DEFAULT_BAUD",
    "DEFAULT_PORT",
    "FAIL_FILE",
    "GONE_ERRNOS",
    "JOB_NAME",
    "RT_STATUS_OFFLINE_CAUSE",
    "UDEV_HINT",
    "DirPrinter",
    "EscposPrinter",
    "FilePrinter",
    "NetworkPrinter",
    "Printer",
    "PrinterFactory",
    "SerialPrinter",
    "UsbPrinter",
    "dir_printer",
    "file_printer",
    "job_name",
    "net_printer",
    "parse_net",
    "parse_serial",
    "parse_usb",
    "serial_printer",
    "usb_printer",
]
