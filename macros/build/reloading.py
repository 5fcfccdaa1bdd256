"""Fresh code on every `mkdocs serve` rebuild, keeping the pure model's modules that an edit left as they were.

mkdocs-macros imports the `macros` package once per process, so an edit to a
module in it would not show until the server restarts. `reimport_if_changed`
notices that a module file changed since the package was imported and imports
the package anew: every module of it but those of the model layer (`macros.model`)
that neither changed nor import, directly or not, a module that did. Those keep
their caches, which is the point: Lesson 16's pipeline schedule takes about a second
to simulate, most of a rebuild after an edit elsewhere. Only the model can be kept so:
it imports nothing outside itself (tests/unit/test_layout.py) and holds no state but
caches of its own pure functions, where the layers above hold registries their
importers fill (the figure kinds) and caches of figures computed by other modules.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from types import ModuleType

#: The layer whose unchanged modules outlive a reimport.
PURE_LAYER = "model"


def source_stamps(package_dir: Path) -> dict[Path, int]:
    """Modification time (ns) of every Python file of the package."""
    return {path: path.stat().st_mtime_ns for path in sorted(package_dir.rglob("*.py"))}


def reimport_if_changed(package: str, package_dir: Path, stamps: dict[Path, int]) -> ModuleType | None:
    """The package imported anew if its files differ from `stamps`, else None."""
    now = source_stamps(package_dir)
    if now == stamps:
        return None
    changed = {path for path in now.keys() | stamps.keys() if now.get(path) != stamps.get(path)}
    kept = _unchanged_pure_modules(package, package_dir / PURE_LAYER, changed)
    for name in [name for name in sys.modules if name == package or name.startswith(package + ".")]:
        if name not in kept:
            del sys.modules[name]
    importlib.invalidate_caches()
    # From its own folder: mkdocs-macros puts each project's folder first on sys.path as it loads it, and in a
    # process that has built another copy of the course, that copy's package came first.
    sys.path.insert(0, str(package_dir.parent))
    try:
        fresh = importlib.import_module(package)
    finally:
        sys.path.remove(str(package_dir.parent))
    # A module found in sys.modules is not bound to its new parent package by the import system: bind it,
    # so that `model.pipeline` reads as `from .model import pipeline` does.
    for name in kept:
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and name in sys.modules:
            setattr(sys.modules[parent], child, sys.modules[name])
    return fresh


def _unchanged_pure_modules(package: str, layer_dir: Path, changed: set[Path]) -> set[str]:
    """The layer's modules (not its package) whose file and whose imports within the layer are unchanged."""
    layer = f"{package}.{PURE_LAYER}"
    files = {f"{layer}.{path.stem}": path for path in layer_dir.glob("*.py") if path.stem != "__init__"}
    imports = {name: _sibling_imports(path, layer) for name, path in files.items()}
    stale = {name for name, path in files.items() if path in changed or imports[name] is None}
    stale |= {f"{layer}.{path.stem}" for path in changed if path.parent == layer_dir}  # a removed module too
    while True:  # whoever imports a stale module is stale
        grown = stale | {name for name, imported in imports.items() if imported is None or imported & stale}
        if grown == stale:
            return set(files) - stale
        stale = grown


def _sibling_imports(path: Path, layer: str) -> set[str] | None:
    """The modules of `layer` that the module at `path`, one of them, imports; None if it does not parse."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return None  # imported anew, to fail as the import tells
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level <= 1:
            module = (f"{layer}.{node.module}" if node.module else layer) if node.level else node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}  # `from . import x` names a module
    # `from .x.y import z` imports x too; a name that is no module of the layer matches nothing.
    return {".".join(name.split(".")[: layer.count(".") + 2]) for name in found if name.startswith(layer + ".")}
