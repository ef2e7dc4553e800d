"""`make release`: check that the version, the CHANGELOG and the git tags agree, then build the
release's sdist, wheel and Debian package into dist/ from the commit (never from uncommitted
files), and say what was built, each artefact with the version it carries.

    .venv/bin/python packaging/release.py [--out dist] [--check]

The version is written once, in pos/__init__.py (`__version__ = "X.Y.Z"`); pyproject.toml reads
it (a dynamic version) and the .deb takes the wheel's. A release X.Y.Z needs:
- a section `## X.Y.Z` in CHANGELOG.md, with the technician's upgrade notes under a heading
  `### Upgrading` in it;
- no tag vX.Y.Z on another commit, and no tag of a version at or above X.Y.Z on another commit
  (apt would take the older package as already the newest, or refuse the downgrade).
It prints the `git tag` command that names the release, when HEAD has no tag yet.

Exit codes: 0 built (or checked), 1 refused (the version, CHANGELOG or tags disagree: nothing
built), 2 bad usage (not a git checkout), 3 a build step failed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERSION_LINE = re.compile(r'^__version__ = "([^"]*)"$', re.MULTILINE)
# X.Y.Z only: the same string is a PEP 440 version and a Debian upstream version, and the two
# order it alike.
RELEASE_VERSION = re.compile(r"\d+\.\d+\.\d+")
DEB_REVISION = "1"


class Refused(Exception):
    """The release is refused: what disagrees, with the values that do."""


class BuildFailed(Exception):
    pass


@dataclass(frozen=True)
class Artefact:
    path: Path
    version: str  # as the artefact itself says: its metadata or control file

    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise Refused(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


# --- the checks -------------------------------------------------------------------------------


def read_version(init_text: str) -> str:
    found = VERSION_LINE.findall(init_text)
    if len(found) != 1:
        raise Refused('pos/__init__.py must hold one line __version__ = "X.Y.Z"')
    version: str = found[0]
    if not RELEASE_VERSION.fullmatch(version):
        raise Refused(f"pos/__init__.py: version {version!r} is not X.Y.Z (e.g. 0.2.0)")
    return version


def check_pyproject(text: str) -> None:
    project = tomllib.loads(text)
    declared = project.get("project", {})
    source = project.get("tool", {}).get("setuptools", {}).get("dynamic", {}).get("version")
    if "version" in declared or "version" not in declared.get("dynamic", []):
        raise Refused(
            f"pyproject.toml declares version {declared.get('version')!r}: it must read "
            'pos.__version__ (dynamic = ["version"])'
        )
    if source != {"attr": "pos.__version__"}:
        raise Refused(f"pyproject.toml reads its version from {source!r}, not pos.__version__")


def changelog_section(text: str, version: str) -> str:
    """The CHANGELOG's section of `version` (from its `## X.Y.Z` heading to the next `## `)."""
    heading = re.compile(rf"^## \[?{re.escape(version)}\]?(?=[\s(]|$).*$", re.MULTILINE)
    match = heading.search(text)
    if match is None:
        raise Refused(
            f"CHANGELOG.md has no section for {version}: add '## {version} (YYYY-MM-DD)' with "
            "what changed and the upgrade notes (### Upgrading)"
        )
    following = re.compile(r"^## ", re.MULTILINE).search(text, match.end())
    body = text[match.end() : following.start() if following else len(text)]
    if not re.search(r"^### Upgrading\b", body, re.MULTILINE):
        raise Refused(
            f"CHANGELOG.md's section {version} has no '### Upgrading' notes: say what a "
            "technician does to upgrade a hall (or that nothing is needed)"
        )
    return body


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def check_tags(tags: dict[str, str], head: str, version: str) -> str | None:
    """`tags`: each release tag (vX.Y.Z) and the commit it names. Returns the tag at HEAD, if
    any."""
    at_head = None
    for tag, commit in sorted(tags.items()):
        tagged = tag[1:]
        if commit == head:
            if tagged != version:
                raise Refused(
                    f"HEAD ({head[:12]}) is tagged {tag}, but pos/__init__.py says {version}"
                )
            at_head = tag
        elif tagged == version:
            raise Refused(
                f"v{version} already names commit {commit[:12]}, not HEAD ({head[:12]}): "
                "raise __version__ in pos/__init__.py for a new release"
            )
        elif version_key(tagged) > version_key(version):
            raise Refused(
                f"{version} is older than the released {tag}: apt would not take it over "
                f"{tagged}; raise __version__ in pos/__init__.py"
            )
    return at_head


def release_tags(repo: Path) -> dict[str, str]:
    listing = git(
        repo,
        "for-each-ref",
        "--format=%(refname:short) %(*objectname) %(objectname)",
        "refs/tags/v*",
    )
    tags = {}
    for line in listing.splitlines():
        name, *commits = line.split()
        if RELEASE_VERSION.fullmatch(name[1:]):
            tags[name] = commits[0]  # an annotated tag's commit, else the tag's own object
    return tags


# --- the build --------------------------------------------------------------------------------


def export(repo: Path, commit: str, into: Path) -> None:
    """The commit's files, as `git archive` gives them: nothing uncommitted, no build/ left
    over from an earlier build."""
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True
    )
    if archive.returncode != 0:
        raise BuildFailed(f"git archive {commit}: {archive.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="tar")


def run_step(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise BuildFailed(
            f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}"
        )
    return result.stdout


def wheel_version(path: Path) -> str:
    with zipfile.ZipFile(path) as wheel:
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        declared = re.search(r"^Version: (.*)$", wheel.read(metadata).decode(), re.MULTILINE)
        inside = read_version(wheel.read("pos/__init__.py").decode())
    if declared is None or declared.group(1) != inside:
        raise BuildFailed(f"{path.name}: its metadata says {declared}, its code {inside}")
    return inside


def sdist_version(path: Path) -> str:
    with tarfile.open(path) as sdist:
        info = next(
            m for m in sdist.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
        )
        member = sdist.extractfile(info)
        assert member is not None
        declared = re.search(r"^Version: (.*)$", member.read().decode(), re.MULTILINE)
    if declared is None:
        raise BuildFailed(f"{path.name}: no Version in its PKG-INFO")
    return declared.group(1)


def deb_version(path: Path, tree: Path) -> str:
    return run_step(["dpkg-deb", "--field", str(path), "Version"], cwd=tree).strip()


def build(tree: Path, out: Path, version: str, epoch: str) -> list[Artefact]:
    for old in [*out.glob(f"booth-{version}*"), *out.glob(f"booth_{version}-*")]:
        old.unlink()
    out.mkdir(parents=True, exist_ok=True)
    # --no-isolation: the build backend comes from this Python's environment (.venv), so a
    # release builds without the network
    env = {**os.environ, "SOURCE_DATE_EPOCH": epoch}
    run_step(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(tree)],
        cwd=tree,
        env=env,
    )
    wheel = out / f"booth-{version}-py3-none-any.whl"
    sdist = out / f"booth-{version}.tar.gz"
    deb = Path(
        run_step(
            [
                "bash",
                str(tree / "packaging/deb/build-deb.sh"),
                "--wheel",
                str(wheel),
                "--out",
                str(out),
            ],
            cwd=tree,
            env=env,
        ).strip()
    )
    return [
        Artefact(sdist, sdist_version(sdist)),
        Artefact(wheel, wheel_version(wheel)),
        Artefact(deb, deb_version(deb, tree)),
    ]


def check_artefacts(artefacts: list[Artefact], version: str) -> None:
    expected = {".gz": version, ".whl": version, ".deb": f"{version}-{DEB_REVISION}"}
    for artefact in artefacts:
        if artefact.version != expected[artefact.path.suffix]:
            raise BuildFailed(
                f"{artefact.path.name} carries version {artefact.version}, not "
                f"{expected[artefact.path.suffix]}"
            )


def release(repo: Path, out: Path, *, check_only: bool) -> int:
    head = git(repo, "rev-parse", "HEAD").strip()
    with tempfile.TemporaryDirectory(prefix="booth-release-") as temporary:
        tree = Path(temporary) / "source"
        tree.mkdir()
        export(repo, head, tree)
        version = read_version((tree / "pos/__init__.py").read_text())
        check_pyproject((tree / "pyproject.toml").read_text())
        changelog_section((tree / "CHANGELOG.md").read_text(), version)
        tagged = check_tags(release_tags(repo), head, version)
        print(f"release {version} of commit {head[:12]}: version, CHANGELOG and tags agree")
        if git(repo, "status", "--porcelain", "--untracked-files=no").strip():
            print("  (uncommitted changes in the working tree are not in this release)")
        if check_only:
            return 0
        epoch = git(repo, "log", "-1", "--format=%ct", head).strip()
        artefacts = build(tree, out, version, epoch)
    check_artefacts(artefacts, version)
    sums = out / f"booth-{version}.SHA256SUMS"
    sums.write_text("".join(f"{a.sha256()}  {a.path.name}\n" for a in artefacts))
    print(f"built into {out}/:")
    for artefact in artefacts:
        print(
            f"  {artefact.path.name:<36} version {artefact.version:<10} "
            f"sha256 {artefact.sha256()[:16]}"
        )
    print(f"  {sums.name}")
    if tagged is None:
        print(f"tag the release: git tag -a v{version} -m 'Booth {version}' {head[:12]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=HERE.parent, help="the git checkout")
    parser.add_argument("--out", type=Path, default=None, help="where to build (REPO/dist)")
    parser.add_argument("--check", action="store_true", help="check only, build nothing")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    if not (repo / ".git").exists():
        print(
            f"release: {repo} is not a git checkout: a release is built from a commit",
            file=sys.stderr,
        )
        return 2
    out = (args.out or repo / "dist").resolve()
    try:
        return release(repo, out, check_only=args.check)
    except Refused as refused:
        print(f"release refused: {refused}", file=sys.stderr)
        return 1
    except BuildFailed as failed:
        print(f"release: a build step failed: {failed}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
