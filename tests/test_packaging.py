"""What a hall installs: the wheel and sdist, the Debian package, install.sh in a throwaway root
(twice, with the same result), the systemd unit as systemd-analyze sees it, Kivy's settings,
log rotation, and uninstall.sh keeping the ledger.

Installing Booth's dependencies (Kivy, PyNaCl...) from the registry in a test would take
minutes, so the fresh virtualenvs here borrow them: a `.pth` file adds the development
virtualenv's site-packages *after* the new one's. Booth itself, its `booth` script and its
entry points come from the wheel installed into the new virtualenv (asserted below), and the
development virtualenv's editable install of Booth is not active there (a path in a .pth is
added to sys.path, its own .pth files are not run).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pos import __version__
from pos.services import hall as hall_service
from pos.services import staff as staff_service
from pos.services.station import Station
from tests.conftest import TRAINING_NOW

# Builds the wheel and the Debian package and installs them (slow). On one xdist worker, so
# the module-scoped artefacts are built once, not once per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
WHEEL_NAME = f"booth-{__version__}-py3-none-any.whl"
ENVIRON = {"BOOTH_NOW": TRAINING_NOW}
SCRIPTS = ["install.sh", "uninstall.sh", "kiosk/booth-kiosk-session", "deb/build-deb.sh"]


def run(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,  # type: ignore[call-overload]
    )


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, f"{result.args}\n{result.stdout}\n{result.stderr}"
    return result


# --- the artifacts -------------------------------------------------------------------------


def copy_tree_files(path: Path) -> Path:
    """This working tree's files (tracked and new, not ignored) copied under `path`.

    A build writes into its source tree (booth.egg-info, the sdist's staging directory), so a
    test never builds in the checkout: two builds there at once (two test workers, or a test
    beside a developer's `make dist`) remove each other's staging files.
    """
    listed = ok(
        run("git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    )
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode & 0o777)
    return path


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build` as `make dist` runs it (the sdist, then the wheel built from it), in a
    copy of this tree."""
    out = tmp_path_factory.mktemp("dist")
    source = copy_tree_files(tmp_path_factory.mktemp("source") / "booth")
    ok(run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source, cwd=source))
    return out


def test_build_makes_a_wheel_and_an_sdist(dist: Path) -> None:
    assert sorted(p.name for p in dist.iterdir()) == [WHEEL_NAME, f"booth-{__version__}.tar.gz"]
    import tarfile
    import zipfile

    with zipfile.ZipFile(dist / WHEEL_NAME) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"booth-{__version__}.dist-info/entry_points.txt").decode()
    assert {"pos/cli/main.py", "pos/services/backup.py", "pos/cli/backup.py"} <= names
    assert not any(name.startswith("tests/") for name in names)
    assert "booth = pos.cli.entry:main" in entry_points
    # the kiosk's Spanish catalog ships compiled (issue #20), and the acceptor drivers register
    assert "kiosk/locale/es/LC_MESSAGES/booth.mo" in names
    assert "ssp = hardware.acceptor.ssp_driver:from_spec" in entry_points
    # the manager's phone: its package, the assets it serves from the wheel, its entry points
    assert {"web/server.py", "web/assets/app.js", "web/assets/app.css"} <= names
    assert "https = web.server:start_web" in entry_points
    with tarfile.open(dist / f"booth-{__version__}.tar.gz") as sdist:
        members = {m.name.split("/", 1)[-1] for m in sdist.getmembers()}
    assert {"pyproject.toml", "README.md", "pos/cli/main.py"} <= members


def borrowing_venv(path: Path) -> Path:
    """A fresh virtualenv (no pip of its own) that borrows the dependencies; returns python."""
    ok(run(sys.executable, "-m", "venv", "--without-pip", path))
    python = path / "bin" / "python"
    purelib = ok(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"))
    borrowed = Path(purelib.stdout.strip()) / "borrowed-dependencies.pth"
    borrowed.write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_the_wheel_installs_into_a_fresh_virtualenv_and_runs(dist: Path, tmp_path: Path) -> None:
    python = borrowing_venv(tmp_path / "venv")
    ok(run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", dist / WHEEL_NAME))
    booth = tmp_path / "venv" / "bin" / "booth"
    where = ok(run(python, "-c", "import pos; print(pos.__file__)", cwd=tmp_path))
    assert where.stdout.startswith(str(tmp_path / "venv")), where.stdout

    helped = ok(run(booth, "--help", cwd=tmp_path))
    assert "Usage: booth" in helped.stdout and "verify" in helped.stdout
    ok(run(booth, "demo", "--dir", tmp_path / "demo-hall", cwd=tmp_path))
    assert (tmp_path / "demo-hall" / "manager" / "station.json").is_file()
    verified = ok(run(booth, "--hall", tmp_path / "demo-hall" / "manager", "verify", "--json"))
    assert json.loads(verified.stdout)["ok"] is True


@pytest.fixture(scope="module")
def deb(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("deb")
    build = PACKAGING / "deb" / "build-deb.sh"
    return Path(ok(run("bash", build, "--wheel", dist / WHEEL_NAME, "--out", out)).stdout.strip())


@pytest.fixture(scope="module")
def deb_tree(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's files, as dpkg would lay them out."""
    tree = tmp_path_factory.mktemp("deb-tree")
    ok(run("dpkg-deb", "--extract", deb, tree))
    return tree


def test_the_debian_package(dist: Path, deb: Path, deb_tree: Path, tmp_path: Path) -> None:
    build = PACKAGING / "deb" / "build-deb.sh"
    assert deb.name == f"booth_{__version__}-1_all.deb"
    info = ok(run("dpkg-deb", "--field", deb, "Package", "Version", "Architecture", "Depends"))
    fields = dict(line.split(": ", 1) for line in info.stdout.strip().splitlines())
    assert (fields["Package"], fields["Version"], fields["Architecture"]) == (
        "booth",
        f"{__version__}-1",
        "all",
    )
    assert "python3-venv" in fields["Depends"] and "libusb-1.0-0" in fields["Depends"]

    tree = deb_tree
    share = tree / "usr/share/booth"
    for name in ["install.sh", "uninstall.sh", "systemd/booth@.service", "kiosk/kivy-config.ini"]:
        assert (share / name).read_bytes() == (PACKAGING / name).read_bytes(), name
    assert (share / WHEEL_NAME).read_bytes() == (dist / WHEEL_NAME).read_bytes()
    assert (share / "docs" / "hall-setup.md").is_file()
    assert os.readlink(tree / "usr/sbin/booth-install") == "../share/booth/install.sh"
    for script in ("install.sh", "uninstall.sh", "kiosk/booth-kiosk-session"):
        assert os.access(share / script, os.X_OK), script  # postinst and prerm run them
    control = tmp_path / "control"
    ok(run("dpkg-deb", "--control", deb, control))
    for script in ("postinst", "prerm"):
        ok(run("shellcheck", control / script))
    postinst = (control / "postinst").read_text()
    assert f'--wheel "${{DPKG_ROOT:-}}/usr/share/booth/{WHEEL_NAME}"' in postinst

    # Reproducible: the same inputs give the same bytes.
    again = run("bash", build, "--wheel", dist / WHEEL_NAME, "--out", tmp_path).stdout.strip()
    assert Path(again).read_bytes() == deb.read_bytes()


def test_the_shell_scripts_pass_shellcheck() -> None:
    ok(run("shellcheck", *(PACKAGING / name for name in SCRIPTS)))


# --- install.sh in a throwaway root --------------------------------------------------------


@dataclass
class Installed:
    root: Path
    first: subprocess.CompletedProcess[str]
    second: subprocess.CompletedProcess[str]
    before: dict[str, tuple[object, ...]]
    after: dict[str, tuple[object, ...]]


def base_system(root: Path) -> None:
    """What install.sh expects of a Debian system, minimal: the account files, and systemd's
    own units (systemd-analyze verify --root resolves multi-user.target & co. in the root)."""
    etc = root / "etc"
    etc.mkdir(parents=True)
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (etc / "group").write_text("root:x:0:\n")
    (etc / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (etc / "gshadow").write_text("root:*::\n")
    for name in ("shadow", "gshadow"):
        (etc / name).chmod(0o640)
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)


def join_bundle(tmp: Path, role: str = "kiosk") -> Path:
    manager = tmp / "manager"
    hall_service.init_hall(
        manager,
        organisation="Test Fire Company",
        location="1 Test Road",
        time_zone="America/New_York",
        training=True,
        environ=ENVIRON,
    )
    with Station(manager, environ=ENVIRON) as st:
        staff_service.add_staff(
            st,
            badge="M1",
            name="Mary Manager",
            roles=["manager"],
            date_of_birth="1970-01-01",
            operator=None,
        )
        bundle = hall_service.add_station(st, name=f"{role}-1", role=role, operator="M1")
    path = tmp / f"{role}-1.join.json"
    path.write_text(json.dumps(bundle))
    return path


def install(
    root: Path, *options: str | Path, dist: Path | None = None, script: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """install.sh from the source tree with the wheel of `dist`, or the `script` a package
    shipped (which finds the wheel beside itself)."""
    wheel = ["--wheel", dist / WHEEL_NAME] if dist is not None else []
    return run(
        "bash",
        script or PACKAGING / "install.sh",
        "--root",
        root,
        "--non-interactive",
        *wheel,
        "--pip-option=--no-deps",  # the dependencies are borrowed (module docstring)
        *options,
    )


def snapshot(root: Path) -> dict[str, tuple[object, ...]]:
    """Every file and directory under root: type, mode, owner, content hash or link, mtime."""
    found: dict[str, tuple[object, ...]] = {}
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        info = path.lstat()
        if path.is_symlink():
            what: object = ("link", os.readlink(path))
        elif path.is_file():
            what = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            what = ("dir",)
        found[str(path.relative_to(root))] = (
            what,
            oct(info.st_mode),
            info.st_uid,
            info.st_gid,
            info.st_mtime_ns,
        )
    return found


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    tmp = tmp_path_factory.mktemp("install")
    root = tmp / "root"
    base_system(root)
    # The virtualenv install.sh finds and keeps (see the module docstring).
    borrowing_venv(root / "opt/booth/venv")
    bundle = join_bundle(tmp)
    first = ok(install(root, "--role", "kiosk", "--bundle", bundle, dist=dist))
    before = snapshot(root)
    second = ok(install(root, "--role", "kiosk", "--bundle", bundle, dist=dist))
    return Installed(root, first, second, before, snapshot(root))


def test_install_twice_changes_nothing(installed: Installed) -> None:
    assert "joined the station (kiosk)" in installed.first.stdout
    assert installed.second.stdout.strip().endswith("booth install: 0 changed")
    assert installed.after == installed.before
    # ... and the installer's own list of what it wrote checks out.
    listed = (installed.root / "opt/booth/share/installed-files.sha256").read_text().splitlines()
    paths = {line.split()[1] for line in listed}
    assert {
        "/etc/systemd/system/booth@.service",
        "/etc/systemd/system/booth@.service.d/kms-display.conf",
        "/usr/local/bin/booth",
        "/var/lib/booth/kivy/config.ini",
    } <= paths
    for line in listed:
        first, path = line.split()[:2]
        if first != "link":
            data = (installed.root / path.lstrip("/")).read_bytes()
            assert hashlib.sha256(data).hexdigest() == first, path


def test_install_lays_out_the_machine(installed: Installed) -> None:
    root = installed.root
    passwd = {
        line.split(":")[0]: line.split(":")
        for line in (root / "etc/passwd").read_text().splitlines()
    }
    booth = passwd["booth"]
    assert booth[5:7] == ["/var/lib/booth", "/usr/sbin/nologin"]
    uid, gid = int(booth[2]), int(booth[3])
    assert "booth" in (root / "etc/group").read_text().split("input:")[1].splitlines()[0]

    station = root / "var/lib/booth/station"
    assert json.loads((station / "station.json").read_text())["role"] == "kiosk"
    for path in [station, *station.rglob("*")]:
        assert (path.stat().st_uid, path.stat().st_gid) == (uid, gid), path
    assert oct((station / "station.key").stat().st_mode)[-3:] == "600"
    wants = root / "etc/systemd/system/multi-user.target.wants/booth@kiosk.service"
    assert os.readlink(wants) == "/etc/systemd/system/booth@.service"
    unit = (root / "etc/systemd/system/booth@.service").read_text()
    assert "ExecStart=/opt/booth/venv/bin/booth run --fullscreen" in unit
    assert "@PREFIX@" not in unit
    dropins = sorted(p.name for p in (root / "etc/systemd/system/booth@.service.d").iterdir())
    assert dropins == ["kms-display.conf", "usb-printer.conf"]
    assert os.readlink(root / "usr/local/bin/booth") == "/opt/booth/venv/bin/booth"
    assert (root / "var/lib/booth/kivy/config.ini").read_bytes() == (
        PACKAGING / "kiosk/kivy-config.ini"
    ).read_bytes()
    for name in ("60-booth-hardware.rules", "61-booth-systemd.rules"):
        assert (root / "etc/udev/rules.d" / name).is_file()
    assert (root / "etc/logrotate.d/booth").is_file()
    # The joined station is whole: its ledger verifies with the installed booth.
    verified = ok(
        run(root / "opt/booth/venv/bin/booth", "--hall", station, "verify", "--json", env=ENVIRON)
    )
    assert json.loads(verified.stdout)["ok"] is True


def analyze(root: Path, unit: str) -> None:
    """systemd-analyze verify, in the root: unknown keys and bad values print warnings, a
    missing ExecStart program or dependency fails; both fail this test."""
    result = run(
        "systemd-analyze",
        "verify",
        f"--root={root}",
        "--man=no",
        root / "etc/systemd/system" / unit,
    )
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_systemd_analyze_verifies_the_unit_with_its_drop_ins(installed: Installed) -> None:
    analyze(installed.root, "booth@kiosk.service")


def test_the_package_installs_each_display_mode_and_uninstalls_keeping_the_ledger(
    deb_tree: Path, tmp_path: Path
) -> None:
    """The package's own booth-install and uninstall.sh (as its postinst and prerm run them)."""
    booth_install = deb_tree / "usr/sbin/booth-install"
    root = tmp_path / "root"
    base_system(root)
    borrowing_venv(root / "opt/booth/venv")
    bundle = join_bundle(tmp_path, role="booth")
    dropins = root / "etc/systemd/system/booth@.service.d"

    options = ("--display", "none", "--printer", "network", "--bundle", bundle)
    ok(install(root, *options, script=booth_install))
    assert sorted(p.name for p in dropins.iterdir()) == ["headless.conf"]
    analyze(root, "booth@booth.service")

    # A desktop machine: the kiosk session instead of the unit; the choice is remembered.
    ok(install(root, "--display", "x11", script=booth_install))
    assert not (root / "etc/systemd/system/multi-user.target.wants/booth@booth.service").exists()
    session = (root / "opt/booth/bin/booth-kiosk-session").read_text()
    assert "/opt/booth/venv/bin/booth run --fullscreen" in session and "xset -dpms" in session
    assert (
        "autologin-session=booth-kiosk"
        in (root / "etc/lightdm/lightdm.conf.d/50-booth-kiosk.conf").read_text()
    )
    assert (
        "Exec=/opt/booth/bin/booth-kiosk-session"
        in (root / "usr/share/xsessions/booth-kiosk.desktop").read_text()
    )
    assert install(root, script=booth_install).stdout.strip().endswith("0 changed")

    (root / "etc/default/booth").write_text("BOOTH_TOUCH=\n")  # the hall's own setting
    ledger = (root / "var/lib/booth/station/ledger.db").read_bytes()
    removed = ok(run("bash", deb_tree / "usr/share/booth/uninstall.sh", "--root", root))
    assert "kept /etc/default/booth" in removed.stdout
    assert not (root / "opt/booth").exists()
    assert not (root / "etc/systemd/system/booth@.service").exists()
    assert not (root / "usr/local/bin/booth").is_symlink()
    assert not (root / "usr/share/xsessions/booth-kiosk.desktop").exists()
    assert (root / "var/lib/booth/station/ledger.db").read_bytes() == ledger
    assert (root / "var/lib/booth/station/station.key").is_file()


# --- Kivy's settings and the log ------------------------------------------------------------


def test_kivy_reads_the_kiosk_settings_with_only_the_pinned_input_providers(
    tmp_path: Path,
) -> None:
    home = tmp_path / "kivy"
    home.mkdir()
    shutil.copy(PACKAGING / "kiosk/kivy-config.ini", home / "config.ini")
    before = (home / "config.ini").read_bytes()
    probe = (
        "import json\n"
        "from kivy.config import Config, KIVY_CONFIG_VERSION\n"
        "print(json.dumps({'input': dict(Config.items('input')),\n"
        "  'version': [Config.getint('kivy', 'config_version'), KIVY_CONFIG_VERSION],\n"
        "  'graphics': dict(Config.items('graphics')), 'kivy': dict(Config.items('kivy'))}))\n"
    )
    env = {
        **os.environ,
        "KIVY_HOME": str(home),
        "KIVY_NO_ARGS": "1",
        "KIVY_NO_CONSOLELOG": "1",
        "KIVY_NO_FILELOG": "1",
    }
    seen = json.loads(ok(run(sys.executable, "-c", probe, env=env)).stdout.strip().splitlines()[-1])
    assert seen["input"] == {
        "mouse": "mouse,disable_on_activity,disable_multitouch",
        "touchscreen": "hidinput,/dev/input/booth-touch",
    }
    # Kivy's own version: an older number would make Kivy re-add its probesysfs input line.
    assert seen["version"][0] == seen["version"][1]
    assert (home / "config.ini").read_bytes() == before  # nothing "upgraded"
    graphics, kivy = seen["graphics"], seen["kivy"]
    assert (graphics["fullscreen"], graphics["show_cursor"], graphics["allow_screensaver"]) == (
        "auto",
        "0",
        "0",
    )
    assert kivy["exit_on_escape"] == "0"


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    logs = tmp_path / "log"
    logs.mkdir()
    yield logs


def test_logrotate_rotates_the_station_log_in_place(log_dir: Path, tmp_path: Path) -> None:
    config = (PACKAGING / "logrotate/booth").read_text()
    assert "/var/log/booth/*.log" in config and "su booth booth" in config
    local = config.replace("/var/log/booth", str(log_dir)).replace("su booth booth", "su root root")
    conf = tmp_path / "booth.logrotate"
    conf.write_text(local)
    log = log_dir / "booth.log"
    log.write_text("sale 1\nsale 2\n")
    inode = log.stat().st_ino
    ok(run("logrotate", "--force", "--state", tmp_path / "state", conf))
    # copytruncate: the file the service holds open is emptied in place, its lines kept aside.
    assert log.stat().st_ino == inode and log.read_text() == ""
    rotated = [p for p in log_dir.iterdir() if p != log]
    assert len(rotated) == 1 and rotated[0].read_text() == "sale 1\nsale 2\n"


# --- one hall clock ------------------------------------------------------------------------


def test_install_points_the_clock_at_the_manager(dist: Path, tmp_path: Path) -> None:
    """A station takes its time from the manager (systemd-timesyncd, or chrony when it is
    installed); the manager serves it with chrony; the address is kept for upgrades."""
    root = tmp_path / "root"
    base_system(root)
    borrowing_venv(root / "opt/booth/venv")
    bundle = join_bundle(tmp_path, role="kiosk")
    first = ok(install(root, "--role", "kiosk", "--bundle", bundle, dist=dist))
    assert "not set from the manager yet: run me again with --manager ADDRESS" in first.stdout
    assert not (root / "etc/systemd/timesyncd.conf.d").exists()

    ok(install(root, "--manager", "192.168.1.10", dist=dist))
    dropin = root / "etc/systemd/timesyncd.conf.d/booth.conf"
    assert "[Time]\nNTP=192.168.1.10\nFallbackNTP=\n" in dropin.read_text()
    assert install(root, dist=dist).stdout.strip().endswith("0 changed")  # kept: an upgrade
    refused = install(root, "--manager", "10.0.0.1; rm -rf /", dist=dist)
    assert refused.returncode == 2 and "--manager must be an address" in refused.stderr

    (root / "etc/chrony").mkdir()  # chrony installed: it takes over, timesyncd's file goes
    ok(install(root, dist=dist))
    assert (
        (root / "etc/chrony/conf.d/booth.conf").read_text().endswith("server 192.168.1.10 iburst\n")
    )
    assert not dropin.exists()

    manager = tmp_path / "manager-root"
    base_system(manager)
    borrowing_venv(manager / "opt/booth/venv")
    (manager / "etc/chrony").mkdir()
    ok(install(manager, "--role", "manager", dist=dist))
    served = (manager / "etc/chrony/conf.d/booth.conf").read_text()
    assert "\nallow\nlocal stratum 8\n" in served
