"""Electronic bingo device rentals (rule E): first come first served, at most 54 faces per
game, rule D for the session, loaded only on the hall's premises, every E.1.e receipt field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pos.domain import bingo
from pos.domain.checks import Refusal
from pos.domain.checks import devices as device_checks
from pos.domain.money import CENTS, format_amount, parse_count
from pos.domain.receipt import Receipt
from pos.domain.typed import parse_typed_amount
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import devices as devices_read
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import players as players_read
from pos.services.eligibility import BingoPlayers, refusals_recorded
from pos.services.inputs import checked_input
from pos.services.money_path import session_for_money
from pos.services.numbering import next_receipt_number
from pos.services.players import Buyer, resolve_buyer
from pos.services.settings import posted_house_rules, rulebook_settings
from pos.services.station import Station

MAX_GAMES = 100

#: Where rented devices are handed out, as players are told when they rent one: the hall posts
#: it as its house rule "device-pickup" (`booth house post device-pickup --text "at the device
#: table by the stage"`), a place a sentence ends with; a hall that never posted it (and every
#: ledger from before) hands them out at the booth.
PICKUP_RULE = "device-pickup"
PICKUP_DEFAULT = "at the booth"


def pickup_place(st: Station) -> str:
    """Where this hall hands rented devices out: its posted "device-pickup" rule, else the
    booth."""
    for rule in posted_house_rules(st):
        if rule["key"] == PICKUP_RULE and str(rule["text"]).strip():
            return str(rule["text"]).strip().rstrip(".")
    return PICKUP_DEFAULT


def _device_id(text: str) -> str:
    value = text.strip().upper()
    if not value or len(value) > 32 or not value.replace("-", "").isalnum():
        raise BadInput("device", f"{text!r} is not a device id (letters, digits, -)")
    return value


def add_devices(
    st: Station, ids: list[str], *, model: str | None, operator: str | None
) -> list[str]:
    by = st.operator(operator, "manager")
    devices = [_device_id(text) for text in ids]
    if not devices:
        raise BadInput("device", "name at least one device")
    with st.ledger.transaction():
        for device in devices:
            state = devices_read.device_state(st.ledger.conn, device)
            if state is not None and state != "retired":
                raise BadInput("device", f"{device} is already on file ({state})")
            st.append("DeviceAdded", {"device": device, "model": model, "by": by.badge})
    return devices


def retire_device(st: Station, device: str, *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    device = _device_id(device)
    with st.ledger.transaction():
        refuse(device_checks.retirable(device, state=_state(st, device)))
        st.append("DeviceRetired", {"device": device, "by": by.badge})
    return {"device": device, "state": "retired"}


def _state(st: Station, device: str) -> str:
    state = devices_read.device_state(st.ledger.conn, device)
    if state is None:
        raise NotFound(f"device {device} is not on file")
    return state


def list_devices(st: Station) -> list[dict[str, Any]]:
    return devices_read.device_list(st.ledger.conn)


def define_package(
    st: Station, name: str, *, faces: str, games: str, price: str, operator: str | None
) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with checked_input():
        count = parse_count(faces, "faces", maximum=1000)
        rounds = parse_count(games, "games", maximum=MAX_GAMES)
        cents = parse_typed_amount(price, "price")
    label = name.strip()
    if not label or len(label) > 40:
        raise BadInput("name", f"{name!r} is not a package name")
    refuse(_faces_rule(st, count))
    st.append(
        "PackageDefined",
        {"name": label, "faces": count, "games": rounds, "price": cents, "by": by.badge},
    )
    return {"name": label, "faces": count, "games": rounds, "price": format_amount(cents)}


def _faces_rule(st: Station, faces: int) -> Refusal | None:
    return device_checks.faces_per_game(faces, most=rulebook_settings(st).max_faces_per_game)


def _package(st: Station, faces: int, games: int) -> tuple[str, int]:
    found = devices_read.package_for(st.ledger.conn, faces, games)
    if found is None:
        offered = ", ".join(
            f"{p.name}: {p.faces} faces x {p.games} games"
            for p in devices_read.packages_by_faces(st.ledger.conn)
        )
        raise BadInput(
            "faces",
            f"no package of {faces} faces for {games} games "
            f"(packages: {offered or 'none defined'})",
        )
    return found


def _series(st: Station) -> str:
    return f"{st.config.hall}-faces"


def _next_free_device(st: Station) -> str:
    # First come, first served (E.1.d): the device that has been free longest; no choosing.
    device = devices_read.next_free_device(st.ledger.conn)
    refuse(device_checks.free_device(device))
    assert device is not None
    return device


@dataclass(frozen=True)
class Rental:
    """A device rented: which, its receipt, the faces and games loaded, the price in cents."""

    device: str
    receipt: int
    faces: int
    games: int
    amount: int = field(metadata=CENTS)
    first_face: int = 0
    event: str = ""
    collect_at: str = PICKUP_DEFAULT  # where the renter collects it (pickup_place)


def rent(
    st: Station,
    *,
    faces: str | int,
    games: str | int = 1,
    buyer: str | None = None,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
    credit: int | None = None,
) -> Rental:
    """Rent the next free device. At a kiosk, `credit` (the cents the player put in) pays."""
    with checked_input():
        count = parse_count(faces, "faces", maximum=10_000)
        rounds = parse_count(games, "games", maximum=MAX_GAMES)
    by = st.operator(operator, "seller") if st.config.role != "kiosk" else None
    with refusals_recorded(st), st.ledger.transaction():
        refuse(_faces_rule(st, count))
        _on_premises(st)
        session = session_for_money(st)
        package, price = _package(st, count, rounds)
        refuse(device_checks.renter_identified(kiosk=st.config.role == "kiosk", buyer=buyer))
        not_working = BingoPlayers(st, session, by.badge if by else None, manager, reason)
        buyer_code = not_working.check(buyer)
        device = _next_free_device(st)
        series = _series(st)
        first_face = devices_read.last_face(st.ledger.conn, series) + 1
        number = next_receipt_number(st)
        body = {
            "device": device,
            "session": session.id,
            "package": package,
            "faces": count,
            "games": rounds,
            "series": series,
            "first_face": first_face,
            "amount": price,
            "cost_text": f"${format_amount(price)} for {count} faces x {rounds} games",
            "transaction": number,
            "receipt": number,
            "buyer": buyer_code,
            "by": by.badge if by else None,
            "location": st.hall.location,
        }
        if credit is not None:
            if credit < price:
                raise BadInput(
                    "credit",
                    f"${format_amount(credit)} put in does not pay ${format_amount(price)}",
                )
            body["paid_credit"] = price
        event = st.append("DeviceRented", body)
    return Rental(
        device,
        number,
        count,
        rounds,
        price,
        first_face,
        f"{event.origin}:{event.seq}",
        pickup_place(st),
    )


def _on_premises(st: Station) -> None:
    where = hall_read.station_location(st.ledger.conn, st.id) or st.hall.location
    refuse(device_checks.on_premises(st.id, stands_at=where, premises=st.hall.location))


def return_device(st: Station, device: str, *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator)
    device = _device_id(device)
    with st.ledger.transaction():
        if _state(st, device) != "rented":
            raise BadInput("device", f"{device} is not rented out")
        st.append("DeviceReturned", {"device": device, "by": by.badge})
    return {"device": device, "state": "free"}


def exchange_device(
    st: Station,
    old: str,
    *,
    witness: str,
    no_numbers_keyed: bool,
    game: int | None,
    operator: str | None,
) -> dict[str, Any]:
    """E.2: a defective device is swapped, verified by a disinterested player, with no numbers
    called in the game in progress keyed into the replacement; the faces move with it."""
    by = st.operator(operator, "seller", "manager")
    old = _device_id(old)
    if not witness.strip():
        raise BadInput(
            "witness", "scan the player card or ID of the disinterested player who verified it"
        )
    refuse(device_checks.exchange_confirmed(no_numbers_keyed=no_numbers_keyed))
    with st.ledger.transaction():
        if _state(st, old) != "rented":
            raise BadInput("device", f"{old} is not rented out")
        person = _witness(st, witness)
        renter = devices_read.renter(st.ledger.conn, old)
        refuse(
            device_checks.disinterested_witness(
                witness=person.initials,
                kind=person.kind,
                staff=person.staff_badge,
                operator=by.badge,
                renter=renter is not None
                and not _player_codes(st, renter).isdisjoint(_player_codes(st, person.code)),
            )
        )
        witness = person.code  # a card, or "ID:" and a keyed hash: never the ID number
        new = _next_free_device(st)
        st.append(
            "DeviceExchanged",
            {
                "old": old,
                "new": new,
                "witness": witness,
                "no_numbers_keyed": True,
                "game": game,
                "by": by.badge,
            },
        )
    return {"old": old, "new": new, "old_state": "defective"}


def _witness(st: Station, code: str) -> Buyer:
    """The witness of an exchange: a staff badge (refused by E2), a player card or an ID scan;
    anything else is bad input."""
    found = resolve_buyer(st, code.strip(), missing_ok=True)
    if found is None:
        raise BadInput(
            "witness", "the witness is identified by a player card or an ID scan, not a name"
        )
    return found


def _player_codes(st: Station, code: str) -> set[str]:
    """The codes one player goes by: a card, and the ID it was registered with."""
    codes = {code}
    id_sha256 = players_read.card_id_hash(st.ledger.conn, code)
    if id_sha256:
        codes.add("ID:" + id_sha256[:16])
    return codes


def device_faces(st: Station, device: str, *, game: int = 1) -> dict[str, Any]:
    """E.1.i: the faces loaded on a device for a game, exactly as stored."""
    device = _device_id(device)
    loaded = devices_read.loaded_faces(st.ledger.conn, device)
    if loaded is None:
        raise NotFound(f"device {device} has no faces loaded (not rented)")
    series, first, faces = loaded.series, loaded.first_face, loaded.faces
    games, session = loaded.games, loaded.session
    if not 1 <= game <= games:
        raise BadInput("game", f"game {game} is not one of this rental's 1..{games}")
    start = first + (game - 1) * faces
    cards = [bingo.face(series, serial) for serial in range(start, start + faces)]
    return {
        "device": device,
        "session": session,
        "game": game,
        "series": series,
        "faces": [{"serial": c.serial, "rows": [list(r) for r in c.rows()]} for c in cards],
    }


def faces_receipt(st: Station, faces: dict[str, Any]) -> Receipt:
    """The faces of `device_faces` laid out as cards for the receipt printer (E.1.i)."""
    from zoneinfo import ZoneInfo

    grid: list[tuple[str, ...]] = []
    for card in faces["faces"]:
        grid.append((f"FACE {card['serial']}",))
        grid.extend(bingo.face(faces["series"], card["serial"]).text_rows())
    return Receipt(
        kind="device-faces",
        organisation=st.hall.organisation,
        location=st.hall.location,
        station=st.id,
        number=0,
        issued_at=st.clock.now().astimezone(ZoneInfo(st.hall.time_zone)),
        operator=None,
        fields=(
            ("Device", faces["device"]),
            ("Session", faces["session"]),
            ("Game", str(faces["game"])),
        ),
        grid=tuple(grid),
        training=st.hall.training,
    )


def list_packages(st: Station) -> list[dict[str, Any]]:
    """Device rental packages, cheapest first."""
    return [
        {"name": p.name, "faces": p.faces, "games": p.games, "price": p.price}
        for p in devices_read.packages(st.ledger.conn)
    ]
