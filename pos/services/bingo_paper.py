"""Bingo paper by audit number, admission packs and their sales (issue #18; rules I2, PAPER).

What it offers (stable names; the screens build on them):

- `receive_paper(st, series=, manufacturer=, faces=, first=, last=, invoice=, progressive=,
   supplier=, cost=, operator=)` -> PaperLot        paper in from its invoice (audit numbers)
- `issue_paper(st, series, first=, last=, to=, operator=)`  move stock to another station
- `void_paper(st, series, first=, last=, reason=, operator=)`  damaged sheets, out of stock
- `define_pack(st, name, price=, items=, games=, operator=)` -> PackView
                                                  "6-on, 9 games + 2 specials": refused (I2) when
                                                  it would hold progressive paper
- `list_packs(st)` -> list[PackView]
- `sell_pack(st, pack, qty=, buyer=, operator=, manager=, reason=)` -> SaleView
- `sell_paper(st, series, qty=, price=None, buyer=, operator=)` -> SaleView
                                                  paper sold apart (progressive paper at the
                                                  program's price, I2 / I 4)
- `return_sale(st, receipt, operator=)` -> SaleView  a sale's paper back to stock, its money back
- `paper_stock(st)` -> list[StockView]
- `reconcile_paper(st, session)` -> list[PaperReconciliation]
                                                  per series: opening, received, sold, returned,
                                                  voided, closing, each as audit number ranges

Every sale records the audit numbers that went to the buyer (the lowest in stock first).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pos.domain.bingo_paper import PaperMove, paper_figures, stock_after
from pos.domain.checks import bingo as bingo_checks
from pos.domain.money import CENTS, format_amount, parse_amount, parse_count
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import bingo_paper as paper_read
from pos.services.bingo_program import program_in_effect
from pos.services.current_session import require_open_session
from pos.services.eligibility import BingoPlayers, refusals_recorded
from pos.services.inputs import checked_input
from pos.services.money_path import session_for_money
from pos.services.numbering import next_receipt_number
from pos.services.station import Station

MAX_SHEETS = 100_000


@dataclass(frozen=True)
class PaperLot:
    series: str
    manufacturer: str
    faces: str
    progressive: bool
    first: int
    last: int
    sheets: int
    invoice: str


@dataclass(frozen=True)
class PackView:
    name: str
    price: int = field(metadata=CENTS)
    games: str = ""
    items: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class SaleView:
    receipt: int | None
    station: str
    session: str
    what: str  # "pack NAME" or "paper SERIES"
    qty: int
    price: int = field(metadata=CENTS)
    amount: int = field(metadata=CENTS)
    buyer: str | None = None
    audit_numbers: list[str] = field(default_factory=list)  # "SERIES first-last"
    returned: bool = False


@dataclass(frozen=True)
class StockView:
    series: str
    holder: str
    state: str
    sheets: int
    first: int
    last: int


@dataclass(frozen=True)
class PaperReconciliation:
    series: str
    manufacturer: str
    faces: str
    progressive: bool
    opening: list[str]  # audit number ranges
    received: list[str]
    sold: list[str]
    returned: list[str]
    voided: list[str]
    closing: list[str]
    counts: dict[str, int]  # opening, received, sold, returned, voided, closing

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def ranges(audits: list[int]) -> list[tuple[int, int]]:
    """Consecutive audit numbers as (first, last) runs (a number moved twice shows once)."""
    out: list[tuple[int, int]] = []
    for audit in sorted(set(audits)):
        if out and audit == out[-1][1] + 1:
            out[-1] = (out[-1][0], audit)
        else:
            out.append((audit, audit))
    return out


def range_text(audits: list[int]) -> list[str]:
    return [f"{a}-{b}" if a != b else str(a) for a, b in ranges(audits)]


def _name(text: str, field: str) -> str:
    value = text.strip()
    if not value or len(value) > 64:
        raise BadInput(field, f"{text!r} is not a name (1 to 64 characters)")
    return value


def _audit_range(first: str | int, last: str | int) -> tuple[int, int]:
    with checked_input("audit"):
        low = parse_count(first, "first", maximum=10**9)
        high = parse_count(last, "last", maximum=10**9)
    if high < low:
        raise BadInput("last", f"{high} is below the first audit number {low}")
    if high - low + 1 > MAX_SHEETS:
        raise BadInput("last", f"{high - low + 1} sheets in one range (at most {MAX_SHEETS})")
    return low, high


def receive_paper(
    st: Station,
    *,
    series: str,
    manufacturer: str,
    faces: str,
    first: str | int,
    last: str | int,
    invoice: str,
    progressive: bool = False,
    supplier: str | None = None,
    cost: str | None = None,
    operator: str | None,
) -> PaperLot:
    """Paper in from its invoice: a series' audit numbers first..last, held by this station."""
    by = st.operator(operator, "manager")
    series = _name(series, "series")
    low, high = _audit_range(first, last)
    cents = None
    if cost:
        with checked_input("cost"):
            cents = parse_amount(cost, "cost")
    with st.ledger.transaction():
        known = paper_read.paper_series(st.ledger.conn, series)
        if known is not None and known.progressive != progressive:
            raise BadInput(
                "series",
                f"{series} is on file as {'progressive' if known.progressive else 'regular'} "
                "paper; a series is one or the other",
            )
        taken = paper_read.overlapping_sheets(st.ledger.conn, series, low, high)
        if taken:
            raise BadInput(
                "first", f"{taken} audit number(s) of {series} {low}-{high} are already on file"
            )
        st.append(
            "PaperReceived",
            {
                "series": series,
                "manufacturer": _name(manufacturer, "manufacturer"),
                "faces": _name(faces, "faces"),
                "progressive": progressive,
                "first": low,
                "last": high,
                "invoice": _name(invoice, "invoice"),
                "supplier": supplier.strip() if supplier else None,
                "cost": cents,
                "holder": st.id,
                "by": by.badge,
            },
        )
    return PaperLot(
        series, manufacturer.strip(), faces.strip(), progressive, low, high, high - low + 1, invoice
    )


def issue_paper(
    st: Station, series: str, *, first: str | int, last: str | int, to: str, operator: str | None
) -> dict[str, Any]:
    """Move sheets in stock to another station (the booth that sells them)."""
    by = st.operator(operator, "manager")
    low, high = _audit_range(first, last)
    with st.ledger.transaction():
        if st.ledger.public_key(to) is None:
            raise BadInput("to", f"{to!r} is not a station of this hall")
        states = paper_read.sheet_states(st.ledger.conn, series, low, high)
        if len(states) != high - low + 1:
            raise BadInput("first", f"{series} {low}-{high} is not all on file")
        bad = [a for a, state, _ in states if state != "stock"]
        refuse(bingo_checks.sheets_available(series, high - low + 1, high - low + 1 - len(bad)))
        st.append(
            "PaperIssued",
            {"series": series, "first": low, "last": high, "to": to, "by": by.badge},
        )
    return {"series": series, "first": low, "last": high, "to": to}


def void_paper(
    st: Station,
    series: str,
    *,
    first: str | int,
    last: str | int,
    reason: str,
    operator: str | None,
) -> dict[str, Any]:
    """Damaged or misprinted sheets in stock: voided in the open session, never sold."""
    by = st.operator(operator, "seller", "manager")
    low, high = _audit_range(first, last)
    if not reason.strip():
        raise BadInput("reason", "say why the sheets are voided")
    with st.ledger.transaction():
        session = require_open_session(st)
        states = paper_read.sheet_states(st.ledger.conn, series, low, high)
        in_stock = sum(1 for _, state, _ in states if state == "stock")
        refuse(bingo_checks.sheets_available(series, high - low + 1, in_stock))
        st.append(
            "PaperVoided",
            {
                "series": series,
                "first": low,
                "last": high,
                "session": session.id,
                "reason": reason.strip(),
                "by": by.badge,
            },
        )
    return {"series": series, "first": low, "last": high, "session": session.id}


def _items(items: list[tuple[str, int | str]]) -> list[dict[str, Any]]:
    out = []
    for series, count in items:
        with checked_input("items"):
            number = parse_count(count, "count", maximum=1000)
        out.append({"series": _name(series, "series"), "count": number})
    if not out:
        raise BadInput("items", "a pack holds at least one series of paper (SERIES:COUNT)")
    return out


def parse_items(texts: list[str]) -> list[tuple[str, int | str]]:
    """`SERIES:COUNT` items as typed."""
    out: list[tuple[str, int | str]] = []
    for text in texts:
        series, sep, count = text.rpartition(":")
        if not sep or not series:
            raise BadInput("item", f"{text!r} is not SERIES:COUNT")
        out.append((series, count))
    return out


def define_pack(
    st: Station,
    name: str,
    *,
    price: str,
    items: list[tuple[str, int | str]],
    games: str = "",
    operator: str | None,
) -> PackView:
    """Define (or reprice) an admission pack from paper on file; never with progressive paper
    (I2)."""
    by = st.operator(operator, "manager")
    label = _name(name, "name")
    with checked_input("price"):
        cents = parse_amount(price, "price")
    contents = _items(items)
    with st.ledger.transaction():
        progressive = []
        for item in contents:
            series = paper_read.paper_series(st.ledger.conn, item["series"])
            if series is None:
                raise BadInput("items", f"no paper of series {item['series']!r} is on file")
            if series.progressive:
                progressive.append(series.series)
        refuse(bingo_checks.pack_paper(label, progressive))
        st.append(
            "BingoPackDefined",
            {
                "name": label,
                "price": cents,
                "games": games.strip(),
                "items": contents,
                "by": by.badge,
            },
        )
    return PackView(label, cents, games.strip(), contents)


def list_packs(st: Station) -> list[PackView]:
    return [PackView(p.name, p.price, p.games, p.items) for p in paper_read.packs(st.ledger.conn)]


def _take(st: Station, series: str, count: int) -> list[dict[str, Any]]:
    audits = paper_read.stock_audits(st.ledger.conn, series, st.id, limit=count)
    refuse(bingo_checks.sheets_available(series, count, len(audits)))
    return [{"series": series, "first": a, "last": b} for a, b in ranges(audits)]


def _sale_view(st: Station, body: dict[str, Any], what: str) -> SaleView:
    return SaleView(
        receipt=body["receipt"],
        station=st.id,
        session=body["session"],
        what=what,
        qty=body["qty"],
        price=body["price"],
        amount=body["amount"],
        buyer=body.get("buyer"),
        audit_numbers=[
            f"{s['series']} {s['first']}-{s['last']}"
            if s["first"] != s["last"]
            else f"{s['series']} {s['first']}"
            for s in body["sheets"]
        ],
    )


def sell_pack(
    st: Station,
    pack: str,
    *,
    qty: str | int = 1,
    buyer: str | None = None,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
) -> SaleView:
    """Sell admission packs at the door: each pack's paper by audit number, from this
    station's stock, lowest numbers first; the sale records the numbers and the buyer."""
    by = st.operator(operator, "seller")
    with checked_input("qty"):
        count = parse_count(qty, "qty", maximum=100)
    with refusals_recorded(st), st.ledger.transaction():
        session = session_for_money(st)
        found = paper_read.pack(st.ledger.conn, pack)
        if found is None:
            raise NotFound(f"no pack {pack!r} is defined")
        not_working = BingoPlayers(st, session, by.badge, manager, reason)
        buyer_code = not_working.check(buyer)
        sheets = []
        for item in found.items:
            sheets += _take(st, item["series"], int(item["count"]) * count)
        body = {
            "session": session.id,
            "receipt": next_receipt_number(st),
            "pack": found.name,
            "series": None,
            "qty": count,
            "price": found.price,
            "amount": found.price * count,
            "sheets": sheets,
            "buyer": buyer_code,
            "by": by.badge,
            "lines": [
                {
                    "text": f"Pack {found.name}" + (f" ({found.games})" if found.games else ""),
                    "qty": count,
                    "amount": found.price * count,
                }
            ],
        }
        st.append("PaperSold", body)
    return _sale_view(st, body, f"pack {found.name}")


def _program_price(st: Station, series: str) -> int | None:
    """The price the program in effect lists for a series sold apart: its progressive game's
    price (I4), or a paper product's."""
    found = program_in_effect(st)
    if found is None:
        return None
    program, _ = found
    for game in program.games:
        if (
            game.paper == series
            and game.price is not None
            and game.kind.value
            in (
                "progressive",
                "decision",
            )
        ):
            return game.price
    for product in program.products:
        if product.kind.value == "paper" and product.name == series:
            return product.price
    return None


def sell_paper(
    st: Station,
    series: str,
    *,
    qty: str | int = 1,
    price: str | None = None,
    buyer: str | None = None,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
) -> SaleView:
    """Sell sheets of one series on their own. Progressive paper sells only at the program's
    price (I2, I 4); other paper at the program's price, or the price given."""
    by = st.operator(operator, "seller")
    with checked_input("qty"):
        count = parse_count(qty, "qty", maximum=1000)
    given = None
    if price:
        with checked_input("price"):
            given = parse_amount(price, "price")
    with refusals_recorded(st), st.ledger.transaction():
        session = session_for_money(st)
        found = paper_read.paper_series(st.ledger.conn, series)
        if found is None:
            raise NotFound(f"no paper of series {series!r} is on file")
        listed = _program_price(st, series)
        if found.progressive:
            unit = given if given is not None else (listed or 0)
            refuse(bingo_checks.paper_price(series, unit, program_price=listed))
        else:
            unit = given if given is not None else listed or 0
            if unit <= 0:
                raise BadInput("price", f"the program lists no price for {series}: give --price")
        not_working = BingoPlayers(st, session, by.badge, manager, reason)
        buyer_code = not_working.check(buyer)
        sheets = _take(st, series, count)
        body = {
            "session": session.id,
            "receipt": next_receipt_number(st),
            "pack": None,
            "series": series,
            "qty": count,
            "price": unit,
            "amount": unit * count,
            "sheets": sheets,
            "buyer": buyer_code,
            "by": by.badge,
            "lines": [
                {
                    "text": f"{'Progressive ' if found.progressive else ''}paper {series} "
                    f"@ ${format_amount(unit)}",
                    "qty": count,
                    "amount": unit * count,
                }
            ],
        }
        st.append("PaperSold", body)
    return _sale_view(st, body, f"paper {series}")


def return_sale(st: Station, receipt: str | int, *, operator: str | None) -> SaleView:
    """A sale rung in error or paper handed back unplayed: its sheets return to stock and its
    money is taken off the session's sales."""
    by = st.operator(operator, "manager")
    with checked_input("receipt"):
        number = parse_count(receipt, "receipt", maximum=10**9)
    with st.ledger.transaction():
        session = session_for_money(st)
        sale = paper_read.sale_on_receipt(st.ledger.conn, st.id, number)
        if sale is None:
            raise NotFound(f"receipt {number} of {st.id} is not a bingo paper sale")
        if sale.returned:
            raise BadInput("receipt", f"the paper of receipt {number} was already returned")
        st.append(
            "PaperReturned",
            {
                "sale_origin": sale.origin,
                "sale_seq": sale.seq,
                "session": session.id,
                "amount": sale.amount,
                "by": by.badge,
            },
        )
    view = _sale_view(
        st,
        {
            "receipt": number,
            "session": sale.session,
            "qty": sale.qty,
            "price": sale.price,
            "amount": sale.amount,
            "buyer": sale.buyer,
            "sheets": sale.sheets,
        },
        f"pack {sale.pack}" if sale.pack else f"paper {sale.series}",
    )
    return SaleView(**{**view.__dict__, "returned": True})


def paper_stock(st: Station) -> list[StockView]:
    return [
        StockView(s.series, s.holder, s.state, s.count, s.first, s.last)
        for s in paper_read.stock(st.ledger.conn)
    ]


def sales(st: Station, sessions: list[str]) -> list[SaleView]:
    return [
        SaleView(
            receipt=s.receipt,
            station=s.origin,
            session=s.session,
            what=f"pack {s.pack}" if s.pack else f"paper {s.series}",
            qty=s.qty,
            price=s.price,
            amount=s.amount,
            buyer=s.buyer,
            audit_numbers=[f"{i['series']} {i['first']}-{i['last']}" for i in s.sheets],
            returned=s.returned,
        )
        for s in paper_read.paper_sales(st.ledger.conn, sessions)
    ]


def reconcile_paper(st: Station, session: str) -> list[PaperReconciliation]:
    """The session's paper by audit numbers, per series: opening (in stock when the session
    opened), received during it, sold, returned, voided, and closing (in stock at its close, or
    now while it is open). Every movement counts, so closing = opening + received - sold +
    returned - voided (pos.domain.bingo_paper): a sheet sold, handed back and sold again is
    sold twice and returned once."""
    conn = st.ledger.conn
    bounds = paper_read.session_bounds(conn, session)
    if bounds is None:
        raise BadInput("session", f"no session {session!r} on file")
    opened, closed = bounds
    end = closed or "9" * 30
    out = []
    for series in paper_read.all_series(conn):
        opening = stock_after(
            PaperMove(kind, audit)
            for kind, audit in paper_read.paper_moves_before(conn, series.series, opened)
        )
        moves = [
            PaperMove(kind, audit, session)
            for kind, audit in paper_read.paper_moves_in(conn, series.series, session, opened, end)
        ]
        if not (opening or moves):
            continue
        figures = paper_figures(opening, moves)
        out.append(
            PaperReconciliation(
                series=series.series,
                manufacturer=series.manufacturer,
                faces=series.faces,
                progressive=series.progressive,
                opening=range_text(sorted(figures.opening)),
                received=range_text(list(figures.moved["received"])),
                sold=range_text(list(figures.moved["sold"])),
                returned=range_text(list(figures.moved["returned"])),
                voided=range_text(list(figures.moved["voided"])),
                closing=range_text(sorted(figures.closing)),
                counts=figures.counts(),
            )
        )
    return out


def reconciliation_text(line: PaperReconciliation) -> str:
    """One series' line as the CLI and the screens say it, every column of the arithmetic."""
    c = line.counts

    def column(name: str, audits: list[str]) -> str:
        return f"{name} {c[name]} ({', '.join(audits) or '-'})"

    return f"{line.series}: " + ", ".join(
        (
            column("opening", line.opening),
            f"+ {column('received', line.received)}",
            f"- {column('sold', line.sold)}",
            f"+ {column('returned', line.returned)}",
            f"- {column('voided', line.voided)}",
            f"= {column('closing', line.closing)}",
        )
    )
