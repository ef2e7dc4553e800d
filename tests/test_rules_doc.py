"""docs/rules.md is generated from the rulebook and the test suite, and kept current."""

from __future__ import annotations

from pos.domain.rulebook import RULES
from tests import rules_doc


def test_the_committed_rules_doc_is_current() -> None:
    committed = rules_doc.DOC.read_text()
    assert committed == rules_doc.render(), (
        "docs/rules.md is out of date: run `python -m tests.rules_doc` and commit it"
    )


def test_every_rule_is_enforced_somewhere_and_shown_by_a_test() -> None:
    enforced, shown = rules_doc.enforced_in(), rules_doc.shown_by()
    assert not [rule for rule in RULES if rule not in enforced]
    assert not [rule for rule in RULES if rule not in shown]


def test_the_seed_names_only_known_rules_and_says_why_otherwise() -> None:
    refs = [paragraph.ref for paragraph in rules_doc.SEED]
    assert len(refs) == len(set(refs))
    for paragraph in rules_doc.SEED:
        assert all(rule in RULES for rule in paragraph.rules), paragraph
        assert paragraph.rules or paragraph.note, paragraph
    letters = {paragraph.ref.split()[0] for paragraph in rules_doc.SEED}
    assert letters == set("ABCDEFGHIJK")
