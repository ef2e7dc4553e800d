"""One plugin loader (pos.plugins): entry points read once per process, errors that name the
group and the plugin, and no other module of Booth reading entry points itself."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from pos import plugins
from pos.cli.adapters import load_adapter
from pos.errors import BoothError, PluginError, PluginLoadFailed, PluginNotFound

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pos", "kiosk", "sync", "hardware")
LOADER = ROOT / "pos" / "plugins.py"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The groups pos.plugins reads from the installed metadata, from an empty cache."""
    reads: list[str] = []
    real = metadata.entry_points

    def entry_points(*, group: str) -> metadata.EntryPoints:
        reads.append(group)
        return real(group=group)

    plugins._installed.cache_clear()
    monkeypatch.setattr(metadata, "entry_points", entry_points)  # plugins imports it when read
    yield reads
    plugins._installed.cache_clear()


def test_each_group_is_read_once_per_process(counted: list[str]) -> None:
    for _ in range(3):
        assert "kivy" in plugins.names("booth.frontends")
        assert "sim" in plugins.found("booth.dispensers")
        assert "sync" in [name for name, _ in plugins.load_all("booth.commands")]
    assert sorted(counted) == ["booth.commands", "booth.dispensers", "booth.frontends"]


def test_a_missing_plugin_is_named() -> None:
    with pytest.raises(PluginNotFound) as caught:
        plugins.load("booth.dispensers", "carousel")
    error = caught.value
    assert isinstance(error, PluginError) and isinstance(error, BoothError)
    assert (error.group, error.name, error.exit_code) == ("booth.dispensers", "carousel", 2)
    assert "booth.dispensers 'carousel'" in str(error) and "installed: sim" in str(error)


def test_an_adapter_setting_naming_no_plugin_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(PluginNotFound, match=r"booth\.dispensers 'carousel'"):
        load_adapter("booth.dispensers", "carousel:columns=4", tmp_path)


def test_a_plugin_that_does_not_import_is_named() -> None:
    built_in = {"broken": "booth_no_such_module:factory", "typo": "pos.plugins:no_such_name"}
    for name in built_in:
        with pytest.raises(PluginLoadFailed) as caught:
            plugins.load("booth.test", name, built_in)
        assert caught.value.exit_code == 3
        assert f"booth.test {name!r}" in str(caught.value)
        assert built_in[name] in str(caught.value)


def test_installed_entry_points_win_over_built_in_references() -> None:
    built_in = {"sim": "pos.plugins:found", "spare": "pos.plugins:names"}
    found = plugins.found("booth.dispensers", built_in)
    assert found["sim"].value == "hardware.dispenser:SimulatedDispenser"
    assert plugins.load("booth.dispensers", "spare", built_in) is plugins.names


def _reads_entry_points(path: Path) -> list[str]:
    """Where a module imports importlib.metadata's entry point reader or importlib's
    import_module (the loader's two tools)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module in ("importlib.metadata", "importlib"):
            for alias in node.names:
                if alias.name in ("entry_points", "import_module", "distributions"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in ("entry_points", "import_module"):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    return found


def test_only_the_loader_reads_entry_points() -> None:
    offenders = [
        where
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != LOADER
        for where in _reads_entry_points(path)
    ]
    assert not offenders, "entry points read outside pos/plugins.py: " + ", ".join(offenders)
    assert _reads_entry_points(LOADER)
