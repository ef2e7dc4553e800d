"""Ticket dispensers. The simulator keeps its state in the station directory so a scripted day
can make a column jam or run empty: `booth dispenser set sim:capacity=40,jam-every=7`."""

from __future__ import annotations

import json
from pathlib import Path

from pos.services.ports import DispenserFault

STATE_FILE = "dispenser-sim.json"


class SimulatedDispenser:
    """Columns that hold `capacity` tickets each and jam on every `jam-every`-th ticket."""

    def __init__(self, options: str, station_dir: Path) -> None:
        settings = dict(item.split("=", 1) for item in options.split(",") if "=" in item)
        try:
            self.capacity = int(settings.get("capacity", "100000"))
            self.jam_every = int(settings.get("jam-every", "0"))
        except ValueError:
            raise DispenserFault(f"bad simulator settings: {options!r}") from None
        self.offline = settings.get("offline", "no") == "yes"
        self.path = station_dir / STATE_FILE

    def _load(self) -> dict[str, int]:
        if not self.path.exists():
            return {}
        data = json.loads(self.path.read_text())
        return {str(k): int(v) for k, v in data.items()}

    def dispense(self, column: str, count: int) -> int:
        if self.offline:
            raise DispenserFault("the dispenser does not answer (simulated offline)")
        state = self._load()
        done = state.get(column, 0)
        out = 0
        while out < count and done < self.capacity:
            done += 1
            if self.jam_every and done % self.jam_every == 0:
                break  # the ticket jammed in the throat: it did not come out
            out += 1
        state[column] = done
        self.path.write_text(json.dumps(state))
        return out
