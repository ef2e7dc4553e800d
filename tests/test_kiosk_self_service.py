"""The kiosk without staff: an identified player signs a seal card line; a manager's badge records
the kiosk's close marker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pos.errors import BadInput, NotPermitted, RuleRefused
from pos.services import hall as hall_service
from pos.services import seals, sessions
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, seal_flare

ENVIRON = {"BOOTH_NOW": TRAINING_NOW}


@pytest.fixture
def kiosk(hall: Hall, tmp_path: Path) -> Path:
    """A kiosk holding seal card deal S1, a session open, an adult (C-1) and a minor (C-KID)."""
    assert hall.receive(seal_flare("S1", tickets=20)).exit_code == 0
    assert (
        hall("player", "register", "C-1", "--dob", "1970-01-01", "--initials", "JD").exit_code == 0
    )
    kid = hall("player", "register", "C-KID", "--dob", "2015-01-01", "--initials", "KD")
    assert kid.exit_code == 0
    assert hall("session", "open").exit_code == 0
    with Station(hall.directory, environ=ENVIRON) as st:
        bundle = hall_service.add_station(st, name="kiosk-1", role="kiosk", operator="M1")
    path = tmp_path / "k.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "kiosk-1", path, environ=ENVIRON)
    kiosk = Hall(tmp_path / "kiosk-1", hall.tmp)
    assert kiosk("deal", "open", "S1", "--bin", "col-1").exit_code == 0
    return kiosk.directory


def test_an_identified_adult_signs_a_seal_line_at_the_kiosk(kiosk: Path) -> None:
    with Station(kiosk, environ=ENVIRON) as st:
        sheet = seals.sign_line(st, "S1", ticket="013", line=7, player="C-1", operator=None)
        assert sheet["lines"][6] == {"line": 7, "ticket": "013", "player": "C-1", "winner": False}
        row = st.ledger.conn.execute(
            "SELECT player, by FROM p_seal_lines WHERE serial = 'S1' AND line = 7"
        ).fetchone()
        assert row == ("C-1", None)
        with pytest.raises(RuleRefused) as again:
            seals.sign_line(st, "S1", ticket="013", line=8, player="C-1", operator=None)
        assert again.value.rule == "C5"


def test_the_kiosk_refuses_an_unidentified_or_underage_signer(kiosk: Path) -> None:
    with Station(kiosk, environ=ENVIRON) as st:
        before = st.ledger.count()
        with pytest.raises(RuleRefused) as nobody:
            seals.sign_line(st, "S1", ticket="013", line=7, player=None, operator=None)
        assert nobody.value.rule == "ROLE"
        with pytest.raises(RuleRefused) as minor:
            seals.sign_line(st, "S1", ticket="013", line=7, player="C-KID", operator=None)
        assert minor.value.rule == "AGE"
        with pytest.raises(BadInput):
            seals.sign_line(st, "S1", ticket="013", line=7, player="NOBODY", operator=None)
        assert st.ledger.count() == before


def test_a_booth_still_needs_a_seller_to_sign(hall: Hall) -> None:
    assert hall.receive(seal_flare("S1", tickets=20)).exit_code == 0
    assert (
        hall("player", "register", "C-1", "--dob", "1970-01-01", "--initials", "JD").exit_code == 0
    )
    assert hall("deal", "open", "S1", "--bin", "drawer-7").exit_code == 0
    with Station(hall.directory, environ=ENVIRON) as st, pytest.raises(NotPermitted):
        seals.sign_line(st, "S1", ticket="013", line=7, player="C-1", operator=None)


def test_a_manager_badge_records_the_kiosk_close_marker(kiosk: Path) -> None:
    with Station(kiosk, environ=ENVIRON) as st:
        with pytest.raises(NotPermitted):
            sessions.close_session(st, operator=None)
        closed = sessions.close_session(st, operator="M1")
        assert closed["station"] == "kiosk-1" and closed["marker"] > 0
        event = st.ledger.get("kiosk-1", closed["marker"])
        assert event is not None and event.kind == "StationClosedSession"
        assert event.body["by"] == "M1"
