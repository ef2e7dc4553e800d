"""Fixtures of the printer tests: the named dummy printers are forgotten after each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hardware.printer.fake import forget_dummy_printers


@pytest.fixture(autouse=True)
def _fresh_dummy_printers() -> Iterator[None]:
    yield
    forget_dummy_printers()
