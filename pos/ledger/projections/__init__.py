"""Every projection Booth keeps, in the order they are applied.

Each is listed by a function importing it and the kinds of event it takes, and imported when it
is first needed (pos.ledger.projections.base.Listed): `booth sell` imports the projections a sale
needs, not the bingo paper's or the raffle's. FINGERPRINT stands for all of them (their names,
versions and schemas: the trigger for a rebuild); tests/test_projection_catalog.py fails, and
says what to write here, when a projection or this list changes without it.
"""

from pos.ledger.projections.base import (
    PROJECTION_ERRORS,
    Handler,
    Listed,
    Projection,
    ProjectionSet,
)
from pos.ledger.projections.hall import HALL


def _sessions() -> Projection:
    from pos.ledger.projections.sessions import SESSIONS

    return SESSIONS


def _settings() -> Projection:
    from pos.ledger.projections.settings import SETTINGS

    return SETTINGS


def _deals() -> Projection:
    from pos.ledger.projections.deals import DEALS

    return DEALS


def _players() -> Projection:
    from pos.ledger.projections.players import PLAYERS

    return PLAYERS


def _winners() -> Projection:
    from pos.ledger.projections.winners import WINNERS

    return WINNERS


def _roster() -> Projection:
    from pos.ledger.projections.roster import ROSTER

    return ROSTER


def _receipts() -> Projection:
    from pos.ledger.projections.receipts import RECEIPTS

    return RECEIPTS


def _devices() -> Projection:
    from pos.ledger.projections.devices import DEVICES

    return DEVICES


def _closing() -> Projection:
    from pos.ledger.projections.closing import CLOSING

    return CLOSING


def _cash() -> Projection:
    from pos.ledger.projections.cash import CASH

    return CASH


def _bingo_program() -> Projection:
    from pos.ledger.projections.bingo_program import BINGO_PROGRAMS

    return BINGO_PROGRAMS


def _bingo_paper() -> Projection:
    from pos.ledger.projections.bingo_paper import BINGO_PAPER

    return BINGO_PAPER


def _bingo_games() -> Projection:
    from pos.ledger.projections.bingo_games import BINGO_GAMES

    return BINGO_GAMES


def _raffle() -> Projection:
    from pos.ledger.projections.raffle import RAFFLE

    return RAFFLE


def _books() -> Projection:
    from pos.ledger.projections.books import BOOKS

    return BOOKS


def _signon() -> Projection:
    from pos.ledger.projections.signon import SIGNON

    return SIGNON


def _kiosk_cash() -> Projection:
    from pos.ledger.projections.kiosk_cash import KIOSK_CASH

    return KIOSK_CASH


def _prizes() -> Projection:
    from pos.ledger.projections.prizes import PRIZES

    return PRIZES


def _newer() -> Projection:
    from pos.ledger.projections.newer import NEWER

    return NEWER


def _releases() -> Projection:
    from pos.ledger.projections.releases import RELEASES

    return RELEASES


FINGERPRINT = "a00bba021b448c38"

ALL = ProjectionSet(
    [
        PROJECTION_ERRORS,
        HALL,  # the store reads it at every open: imported with it
        Listed(_sessions, frozenset({"SessionClosed", "SessionOpened", "SessionScheduled"})),
        Listed(_settings, frozenset({"HouseRulePosted", "HouseRuleSet", "RulebookSettingSet"})),
        Listed(
            _deals,
            frozenset(
                {
                    "DealAcquired",
                    "DealClosed",
                    "DealOpened",
                    "DealReceived",
                    "DealReleased",
                    "OverrideGranted",
                    "SaleVoided",
                    "SessionClosed",
                    "SessionOpened",
                    "TicketsSold",
                    "WinnerRedeemed",
                }
            ),
        ),
        Listed(_players, frozenset({"PlayerRegistered"})),
        Listed(
            _winners,
            frozenset(
                {
                    "ExceptionFlagged",
                    "ExceptionResolved",
                    "ProgressivePrizeCarried",
                    "SaleVoided",
                    "SealLineSigned",
                    "SealOpened",
                    "SealPrizePaid",
                    "TicketPunched",
                    "TicketVoided",
                    "WinnerRedeemed",
                }
            ),
        ),
        Listed(
            _roster,
            frozenset(
                {
                    "BingoPrizePaid",
                    "ChestOpened",
                    "ChestParticipantChosen",
                    "ChestSold",
                    "CountVerified",
                    "DecisionEntered",
                    "DecisionFeesCollected",
                    "DecisionPrizeAnnounced",
                    "DeviceRented",
                    "DrawerCounted",
                    "PaperReturned",
                    "PaperSold",
                    "PaperVoided",
                    "ProgressivePlayed",
                    "PurchaseBlocked",
                    "SealPrizePaid",
                    "ShiftCancelled",
                    "ShiftChanged",
                    "ShiftsImported",
                    "TicketsSold",
                    "WinnerRedeemed",
                }
            ),
        ),
        Listed(
            _receipts,
            frozenset(
                {
                    "*",
                    "PrintFailed",
                    "PrintStarted",
                    "ReceiptPrinted",
                    "VoucherIssued",
                    "VoucherRedeemed",
                }
            ),
        ),
        Listed(
            _devices,
            frozenset(
                {
                    "DeviceAdded",
                    "DeviceExchanged",
                    "DeviceRented",
                    "DeviceRetired",
                    "DeviceReturned",
                    "PackageDefined",
                }
            ),
        ),
        Listed(
            _closing,
            frozenset(
                {
                    "*",
                    "SessionClosed",
                    "StationClosedSession",
                    "StationMissingAtClose",
                    "StationReopenedSession",
                }
            ),
        ),
        Listed(_cash, frozenset({"DrawerCounted"})),
        Listed(_bingo_program, frozenset({"ProgramDefined"})),
        Listed(
            _bingo_paper,
            frozenset(
                {
                    "BingoPackDefined",
                    "PaperIssued",
                    "PaperReceived",
                    "PaperReturned",
                    "PaperSold",
                    "PaperVoided",
                }
            ),
        ),
        Listed(
            _bingo_games,
            frozenset(
                {
                    "BingoPrizePaid",
                    "ChestOpened",
                    "ChestParticipantChosen",
                    "ChestSold",
                    "DecisionEntered",
                    "DecisionFeesCollected",
                    "DecisionPrizeAnnounced",
                    "ProgramDefined",
                    "ProgressivePlayed",
                }
            ),
        ),
        Listed(
            _raffle,
            frozenset(
                {
                    "RaffleCreated",
                    "RaffleNumberDrawn",
                    "RafflePrizeClaimed",
                    "RaffleStubsCounted",
                    "RaffleTicketSold",
                    "RaffleTicketVoided",
                }
            ),
        ),
        Listed(
            _books,
            frozenset(
                {
                    "BankBalanceRecorded",
                    "CountVerified",
                    "DepositConfirmed",
                    "DepositRecorded",
                    "DisbursementRecorded",
                    "QuarterReported",
                }
            ),
        ),
        Listed(_signon, frozenset({"HouseSettingSet", "StaffPinSet"})),
        Listed(
            _kiosk_cash,
            frozenset(
                {
                    "BillEscrowed",
                    "BillJammed",
                    "BillReturned",
                    "BillStacked",
                    "DeviceRented",
                    "DispenseCancelled",
                    "DispenseRequested",
                    "KioskCreditKept",
                    "TicketsSold",
                    "VoucherIssued",
                }
            ),
        ),
        Listed(
            _prizes,
            frozenset(
                {
                    "BingoPrizePaid",
                    "ChestOpened",
                    "RafflePrizeClaimed",
                    "SealPrizePaid",
                    "VoucherRedeemed",
                    "WinnerRedeemed",
                }
            ),
        ),
        Listed(_newer, frozenset({"*"})),
        Listed(_releases, frozenset({"HallCreated", "ReleaseInstalled", "StationJoined"})),
    ],
    fingerprint=FINGERPRINT,
)

__all__ = ["ALL", "FINGERPRINT", "Handler", "Listed", "Projection", "ProjectionSet"]
