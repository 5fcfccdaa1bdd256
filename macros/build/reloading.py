"""Fresh code on every `mkdocs serve` rebuild.

mkdocs-macros imports the `macros` package once per process, so an edit to a
module in it would not show until the server restarts. `reimport_if_changed`
notices that a module file changed since the package was imported and imports
the whole package anew.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType


def source_stamps(package_dir: Path) -> dict[Path, int]:
    """Modification time (ns) of every Python file of the package."""
    return {path: path.stat().st_mtime_ns for path in sorted(package_dir.rglob("*.py"))}


def reimport_if_changed(package: str, package_dir: Path, stamps: dict[Path, int]) -> ModuleType | None:
    """The package imported anew if its files differ from `stamps`, else None."""
    if source_stamps(package_dir) == stamps:
        return None
    for name in [name for name in sys.modules if name == package or name.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    return importlib.import_module(package)
