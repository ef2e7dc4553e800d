"""Where a station lives when no --hall or BOOTH_HALL names it."""

from __future__ import annotations

from pathlib import Path


def default_hall_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("booth", appauthor=False)) / "station"
