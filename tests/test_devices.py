"""Electronic bingo device rentals (rule E) through the `booth` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pos.domain import bingo
from pos.services import hall as hall_service
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, licence_barcode, refused


@pytest.fixture
def devices(hall: Hall) -> Hall:
    assert hall("device", "add", "D1", "D2", "D3", "--model", "TED-C").exit_code == 0
    assert (
        hall(
            "device", "package", "basic", "--faces", "12", "--games", "10", "--price", "20.00"
        ).exit_code
        == 0
    )
    assert (
        hall(
            "device", "package", "max", "--faces", "54", "--games", "10", "--price", "60.00"
        ).exit_code
        == 0
    )
    assert hall("session", "open").exit_code == 0
    return hall


def rent(hall: Hall, *extra: str, faces: str = "12") -> dict[str, object]:
    result = hall("rent", "--faces", faces, "--games", "10", "--json", *extra)
    assert result.exit_code == 0, result.stderr
    data: dict[str, object] = result.json
    return data


def test_first_come_first_served_in_the_order_devices_came_back(devices: Hall) -> None:
    for _ in range(3):
        rent(devices)
    for device in ("D3", "D1", "D2"):
        assert devices("device", "return", device).exit_code == 0
    assert [rent(devices)["device"] for _ in range(3)] == ["D3", "D1", "D2"]


def test_55_faces_are_refused(devices: Hall) -> None:
    result = devices("rent", "--faces", "55", "--games", "10")
    refused(result, "E1c")
    assert "54" in result.stderr
    refused(
        devices("device", "package", "huge", "--faces", "55", "--games", "1", "--price", "1.00"),
        "E1c",
    )
    assert rent(devices, faces="54")["faces"] == 54


def test_no_free_device_is_refused(devices: Hall) -> None:
    for _ in range(3):
        rent(devices)
    refused(devices("rent", "--faces", "12", "--games", "10"), "E1d")


def test_a_worker_rostered_for_the_session_cannot_rent(devices: Hall) -> None:
    path = devices.tmp / "roster.csv"
    path.write_text(
        "name,date_of_birth,badge,organisation,date,start,end,duty\n"
        "Sam Seller,1990-05-05,S1,Test Fire Company,2026-11-28,19:00,23:00,bingo\n"
    )
    assert devices("roster", "import", str(path)).exit_code == 0
    result = devices("rent", "--faces", "12", "--games", "10", "--buyer", "S1")
    refused(result, "D")
    assert "work bingo" in result.stderr
    with Station(devices.directory) as st:
        assert st.ledger.conn.execute("SELECT rule FROM p_blocked").fetchall() == [("D",)]


def test_a_station_of_another_location_cannot_load_devices(devices: Hall, tmp_path: Path) -> None:
    with Station(devices.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        bundle = hall_service.add_station(
            st, name="annex-1", role="booth", operator="M1", location="Annex, 2 Other St"
        )
    path = tmp_path / "annex.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "annex-1", path, environ={"BOOTH_NOW": TRAINING_NOW})
    with Station(tmp_path / "annex-1") as annex, Station(devices.directory) as manager:
        pull(manager.ledger, annex.ledger)
    annex_hall = Hall(tmp_path / "annex-1", devices.tmp)
    result = annex_hall("rent", "--faces", "12", "--games", "10")
    refused(result, "E1g")
    assert "Annex" in result.stderr


def test_faces_shown_are_the_faces_stored(devices: Hall) -> None:
    rented = rent(devices)
    shown = devices("device", "faces", str(rented["device"]), "--game", "2", "--json").json
    assert len(shown["faces"]) == 12
    first = int(str(rented["first_face"])) + 12
    for offset, card in enumerate(shown["faces"]):
        expected = bingo.face(shown["series"], first + offset)
        assert card["serial"] == first + offset
        assert card["rows"] == [list(row) for row in expected.rows()]
    second = rent(devices)
    assert second["first_face"] == int(str(rented["first_face"])) + 120, "no face issued twice"


def test_a_defective_device_is_exchanged_with_a_witness_and_keeps_its_faces(
    devices: Hall,
) -> None:
    rented = rent(devices)
    before = devices("device", "faces", str(rented["device"]), "--json").json["faces"]
    assert (
        devices("player", "register", "C-9", "--dob", "1970-01-01", "--initials", "PP").exit_code
        == 0
    )
    refused(devices("device", "exchange", str(rented["device"]), "--witness", "C-9"), "E2")
    swapped = devices(
        "device",
        "exchange",
        str(rented["device"]),
        "--witness",
        "C-9",
        "--no-numbers-keyed",
        "--game",
        "3",
        "--json",
    )
    assert swapped.exit_code == 0, swapped.stderr
    new = swapped.json["new"]
    assert devices("device", "faces", new, "--json").json["faces"] == before
    states = {d["device"]: d["state"] for d in devices("device", "list", "--json").json}
    assert states[str(rented["device"])] == "defective" and states[new] == "rented"


def test_a_device_not_returned_is_flagged_at_close(devices: Hall) -> None:
    rented = rent(devices)
    assert devices("session", "close").exit_code == 0
    with Station(devices.directory) as st:
        flags = st.ledger.conn.execute("SELECT kind, detail FROM p_flags").fetchall()
    assert flags == [
        (
            "device-not-returned",
            f"device {rented['device']} was not returned at the close of 2026-11-28/1",
        )
    ]


def test_a_rental_needs_a_package_and_an_open_session(hall: Hall) -> None:
    hall("device", "add", "D1")
    bad = hall("rent", "--faces", "12", "--games", "10")
    assert bad.exit_code in (1, 2)
    hall("device", "package", "basic", "--faces", "12", "--games", "10", "--price", "20.00")
    refused(hall("rent", "--faces", "12", "--games", "10"), "SESSION")


def _events(hall: Hall) -> int:
    with Station(hall.directory) as st:
        return int(st.ledger.conn.execute("SELECT count(*) FROM events").fetchone()[0])


def test_the_witness_of_an_exchange_is_a_disinterested_player(devices: Hall) -> None:
    """E2: identified by player card or ID scan; not staff, not the renter, not the operator."""
    path = devices.tmp / "roster.csv"
    path.write_text(
        "name,date_of_birth,badge,organisation,date,start,end,duty\n"
        "Rita Roster,1985-01-02,R7,Test Fire Company,2026-11-28,19:00,23:00,sell\n"
    )
    assert devices("roster", "import", str(path)).exit_code == 0
    renter_id = licence_barcode("PLAYER", "RENA", "1970-03-03", number="R100")
    assert devices("player", "register", "C-1", "--licence", renter_id).exit_code == 0
    rented = rent(devices, "--buyer", "C-1")
    device = str(rented["device"])
    rostered = licence_barcode("ROSTER", "RITA", "1985-01-02", number="R200")

    def exchange(witness: str, *extra: str) -> Any:
        return devices(
            "device", "exchange", device, "--witness", witness, "--no-numbers-keyed", *extra
        )

    before = _events(devices)
    for witness, words in (
        ("S1", "staff (S1)"),  # a badge on the staff list
        ("M1", "the operator"),  # the operator's own badge
        (rostered, "staff (R7)"),  # the ID of a worker known only from the roster
        ("C-1", "rented this device"),  # the renter's card
        (renter_id, "rented this device"),  # the renter's ID
    ):
        result = exchange(witness, "--as", "M1")
        refused(result, "E2")
        assert words in result.stderr, (witness, result.stderr)
    for bad in ("Pat Player", "NOT A CARD"):
        assert exchange(bad).exit_code == 2
    assert _events(devices) == before, "a refusal or bad input records nothing"
    witness_id = licence_barcode("WITNESS", "WALT", "1960-04-04", number="W300")
    swapped = exchange(witness_id, "--json")
    assert swapped.exit_code == 0, swapped.stderr
    with Station(devices.directory) as st:
        (stored,) = st.ledger.conn.execute("SELECT witness FROM p_exchanges").fetchone()
        assert stored.startswith("ID:") and "W300" not in stored
        for path in (p for p in st.directory.rglob("*") if p.is_file()):
            assert b"W300" not in path.read_bytes(), "the witness's ID number is never stored"
