"""Every projection Booth keeps, in the order they are applied."""

from pos.ledger.projections.base import Handler, Projection, ProjectionSet
from pos.ledger.projections.hall import HALL

ALL = ProjectionSet([HALL])

__all__ = ["ALL", "Handler", "Projection", "ProjectionSet"]
