"""The bookkeeper's words for the terminal: a count as the counter sees it once recorded, and
the day report's bookkeeping lines."""

from __future__ import annotations

from typing import Any

from pos.domain.money import dollars


def count_text(r: dict[str, Any], verb: str = "Counted") -> str:
    variance = r["variance"]
    how = "exact" if variance == "0.00" else ("short " if variance.startswith("-") else "over ")
    how += "" if variance == "0.00" else dollars(variance.lstrip("-"))
    lines = [
        f"{verb} ${r['counted']} in {r['drawer']} for {r['session']} (counted by "
        f"{r['counted_by']}).",
        f"The ledger expected ${r['expected']}: {how}.",
    ]
    if r["status"] == "verified":
        lines.append(f"VERIFIED by {r['verified_by']} (counted by {r['counted_by']}).")
    else:
        lines.append(
            "NOT VERIFIED: a second person, with another badge, counts it and runs "
            "`booth drawer verify AMOUNT`."
        )
    return "\n".join(lines)


def books_day_text(r: dict[str, Any]) -> list[str]:
    """The day report's bookkeeping lines (counts, deposits due, the state's reports due)."""
    lines = []
    for c in r.get("counts", []):
        lines.append(
            f"  count {c['drawer']:<24} counted ${c['counted']:>9} by {c['counted_by']:<6} "
            f"expected ${c['expected']:>9} variance {c['variance']:>8}  "
            + (f"verified by {c['verified_by']}" if c["status"] == "verified" else "NOT VERIFIED")
        )
    for p in r.get("variance", {}).get("people", []):
        if p["short"]:
            lines.append(
                f"  short: {p['person']} on {p['short']} of {p['counts']} counts "
                f"(${p['short_total']})"
            )
    due = r.get("deposits_due", [])
    for d in due[-5:]:  # the latest few; the JSON has them all
        lines.append(
            f"  deposit {'OVERDUE' if d['overdue'] else 'due'}: session {d['session']} "
            f"by {d['due']}"
        )
    if len(due) > 5:
        lines.append(f"  ... and {len(due) - 5} older sessions with no deposit recorded")
    for due in r.get("reports_due", []):
        lines.append(f"  state report due: Form {due['form']} {due['period']} by {due['due']}")
    return lines
