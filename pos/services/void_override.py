"""A seller asks a manager to approve voiding a sale (rule ROLE: voiding a sale is a manager's):
the manager scans their badge at the booth, and enters their PIN when the house signs on with
badge and PIN; the void is then recorded with both, the manager as who voided it and the seller
as who asked (SaleVoided `by` and `asked_by`). Without a manager's badge the seller is refused
as before."""

from __future__ import annotations

from pos.domain.checks import staff as staff_checks
from pos.errors import BadInput, refuse
from pos.services import signon, winners
from pos.services.station import Operator, Station


def approving_manager(st: Station, badge: str, pin: str | None) -> Operator:
    """The manager whose badge (and PIN, when the house asks for one) approves, or the error
    that says why not: not a manager (ROLE), the PIN missing or not right."""
    if not badge.strip():
        raise BadInput("manager", "a manager scans their badge here to approve")
    answer = signon.sign_on(st, badge, pin.strip() if pin and pin.strip() else None, "manager")
    if answer.error is not None:
        raise answer.error
    refuse(staff_checks.approves_void(badge.strip(), signed_on=answer.person is not None))
    if answer.needs_pin:
        raise BadInput("pin", "the house asks for the manager's PIN too: enter it to approve")
    person = answer.person
    assert person is not None  # refused just above otherwise: for the type checker
    return person


def void_sale_approved(
    st: Station, receipt: int, *, reason: str, seller: str, manager: str, pin: str | None
) -> winners.SaleVoid:
    """Void a sale at the seller's request with a manager's approval given at the booth."""
    asker = st.operator(seller, "seller", "redeemer")
    approver = approving_manager(st, manager, pin)
    return winners.void_sale(
        st, receipt, reason=reason, operator=approver.badge, asked_by=asker.badge
    )
