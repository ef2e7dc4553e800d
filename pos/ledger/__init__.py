"""The station's append-only, signed event log in SQLite, and the projections derived from it."""

from pos.ledger.events import Event
from pos.ledger.store import Ledger

__all__ = ["Event", "Ledger"]
