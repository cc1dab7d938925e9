"""What this installation of vyre is: its version, the adapter it would run on (and
every adapter with its `VYRE_ADAPTER=gpu:N` index) and its installed extras.
`python -m vyre` prints them (`report`).

Everything comes from the installed distribution's metadata (which pyproject.toml
writes) and from vyre's own adapter choice (`vyre.runtime.adapters`), so this
module restates nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, requires, version

from vyre.runtime.adapters import adapter_info, adapter_listing, choose_adapter

DISTRIBUTION = "vyre"
"""The name vyre is installed under (`pip install vyre`)."""

UNINSTALLED_VERSION = "0+unknown"
"""`VERSION` when vyre runs from a source tree that is not installed."""

_NOT_A_FEATURE = frozenset({"dev"})
"""Extras that are development tools, not features of vyre."""

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def installed_version(package: str) -> str | None:
    """The installed version of distribution `package`; None when it is not installed."""
    try:
        return version(package)
    except PackageNotFoundError:
        return None


VERSION: str = installed_version(DISTRIBUTION) or UNINSTALLED_VERSION
"""The installed distribution's version, pyproject.toml's (`vyre.__version__`)."""


@dataclass(frozen=True)
class Package:
    """A package an extra installs, with its installed version (None: not installed)."""

    name: str
    version: str | None

    def __str__(self) -> str:
        return f"{self.name} {self.version or 'not installed'}"


@dataclass(frozen=True)
class Extra:
    """An extra of vyre (`pip install 'vyre[gpu]'`) and the packages it installs."""

    name: str
    packages: tuple[Package, ...]

    def __str__(self) -> str:
        return f"{self.name}: {', '.join(str(package) for package in self.packages)}"


def extras_of(
    requirements: Iterable[str], installed: Callable[[str], str | None] = installed_version
) -> tuple[Extra, ...]:
    """The extras named by requirement lines of distribution metadata
    (`wgpu>=0.32; extra == "gpu"`), in order, each with its packages' installed
    versions. Extras that only name vyre's other extras (`all`) and the
    development extra (`dev`) are left out."""
    packages: dict[str, list[str]] = {}
    for line in requirements:
        marker = _EXTRA_MARKER.search(line)
        name = _NAME.match(line)
        if marker is None or name is None or marker.group(1) in _NOT_A_FEATURE:
            continue
        if name.group(1).lower() == DISTRIBUTION:
            continue
        packages.setdefault(marker.group(1), []).append(name.group(1))
    return tuple(
        Extra(extra, tuple(Package(name, installed(name)) for name in names))
        for extra, names in packages.items()
    )


def extras() -> tuple[Extra, ...]:
    """vyre's extras and what of them is installed; empty when vyre is not installed."""
    try:
        lines = requires(DISTRIBUTION) or []
    except PackageNotFoundError:
        return ()
    return extras_of(lines)


def adapter() -> str:
    """The adapter vyre would run on (`VYRE_ADAPTER` honoured) as
    `name; backend B; device type T`, or `none (the reason)` when there is none,
    wgpu is not installed or `VYRE_ADAPTER` matches no adapter."""
    try:
        info = adapter_info(choose_adapter())
    except Exception as error:  # noqa: BLE001 - a report names the reason, it does not crash
        return f"none ({error})"
    line = f"{info.name}; backend {info.backend}; device type {info.adapter_type}"
    wanted = os.environ.get("VYRE_ADAPTER")
    return f"{line}; chosen by VYRE_ADAPTER={wanted!r}" if wanted else line


def report() -> str:
    """What `python -m vyre` prints: the version, the adapter, every adapter with its
    index (when there is one) and the extras."""
    lines = [f"vyre {VERSION}", f"adapter: {adapter()}"]
    listing = adapter_listing()
    if listing:
        lines += ["adapters:", *(f"  {line}" for line in listing)]
    lines.append("extras:")
    found = extras()
    if not found:
        lines.append(f"  unknown: {DISTRIBUTION} is not installed as a distribution")
    lines.extend(f"  {extra}" for extra in found)
    return "\n".join(lines)
