"""The `booth` group's commands, each imported when it is named (issue #31: `booth sell` imports
the sale's modules, not the bingo printer's, the raffle's or the phone's).

Each command is named with a function importing its module (static imports, which the layer
contracts check; the command is the module's attribute of the command's name, dashes as
underscores); `booth --help`, a typo and
`cli.commands` load every one, so the help and the listings are those of a group holding them
all. The commands of other layers (sync, web: pos.plugins' `booth.commands`) are read only when
a name is not a built-in one, or when every command is listed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from types import ModuleType
from typing import Any

import click


class LazyGroup(click.Group):
    """A click group whose built-in commands are imported on first use."""

    def __init__(
        self, *args: Any, lazy: Mapping[str, Callable[[], ModuleType]] | None = None, **kwargs: Any
    ) -> None:
        self._lazy: dict[str, Callable[[], ModuleType]] = dict(lazy or {})
        self._plugins_loaded = False
        self._loaded: MutableMapping[str, click.Command] = {}
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        """Every command, imported (the group as click and the tests read it)."""
        for name in list(self._lazy):
            self._import(name)
        self._load_plugins()
        return self._loaded

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._loaded = value

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._lazy.pop(name, None)
        self._loaded[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._loaded:
            return self._loaded[cmd_name]
        if cmd_name in self._lazy:
            return self._import(cmd_name)
        self._load_plugins()
        return self._loaded.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugins()
        return sorted({*self._lazy, *self._loaded})

    def _import(self, name: str) -> click.Command:
        if name in self._loaded:
            return self._loaded[name]
        module = self._lazy[name]()
        command = getattr(module, name.replace("-", "_"), None)
        if not isinstance(command, click.Command) or command.name != name:
            raise TypeError(f"{module.__name__} holds no command {name!r}")
        self._loaded[name] = command
        return command

    def _load_plugins(self) -> None:
        """Commands of other layers, found by entry point so that the core never imports them;
        each plugin module keeps its heavy imports inside its commands."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        from pos import plugins

        for _name, commands in plugins.load_all("booth.commands"):
            for command in commands:
                self.add_command(command)
