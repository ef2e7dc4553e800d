"""docs/rules.md, generated from the rulebook and the test suite: `python -m tests.rules_doc`.

- The seed: each paragraph of 11VAC15-40-60 (A to K), the Booth rule(s) that enforce it, or why
  Booth does not (SEED below: the only hand-kept part).
- Each Booth rule (pos.domain.rulebook.RULES): its citation, sentence, the Virginia limits it
  uses (settings, their defaults and where they come from), where Booth enforces it (each
  function that refuses citing it, found in pos/ by reading the source) and the tests that show
  it (found in tests/: `refused(result, "C4")`, `x.rule == "C4"`, a "(rule C4)" string, or
  `@pytest.mark.rule("C4")`).

tests/test_rules_doc.py checks that regenerating gives the committed file.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pos.domain.rulebook import RULES, SETTING_SOURCES, Settings

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"

NO_BINGO_GAMES = (
    "not enforced: Booth does not run bingo games, raffles or their game program yet (issue #18)"
)


@dataclass(frozen=True)
class Paragraph:
    ref: str  # as the regulation numbers it
    asks: str  # what it asks, in short
    rules: tuple[str, ...] = ()  # the Booth rules that enforce it
    note: str = ""  # how else Booth meets it, or why it does not


SEED = (
    Paragraph(
        "A",
        "house rules adopted, conspicuously posted or printed on the game program",
        ("A", "C3"),
        "posted text, versioned with the date posted: `booth house post`, `booth house sheet`; "
        "printed on the game program with its version: `booth program print`",
    ),
    Paragraph(
        "B",
        "players present to play or claim; seal card prizes known once the seal opens claimed "
        "within 30 days of the deal's close; every other prize on the game date",
        ("B",),
        "presence: not enforced, Booth has no remote play (no network bingo): every sale and "
        "payment is made at a station of the hall",
    ),
    Paragraph("C 1", "no marked, defaced, altered or tampered card in play", ("C1",)),
    Paragraph("C 2", "winning cards punched or defaced right after redemption", ("C2",)),
    Paragraph(
        "C 3",
        "commingle pull-tabs with at most one more deal, disclosed; never seal cards",
        ("C3",),
    ),
    Paragraph(
        "C 4",
        "an unfinished deal sold at the next session selling that ticket type; closed after "
        "diligent efforts; unsold cards kept 3 years after the fiscal year, unopened",
        ("C4",),
    ),
    Paragraph("C 5", "seal card deals hold the sign-up sheet, seals and cards together", ("C5",)),
    Paragraph(
        "C 6", "progressive seal prizes unclaimed in 30 days carry to the next game", ("C6",)
    ),
    Paragraph(
        "D",
        "no purchase by those who sold or redeemed, on the day or from the deal; no bingo play "
        "at a session worked",
        ("D",),
    ),
    Paragraph(
        "E 1 a",
        "players key in each number or the device daubs",
        note="not enforced: the device's own function; Booth rents and loads devices, it does "
        "not run the game",
    ),
    Paragraph(
        "E 1 b",
        "a winning pattern is called by a means other than the device",
        note="not enforced: a floor procedure; Booth takes no bingo calls",
    ),
    Paragraph("E 1 c", "at most 54 card faces per device per game", ("E1c",)),
    Paragraph("E 1 d", "no reservations: first come, first served", ("E1d",)),
    Paragraph(
        "E 1 e",
        "a receipt with organisation, date, time, location, sequential number, cards loaded "
        "and their cost",
        note="by construction, no refusal: every rental receipt carries these fields "
        "(pos/services/receipts.py)",
    ),
    Paragraph(
        "E 1 f",
        "inspectors examine everything",
        note="by construction, no refusal: the inspector role reads everything; `booth export "
        "--inspector` and `booth verify` (pos/services/export.py)",
    ),
    Paragraph("E 1 g", "devices loaded or enabled on the premises", ("E1g",)),
    Paragraph(
        "E 1 h",
        "rental proceeds go to the organisation",
        note="by construction, no refusal: rentals are the organisation's revenue in the reports",
    ),
    Paragraph(
        "E 1 i",
        "print the cards on a device when a call is disputed",
        note="by construction, no refusal: `booth device faces` prints the faces as stored",
    ),
    Paragraph(
        "E 2",
        "a defective device exchanged when a disinterested player verifies it; no numbers keyed",
        ("E2",),
    ),
    Paragraph(
        "F 1",
        "raffles: the stub of each ticket sold in the receptacle, each with an equal chance",
        ("F1", "RAFFLE"),
        "numbered two-part tickets printed by Booth (`booth raffle sell`); the stubs counted at "
        "the drawing equal the tickets sold (`booth raffle stubs`), each number drawn was sold "
        "and not voided (`booth raffle draw`); the receptacle's design is the hall's to mind",
    ),
    Paragraph("F 2", "raffle prizes valued at fair market value", ("F2",)),
    Paragraph(
        "G 1-5",
        "decision bingo: a price per face, a fee per three numbers, prize = fees up to the "
        "regular limit, excess kept, amounts on the program, prize announced before payment",
        ("G3", "G4", "G5"),
        "G 1 (played on conventional cards): the caller's; entries and fee rounds recorded at the "
        "booth (`booth bingo decision`), the retained excess on the day report and the form",
    ),
    Paragraph(
        "H 1-5",
        "treasure chest: listed as a raffle, house rules, participant chosen through another "
        "game of the session, funds as raffle sales, every key tried",
        ("H1", "H3", "H5"),
        "H 4: its own line on the day report and the form, as treasure chest/raffle sales",
    ),
    Paragraph(
        "I 1-7",
        "progressive bingo: paper apart from packs, announced and posted, priced on the "
        "program, one more number each session not won, then a regular game, prize per "
        "§ 18.2-340.33 (10)",
        ("I2", "I7", "LIMIT"),
        "I 1 (paper standards): the manufacturer's; the pool and calls carry across sessions as "
        "events and the posting prints from them (`booth bingo progressive posting`)",
    ),
    Paragraph(
        "J 1-5",
        "WINGO: for hearing-impaired players, a visual device, house rules, reported as bingo",
        ("J4",),
        "J 1-3 are the caller's; J 5: its prizes are on the bingo paper line (LIMIT applies)",
    ),
    Paragraph("K 1", "event games: no tampered card in play", ("C1",)),
    Paragraph("K 2", "event game tickets sold only at the flare's price", ("K2",)),
    Paragraph("K 3", "event game prizes within § 18.2-340.33 (9)", ("K3",)),
    Paragraph("K 4", "no sign-up sheet for event games decided by a seal card", ("K4",)),
    Paragraph("K 5", "event game winners decided in the same session", ("K5",)),
    Paragraph("K 6", "event game winners punched right after redemption", ("C2",)),
    Paragraph("K 7", "unsold event game cards kept 3 years after the fiscal year", ("C4",)),
)

_RULE_IN_TEXT = re.compile(r"\(rule ([A-Za-z0-9]+)\)")
_ENFORCERS = {"Refusal", "_fail", "RuleRefused", "refuse", "needs_override"}


def _python_files(directory: Path) -> Iterator[Path]:
    yield from sorted(p for p in directory.rglob("*.py") if "__pycache__" not in p.parts)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _constant(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class _Scope(ast.NodeVisitor):
    """Walks a module, calling `found(rule, function)` for each rule cited inside a function."""

    def __init__(self, tests: bool) -> None:
        self.tests = tests
        self.stack: list[str] = []
        self.found: set[tuple[str, str]] = set()
        self.module_rules: set[str] = set()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        for decorator in node.decorator_list:
            self._mark(decorator, node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _mark(self, node: ast.expr, function: str | None) -> None:
        # pytest.mark.rule("C4", ...)
        if isinstance(node, ast.Call) and _name(node.func) == "rule" and self.tests:
            for arg in node.args:
                rule = _constant(arg)
                if rule is not None:
                    if function is None:
                        self.module_rules.add(rule)
                    else:
                        self.found.add((rule, function))

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.tests and not self.stack and any(_name(t) == "pytestmark" for t in node.targets):
            marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            for mark in marks:
                self._mark(mark, None)
        self.generic_visit(node)

    def _here(self) -> str | None:
        if not self.stack:
            return None
        if self.tests:
            outer = self.stack[0]
            return outer if outer.startswith("test_") else None
        return ".".join(self.stack)

    def visit_Call(self, node: ast.Call) -> None:
        here = self._here()
        if here is not None:
            name = _name(node.func)
            if self.tests and name == "refused" and len(node.args) >= 2:
                rule = _constant(node.args[1])
                if rule is not None:
                    self.found.add((rule, here))
            elif node.args and name in ({"Refusal"} if self.tests else _ENFORCERS):
                rule = _constant(node.args[0])
                if rule is not None:
                    self.found.add((rule, here))
            if not self.tests:
                # A rule acted on without a refusal: close_deal_in_transaction(reason="K5").
                for keyword in node.keywords:
                    rule = _constant(keyword.value)
                    if keyword.arg in {"reason", "rule"} and rule in RULES:
                        self.found.add((rule, here))
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        here = self._here()
        if self.tests and here is not None and _name(node.left) == "rule":
            for comparator in node.comparators:
                rule = _constant(comparator)
                if rule is not None:
                    self.found.add((rule, here))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        here = self._here()
        if self.tests and here is not None and isinstance(node.value, str):
            for match in _RULE_IN_TEXT.finditer(node.value):
                self.found.add((match.group(1), here))


def _scan(directory: Path, *, tests: bool) -> dict[str, list[str]]:
    """Rule id -> sorted 'path::function' (tests) or 'path: function' (pos) citing it."""
    cited: dict[str, set[str]] = {}
    for path in _python_files(directory):
        if path.resolve() == Path(__file__).resolve():
            continue
        scope = _Scope(tests)
        scope.visit(ast.parse(path.read_text(), str(path)))
        relative = path.relative_to(ROOT).as_posix()
        for rule, function in scope.found:
            where = f"{relative}::{function}" if tests else f"{relative}: `{function}`"
            cited.setdefault(rule, set()).add(where)
        for rule in scope.module_rules:
            cited.setdefault(rule, set()).add(relative)
    return {rule: sorted(places) for rule, places in cited.items()}


def enforced_in() -> dict[str, list[str]]:
    return _scan(ROOT / "pos", tests=False)


def shown_by() -> dict[str, list[str]]:
    return _scan(ROOT / "tests", tests=True)


def render() -> str:
    enforced, tests = enforced_in(), shown_by()
    defaults = Settings().to_mapping()
    out = [
        "# The rules of play and where Booth enforces them",
        "",
        "Generated by `python -m tests.rules_doc` from the rulebook (`pos/domain/rulebook.py`) and",
        "the test suite; do not edit by hand (`tests/test_rules_doc.py` keeps it current). The",
        "regulation is 11VAC15-40-60 (`../shared/regulation`); limits the law may change are",
        "rulebook settings with the Virginia defaults shown (`booth rules set` changes them).",
        "",
        "## The seed, paragraph by paragraph",
        "",
        "| 11VAC15-40-60 | asks | Booth rule | otherwise |",
        "|---|---|---|---|",
    ]
    for paragraph in SEED:
        rules = ", ".join(f"[{rule}](#rule-{rule.lower()})" for rule in paragraph.rules)
        out.append(
            f"| {paragraph.ref} | {paragraph.asks} | {rules or '-'} | {paragraph.note or '-'} |"
        )
    out += ["", "## Booth's rules", ""]
    for rule in RULES.values():
        out += [
            f"### Rule {rule.id}",
            "",
            f"{rule.citation}. {rule.sentence}",
            "",
            "- Overridable: "
            + ("yes, by a manager, recorded with a reason" if rule.overridable else "never"),
        ]
        if rule.settings:
            out.append("- Limits (settings, Virginia default):")
            out += [
                f"  - `{name}` = {defaults[name]}: {SETTING_SOURCES[name]}"
                for name in rule.settings
            ]
        places = enforced.get(rule.id, [])
        out.append("- Enforced in:" if places else "- Enforced in: no refusal cites it in pos/")
        out += [f"  - {place}" for place in places]
        shown = tests.get(rule.id, [])
        out.append("- Shown by:" if shown else "- Shown by: no test names it yet")
        out += [f"  - `{test}`" for test in shown]
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else DOC
    target.write_text(render())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
