"""One of the storm's clients: 100 mixed commands sent to a running station through the same
client code the `booth` script runs (pos.cli.client), each with its own request id. Writes a
JSON list of (request id, kind, exit code) acknowledgements to argv[3]."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from pos.cli import client

os.environ["BOOTH_NOW"] = "2026-11-28T23:30:00Z"


def main() -> None:
    hall, number, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    acks = []
    for i in range(100):
        rid = f"storm-{number}-{i}"
        kind = ("sell", "sell", "redeem", "read")[i % 4]
        if kind == "sell":
            args = ["sell", "A100001", "--qty", "1", "--as", "S200", "--json"]
        elif kind == "redeem":
            args = ["redeem", f"A100001/{1000 + number * 100 + i:04d}/500", "--as", "S200"]
        else:
            args = (["deal", "show", "A100001", "--json"] if i % 8 == 3 else ["report", "day"]) + [
                "--as",
                "S200",
            ]  # a seller reads its own station
        result = client.forward(hall, args, rid, explicit_id=True)
        acks.append({"rid": rid, "kind": kind, "exit": result.exit_code, "err": result.stderr})
    out.write_text(json.dumps(acks))


if __name__ == "__main__":
    main()
