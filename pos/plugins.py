"""The one plugin loader: what the other layers register as entry points, found by name so
that the core never imports them.

The groups: `booth.commands` (commands of other layers, e.g. sync), `booth.frontends` (the Kivy
front end), `booth.dispensers`, `booth.receipt_printers`, `booth.printers` and
`booth.scanners` (hardware adapters). Reading a group's entry points reads every installed
distribution's metadata (milliseconds each time), so each group is read once per process and
kept; nothing a plugin names is imported before it is loaded.

A group may come with built-in references (`{"name": "module:attribute"}`) for a source tree
whose entry points are not installed; installed entry points of the same name win.

Errors are named: PluginNotFound (no such plugin in the group) and PluginLoadFailed (it does
not import), both PluginError, each naming the group and the plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pos.errors import PluginLoadFailed, PluginNotFound

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

# importlib.metadata is imported where a plugin is looked up (7 ms with the email package it
# brings): a command that loads no plugin, a sale among them, does not pay it.


@cache
def _installed(group: str) -> dict[str, EntryPoint]:
    """name -> entry point of the installed distributions in `group`; read once a group."""
    from importlib.metadata import entry_points

    return {entry.name: entry for entry in entry_points(group=group)}


def found(group: str, built_in: Mapping[str, str] | None = None) -> dict[str, EntryPoint]:
    """name -> entry point in `group`: the built-in references, then the installed ones (in
    the order the distributions list them)."""
    from importlib.metadata import EntryPoint

    result = {
        name: EntryPoint(name=name, value=value, group=group)
        for name, value in (built_in or {}).items()
    }
    result.update(_installed(group))
    return result


def names(group: str, built_in: Mapping[str, str] | None = None) -> list[str]:
    """The plugin names in `group`, sorted."""
    return sorted(found(group, built_in))


def load(group: str, name: str, built_in: Mapping[str, str] | None = None) -> Any:
    """What plugin `name` of `group` names (a factory, a command list, a function)."""
    available = found(group, built_in)
    if name not in available:
        known = ", ".join(sorted(available)) or "none"
        raise PluginNotFound(group, name, f"no such plugin is installed (installed: {known})")
    return _load(available[name])


def load_all(group: str, built_in: Mapping[str, str] | None = None) -> list[tuple[str, Any]]:
    """(name, loaded object) for every plugin in `group`."""
    return [(name, _load(entry)) for name, entry in found(group, built_in).items()]


def _load(entry: EntryPoint) -> Any:
    try:
        return entry.load()
    except (ImportError, AttributeError) as exc:
        raise PluginLoadFailed(
            entry.group, entry.name, f"{entry.value} does not load: {type(exc).__name__}: {exc}"
        ) from exc
