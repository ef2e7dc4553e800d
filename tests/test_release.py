"""Releases (issue #27): the version is written once (pos/__init__.py), `make release` checks it
against CHANGELOG.md and the git tags and builds the sdist, wheel and .deb of the commit, each
carrying it; and apt takes a newer release's .deb over an older one installed.

The checks run on small git repositories (fast). The builds run `make release` itself in a
copy of this working tree made a git repository of its own, twice (0.2.0, then 0.2.1), and
install the older .deb into a throwaway root with the real dpkg (`--root`, its postinst running
install.sh --root there), then ask the real apt what it would do with each (slow).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from pos import __version__
from tests.conftest import TRAINING_NOW
from tests.test_packaging import base_system, borrowing_venv, copy_tree_files

ROOT = Path(__file__).resolve().parent.parent
RELEASE = ROOT / "packaging" / "release.py"
VENV = Path(sys.executable).parent.parent
GIT_USER = ["-c", "user.name=Release Test", "-c", "user.email=release@localhost"]


def run(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=180,
        **kwargs,  # type: ignore[call-overload]
    )


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, f"{result.args}\n{result.stdout}\n{result.stderr}"
    return result


def section(version: str, *, upgrading: bool = True) -> str:
    notes = "\n### Upgrading\n- Install the .deb on each station, one at a time.\n"
    return f"## {version} (2026-05-01)\n\n### Changed\n- Something.\n{notes if upgrading else ''}\n"


@dataclass
class Repo:
    path: Path

    def git(self, *args: str) -> str:
        return ok(run("git", "-C", self.path, *GIT_USER, *args)).stdout.strip()

    def set_version(self, version: str) -> None:
        init = self.path / "pos" / "__init__.py"
        init.write_text(
            re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"', init.read_text())
        )

    def add_section(self, text: str) -> None:
        changelog = self.path / "CHANGELOG.md"
        title, _, rest = changelog.read_text().partition("\n")
        changelog.write_text(f"{title}\n\n{text}{rest.lstrip()}")

    def commit(self, message: str) -> str:
        self.git("add", "--all")
        self.git("commit", "--quiet", "--message", message)
        return self.git("rev-parse", "HEAD")

    def check(self) -> subprocess.CompletedProcess[str]:
        return run(sys.executable, RELEASE, "--repo", self.path, "--check")


def init_repo(path: Path) -> Repo:
    ok(run("git", "init", "--quiet", path))
    return Repo(path)


def small_repo(tmp_path: Path, version: str = "0.2.0", changelog: str = "") -> Repo:
    """What the checks read: pos/__init__.py, pyproject.toml (this one's), CHANGELOG.md."""
    repo = init_repo(tmp_path / "repo")
    (repo.path / "pos").mkdir()
    (repo.path / "pos" / "__init__.py").write_text(f'"""Booth."""\n\n__version__ = "{version}"\n')
    (repo.path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (repo.path / "CHANGELOG.md").write_text(f"# Changelog\n\n{changelog}## Unreleased\n")
    repo.commit("first")
    return repo


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1, f"{result.stdout}\n{result.stderr}"
    assert result.stderr.startswith("release refused: "), result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


# --- the version, written once ------------------------------------------------------------


def test_the_version_is_a_release_version_written_once_in_pos_init() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"], "pyproject.toml must read pos.__version__"
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pos.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    assert __version__ != "0.1.0", "0.1.0 was the placeholder every build carried"
    assert ok(run("dpkg", "--compare-versions", __version__, "gt", "0.1.0"))


# --- the checks, before anything is built ----------------------------------------------------


def test_the_checks_pass_when_version_changelog_and_tags_agree(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0"))
    first = repo.git("rev-parse", "HEAD")
    result = ok(repo.check())
    assert f"release 0.2.0 of commit {first[:12]}: version, CHANGELOG and tags agree" in (
        result.stdout
    )
    # tagged at HEAD, and an older release tagged before it: still agree
    repo.git("tag", "-a", "v0.2.0", "-m", "Booth 0.2.0")
    ok(repo.check())
    repo.set_version("0.2.1")
    repo.add_section(section("0.2.1"))
    repo.commit("0.2.1")
    ok(repo.check())


def test_a_release_without_its_changelog_section_is_refused(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.1.9"))
    refused(repo.check(), "CHANGELOG.md has no section for 0.2.0", "## 0.2.0")


def test_a_changelog_section_without_upgrade_notes_is_refused(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0", upgrading=False))
    refused(repo.check(), "section 0.2.0 has no '### Upgrading' notes")


def test_a_version_already_released_from_another_commit_is_refused(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0"))
    first = repo.git("rev-parse", "HEAD")
    repo.git("tag", "-a", "v0.2.0", "-m", "Booth 0.2.0")
    (repo.path / "README.md").write_text("changed after the release\n")
    head = repo.commit("a change, the version left as it was")
    refused(repo.check(), f"v0.2.0 already names commit {first[:12]}, not HEAD ({head[:12]})")


def test_a_version_below_a_released_one_is_refused(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0"))
    repo.git("tag", "v0.3.0")  # a lightweight tag counts too
    (repo.path / "README.md").write_text("later\n")
    repo.commit("later")
    refused(repo.check(), "0.2.0 is older than the released v0.3.0")


def test_a_commit_tagged_with_another_version_is_refused(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0"))
    repo.git("tag", "v0.1.9")
    refused(repo.check(), "is tagged v0.1.9, but pos/__init__.py says 0.2.0")


def test_a_second_written_version_or_a_version_not_x_y_z_is_refused(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0"))
    pyproject = repo.path / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('dynamic = ["version"]', 'version = "0.2.0"')
    )
    repo.commit("a version written twice")
    refused(repo.check(), "pyproject.toml declares version '0.2.0'")

    other = small_repo(tmp_path / "other", version="0.2", changelog=section("0.2"))
    refused(other.check(), "version '0.2' is not X.Y.Z")


def test_uncommitted_changes_are_not_in_the_release(tmp_path: Path) -> None:
    repo = small_repo(tmp_path, changelog=section("0.2.0"))
    repo.set_version("0.2.1")  # not committed: the release is still the commit's 0.2.0
    result = ok(repo.check())
    assert "release 0.2.0 of commit" in result.stdout
    assert "uncommitted changes in the working tree are not in this release" in result.stdout


def test_not_a_git_checkout_is_bad_usage(tmp_path: Path) -> None:
    result = run(sys.executable, RELEASE, "--repo", tmp_path, "--check")
    assert result.returncode == 2
    assert f"{tmp_path} is not a git checkout" in result.stderr


# --- make release, run in a copy of this tree -------------------------------------------------


@dataclass
class Released:
    repo: Repo
    dist: Path
    outputs: dict[str, str]  # version -> what make release printed


def copy_of_this_tree(path: Path) -> Repo:
    """This working tree's files (tracked and new, not ignored) as a git repository of its own."""
    return init_repo(copy_tree_files(path))


def make_release(repo: Repo, dist: Path) -> str:
    """The documented command, with this virtualenv (its stamp taken as up to date)."""
    stamp = VENV / ".installed-stamp"
    result = ok(
        run("make", "-C", repo.path, "release", f"VENV={VENV}", f"DIST={dist}", "-o", stamp)
    )
    return result.stdout


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Released:
    tmp = tmp_path_factory.mktemp("release")
    repo = copy_of_this_tree(tmp / "booth")
    dist = tmp / "dist"
    repo.set_version("0.2.0")
    repo.add_section(section("0.2.0"))
    repo.commit("Booth 0.2.0")
    outputs = {"0.2.0": make_release(repo, dist)}
    repo.git("tag", "-a", "v0.2.0", "-m", "Booth 0.2.0")
    # the next release: only pos/__init__.py and CHANGELOG.md change
    repo.set_version("0.2.1")
    repo.add_section(section("0.2.1"))
    repo.commit("Booth 0.2.1")
    outputs["0.2.1"] = make_release(repo, dist)
    return Released(repo, dist, outputs)


@pytest.mark.slow
def test_make_release_builds_the_artefacts_each_carrying_the_version(
    released: Released, tmp_path: Path
) -> None:
    dist, printed = released.dist, released.outputs["0.2.1"]
    head = released.repo.git("rev-parse", "HEAD")
    assert f"release 0.2.1 of commit {head[:12]}: version, CHANGELOG and tags agree" in printed
    for name, carried in [
        ("booth-0.2.1.tar.gz", "0.2.1"),
        ("booth-0.2.1-py3-none-any.whl", "0.2.1"),
        ("booth_0.2.1-1_all.deb", "0.2.1-1"),
    ]:
        assert (dist / name).is_file(), name
        assert re.search(rf"^  {re.escape(name)} +version {re.escape(carried)} ", printed, re.M)
    assert f"tag the release: git tag -a v0.2.1 -m 'Booth 0.2.1' {head[:12]}" in printed
    # the first release was tagged: make release did not ask for it again, and its files stay
    assert "tag the release" not in released.outputs["0.2.0"].split("release 0.2.0")[0]
    assert (dist / "booth_0.2.0-1_all.deb").is_file()
    sums = (dist / "booth-0.2.1.SHA256SUMS").read_text().splitlines()
    assert len(sums) == 3
    ok(run("sha256sum", "--check", "--strict", dist / "booth-0.2.1.SHA256SUMS", cwd=dist))

    # What each artefact says of itself
    fields = ok(run("dpkg-deb", "--field", dist / "booth_0.2.1-1_all.deb", "Version")).stdout
    assert fields.strip() == "0.2.1-1"
    python = borrowing_venv(tmp_path / "venv")
    wheel = dist / "booth-0.2.1-py3-none-any.whl"
    ok(run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel))
    booth = tmp_path / "venv" / "bin" / "booth"
    assert ok(run(booth, "--version", cwd=tmp_path)).stdout.strip() == "booth, version 0.2.1"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("booth-0.2.1.dist-info/METADATA").decode()
    assert "\nVersion: 0.2.1\n" in metadata

    # and a backup made by that release says which release made it
    hall = tmp_path / "hall"
    environ = {"BOOTH_NOW": TRAINING_NOW, "PATH": "/usr/bin:/bin"}
    init = ("init", "--training", "--org", "Test Hall", "--location", "1 Test Road")
    ok(run(booth, "--hall", hall, *init, "--time-zone", "America/New_York", env=environ))
    (tmp_path / "stick").mkdir()
    ok(run(booth, "--hall", hall, "backup", tmp_path / "stick", env=environ))
    manifests = list((tmp_path / "stick").rglob("manifest.json"))
    assert len(manifests) == 1, manifests
    assert json.loads(manifests[0].read_text())["booth_version"] == "0.2.1"


def stand_in_for_dependencies(deb: Path, tmp: Path) -> Path:
    """A package providing every Debian package booth depends on (a throwaway root has none of
    them): built from the .deb's own Depends, `>=` read as `=` (a versioned Provides)."""
    depends = ok(run("dpkg-deb", "--field", deb, "Depends")).stdout.strip()
    provides = re.sub(r"\(>= *([^)]*)\)", r"(= \1)", depends)
    tree = tmp / "stand-in"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(
        "Package: booth-test-dependencies\nVersion: 1\nArchitecture: all\n"
        "Maintainer: Booth tests <booth@localhost>\n"
        f"Provides: {provides}\n"
        "Description: stand-in for booth's dependencies in a test root\n only for tests\n"
    )
    ok(run("dpkg-deb", "--root-owner-group", "--build", tree, tmp / "stand-in.deb"))
    return tmp / "stand-in.deb"


def apt_simulate(root: Path, deb: Path, tmp: Path) -> str:
    """What `apt-get install ./DEB` would do on the test root: its dpkg status, no other
    package lists."""
    for directory in ("lists/partial", "cache/archives/partial"):
        (tmp / directory).mkdir(parents=True, exist_ok=True)
    options = {
        "Dir::State::status": root / "var/lib/dpkg/status",
        "Dir::State::Lists": tmp / "lists",
        "Dir::Cache": tmp / "cache",
        "Dir::Etc::SourceList": "/dev/null",
        "Dir::Etc::SourceParts": "/dev/null",
        "Debug::NoLocking": "1",
    }
    flags = [f"-o{name}={value}" for name, value in options.items()]
    return ok(
        run("apt-get", *flags, "install", "--simulate", f"./{deb.name}", cwd=deb.parent)
    ).stdout


@pytest.mark.slow
def test_apt_takes_the_newer_release_over_the_older_installed(
    released: Released, tmp_path: Path
) -> None:
    older, newer = (released.dist / f"booth_{v}-1_all.deb" for v in ("0.2.0", "0.2.1"))
    ok(run("dpkg", "--compare-versions", "0.2.1-1", "gt", "0.2.0-1"))

    # The older release installed into a throwaway root by dpkg: its postinst runs install.sh
    # --root there (DPKG_ROOT), with this virtualenv's dependencies borrowed (no network).
    root = tmp_path / "root"
    base_system(root)
    (root / "var/lib/dpkg/updates").mkdir(parents=True)
    (root / "var/lib/dpkg/info").mkdir()
    (root / "var/lib/dpkg/status").touch()
    borrowing_venv(root / "opt/booth/venv")
    dpkg = ["dpkg", f"--root={root}", "--force-script-chrootless", "--install"]
    environ = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PIP_NO_DEPS": "1", "PIP_NO_INDEX": "1"}
    ok(run(*dpkg, stand_in_for_dependencies(older, tmp_path), env=environ))
    installed = ok(run(*dpkg, older, env=environ))
    assert "booth install: installed booth-0.2.0-py3-none-any.whl" in installed.stdout
    booth = root / "opt/booth/venv/bin/booth"
    assert ok(run(booth, "--version")).stdout.strip() == "booth, version 0.2.0"

    # apt: the same release is already the newest; the next one is an upgrade
    same = apt_simulate(root, older, tmp_path)
    assert "booth is already the newest version (0.2.0-1)" in same, same
    assert "0 upgraded, 0 newly installed" in same
    upgrade = apt_simulate(root, newer, tmp_path)
    assert "Inst booth [0.2.0-1] (0.2.1-1 local-deb [all])" in upgrade, upgrade
    assert "1 upgraded, 0 newly installed, 0 to remove" in upgrade

    # and done: dpkg upgrades the root, the installer puts the newer wheel in
    upgraded = ok(run(*dpkg, newer, env=environ))
    assert "Unpacking booth (0.2.1-1) over (0.2.0-1)" in upgraded.stdout
    assert "booth install: installed booth-0.2.1-py3-none-any.whl" in upgraded.stdout
    assert ok(run(booth, "--version")).stdout.strip() == "booth, version 0.2.1"
    status = ok(
        run("dpkg-query", f"--root={root}", "-W", "-f=${Version} ${db:Status-Abbrev}", "booth")
    )
    assert status.stdout.strip() == "0.2.1-1 ii"
