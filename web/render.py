"""The web app's pages, rendered on the server from Jinja2 templates (web/templates) with
autoescaping on: every value is escaped by the engine, so a field added to a template cannot be
left raw. Plain HTML, the hourly chart as inline SVG. The page's script (assets/app.js) only
swaps in the fragment each update brings.

In the templates, a newline and the indentation after it are not part of the page (`_Loader`):
they keep the templates readable while the pages stay as compact as they were built by hand.

What the phone says is for a busy manager (`plain`): times on the hall's clock (its time zone,
never UTC), and none of the station's codes: no "[Errno 111]", no "rule D", no event number
("booth-1:42": the station's name instead). An exception's kind reads as the manager's screen
words it (pos.domain.exception_words).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import cache, lru_cache
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo

import jinja2
from markupsafe import Markup

from pos.domain.exception_words import kind_of, kind_words
from pos.domain.money import parse_amount
from pos.domain.read_access import Section, sees
from web.tls import CA_ROUTE

#: the dashboard's sections and the section of the hall's records (pos.domain.read_access, the
#: policy the CLI and the screens read by too) a role must see to see each
DASHBOARD_SECTIONS = {
    "takings": Section.MONEY,
    "deals": Section.MONEY,
    "stations": Section.STATIONS,
    "exceptions": Section.EXCEPTIONS,
    "cash": Section.EXPECTED_CASH,  # deposits due show what a session should hold
    "reports": Section.MONEY,
}
#: what each role sees of the dashboard (nobody sees player identities or W-2G data)
SECTIONS = {
    role: tuple(name for name, need in DASHBOARD_SECTIONS.items() if sees((role,), need))
    for role in ("manager", "treasurer", "inspector")
}
_LINE_BREAK = re.compile(r"\n[ \t]*")


def asset(name: str) -> str:
    return resources.files("web").joinpath("assets", name).read_text(encoding="utf-8")


class _Loader(jinja2.BaseLoader):
    """The package's templates (web/templates, package data), their line breaks taken out."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        path = resources.files("web").joinpath("templates", template)
        try:
            source = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise jinja2.TemplateNotFound(template) from None
        return _LINE_BREAK.sub("", source), str(path), lambda: True


@lru_cache(maxsize=8)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def hall_clock(at: datetime, zone: str) -> str:
    """An instant on the hall's clock, as the phone shows it: 4 Dec 19:05:12."""
    local = at.astimezone(_zone(zone))
    return f"{local.day} {local:%b %H:%M:%S}"


def when(iso: str, zone: str) -> str:
    """A stored time (ISO 8601 with its offset) on the hall's clock; a time without an offset
    is the station's UTC, as every stored time is."""
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return plain(iso, zone)
    if at.tzinfo is None:
        at = at.replace(tzinfo=_zone("UTC"))
    return hall_clock(at, zone)


#: an instant with its offset inside a text ("used at 2026-12-04T23:55:12+00:00")
_INSTANT = re.compile(
    r"(?<![\w.])\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})"
)
#: an operating system error's number ("[Errno 111] Connection refused", "Errno 2: ...")
_ERRNO = re.compile(r"\[?\s*\b(?:WinError|Errno)\s*-?\d+\s*\]?:?\s*")
#: a rule's code: in brackets alone, dropped ("... on shift (rule D)"); before its words,
#: dropped ("(rule D: a worker on shift may not buy)"); in a sentence, "the hall's rule"
_RULE_NOTE = re.compile(r"\s*\([Rr]ule [A-Z][A-Z0-9-]*(?![\w-])\)")
_RULE_LEAD = re.compile(r"\b[Rr]ule [A-Z][A-Z0-9-]*(?![\w-]):\s*")
_RULE = re.compile(r"\b([Rr])ule [A-Z][A-Z0-9-]*(?![\w-])")
#: an event's reference, ORIGIN:SEQ ("booth-1:42"): the station's name says enough
_EVENT_REF = re.compile(r"(?<![\w/.:@-])(event )?([A-Za-z](?:[\w.-]*[A-Za-z0-9])?):\d+(?![\w:])")


def plain(text: object, zone: str) -> str:
    """A station's words as the phone shows them: times on the hall's clock, no error numbers,
    no rule codes, no event references."""
    out = str(text)
    out = _INSTANT.sub(lambda m: hall_clock(datetime.fromisoformat(m.group(0)), zone), out)
    out = _ERRNO.sub("", out)
    out = _RULE_NOTE.sub("", out)
    out = _RULE_LEAD.sub("", out)
    out = _RULE.sub(lambda m: "The hall's rule" if m.group(1) == "R" else "the hall's rule", out)
    out = _EVENT_REF.sub(
        lambda m: f"{m.group(1) or ''}{'from ' if m.group(1) else ''}{m.group(2)}", out
    )
    return out


def kind_title(exception: dict[str, Any]) -> str:
    """An exception's kind, as the manager's exceptions screen words it (the same function)."""
    return kind_words(kind_of(exception["kind"], exception.get("ticket"))).title


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=_Loader(),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a field missing from the data is an error
        extensions=["jinja2.ext.do"],
        keep_trailing_newline=False,
        finalize=lambda value: "" if value is None else value,  # a missing value shows nothing
    )
    env.filters["thousands"] = lambda n: f"{n:,}"
    env.filters["when"] = when
    env.filters["plain"] = plain
    env.filters["kind_title"] = kind_title
    env.globals["chart"] = chart
    return env


def _render(template: str, **values: Any) -> str:
    return _environment().get_template(template).render(**values)


def page_values(title: str, nonce: str, script: bool) -> dict[str, Any]:
    """What page.html takes: the style and script are the package's own files, not values."""
    return {
        "title": title,
        "nonce": nonce,
        "script": script,
        "css": Markup(asset("app.css")),
        "js": Markup(asset("app.js")) if script else "",
    }


def chart(hourly: list[dict[str, Any]]) -> Markup:
    """Sales per hour (hall time) as bars, with a text alternative."""
    totals = [
        (
            int(row["hour"]),
            sum(parse_amount(v, "amount", allow_zero=True) for k, v in row.items() if k != "hour"),
        )
        for row in hourly
    ]
    if not totals:
        return _chart(bars=None)
    width, height, pad = 320, 140, 22
    top = max(cents for _, cents in totals) or 1
    first, last = min(h for h, _ in totals), max(h for h, _ in totals)
    hours = list(range(first, last + 1))
    by_hour = dict(totals)
    step = (width - 2 * pad) / len(hours)
    bars = []
    for i, hour in enumerate(hours):
        cents = by_hour.get(hour, 0)
        h = (height - 2 * pad) * cents / top
        x = pad + i * step + step * 0.15
        bars.append(
            {
                "x": f"{x:.1f}",
                "y": f"{height - pad - h:.1f}",
                "width": f"{step * 0.7:.1f}",
                "height": f"{h:.1f}",
                "hour": f"{hour:02d}",
                "amount": f"${cents // 100:,}.{cents % 100:02d}",
                "label_x": f"{x + step * 0.35:.1f}",
            }
        )
    summary = ", ".join(
        f"{h:02d}:00 ${c // 100:,}.{c % 100:02d}" for h, c in sorted(by_hour.items())
    )
    return _chart(bars=bars, width=width, height=height, pad=pad, summary=summary)


def _chart(**values: Any) -> Markup:
    return Markup(_render("chart.svg", **values))  # rendered with every value escaped


def fragment(data: dict[str, Any], role: str) -> str:
    """The dashboard's sections this role sees (what each live update replaces). `data` is
    web.server.phone_data's: the dashboard's, with the hall's time zone."""
    return _render("fragment.html", data=data, sections=SECTIONS[role], zone=data["time_zone"])


def section(name: str, data: dict[str, Any]) -> str:
    """One section of the dashboard (e.g. "cash") from the data it reads."""
    return _render("fragment.html", data=data, sections=(name,), zone=data["time_zone"])


def _renderer(name: str) -> Callable[[dict[str, Any]], str]:
    def render(data: dict[str, Any]) -> str:
        return section(name, data)

    return render


RENDERERS = {name: _renderer(name) for name in SECTIONS["manager"]}


def dashboard_page(data: dict[str, Any], role: str, badge: str, version: str, *, nonce: str) -> str:
    r = data["report"]
    return _render(
        "dashboard.html",
        **page_values(f"{r['organisation']}: the hall now", nonce, True),
        report=r,
        role=role,
        badge=badge,
        station=data["station"],
        version=version,
        zone=data["time_zone"],
        fragment=Markup(fragment(data, role)),
    )


def pairing_page(
    role: str,
    token: str,
    ca_fingerprint: str,
    *,
    nonce: str,
    zone: str,
    ca_name: str = "",
    error: str | None = None,
) -> str:
    """The sign-in form of a pairing link, and how to install the hall's certificate."""
    return _render(
        "pairing.html",
        **page_values("Sign in: the hall", nonce, False),
        role=role,
        token=token,
        ca_fingerprint=ca_fingerprint,
        ca_name=ca_name,
        ca_route=CA_ROUTE,
        error=error,
        zone=zone,
    )


def message_page(title: str, text: str, *, nonce: str, zone: str) -> str:
    """A page of one message (a refusal, a page not found), in plain words."""
    return _render("message.html", **page_values(title, nonce, False), text=text, zone=zone)
