"""Electronic bingo device rentals (E1c, E1d, E1g, E2, ID): at most the settings' faces per
game, first come first served, loaded only on the premises, exchanged only as E.2 says."""

from __future__ import annotations

from pos.domain.checks import Refusal


def faces_per_game(faces: int, *, most: int) -> Refusal | None:
    """E1c: a device plays at most `most` card faces per game."""
    if faces > most:
        return Refusal(
            "E1c",
            f"{faces} card faces per game is more than the {most} a device may hold for one game",
        )
    return None


def retirable(device: str, *, state: str) -> Refusal | None:
    """E1d: a rented device is taken back before it is retired."""
    if state == "rented":
        return Refusal("E1d", f"{device} is rented: take it back before retiring it")
    return None


def free_device(device: str | None) -> Refusal | None:
    """E1d: the device free longest goes to the next in line (`device`; None: none is free)."""
    if device is None:
        return Refusal(
            "E1d", "no device is free: the next one returned goes to the next player in line"
        )
    return None


def renter_identified(*, kiosk: bool, buyer: str | None) -> Refusal | None:
    """ID: a kiosk rents only to an identified player."""
    if kiosk and not buyer:
        return Refusal("ID", "a kiosk rents only to an identified player")
    return None


def on_premises(station: str, *, stands_at: str, premises: str) -> Refusal | None:
    """E1g: devices are loaded only at a station standing on the hall's premises."""
    if stands_at != premises:
        return Refusal(
            "E1g",
            f"station {station} stands at {stands_at!r}, not on the premises "
            f"({premises!r}): devices are loaded only there",
        )
    return None


def exchange_confirmed(*, no_numbers_keyed: bool) -> Refusal | None:
    """E2: the exchange confirms no number called in the game in progress was keyed in."""
    if not no_numbers_keyed:
        return Refusal(
            "E2",
            "confirm that no numbers called in the game in progress were "
            "keyed into the replacement (--no-numbers-keyed)",
        )
    return None


def disinterested_witness(
    *,
    witness: str,
    kind: str,
    staff: str | None,
    operator: str | None,
    renter: bool,
) -> Refusal | None:
    """E2: the fault of a device is verified by a disinterested player, identified by player
    card or ID scan: not staff (a badge, or a card or ID of someone on the staff list or the
    roster), not the operator, not the renter of the device exchanged."""
    if kind == "staff" or staff is not None:
        who = "the operator" if operator is not None and staff == operator else f"staff ({staff})"
        return Refusal(
            "E2",
            f"the witness {witness} is {who}: a disinterested player verifies the fault, "
            "identified by player card or ID scan",
        )
    if renter:
        return Refusal(
            "E2",
            f"the witness {witness} rented this device: another player verifies the fault",
        )
    return None
