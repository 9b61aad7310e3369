"""The lock files agree with pyproject.toml, and every install goes through them.

requirements/base.txt pins the runtime dependencies, requirements/dev.txt the
runtime ones plus the `dev` extra; both are written by `make lock`. Each direct
dependency must be pinned to exactly one version inside its pyproject range,
every pin carries hashes, and the Makefile and the Dockerfile install nothing
that would resolve a dependency outside the lock.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections import defaultdict
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCKS = {"base": ROOT / "requirements" / "base.txt", "dev": ROOT / "requirements" / "dev.txt"}


@cache
def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def direct_requirements(lock: str) -> list[Requirement]:
    """What pyproject asks for that `lock` must satisfy: runtime, plus the dev extra for dev."""
    wanted = list(project()["dependencies"])
    if lock == "dev":
        wanted += project()["optional-dependencies"]["dev"]
    return [Requirement(text) for text in wanted]


def lock_entries(lock: str) -> list[tuple[Requirement, list[str]]]:
    """Each entry of a lock file: its requirement (with any marker) and its hashes."""
    text = re.sub(r"\\\n", " ", LOCKS[lock].read_text())
    entries = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        hashes = re.findall(r"--hash=(\S+)", line)
        requirement = re.sub(r"\s*--hash=\S+", "", line).strip()
        entries.append((Requirement(requirement), hashes))
    return entries


@cache
def pins(lock: str) -> dict[str, list[Version]]:
    """Pinned versions by canonical name (two only when markers fork a package)."""
    found: dict[str, list[Version]] = defaultdict(list)
    for requirement, _hashes in lock_entries(lock):
        (specifier,) = requirement.specifier
        found[canonicalize_name(requirement.name)].append(Version(specifier.version))
    return dict(found)


@pytest.mark.parametrize("lock", LOCKS)
def test_every_entry_is_one_exact_version_with_hashes(lock):
    loose = [
        str(requirement)
        for requirement, hashes in lock_entries(lock)
        if len(requirement.specifier) != 1
        or next(iter(requirement.specifier)).operator != "=="
        or not hashes
    ]
    assert lock_entries(lock), f"{LOCKS[lock]} pins nothing"
    assert not loose, f"{LOCKS[lock].name} has entries that are not exact pins with hashes: {loose}"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_direct_dependency_is_pinned_inside_its_range(lock):
    problems = []
    for requirement in direct_requirements(lock):
        versions = pins(lock).get(canonicalize_name(requirement.name))
        if not versions:
            problems.append(f"{requirement.name} is not pinned")
            continue
        problems += [
            f"{requirement.name}=={version} is outside {requirement.specifier}"
            for version in versions
            if not requirement.specifier.contains(version, prereleases=True)
        ]
    assert not problems, (
        f"{LOCKS[lock].name} disagrees with pyproject.toml; run `make lock`: {problems}"
    )


def brought_by_extra(name: str, extra: str) -> list[str]:
    """What `name[extra]` adds, from the installed metadata (CI installs the lock)."""
    added = [Requirement(text) for text in metadata.requires(name) or []]
    return [req.name for req in added if req.marker and req.marker.evaluate({"extra": extra})]


@pytest.mark.parametrize("lock", LOCKS)
def test_what_an_extra_brings_is_pinned_too(lock):
    missing = [
        f"{needed} (from {requirement.name}[{extra}])"
        for requirement in direct_requirements(lock)
        for extra in requirement.extras
        for needed in brought_by_extra(requirement.name, extra)
        if canonicalize_name(needed) not in pins(lock)
    ]
    assert not missing, f"{LOCKS[lock].name} lacks {missing}; run `make lock`"


def test_dev_lock_keeps_the_runtime_pins():
    base, dev = pins("base"), pins("dev")
    differ = {name: (versions, dev.get(name)) for name, versions in base.items()}
    differ = {name: pair for name, pair in differ.items() if pair[0] != pair[1]}
    assert not differ, f"requirements/dev.txt moves runtime pins: {differ}"


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_says_how_to_regenerate_it(lock):
    header = LOCKS[lock].read_text().split("\n", 3)[:3]
    assert any("make lock" in line for line in header), header
    assert re.search(r"^lock:", (ROOT / "Makefile").read_text(), re.MULTILINE)


def pip_installs(text: str) -> list[list[str]]:
    """The arguments after each `pip install` in a Makefile or Dockerfile."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    text = re.sub(r"\\\n", " ", "\n".join(lines))
    found = []
    for match in re.finditer(r"\bpip\)? install\b([^\n&;]*)", text, re.IGNORECASE):
        found.append([word for word in shlex.split(match.group(1)) if word != "--quiet"])
    return found


def resolves_outside_the_lock(arguments: list[str]) -> bool:
    if "-r" in arguments or "--no-deps" in arguments:
        return False
    # The installers themselves: pip, and the pinned uv that writes the lock.
    return not all(
        word.startswith("-") or word in ("pip", "uv==$(UV_VERSION)") for word in arguments
    )


@pytest.mark.parametrize("name", ["Makefile", "Dockerfile"])
def test_every_install_goes_through_the_lock(name):
    installs = pip_installs((ROOT / name).read_text())
    assert any(arguments[:2] == ["-r", "requirements/base.txt"] for arguments in installs), installs
    loose = [" ".join(arguments) for arguments in installs if resolves_outside_the_lock(arguments)]
    assert not loose, f"{name} installs outside the lock: {loose}"


def test_the_virtualenv_is_rebuilt_when_a_lock_changes():
    rules = dict(re.findall(r"^(\$\(VENV\)/\.\w+):(.*)$", (ROOT / "Makefile").read_text(), re.M))
    assert "requirements/base.txt" in rules["$(VENV)/.base"].split()
    assert "requirements/dev.txt" in rules["$(VENV)/.dev"].split()


def test_the_image_copies_the_lock_before_installing_it():
    text = (ROOT / "Dockerfile").read_text()
    copied = re.search(r"^COPY\s+requirements\b", text, re.M)
    installed = re.search(r"pip install -r requirements/base\.txt", text)
    assert copied and installed and copied.start() < installed.start()
