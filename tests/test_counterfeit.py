"""Issue #17, C1/K1, C2/K6 and deal figures: nothing tampered or counterfeit gets into play or
is paid, every prize counts against a deal, and a punch is a recorded fact."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from pos.services.station import Station
from tests.halls import Hall, flare, refused


def test_a_deal_marked_tampered_never_goes_into_play_whichever_way_taken_in(
    hall: Hall, tmp_path: Path
) -> None:
    # by flare file with --tampered (the flag was dropped before)
    path = hall.tmp / "t1.json"
    path.write_text(json.dumps(flare("T1")))
    taken = hall("deal", "receive", "--flare", str(path), "--tampered", "--json")
    assert taken.exit_code == 0, taken.stderr
    assert taken.json["state"] == "tampered" and taken.json["tampered"] is True
    # by a flare that says so, and by the command's options
    assert hall.receive(flare("T2", tampered=True)).exit_code == 0
    by_options = hall(
        "deal", "receive", "--serial", "T3", "--game", "pull-tab", "--name", "Lucky 7s",
        "--form", "LS-4000", "--manufacturer", "Arrow", "--tickets", "100", "--price", "1.00",
        "--prize", "5.00x2", "--supplier-name", "Bingo Supply Co",
        "--supplier-address", "1 Main St", "--invoice", "INV-9", "--tampered", "--json",
    )  # fmt: skip
    assert by_options.exit_code == 0, by_options.stderr
    for serial in ("T1", "T2", "T3"):
        before = hall.count()
        refused(hall("deal", "open", serial, "--bin", "drawer-1"), "C1")
        assert hall.count() == before
        shown = hall("deal", "show", serial)
        assert "MARKED TAMPERED" in shown.stdout and "state tampered" in shown.stdout
    assert hall("session", "open").exit_code == 0
    refused(hall("sell", "T1", "--qty", "1"), "C1")
    out = tmp_path / "export"
    assert hall("export", "--inspector", str(out)).exit_code == 0
    with (out / "tables" / "deals.csv").open() as handle:
        rows = {row["serial"]: row for row in csv.DictReader(handle)}
    assert rows["T1"]["tampered"] == "1" and rows["T1"]["state"] == "tampered"
    with Station(hall.directory) as st:
        assert st.ledger.conn.execute("SELECT count(*) FROM p_bins").fetchone() == (0,)
