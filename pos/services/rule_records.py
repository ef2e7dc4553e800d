"""Where the record of each rule a release brought begins, at each station of this ledger
(pos.domain.rule_records), and whether an event is judged by such a rule."""

from __future__ import annotations

from dataclasses import replace

from pos.domain import event_time, rule_records
from pos.domain.rule_records import RecordStart, RuleRecord
from pos.ledger.projections import releases as releases_read
from pos.services.station import Station


def _releases(st: Station) -> list[rule_records.Release]:
    """Each station's releases, `when` as the hall's clock reads it ("2026-12-05 18:00")."""
    zone = st.hall.time_zone
    return [
        replace(
            r,
            when=event_time.event_instant(r.hlc, {"when": r.when}, zone).strftime("%Y-%m-%d %H:%M"),
        )
        for r in releases_read.releases(st.ledger.conn)
    ]


def starts(st: Station, record: RuleRecord) -> tuple[RecordStart, ...]:
    """Where `record` begins at each station that began under an older release."""
    return rule_records.starts(record, _releases(st))


def sentences(st: Station) -> list[str]:
    """What the day report and the exception list say: one line per rule whose record does not
    begin with the hall, none when every record does."""
    releases = _releases(st)
    said = (
        rule_records.sentence(rule_records.starts(r, releases)) for r in rule_records.RULE_RECORDS
    )
    return [line for line in said if line]
