"""What one SELL tap at the booth touches, from the screen's view-model to the printed receipt
(issue #26). A count, not a timing: run by hand, on this tree or another (--tree):

    .venv/bin/python bench/sell_tap.py                    # this tree
    .venv/bin/python bench/sell_tap.py --tree /tmp/old    # a checkout of an earlier commit

It builds the demo hall (`booth demo`), then, in this process, taps SELL on booth-1 for one
ticket of deal A100002 (kiosk.viewmodels.booth.sell, as the Sell screen calls it on the station
worker) and prints the receipt it queued through python-escpos to a fake printer
(pos.services.receipts.print_pending, as the printer thread does). A profiler hook counts:

- files: the distinct source files of the project whose functions ran;
- calls: the function calls into the project's code;
- revisits of the deals projection (pos/ledger/projections/deals.py): the times control
  entered it from outside it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGES = ("pos", "kiosk", "hardware", "sync", "web")
DEALS = "pos/ledger/projections/deals.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--top", type=int, default=12, help="the most entered files to list")
    args = parser.parse_args()
    tree = args.tree.resolve()
    sys.path.insert(0, str(tree))
    with tempfile.TemporaryDirectory(prefix="booth-tap-") as work:
        hall = Path(work) / "demo"
        subprocess.run(
            [sys.executable, "-c", "from pos.cli.main import main; main()", "demo", "--dir",
             str(hall)],
            cwd=tree, check=True, capture_output=True, env={"PYTHONPATH": str(tree)},
        )  # fmt: skip
        report(trace_one_tap(hall / "booth-1", tree), tree, args.top)


def trace_one_tap(station_dir: Path, tree: Path) -> dict[str, Any]:
    from hardware.printer.adapter import EscPosReceiptPrinter
    from hardware.printer.fake import FakePrinter
    from kiosk.viewmodels import booth
    from pos.services import receipts
    from pos.services.station import Station

    roots = tuple(str(tree / name) + "/" for name in PACKAGES)
    entered: Counter[str] = Counter()
    revisits = 0

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal revisits
        if event != "call":
            return
        name = frame.f_code.co_filename
        if not name.startswith(roots):
            return
        here = name[len(str(tree)) + 1 :]
        entered[here] += 1
        caller = frame.f_back
        came_from = caller.f_code.co_filename[len(str(tree)) + 1 :] if caller else ""
        if here == DEALS and came_from != DEALS:
            revisits += 1

    with Station(station_dir) as st:
        printer = EscPosReceiptPrinter(FakePrinter("tap"))
        receipts.print_pending(st, printer)  # the demo's own receipts: out before the tap
        draft = booth.SaleDraft().choose("A100002")
        sys.setprofile(hook)
        try:
            outcome = booth.sell(st, draft, "S200")
            printed = receipts.print_pending(st, printer)
        finally:
            sys.setprofile(None)
    assert outcome.ok, outcome
    assert len(printed["printed"]) == 1, printed
    return {"entered": entered, "revisits": revisits, "outcome": outcome.headline}


def report(found: dict[str, Any], tree: Path, top: int) -> None:
    entered: Counter[str] = found["entered"]
    print(f"One SELL tap at booth-1 ({found['outcome']}), receipt printed, tree {tree}:")
    print(f"  files of the project that ran:   {len(entered)}")
    print(f"  calls into the project's code:   {sum(entered.values())}")
    print(f"  entries into the deals projection from outside it: {found['revisits']}")
    print("  the most entered files:")
    for name, count in entered.most_common(top):
        print(f"    {count:6d}  {name}")


if __name__ == "__main__":
    main()
