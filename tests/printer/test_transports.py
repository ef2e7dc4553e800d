"""Where jobs go: file (appended), dir (a file and a picture per job), the fake, a TCP printer on
127.0.0.1, USB through pyusb (nothing plugged in; a fake printer on a pyusb backend) and a
serial port (a pty); every failure raised as the PrinterError that names it."""

from __future__ import annotations

import importlib
import os
import socket
import threading
import tomllib
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image

from hardware.printer import (
    BUILT_IN,
    BadPrinterSpec,
    CoverOpen,
    PaperOut,
    PrinterAccessDenied,
    PrinterError,
    PrinterOffline,
    PrinterUnplugged,
    job_name,
    open_printer,
    transports,
)
from hardware.printer.adapter import EscPosReceiptPrinter, open_receipt_printer
from hardware.printer.fake import FailingPrinter, FakePrinter, dummy_printer_named
from hardware.printer.render import kick_drawer_bytes, render_receipt
from hardware.printer.transports import (
    DirPrinter,
    FilePrinter,
    NetworkPrinter,
    Printer,
    SerialPrinter,
    UsbPrinter,
)
from pos.services.ports import PrinterFault
from tests.printer.fake_printers import (
    COVER_OPEN,
    PAPER_OK,
    PAPER_OUT,
    EmptyBus,
    TcpPrinter,
    UsbPrinterBackend,
)
from tests.printer.receipts import redemption, sale, training_reprint

JOB = b"\x1b@hello\n\x1dV\x00"


# -- settings -------------------------------------------------------------------------------------


def test_settings_name_the_printer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", "/srv")  # a spool directory the station names
    usb = open_printer("usb:04b8:0e15", tmp_path)
    assert isinstance(usb, UsbPrinter)
    assert (usb.vendor_id, usb.product_id, usb.in_ep, usb.out_ep) == (0x04B8, 0x0E15, 0x82, 0x01)
    usb = open_printer("USB:0x0416:5011:81:03", tmp_path)
    assert isinstance(usb, UsbPrinter)
    assert (usb.in_ep, usb.out_ep) == (0x81, 0x03)
    net = open_printer("net:192.168.1.50", tmp_path, "generic-58")
    assert isinstance(net, NetworkPrinter)
    assert (net.host, net.port, net.profile.name) == ("192.168.1.50", 9100, "generic-58")
    net = open_printer("net:[fe80::1]:9101", tmp_path)
    assert isinstance(net, NetworkPrinter)
    assert (net.host, net.port) == ("fe80::1", 9101)
    ser = open_printer("serial:/dev/ttyUSB0@19200", tmp_path)
    assert isinstance(ser, SerialPrinter)
    assert (ser.port, ser.baudrate) == ("/dev/ttyUSB0", 19200)
    file = open_printer("file:out/receipts.bin", tmp_path)
    assert isinstance(file, FilePrinter)
    assert file.path == tmp_path / "out" / "receipts.bin"
    directory = open_printer("dir:/srv/receipts", tmp_path, "star-tsp100")
    assert isinstance(directory, DirPrinter)
    assert (directory.directory, directory.profile.name) == (Path("/srv/receipts"), "star-tsp100")
    assert isinstance(open_printer("dummy", tmp_path), FakePrinter)
    for printer in (usb, net, ser, file, directory):
        assert isinstance(printer, Printer)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "is empty"),
        ("lpt:1", "unknown kind 'lpt'"),
        ("usb:04b8", "should be usb:VID:PID"),
        ("usb:04b8:zz", "product id 'zz' is not 1-4 hex digits"),
        ("usb:04b8:0e15:01:82", "should be IN"),
        ("net:", "should name a host"),
        ("net:printer:99999", "port '99999'"),
        ("serial:/dev/ttyS0@1234", "baud rate '1234'"),
        ("file:", "needs a path"),
        ("dir:", "needs a path"),
    ],
)
def test_bad_settings_are_refused_naming_them(spec: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(BadPrinterSpec, match=message) as caught:
        open_printer(spec, tmp_path)
    assert repr(spec) in str(caught.value) or spec in str(caught.value)


def test_entry_points() -> None:
    names = {entry.name for entry in entry_points(group="booth.printers")}
    assert names >= {"usb", "net", "serial", "file", "dir", "dummy"}


def test_each_transport_is_its_own_module() -> None:
    """pyproject.toml's entry points are the built-in table, and each transport's factory
    lives in the module named for it (hardware/printer/transports/{kind}.py)."""
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    declared = pyproject["project"]["entry-points"]["booth.printers"]
    assert declared == BUILT_IN
    for kind in ("usb", "net", "serial", "file", "dir"):
        module_name, _, attribute = declared[kind].partition(":")
        assert module_name == f"hardware.printer.transports.{kind}"
        factory = getattr(importlib.import_module(module_name), attribute)
        assert getattr(transports, attribute) is factory  # re-exported by the package


def test_job_names() -> None:
    assert job_name("booth-1", 42) == "booth-1-000042"
    assert job_name("kiosk-2", 7, reprint=2) == "kiosk-2-000007-reprint-2"


# -- file -----------------------------------------------------------------------------------------


def test_file_appends_each_job(tmp_path: Path) -> None:
    printer = open_printer("file:receipts.bin", tmp_path)
    first, second = render_receipt(sale()), render_receipt(redemption())
    printer.send(first, "booth-1-000041")
    printer.send(second, "booth-1-000042")
    assert (tmp_path / "receipts.bin").read_bytes() == first + second
    assert printer.status()["writable"] is True


def test_file_errors(tmp_path: Path) -> None:
    # A missing device node is an unplugged printer, never created as a file.
    missing = Path("/dev/booth-test-no-such-lp0")
    with pytest.raises(PrinterUnplugged, match="no such device"):
        FilePrinter(missing).send(JOB, "j")
    assert not missing.exists()
    assert FilePrinter(missing).status()["online"] is False
    # /dev/full answers ENOSPC, as the kernel's usblp driver does when the paper is out.
    with pytest.raises(PaperOut, match="out of paper"):
        FilePrinter(Path("/dev/full")).send(JOB, "j")
    FilePrinter(Path("/dev/null")).send(JOB, "j")
    with pytest.raises(PrinterOffline, match="cannot be opened"):
        FilePrinter(tmp_path).send(JOB, "j")  # a directory
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(PrinterAccessDenied):
            FilePrinter(locked / "r.bin").send(JOB, "j")


# -- dir ------------------------------------------------------------------------------------------


def test_dir_writes_one_file_and_a_picture_per_job(tmp_path: Path) -> None:
    printer = open_printer("dir:receipts", tmp_path, "generic-58")
    assert isinstance(printer, DirPrinter)
    first, again = sale(), training_reprint()
    printer.send(render_receipt(first, "generic-58"), job_name("booth-1", 41))
    printer.send(render_receipt(again, "generic-58"), job_name("booth-1", 46, reprint=1))
    printer.send(kick_drawer_bytes("generic-58"), "drawer-kick")
    folder = tmp_path / "receipts"
    assert sorted(p.name for p in folder.iterdir()) == [
        "booth-1-000041.bin",
        "booth-1-000041.png",
        "booth-1-000046-reprint-1.bin",
        "booth-1-000046-reprint-1.png",
        "drawer-kick.bin",  # nothing on paper: no picture
    ]
    assert (folder / "booth-1-000041.bin").read_bytes() == render_receipt(first, "generic-58")
    picture = Image.open(folder / "booth-1-000046-reprint-1.png")
    assert picture.width == 384
    assert [c.text for c in zxingcpp.read_barcodes(picture.convert("L"))] == [again.qr]
    # The same job name twice: kept apart, so a double print shows.
    printer.send(JOB, job_name("booth-1", 41))
    assert (folder / "booth-1-000041~2.bin").read_bytes() == JOB
    assert printer.status() == {
        "online": True,
        "paper": "ok",
        "cover": "closed",
        "writable": True,
        "problem": None,
    }
    with pytest.raises(ValueError, match="not a plain file name"):
        printer.send(JOB, "../escape")


@pytest.mark.parametrize(
    ("condition", "error"),
    [
        ("paper-out", PaperOut),
        ("cover-open", CoverOpen),
        ("unplugged", PrinterUnplugged),
        ("offline", PrinterOffline),
        ("", PrinterOffline),
    ],
)
def test_dir_fault_file(condition: str, error: type[PrinterError], tmp_path: Path) -> None:
    printer = DirPrinter(tmp_path)
    (tmp_path / ".fail").write_text(condition)
    with pytest.raises(error):
        printer.send(JOB, "booth-1-000001")
    assert printer.status()["online"] is False
    (tmp_path / ".fail").unlink()
    printer.send(JOB, "booth-1-000001")
    assert [p.name for p in printer.jobs()] == ["booth-1-000001.bin"]


# -- the fake -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "error"),
    [
        ("offline", PrinterOffline),
        ("paper-out", PaperOut),
        ("cover-open", CoverOpen),
        ("unplugged", PrinterUnplugged),
        (PaperOut, PaperOut),
        (CoverOpen("lid up"), CoverOpen),
    ],
)
def test_failing_printer_fails_then_recovers(condition: object, error: type[Exception]) -> None:
    printer = FailingPrinter()
    printer.fail_next(2, condition)  # type: ignore[arg-type]
    for attempt in ("j1", "j1"):
        with pytest.raises(error):
            printer.send(JOB, attempt)
    assert printer.status()["online"] is True
    printer.send(JOB, "j1")
    assert printer.names == ["j1"]
    assert printer.attempts == ["j1", "j1", "j1"]
    assert [type(e) for e in printer.errors] == [error, error]
    assert printer.output == JOB
    assert isinstance(printer.errors[0], PrinterFault)  # what the print queue catches


def test_failing_printer_mid_job_and_until_recovered() -> None:
    printer = FakePrinter()
    printer.fail_next(1, "paper-out", after_bytes=5)
    with pytest.raises(PaperOut):
        printer.send(JOB, "j1")
    assert printer.partial[0].data == JOB[:5] and printer.jobs == []
    printer.go_offline("cover-open")
    assert printer.status()["cover"] == "open"
    for _ in range(3):
        with pytest.raises(CoverOpen):
            printer.send(JOB, "j1")
    printer.recover()
    printer.send(JOB, "j1-reprint-1")
    assert printer.names == ["j1-reprint-1"]
    assert printer.output == JOB[:5] + JOB
    with pytest.raises(ValueError, match="unknown printer condition"):
        printer.fail_next(1, "on-fire")
        printer.send(JOB, "j2")


def test_dummy_setting_opens_one_shared_fake(tmp_path: Path) -> None:
    opened = open_printer("dummy:till", tmp_path)
    assert opened is dummy_printer_named("till") is open_printer("dummy:till", tmp_path)
    assert opened is not dummy_printer_named()


# -- the core's port --------------------------------------------------------------------------


def test_receipt_printer_port(tmp_path: Path) -> None:
    port = open_receipt_printer("dummy:port", tmp_path, "generic-58")
    assert isinstance(port, EscPosReceiptPrinter)
    receipt = sale()
    port.print_receipt(receipt, name=job_name(receipt.station, receipt.number))
    port.kick_drawer()
    fake = dummy_printer_named("port")
    assert fake.names == ["booth-1-000041", "drawer-kick"]
    assert fake.jobs[0].data == render_receipt(receipt, "generic-58")
    assert fake.jobs[1].data == kick_drawer_bytes("generic-58")
    assert port.status()["printer"] == "printer dummy:port"
    assert port.status()["profile"] == "generic-58"
    fake.fail_next(1, "paper-out")
    with pytest.raises(PrinterFault, match="paper-out"):
        port.print_receipt(receipt, name="booth-1-000041")


# -- network --------------------------------------------------------------------------------------


@pytest.fixture
def tcp_printers() -> Iterator[list[TcpPrinter]]:
    made: list[TcpPrinter] = []
    yield made
    for printer in made:
        printer.close()


def _tcp(made: list[TcpPrinter], **options: object) -> TcpPrinter:
    printer = TcpPrinter(**options)  # type: ignore[arg-type]
    made.append(printer)
    return printer


def test_network_printer_receives_the_job(tcp_printers: list[TcpPrinter]) -> None:
    server = _tcp(tcp_printers)
    printer = NetworkPrinter("127.0.0.1", server.port, status_timeout=0.5)
    job = render_receipt(sale(), "epson-tm-t20")
    printer.send(job, "booth-1-000041")
    printer.send(JOB, "booth-1-000042")
    _wait(lambda: len(server.jobs) == 2)
    assert server.jobs == [job, JOB]  # the status requests are not part of the job
    assert server.status_requests == 12  # DLE EOT 1, 2, 4 before and after each job
    assert printer.status() == {"online": True, "paper": "ok", "cover": "closed", "problem": None}


@pytest.mark.parametrize(("status", "error"), [(PAPER_OUT, PaperOut), (COVER_OPEN, CoverOpen)])
def test_network_printer_says_why_it_cannot_print(
    status: dict[int, int], error: type[PrinterError], tcp_printers: list[TcpPrinter]
) -> None:
    server = _tcp(tcp_printers, status=status)
    printer = NetworkPrinter("127.0.0.1", server.port)
    with pytest.raises(error, match=f"printer net:127.0.0.1:{server.port}"):
        printer.send(JOB, "booth-1-000041")
    state = printer.status()
    assert state["online"] is False and state["problem"]
    assert state["paper" if error is PaperOut else "cover"] in ("out", "open")
    server.status = PAPER_OK  # new roll in, cover closed
    printer.send(JOB, "booth-1-000041")
    _wait(lambda: len(server.jobs) == 1)
    assert server.jobs == [JOB]  # nothing of the refused attempt reached the paper


def test_network_printer_that_never_answers_status(tcp_printers: list[TcpPrinter]) -> None:
    server = _tcp(tcp_printers, status=None)
    printer = NetworkPrinter("127.0.0.1", server.port, status_timeout=0.05)
    printer.send(JOB, "j1")
    printer.send(JOB, "j2")
    _wait(lambda: len(server.jobs) == 2)
    assert server.jobs == [JOB, JOB]
    assert server.status_requests == 1  # asked once, then not before every job
    assert printer.status()["online"] is True


def test_network_printer_switched_off() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens here once it is closed
    printer = open_printer(f"net:127.0.0.1:{port}")
    with pytest.raises(PrinterOffline, match="refuses the connection"):
        printer.send(JOB, "booth-1-000041")
    assert printer.status()["online"] is False


# -- USB ------------------------------------------------------------------------------------------


def test_usb_printer_not_plugged_in() -> None:
    printer = UsbPrinter(0x04B8, 0x0E15, backend=EmptyBus())
    with pytest.raises(PrinterUnplugged, match=r"usb:04b8:0e15 not found: is it plugged in"):
        printer.send(JOB, "booth-1-000041")
    assert printer.status()["online"] is False


def test_usb_printer_prints_through_pyusb() -> None:
    bus = UsbPrinterBackend()
    printer = UsbPrinter(0x04B8, 0x0E15, backend=bus, status_timeout=0.2)
    job = render_receipt(redemption(), "epson-tm-t20")
    printer.send(job, "booth-1-000042")
    assert bytes(bus.received) == job
    assert bus.calls_named("reset") and bus.calls_named("set_configuration")
    assert printer.status()["paper"] == "ok"


def test_usb_printer_out_of_paper_and_unplugged() -> None:
    bus = UsbPrinterBackend(status=PAPER_OUT)
    printer = UsbPrinter(0x04B8, 0x0E15, backend=bus, timeout=0.1, status_timeout=0.2)
    with pytest.raises(PaperOut, match="load a new roll"):
        printer.send(JOB, "j1")
    assert bus.received == b""
    # The roll runs out mid-job: the printer stops taking data, and its status says why.
    bus.status, bus.stall, bus.status_on_stall = PAPER_OK, True, PAPER_OUT
    with pytest.raises(PaperOut):
        printer.send(JOB, "j1")
    # Stalled for another reason it does not tell: off-line, as far as anyone can say.
    bus.status, bus.status_on_stall = PAPER_OK, None
    with pytest.raises(PrinterOffline, match="stopped taking data"):
        printer.send(JOB, "j1")
    # Pulled out mid-job.
    bus.stall, bus.unplug_after = False, 4
    with pytest.raises(PrinterUnplugged, match="unplugged mid-job"):
        printer.send(JOB, "j2")
    assert bytes(bus.received) == JOB[:4]


# -- serial ---------------------------------------------------------------------------------------


def test_serial_printer_over_a_pty() -> None:
    controller, device = os.openpty()
    try:
        path = os.ttyname(device)
        printer = SerialPrinter(path, 19200, status_timeout=0.05)
        printer.send(JOB, "booth-1-000041")
        received = b""
        while JOB not in received:
            received += os.read(controller, 4096)
        assert received.endswith(JOB)
    finally:
        os.close(controller)
        os.close(device)
    with pytest.raises(PrinterUnplugged, match="not found"):
        open_printer("serial:/dev/ttyUSB987").send(JOB, "j")


def _wait(condition: object, timeout: float = 5.0) -> None:
    event = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():  # type: ignore[operator]
            return
        event.wait(0.01)
    raise AssertionError("timed out")
