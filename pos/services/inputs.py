"""Turning the domain's value errors into the core's BadInput, with the field they name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pos.errors import BadInput


@contextmanager
def checked_input(default_field: str = "input") -> Iterator[None]:
    try:
        yield
    except ValueError as exc:
        field = getattr(exc, "field", default_field)
        message = str(exc)
        prefix = f"{field}: "
        raise BadInput(
            field, message[len(prefix) :] if message.startswith(prefix) else message
        ) from None
