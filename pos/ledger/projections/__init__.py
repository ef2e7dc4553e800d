"""Every projection Booth keeps, in the order they are applied."""

from pos.ledger.projections.base import PROJECTION_ERRORS, Handler, Projection, ProjectionSet
from pos.ledger.projections.bingo_games import BINGO_GAMES
from pos.ledger.projections.bingo_paper import BINGO_PAPER
from pos.ledger.projections.bingo_program import BINGO_PROGRAMS
from pos.ledger.projections.books import BOOKS
from pos.ledger.projections.cash import CASH
from pos.ledger.projections.closing import CLOSING
from pos.ledger.projections.deals import DEALS
from pos.ledger.projections.devices import DEVICES
from pos.ledger.projections.hall import HALL
from pos.ledger.projections.kiosk_cash import KIOSK_CASH
from pos.ledger.projections.newer import NEWER
from pos.ledger.projections.players import PLAYERS
from pos.ledger.projections.prizes import PRIZES
from pos.ledger.projections.raffle import RAFFLE
from pos.ledger.projections.receipts import RECEIPTS
from pos.ledger.projections.releases import RELEASES
from pos.ledger.projections.roster import ROSTER
from pos.ledger.projections.sessions import SESSIONS
from pos.ledger.projections.settings import SETTINGS
from pos.ledger.projections.signon import SIGNON
from pos.ledger.projections.winners import WINNERS

ALL = ProjectionSet(
    [
        PROJECTION_ERRORS,
        HALL,
        SESSIONS,
        SETTINGS,
        DEALS,
        PLAYERS,
        WINNERS,
        ROSTER,
        RECEIPTS,
        DEVICES,
        CLOSING,
        CASH,
        BINGO_PROGRAMS,
        BINGO_PAPER,
        BINGO_GAMES,
        RAFFLE,
        BOOKS,
        SIGNON,
        KIOSK_CASH,
        PRIZES,
        NEWER,
        RELEASES,
    ]
)

__all__ = ["ALL", "Handler", "Projection", "ProjectionSet"]
