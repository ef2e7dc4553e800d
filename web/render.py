"""The web app's pages, rendered on the server: plain HTML, every value escaped, the hourly chart
as inline SVG. The page's script (assets/app.js) only swaps in the fragment each update brings."""

from __future__ import annotations

from datetime import datetime
from html import escape
from importlib import resources
from typing import Any

from pos.domain.money import parse_amount

#: what each role sees of the dashboard (nobody sees player identities or W-2G data)
SECTIONS = {
    "manager": ("takings", "deals", "stations", "exceptions", "cash", "reports"),
    "treasurer": ("takings", "deals", "cash", "reports"),
    "inspector": ("takings", "deals", "stations", "exceptions", "cash", "reports"),
}


def asset(name: str) -> str:
    return resources.files("web").joinpath("assets", name).read_text(encoding="utf-8")


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _money(value: str | None) -> str:
    return "-" if value is None else f"${_e(value)}"


def page(title: str, body: str, *, nonce: str, script: bool = False) -> str:
    js = f'<script nonce="{nonce}">{asset("app.js")}</script>' if script else ""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{_e(title)}</title>"
        f'<style nonce="{nonce}">{asset("app.css")}</style></head>'
        f"<body>{body}{js}</body></html>"
    )


def chart(hourly: list[dict[str, Any]]) -> str:
    """Sales per hour (hall time) as bars, with a text alternative."""
    totals = [
        (
            int(row["hour"]),
            sum(parse_amount(v, "amount", allow_zero=True) for k, v in row.items() if k != "hour"),
        )
        for row in hourly
    ]
    if not totals:
        return '<p class="muted">No sales yet today.</p>'
    width, height, pad = 320, 140, 22
    top = max(cents for _, cents in totals) or 1
    first, last = min(h for h, _ in totals), max(h for h, _ in totals)
    hours = list(range(first, last + 1))
    by_hour = dict(totals)
    step = (width - 2 * pad) / len(hours)
    bars, labels = [], []
    for i, hour in enumerate(hours):
        cents = by_hour.get(hour, 0)
        h = (height - 2 * pad) * cents / top
        x = pad + i * step + step * 0.15
        y = height - pad - h
        amount = f"${cents // 100:,}.{cents % 100:02d}"
        bars.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" '
            f'class="bar"><title>{hour:02d}:00 {amount}</title></rect>'
        )
        labels.append(
            f'<text x="{x + step * 0.35:.1f}" y="{height - 6}" text-anchor="middle" '
            f'class="axis">{hour:02d}</text>'
        )
    summary = ", ".join(
        f"{h:02d}:00 ${c // 100:,}.{c % 100:02d}" for h, c in sorted(by_hour.items())
    )
    return (
        f'<svg viewBox="0 0 {width} {height}" role="img" class="chart" '
        f'aria-label="Sales per hour: {_e(summary)}">'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        f'class="axisline"/>{"".join(bars)}{"".join(labels)}</svg>'
    )


def _when(iso: str) -> str:
    """A wall-clock time as the phone reads it: 03 Dec 18:04:05 (UTC as stored)."""
    try:
        return datetime.fromisoformat(iso).strftime("%d %b %H:%M:%S")
    except ValueError:
        return iso


def _table(caption: str, heads: list[str], rows: list[list[str]], empty: str) -> str:
    if not rows:
        return f'<p class="muted">{_e(empty)}</p>'
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (
        f'<div class="scroll"><table><caption class="sr">{_e(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _takings(data: dict[str, Any]) -> str:
    r = data["report"]
    sessions = ", ".join(r["sessions"]) or "none open"
    return (
        '<section aria-labelledby="h-takings"><h2 id="h-takings">Takings today</h2>'
        f'<p class="muted">{_e(r["date"])}, sessions {_e(sessions)}</p>'
        '<dl class="figures">'
        f'<div><dt>Gross</dt><dd data-figure="gross">{_money(r["gross"])}</dd></div>'
        f'<div><dt>Prizes</dt><dd data-figure="prizes_paid">{_money(r["prizes_paid"])}</dd></div>'
        f'<div><dt>Net</dt><dd data-figure="net">{_money(r["net"])}</dd></div>'
        "</dl>"
        f"<h3>Sales per hour</h3>{chart(r['hourly'])}</section>"
    )


def _deals(data: dict[str, Any]) -> str:
    rows = [
        [
            f'<span class="serial">{_e(d["serial"])}</span><br>{_e(d["name"])}',
            f"{d['tickets_sold']:,} / {d['tickets']:,}",
            f'<span data-deal-gross="{_e(d["serial"])}">{_money(d["gross"])}</span>'
            f'<br><span class="muted">of {_money(d["ideal_gross"])}</span>',
            f'{_money(d["net"])}<br><span class="muted">of {_money(d["ideal_net"])}</span>',
            f"{d['winners_left']:,}",
        ]
        for d in data["deals"]
    ]
    return (
        '<section aria-labelledby="h-deals"><h2 id="h-deals">Deals: actual against ideal</h2>'
        + _table(
            "Deals in play and sold from today",
            ["Deal", "Sold", "Gross", "Net", "Winners left"],
            rows,
            "No deal in play.",
        )
        + "</section>"
    )


def _stations(data: dict[str, Any]) -> str:
    rows = []
    for s in data["stations"]:
        if s["this_station"]:
            contact = "this station"
        elif s["last_contact"]:
            contact = (
                f'<time datetime="{_e(s["last_contact"])}">{_e(_when(s["last_contact"]))}</time>'
            )
        else:
            contact = "never"
        if s["last_error"]:
            contact += f'<br><span class="bad">{_e(s["last_error"])}</span>'
        faults = [f"printer: receipt {f['receipt']} {_e(f['error'])}" for f in s["printer_faults"]]
        faults += [
            f"dispenser: receipt {f['receipt']} {_e(f['fault'])}" for f in s["dispenser_faults"]
        ]
        rows.append(
            [
                f'{_e(s["station"])}<br><span class="muted">{_e(s["role"])}</span>',
                contact,
                f'<span data-behind="{_e(s["station"])}">{s["events_behind"]:,}</span>',
                '<span class="bad">' + "<br>".join(faults) + "</span>" if faults else "none",
            ]
        )
    return (
        '<section aria-labelledby="h-stations"><h2 id="h-stations">Stations</h2>'
        + _table("Stations", ["Station", "Last contact", "Behind", "Faults"], rows, "None.")
        + "</section>"
    )


def _exceptions(data: dict[str, Any]) -> str:
    items = "".join(
        f"<li><strong>{_e(e['kind'])}</strong> {_e(e['subject'])}"
        f'<br><span class="muted">{_e(e["exception"])}</span> {_e(e["detail"])}</li>'
        for e in data["exceptions"]
    )
    body = (
        f'<ul class="exceptions">{items}</ul>'
        if items
        else '<p class="muted">No exception waiting.</p>'
    )
    return (
        '<section aria-labelledby="h-exceptions">'
        f'<h2 id="h-exceptions">Exceptions to read ({len(data["exceptions"])})</h2>{body}'
        '<p class="muted">Deciding stays on the manager screen and the command line.</p>'
        "</section>"
    )


def _cash(data: dict[str, Any]) -> str:
    cash = data["cash"]
    rows = [
        [
            _e(d["station"]),
            _money(d["expected"]),
            _money(d["counted"]),
            (
                f'<span class="{"bad" if d["over_short"] not in ("0.00", None) else ""}">'
                f"{_money(d['over_short'])}</span>"
            ),
        ]
        for d in cash["drawers"]
    ]
    due = "".join(
        f'<li class="{"bad" if d["overdue"] else ""}">'
        f"{'OVERDUE' if d['overdue'] else 'Due'} by <strong>{_e(d['due'])}</strong>: session "
        f"{_e(d['session'])}, {_money(d['amount'])} ({_e(d['basis'])})"
        + (
            f'<br><span class="muted">not business days: '
            f"{_e(', '.join(d['not_business_days']))}</span>"
            if d["not_business_days"]
            else ""
        )
        + "</li>"
        for d in cash["due"]
    ) + (
        f'<li class="bad">{cash["due_more"]} older sessions have no deposit recorded</li>'
        if cash["due_more"]
        else ""
    )
    made = [
        [
            _e(d["bag"]),
            _e(", ".join(d["sessions"])),
            _e(d["on"]),
            _money(d["total"]),
            _e(d["due"]),
            _deposit_status(d),
        ]
        for d in cash["made"]
    ]
    flagged = [f"{n} {what}" for n, what in ((cash["late"], "late"), (cash["short"], "short")) if n]
    return (
        '<section aria-labelledby="h-cash"><h2 id="h-cash">Cash</h2>'
        + _table("Drawers", ["Drawer", "Expected", "Counted", "Over/short"], rows, "No drawer yet.")
        + "<h3>Deposits due</h3>"
        + f"<p>The day's receipts go to the bank by <strong>{_e(cash['deposit_by'])}</strong>.</p>"
        + (f'<ul class="deposits-due">{due}</ul>' if due else '<p class="muted">Nothing due.</p>')
        + "<h3>Deposits made</h3>"
        + (f'<p class="bad">{_e(", ".join(flagged))}</p>' if flagged else "")
        + _table(
            "Deposits made",
            ["Bag", "Sessions", "On", "Amount", "Due by", "Status"],
            made,
            "No deposit recorded.",
        )
        + (
            f'<p class="muted">and {cash["made_more"]} older deposits: booth deposit list</p>'
            if cash["made_more"]
            else ""
        )
        + "</section>"
    )


def _deposit_status(d: dict[str, Any]) -> str:
    """On time, or LATE / SHORT (an exception for the manager), and the bank's confirmation."""
    problems = [
        text
        for flag, text in (
            (d["late"], "LATE"),
            (d["short"], f"SHORT by {_money(d['short_by'])} of {_money(d['should_hold'])}"),
            (d["reconciled"] is False, f"bank credited {_money(d['credited'])}"),
        )
        if flag
    ]
    if problems:
        return f'<span class="bad">{"; ".join(problems)}</span>'
    return "on time" + (", credited" if d["reconciled"] else "")


def _reports(data: dict[str, Any]) -> str:
    return (
        '<section aria-labelledby="h-reports"><h2 id="h-reports">Reports</h2><ul>'
        '<li><a href="/report/day.pdf" download>Day report (PDF)</a></li>'
        '<li><a href="/report/form.pdf" download>Reconciliation form (PDF)</a></li>'
        "</ul></section>"
    )


RENDERERS = {
    "takings": _takings,
    "deals": _deals,
    "stations": _stations,
    "exceptions": _exceptions,
    "cash": _cash,
    "reports": _reports,
}


def fragment(data: dict[str, Any], role: str) -> str:
    """The dashboard's sections this role sees (what each live update replaces)."""
    return "".join(RENDERERS[name](data) for name in SECTIONS[role])


def dashboard_page(data: dict[str, Any], role: str, badge: str, version: str, *, nonce: str) -> str:
    r = data["report"]
    training = '<p class="training">TRAINING HALL</p>' if r["training"] else ""
    body = (
        f"<header>{training}<h1>{_e(r['organisation'])}</h1>"
        f'<p class="muted">{_e(role)} {_e(badge)} at {_e(data["station"])}</p>'
        '<p id="status" role="status" aria-live="polite" class="status">Connecting...</p>'
        "</header>"
        f'<main id="dash" data-version="{_e(version)}">{fragment(data, role)}</main>'
    )
    return page(f"{r['organisation']}: the hall now", body, nonce=nonce, script=True)


def pairing_page(
    role: str, token: str, ca_fingerprint: str, *, nonce: str, error: str | None = None
) -> str:
    problem = (
        f'<p class="bad" role="alert">{_e(error[:1].upper() + error[1:])}</p>' if error else ""
    )
    body = (
        "<main><h1>Sign in to the hall</h1>"
        f"<p>This phone is being paired for the <strong>{_e(role)}</strong> role.</p>{problem}"
        '<form method="post" action="/signin" autocomplete="off">'
        f'<input type="hidden" name="token" value="{_e(token)}">'
        '<label for="badge">Badge</label>'
        '<input id="badge" name="badge" required autocapitalize="characters" spellcheck="false">'
        '<label for="pin">PIN</label>'
        '<input id="pin" name="pin" type="password" inputmode="numeric" required '
        'pattern="[0-9]{4,12}" autocomplete="off">'
        '<button type="submit">Sign in</button></form>'
        '<section aria-labelledby="h-trust"><h2 id="h-trust">Trust this hall</h2>'
        "<p>The hall issues this site's certificate itself. Install the hall's certificate "
        "on this phone once, and check that its fingerprint (SHA-256) is the one the manager "
        "screen or <code>booth web pair</code> shows:</p>"
        f'<p class="fingerprint" id="fingerprint">{_e(ca_fingerprint)}</p>'
        f'<p><a href="/pair/{_e(token)}/hall-web-ca.pem" download>Download the hall\'s '
        "certificate</a></p>"
        '<p class="muted">Android: Settings, Security, Install a certificate, CA '
        "certificate. iPhone: open the download, then Settings, General, About, Certificate "
        "Trust Settings.</p></section></main>"
    )
    return page("Sign in: the hall", body, nonce=nonce)


def message_page(title: str, text: str, *, nonce: str) -> str:
    return page(title, f"<main><h1>{_e(title)}</h1><p>{_e(text)}</p></main>", nonce=nonce)
