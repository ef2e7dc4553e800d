"""A kind of device chosen by a setting `kind:options`: the kinds shipped here and those found
in an entry point group (through pos.plugins, the one plugin loader), each a factory
`(options: str, station_dir: Path) -> device`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from pos import plugins

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

    @property
    def factories(self) -> dict[str, str]:
        """kind -> "module:attribute": the built-in kinds and the installed entry points
        (pos.plugins reads those once per process)."""
        return {
            kind: entry.value for kind, entry in plugins.found(self.group, self.built_in).items()
        }

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
        make: Callable[[str, Path], D] = plugins.load(self.group, kind, self.built_in)
        try:
            return make(options, Path(station_dir) if station_dir is not None else Path.cwd())
        except self.bad_spec as exc:
            if repr(spec) in str(exc) or spec in str(exc):
                raise
            raise self.bad_spec(f"{self.noun} setting {spec!r}: {exc}") from exc
