"""What a receipt printer can report. Every error names the printer and the condition.

`PrinterError` is a `pos.services.ports.PrinterFault`, the error the print queue catches: the
job stays queued, the station keeps working and the message goes on screen. The subclasses say
why, so the screen can tell the seller what to do.
"""

from __future__ import annotations

from pos.services.ports import PrinterFault


class PrinterError(PrinterFault):
    """Anything a printer can report: its message names the printer and the offending value."""


class BadPrinterSpec(PrinterError, ValueError):
    """A printer setting such as `usb:04b8:0e15` or `net:10.0.0.5:9100` that does not parse."""


class PrinterOffline(PrinterError):
    """The printer does not answer or does not take the job (switched off, off-line, no route,
    connection refused, write timed out)."""


class PrinterAccessDenied(PrinterOffline):
    """The printer is there but this user may not open it (missing udev rule or group)."""


class PaperOut(PrinterError):
    """The paper roll has run out (the printer says so, or the kernel's usblp reports ENOSPC)."""


class CoverOpen(PrinterError):
    """The printer's cover is open."""


class PrinterUnplugged(PrinterError):
    """No such device is connected: the USB device, serial port or device node is missing."""


class UnsupportedEscPos(PrinterError, ValueError):
    """Bytes the ESC/POS interpreter (escpos_image) does not understand: a command Booth never
    emits, or a truncated command."""


#: The names `FakePrinter.fail_next` and the `dir:` printer's `.fail` file accept.
CONDITIONS: dict[str, type[PrinterError]] = {
    "offline": PrinterOffline,
    "paper-out": PaperOut,
    "cover-open": CoverOpen,
    "unplugged": PrinterUnplugged,
    "access-denied": PrinterAccessDenied,
}
