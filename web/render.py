"""The web app's pages, rendered on the server from Jinja2 templates (web/templates) with
autoescaping on: every value is escaped by the engine, so a field added to a template cannot be
left raw. Plain HTML, the hourly chart as inline SVG. The page's script (assets/app.js) only
swaps in the fragment each update brings.

In the templates, a newline and the indentation after it are not part of the page (`_Loader`):
they keep the templates readable while the pages stay as compact as they were built by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from pos.domain.money import parse_amount
from pos.domain.read_access import Section, sees

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


def _when(iso: str) -> str:
    """A wall-clock time as the phone reads it: 03 Dec 18:04:05 (UTC as stored)."""
    try:
        return datetime.fromisoformat(iso).strftime("%d %b %H:%M:%S")
    except ValueError:
        return iso


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
    env.filters["when"] = _when
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
    """The dashboard's sections this role sees (what each live update replaces)."""
    return _render("fragment.html", data=data, sections=SECTIONS[role])


def section(name: str, data: dict[str, Any]) -> str:
    """One section of the dashboard (e.g. "cash") from the data it reads."""
    return _render("fragment.html", data=data, sections=(name,))


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
        fragment=Markup(fragment(data, role)),
    )


def pairing_page(
    role: str, token: str, ca_fingerprint: str, *, nonce: str, error: str | None = None
) -> str:
    return _render(
        "pairing.html",
        **page_values("Sign in: the hall", nonce, False),
        role=role,
        token=token,
        ca_fingerprint=ca_fingerprint,
        error=error,
    )


def message_page(title: str, text: str, *, nonce: str) -> str:
    return _render("message.html", **page_values(title, nonce, False), text=text)
