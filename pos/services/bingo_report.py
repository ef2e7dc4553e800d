"""The bingo session in the day report and on the reconciliation form (issue #18).

What it offers:

- `day_section(st, sessions)` -> dict       the report's "bingo" part: its product lines (each
                                            with gross, prizes paid and net; paper lines with
                                            their audit numbers), the paper's reconciliation by
                                            audit number per session, decision games (retained
                                            excess), progressive plays, treasure chests, prizes
- `product_lines(section)` -> list[dict]    the lines for the report's `products`
- `station_cash(st, station, sessions)`     what a drawer took for bingo, less bingo prizes

The lines (each on its own): bingo paper, packs and devices (WINGO and a progressive game
played on as a regular game count as traditional bingo: J5, I6); decision bingo; progressive
bingo; treasure chest (H4: treasure chest/raffle sales). Raffles have a line of their own,
kept by the raffle module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pos.domain.money import amount_cents, format_amount
from pos.ledger.projections import bingo_games as games_read
from pos.ledger.projections import bingo_paper as paper_read
from pos.ledger.projections import devices as devices_read
from pos.services import bingo_paper
from pos.services.station import Station

PAPER_LINE = "bingo paper, packs and devices"
DECISION_LINE = "decision bingo"
PROGRESSIVE_LINE = "progressive bingo"
CHEST_LINE = "treasure chest"
BINGO_LINES = (PAPER_LINE, DECISION_LINE, PROGRESSIVE_LINE, CHEST_LINE)

_TRADITIONAL = ("regular", "special", "jackpot", "wingo")


def _line(name: str, count: int, gross: int, prizes: int, **extra: Any) -> dict[str, Any]:
    return {
        "line": name,
        "tickets_sold": count,
        "gross": format_amount(gross),
        "prizes_paid": format_amount(prizes),
        "net": format_amount(gross - prizes),
        **extra,
    }


def paper_product(sale: paper_read.PaperSale, progressive_series: set[str]) -> str:
    """The product kind (pos.domain.books.PRODUCT_LINES) a paper or pack sale reports under:
    progressive paper sold on its own is progressive bingo, the rest bingo paper."""
    if not sale.pack and sale.series in progressive_series:
        return "progressive-bingo"
    return "bingo-paper"


def prize_product(prize: games_read.PrizePaid) -> str | None:
    """The product kind a bingo prize reports under (a progressive game played on as a regular
    game, WINGO: traditional bingo, J5, I6), or None for a kind no line counts."""
    if prize.kind in _TRADITIONAL or prize.as_regular:
        return "bingo-paper"
    if prize.kind == "progressive":
        return "progressive-bingo"
    if prize.kind == "decision":
        return "decision-bingo"
    return None


def day_section(st: Station, sessions: Sequence[str]) -> dict[str, Any]:
    conn = st.ledger.conn
    ss = list(sessions)
    progressive_series = {s.series for s in paper_read.all_series(conn) if s.progressive}
    sales = paper_read.paper_sales(conn, ss)
    kept = [s for s in sales if not s.returned]
    paper_sales = [s for s in kept if paper_product(s, progressive_series) == "bingo-paper"]
    prog_sales = [s for s in kept if paper_product(s, progressive_series) != "bingo-paper"]
    rentals, rental_gross = devices_read.rental_totals(conn, ss)
    prizes = games_read.prizes_paid(conn, ss)
    traditional = [p for p in prizes if prize_product(p) == "bingo-paper"]
    progressive_won = [p for p in prizes if prize_product(p) == "progressive-bingo"]
    decision_prizes = [p for p in prizes if prize_product(p) == "decision-bingo"]

    def audits(chosen: list[paper_read.PaperSale]) -> list[str]:
        by_series: dict[str, list[int]] = {}
        for sale in chosen:
            for item in sale.sheets:
                by_series.setdefault(item["series"], []).extend(
                    range(int(item["first"]), int(item["last"]) + 1)
                )
        return [
            f"{series} {text}"
            for series, numbers in sorted(by_series.items())
            for text in bingo_paper.range_text(numbers)
        ]

    paper_gross = sum(s.amount for s in paper_sales) + rental_gross
    paper_line = _line(
        PAPER_LINE,
        sum(s.qty for s in paper_sales),
        paper_gross,
        sum(p.amount for p in traditional),
        packs=sum(s.qty for s in paper_sales if s.pack),
        devices=rentals,
        devices_gross=format_amount(rental_gross),
        audit_numbers=audits(paper_sales),
    )

    decisions: list[dict[str, Any]] = []
    entries = fees = retained = faces = 0
    for session, game in games_read.decision_games(conn, ss):
        t = games_read.decision_totals(conn, session, game)
        entries += t.entries
        fees += t.fees
        retained += t.announced_retained or 0
        faces += t.faces
        decisions.append(
            {
                "session": session,
                "game": game,
                "faces": t.faces,
                "entries": format_amount(t.entries),
                "rounds": t.rounds,
                "fees": format_amount(t.fees),
                "prize_announced": format_amount(t.announced_prize)
                if t.announced_prize is not None
                else None,
                "retained": format_amount(t.announced_retained or 0),
                "prize_paid": format_amount(games_read.game_prizes(conn, session, game)),
            }
        )
    decision_line = _line(
        DECISION_LINE,
        faces,
        entries + fees,
        sum(p.amount for p in decision_prizes),
        entries=format_amount(entries),
        fees=format_amount(fees),
        retained=format_amount(retained),
    )

    plays = games_read.progressive_plays(conn, ss)
    progressive_line = _line(
        PROGRESSIVE_LINE,
        sum(s.qty for s in prog_sales),
        sum(s.amount for s in prog_sales),
        sum(p.amount for p in progressive_won),
        audit_numbers=audits(prog_sales),
    )

    chests = []
    chest_gross = chest_prizes = chest_sold = 0
    for session, game in games_read.chest_games(conn, ss):
        c = games_read.chest_totals(conn, session, game)
        chest_gross += c.gross
        chest_prizes += c.prizes
        chest_sold += c.sold
        chests.append(
            {
                "session": session,
                "game": game,
                "sold": c.sold,
                "gross": format_amount(c.gross),
                "participants": c.participants,
                "outcomes": c.outcomes,
                "prizes": format_amount(c.prizes),
            }
        )
    chest_line = _line(CHEST_LINE, chest_sold, chest_gross, chest_prizes, accounted_as="raffle")

    lines = [paper_line, decision_line, progressive_line, chest_line]
    gross = sum(int(amount_cents(x["gross"])) for x in lines)
    paid = sum(int(amount_cents(x["prizes_paid"])) for x in lines)
    return {
        "lines": lines,
        "gross": format_amount(gross),
        "prizes_paid": format_amount(paid),
        "net": format_amount(gross - paid),
        "paper": {
            session: [r.to_dict() for r in bingo_paper.reconcile_paper(st, session)]
            for session in ss
        },
        "sales": [
            {
                "station": s.origin,
                "receipt": s.receipt,
                "what": f"pack {s.pack}" if s.pack else f"paper {s.series}",
                "qty": s.qty,
                "amount": format_amount(s.amount),
                "buyer": s.buyer,
                "audit_numbers": [f"{i['series']} {i['first']}-{i['last']}" for i in s.sheets],
                "returned": s.returned,
            }
            for s in sales
        ],
        "decision": decisions,
        "progressive": [
            {
                "session": p.session,
                "game": p.game,
                "name": p.name,
                "won": p.won,
                "calls": p.calls,
                "prize": format_amount(p.pool),
                "next_calls": p.next_calls,
                "next_prize": format_amount(p.next_pool),
            }
            for p in plays
        ],
        "treasure_chest": chests,
        "prizes": [
            {
                "session": p.session,
                "game": p.game,
                "name": p.name,
                "kind": p.kind,
                "amount": format_amount(p.amount),
                "winners": p.winners,
                "as_regular": p.as_regular,
                "w2g": p.reportable,
                "paid_by": p.by,
            }
            for p in prizes
        ],
    }


def product_lines(section: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's `products` entries for the bingo session, one per line."""
    return list(section["lines"])


def station_cash(st: Station, station: str, sessions: Sequence[str]) -> int:
    """Cents a drawer took for bingo (paper, packs, decision, treasure chest) less the bingo
    prizes it paid (rentals are counted by the report already)."""
    return games_read.station_bingo_cash(st.ledger.conn, station, sessions)
