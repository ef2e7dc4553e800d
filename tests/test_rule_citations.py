"""Every refusal names a rule of the rulebook, so every refusal can be cited and explained."""

from __future__ import annotations

import re
from pathlib import Path

from pos.domain.rulebook import RULES

ROOT = Path(__file__).resolve().parent.parent
RAISED = re.compile(r'RuleRefused\(\s*"([A-Za-z0-9]+)"')
DECIDED = re.compile(
    r'Decision\.(?:refuse|needs_override)\(\s*"([A-Za-z0-9]+)"|_fail\(\s*"([A-Za-z0-9]+)"'
)


def test_every_rule_the_code_cites_is_in_the_rulebook() -> None:
    cited: dict[str, set[str]] = {}
    for path in sorted((ROOT / "pos").rglob("*.py")):
        text = path.read_text()
        for match in [*RAISED.finditer(text), *DECIDED.finditer(text)]:
            rule = next(group for group in match.groups() if group)
            cited.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    assert cited, "the pattern found no refusals at all"
    unknown = {rule: files for rule, files in cited.items() if rule not in RULES}
    assert not unknown, f"rules cited but not in the rulebook: {unknown}"


def test_every_rule_has_a_citation_and_a_sentence() -> None:
    for rule in RULES.values():
        assert rule.citation.strip() and rule.sentence.strip().endswith("."), rule
