"""A kind of device chosen by a setting `kind:options`: the kinds shipped here and those found
in an entry point group, each a factory `(options: str, station_dir: Path) -> device`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cached_property
from importlib.metadata import entry_points
from pathlib import Path
from typing import Generic, TypeVar

D = TypeVar("D")


class DeviceRegistry(Generic[D]):
    def __init__(
        self,
        *,
        noun: str,
        group: str,
        built_in: dict[str, str],
        examples: str,
        bad_spec: type[Exception],
    ) -> None:
        self.noun = noun  # "printer", "scanner": how messages name the setting
        self.group = group
        self.built_in = built_in
        self.examples = examples
        self.bad_spec = bad_spec

    @cached_property
    def factories(self) -> dict[str, str]:
        """kind -> "module:attribute"; the entry points are read once (it reads every
        installed distribution's metadata)."""
        found = dict(self.built_in)
        for entry in entry_points(group=self.group):
            found[entry.name] = entry.value
        return found

    def parse_spec(self, spec: str) -> tuple[str, str]:
        """`kind:options` (or a bare `kind`) -> (kind, options); the kind must be known."""
        kind, _, options = spec.strip().partition(":")
        kind = kind.lower()
        if not kind:
            what = "is empty" if not spec.strip() else f"names no kind of {self.noun}"
            raise self.bad_spec(f"{self.noun} setting {spec!r} {what}: use {self.examples}")
        if kind not in self.factories:
            known = ", ".join(sorted(self.factories))
            raise self.bad_spec(
                f"{self.noun} setting {spec!r}: unknown kind {kind!r} (known: {known}); "
                f"use {self.examples}"
            )
        return kind, options

    def open(self, spec: str, station_dir: Path | None) -> D:
        """The device a setting names, made by its kind's factory. A bad setting raises
        `bad_spec` naming the setting."""
        kind, options = self.parse_spec(spec)
        module_name, _, attribute = self.factories[kind].partition(":")
        factory: object = importlib.import_module(module_name)
        for part in attribute.split("."):
            factory = getattr(factory, part)
        make: Callable[[str, Path], D] = factory  # type: ignore[assignment]
        try:
            return make(options, Path(station_dir) if station_dir is not None else Path.cwd())
        except self.bad_spec as exc:
            if repr(spec) in str(exc) or spec in str(exc):
                raise
            raise self.bad_spec(f"{self.noun} setting {spec!r}: {exc}") from exc
