"""A seller asks a manager to approve a sale's void at the booth: the manager's badge scanned
there (and their PIN when the house signs on with badge and PIN). The void is recorded with
both; the seller alone is still refused (pos.services.void_override). Functions taking a
Station run on the StationWorker."""

from __future__ import annotations

from kiosk.viewmodels.common import ERROR, INFO, Outcome, money, once, plain
from pos.errors import BadInput
from pos.services import signon, void_override
from pos.services.station import Station


def house_asks_pin(st: Station) -> bool:
    """Whether the approving manager enters their PIN as well as their badge."""
    return signon.settings(st).needs_pin


def void_sale_approved(
    st: Station,
    receipt: str,
    reason: str,
    seller: str,
    manager: str,
    pin: str,
    *,
    attempt_id: str,
) -> Outcome:
    """The void of sale `receipt`, asked by `seller` and approved by `manager` at the booth;
    exactly once for `attempt_id` (a double tap on Approve records it once)."""

    def run() -> Outcome:
        if not receipt.strip().isdigit():
            raise BadInput("receipt", "enter the receipt number of the sale")
        done = void_override.void_sale_approved(
            st, int(receipt), reason=reason, seller=seller, manager=manager, pin=pin or None
        )
        return Outcome(
            True,
            "SALE VOIDED",
            f"Receipt #{done.receipt}: {done.qty} × {done.serial}, "
            f"{money(done.amount)} back. Approved by "
            f"{st.named(done.by)}, asked by {st.named(done.asked_by or seller)}",
            INFO,
        )

    def said() -> Outcome:
        try:
            return run()
        except BadInput as error:  # said without the field's name ("pin: ...")
            return Outcome(False, "Void not approved", plain(error) + ".", ERROR)

    return once(st, attempt_id, said, "Void not approved")
