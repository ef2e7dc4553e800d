"""`make test` sets up everything the tests use, and nothing a test starts outlives it.

Every program the tests run is listed in PROGRAMS with the Debian package it comes from, and
that package is in the Makefile's TEST_DEBS (or is Essential, on every Debian and Ubuntu). The
tests' sources are scanned for the programs they run (`shutil.which` of a string literal, and
a literal first in the argv of `subprocess.run`/`Popen`/`spawn` or a helper named `run`): a program
that is found but not listed fails here, so adding one to the tests means adding its package to
the Makefile. The same for the PouchDB tests' npm packages (`npm ci` from the lock file).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
POUCH = TESTS / "sync" / "pouch"

#: Every program the tests run, and the Debian package that has it (where it is run).
PROGRAMS = {
    "bash": "bash",  # test_packaging: build-deb.sh, install.sh, uninstall.sh
    "certutil": "libnss3-tools",  # web/phone.py: chromium trusts the hall's web CA
    "chromedriver": "chromium-driver",  # web/phone.py: Selenium drives chromium
    "chromium": "chromium",  # web/phone.py: the manager's phone in a real browser
    "apt-get": "apt",  # test_release: apt takes the newer .deb (--simulate on a test root)
    "dpkg": "dpkg",  # test_release: the .deb installed and upgraded in a test root (--root)
    "dpkg-deb": "dpkg",  # test_packaging: the Debian package
    "dpkg-query": "dpkg",  # test_setup: which package has a program
    "gcc": "gcc",  # faults/dying_disk.py: the EIO shim; the essp6 extra builds its C too
    "git": "git",  # test_release: make release builds from a commit
    "ip": "iproute2",  # sync/netns.py: network namespaces
    "logrotate": "logrotate",  # test_packaging
    "make": "make",  # test_release: `make release`, the documented command
    "node": "nodejs",  # sync/test_pouchdb.py, sync/test_upstream.py (or any node on the PATH)
    "pdftoppm": "poppler-utils",  # test_day_report: the PDF drawn as PNG
    "pdftotext": "poppler-utils",  # test_day_report
    "sha256sum": "coreutils",  # test_release: the release's SHA256SUMS
    "shellcheck": "shellcheck",  # test_packaging
    "sh": "dash",  # test_backup (unshare runs a script), test_setup
    "sleep": "coreutils",  # test_setup: a process left behind
    "tar": "tar",  # live/test_mixed_release: the previous release's code from git archive
    "systemd-analyze": "systemd",  # test_packaging: the unit and its drop-ins
    "unshare": "util-linux",  # test_backup, live/test_live_station: a private mount namespace
    "/usr/bin/python3": "python3-minimal",  # live/test_live_station: the client as another uid
    # Run by what the tests run, not by the tests themselves (the scan cannot see these):
    "mount": "mount",  # test_output_files: a small tmpfs filled up; test_backup (unshare's script)
    "umount": "mount",  # test_output_files
    "systemctl": "systemd",  # install.sh and uninstall.sh --root: enable, disable
    "useradd": "passwd",  # install.sh --root: the booth user
    "groupadd": "passwd",  # install.sh --root: its groups
}
INDIRECT = {"systemctl", "useradd", "groupadd"}

#: What the tests use that is not a program.
OTHER = {
    "python3 -m venv (make, test_packaging)": "python3-venv",
    "libEGL.so.1 (Kivy, the UI tests)": "libegl1",
    "libGL.so.1 (Kivy)": "libgl1",
    "Mesa's software rendering, swrast/llvmpipe (Kivy offscreen)": "libgl1-mesa-dri",
    "libmtdev.so.1 (Kivy's input providers)": "libmtdev1",
    "DejaVuSansMono.ttf (receipt PNGs, tests/printer)": "fonts-dejavu-core",
}

#: Installed on every Debian and Ubuntu system (Essential: yes).
ESSENTIAL = {"bash", "coreutils", "dash"}

ARGV0 = re.compile(
    r"""(?:shutil\.which\(\s*"(?P<which>[^"\s]+)")"""
    r"""|(?:\b(?:run|Popen|check_output|check_call|call|spawn)\(\s*\[?\s*"(?P<argv>[^"\s]+)")"""
)


def makefile_variables() -> dict[str, list[str]]:
    """The Makefile's `NAME := words` assignments, with $(NAME) references expanded."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    raw = dict(re.findall(r"^([A-Z_]+) :?= *(.*)$", text, flags=re.MULTILINE))

    def expand(value: str) -> list[str]:
        words: list[str] = []
        for word in value.split():
            inner = re.fullmatch(r"\$\(([A-Z_]+)\)", word)
            words.extend(expand(raw[inner.group(1)]) if inner else [word])
        return words

    return {name: expand(value) for name, value in raw.items() if "$(shell" not in value}


def makefile_rules() -> dict[str, list[str]]:
    """Each rule's prerequisites (order-only ones included), by target."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    rules: dict[str, list[str]] = {}
    for target, prerequisites in re.findall(
        r"^([$()A-Za-z_./-]+):(?!=)(.*)$", text, flags=re.MULTILINE
    ):
        rules.setdefault(target, []).extend(prerequisites.replace("|", " ").split())
    return rules


def needs(target: str) -> set[str]:
    rules = makefile_rules()
    seen: set[str] = set()
    stack = [target]
    while stack:
        for prerequisite in rules.get(stack.pop(), []):
            if prerequisite not in seen:
                seen.add(prerequisite)
                stack.append(prerequisite)
    return seen


def programs_in_tests() -> dict[str, set[str]]:
    """Each program a test source names as what it runs, and where."""
    found: dict[str, set[str]] = {}
    for path in TESTS.rglob("*.py"):
        if "node_modules" in path.parts:
            continue
        for match in ARGV0.finditer(path.read_text()):
            program = match.group("which") or match.group("argv")
            found.setdefault(program, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_program_the_tests_run_is_listed() -> None:
    found = programs_in_tests()
    unlisted = {program: where for program, where in found.items() if program not in PROGRAMS}
    assert not unlisted, (
        f"the tests run programs tests/test_setup.py does not list: {unlisted}; add each to "
        "PROGRAMS with its Debian package, and the package to TEST_DEBS in the Makefile"
    )
    # ... and the list holds nothing the tests no longer run (the scan works).
    assert set(PROGRAMS) - INDIRECT == set(found)


def test_the_makefile_installs_the_package_of_each() -> None:
    debs = set(makefile_variables()["TEST_DEBS"])
    assert set(makefile_variables()["RUN_DEBS"]) <= debs
    node_from_the_path = "$(call ensure_debs,$(TEST_DEBS),node)"
    assert node_from_the_path in (ROOT / "Makefile").read_text()  # nodejs and npm, if missing
    needed = {**{f"{p} (program)": deb for p, deb in PROGRAMS.items() if p != "node"}, **OTHER}
    missing = {what: deb for what, deb in needed.items() if deb not in debs | ESSENTIAL}
    assert not missing, f"add these to TEST_DEBS in the Makefile: {missing}"


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not Debian or Ubuntu")
def test_each_program_comes_from_the_package_listed() -> None:
    """Where the program is installed (a node from elsewhere than Debian's nodejs is fine)."""
    candidates: dict[str, set[str]] = {}
    for program in PROGRAMS:
        where = shutil.which(program)
        if where is not None:  # else the tests that use it say so (or skip, away from CI)
            candidates[program] = {where, os.path.realpath(where)} | {
                f"{d}/{program}" for d in ("/bin", "/sbin", "/usr/bin", "/usr/sbin")
            }
    paths = sorted(set().union(*candidates.values()))
    listed = subprocess.run(["dpkg-query", "-S", *paths], capture_output=True, text=True).stdout
    owners: dict[str, set[str]] = {}
    for line in listed.splitlines():
        packages, _, path = line.partition(": ")
        if not packages.startswith("diversion"):
            owners.setdefault(path, set()).update(p.split(":")[0] for p in packages.split(", "))
    wrong = {}
    for program, places in candidates.items():
        found = set().union(*(owners.get(path, set()) for path in places))
        if found and PROGRAMS[program] not in found:
            wrong[program] = (PROGRAMS[program], found)
    assert not wrong, f"PROGRAMS names the wrong package: {wrong}"


def test_the_npm_packages_the_pouchdb_tests_load_are_locked_and_installed_by_make() -> None:
    lock = json.loads((POUCH / "package-lock.json").read_text())["packages"]
    package = json.loads((POUCH / "package.json").read_text())
    assert lock[""]["dependencies"] == package["dependencies"], "npm install, and commit the lock"
    loaded = set()
    for script in POUCH.glob("*.js"):
        loaded |= set(re.findall(r"""require\(\s*['"]([^'"./][^'"]*)['"]""", script.read_text()))
    for source in TESTS.rglob("*.py"):
        if "node_modules" not in source.parts:
            loaded |= set(re.findall(r'"node_modules" / "([\w@./-]+)"', source.read_text()))
    builtin = {"fs", "readline", "https", "http", "path", "crypto", "url", "os", "net", "tls"}
    unlocked = {name for name in loaded - builtin if f"node_modules/{name}" not in lock}
    assert not unlocked, f"not in tests/sync/pouch/package-lock.json: {unlocked}"
    # make test runs npm ci there (after the Debian packages: node and npm) before the tests.
    makefile = (ROOT / "Makefile").read_text()
    assert "POUCH := tests/sync/pouch" in makefile and "cd $(POUCH) && $(NPM_CI)" in makefile
    assert makefile_variables()["NPM_CI"][:2] == ["npm", "ci"]
    assert "$(NPM_STAMP)" in makefile_rules()["setup"]
    assert "debs-test" in needs("$(NPM_STAMP)")


def test_make_test_and_make_check_set_up_first_and_ci_runs_just_make_test() -> None:
    for target in ("test", "check"):
        assert {"setup", "debs-test", "$(STAMP)", "$(NPM_STAMP)"} <= needs(target), target
    assert {"debs-run", "$(STAMP)"} <= needs("run")
    assert "debs-run" in needs("$(STAMP)")  # python3-venv before the virtualenv
    commands = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "exec make test"]


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not Debian or Ubuntu")
def test_someone_not_root_is_told_the_one_apt_get_line() -> None:
    # A package that is not installed (nor exists): as root make would run apt-get. As root,
    # the test runs make as nobody, on a copy of the Makefile nobody can read (a checkout
    # under /root cannot be).
    with tempfile.TemporaryDirectory() as directory:
        Path(directory).chmod(0o755)
        shutil.copy(ROOT / "Makefile", directory)
        argv = ["make", "--no-print-directory", "-C", directory, "debs-test"]
        argv += ["TEST_DEBS=booth-test-missing-package make", "RUN_DEBS="]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=directory)
    assert done.returncode != 0
    told = [line.strip() for line in done.stderr.splitlines() if "apt-get" in line]
    assert len(told) == 1, done.stderr  # (nodejs and npm too, where node or npm is missing)
    assert told[0].startswith(
        "sudo apt-get install -y --no-install-recommends booth-test-missing-package"
    ), done.stderr


# --- no process outlives its test ------------------------------------------------------------

LEAKY = """
import subprocess, time, pytest

def started(process):
    with open("PIDS", "a") as pids:
        pids.write(f"{process.pid}\\n")

def test_a_failing_test_leaves_a_process():
    started(subprocess.Popen(["sleep", "300"]))
    assert False

@pytest.mark.timeout(1)
def test_a_test_that_times_out_leaves_a_process():
    started(subprocess.Popen(["sleep", "301"]))
    time.sleep(60)

def test_a_process_whose_parent_ended():
    # (its output elsewhere: sleep keeps what it inherits open, and run() would wait for EOF)
    script = "sleep 302 >/dev/null 2>&1 & echo $!"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    with open("PIDS", "a") as pids:
        pids.write(done.stdout)

def test_spawned_and_failed(spawn):
    started(spawn(["sh", "-c", "sleep 303 & sleep 304"]))
    assert False
"""


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2 :].split()[0] not in (b"Z", b"X")


@pytest.mark.slow  # a pytest of its own, waiting out its test's time-out
def test_processes_a_failing_or_timed_out_test_started_are_ended(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    (tmp_path / "test_leaky.py").write_text(LEAKY.replace("PIDS", str(pids)))
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-p", "tests.processes", "-p", "no:cacheprovider"),
            *("-q", "-rN", "--rootdir", str(tmp_path), str(tmp_path / "test_leaky.py")),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) == 4, done.stdout
    left = [pid for pid in started if running(pid)]
    assert not left, f"still running: {left}\n{done.stdout}"
    # The three that left their processes behind fail for it; the one that used spawn does not.
    assert done.returncode == 1, done.stdout
    assert "3 failed, 1 passed, 3 errors" in done.stdout, done.stdout
    reports = re.findall(r"^the test left processes running", done.stdout, flags=re.MULTILINE)
    assert len(reports) == 3, done.stdout
    killed = re.findall(r"^\s+pid \d+: (.*)$", done.stdout, flags=re.MULTILINE)
    assert sorted(killed) == ["sleep 300", "sleep 301", "sleep 302"], done.stdout
