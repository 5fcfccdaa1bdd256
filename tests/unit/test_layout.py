"""The package's layout is its architecture: each layer imports only the layers below it, and only
a host adapter in the build folder knows which generator runs the course (ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "macros"

#: Each layer (a folder of the package) and the layers it may import from, itself included.
LAYERS = {
    "model": {"model"},
    "data": {"model", "data"},
    "figures": {"model", "data", "figures"},
    "pictures": {"model", "data", "figures", "pictures"},
    "pages": {"model", "data", "figures", "pages"},
    "quiz": {"model", "data", "figures", "pages", "quiz"},
    "build": {"model", "data", "figures", "pictures", "pages", "quiz", "build"},
}
#: Top-level packages that belong to a site generator or its theme, and the one module of build/ (its host
#: adapter) that may name each: the rest of the engine runs under any host of Python-Markdown.
GENERATORS = {"mkdocs": "mkdocs.py", "mkdocs_macros": "mkdocs.py", "material": "mkdocs.py", "zensical": "zensical.py"}


def _modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports, as an absolute dotted name, with its line (type-checking imports too)."""
    # A relative import counts from the module's folder, for a package's __init__ as for its modules.
    package = list(path.relative_to(PACKAGE.parent).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            # `from . import a` names modules: count each as imported.
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names] if not node.module else []
            found.append((node.lineno, module))
    return found


def _layer(path: Path) -> str | None:
    relative = path.relative_to(PACKAGE).parts
    return relative[0] if len(relative) > 1 else None


def test_every_module_is_in_a_layer() -> None:
    loose = [str(path.relative_to(PACKAGE)) for path in _modules() if _layer(path) is None]
    assert loose == ["__init__.py"], f"modules outside the layers' folders: {loose}"
    assert {_layer(path) for path in _modules()} - {None} == set(LAYERS)


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_module_imports_only_its_own_layer_and_those_below(path: Path) -> None:
    layer = _layer(path) or "build"  # the package's __init__ re-exports the MkDocs host
    wrong = []
    for line, module in _imports(path):
        top, _, rest = module.partition(".")
        if top == "macros" and rest and rest.split(".")[0] in LAYERS and rest.split(".")[0] not in LAYERS[layer]:
            wrong.append(f"line {line}: {module}")
        if top in GENERATORS and path.relative_to(PACKAGE).parts != ("build", GENERATORS[top]):
            wrong.append(f"line {line}: {module} (only macros/build/{GENERATORS[top]} may know {top})")
    assert not wrong, f"macros/{path.relative_to(PACKAGE)} imports above its layer ({layer}): {wrong}"


def test_the_import_reader_resolves_relative_imports() -> None:
    """The import reader resolves relative imports as Python does, or the checks above would pass vacuously."""
    module = PACKAGE / "data" / "catalog.py"
    imports = {name for _, name in _imports(module)}
    assert "macros.data.schema" in imports and "macros.data.quantities" in imports
    host = {name for _, name in _imports(PACKAGE / "build" / "mkdocs.py")}
    assert "mkdocs.exceptions" in host and "macros.build.state" in host


@pytest.mark.parametrize(
    "url, from_url",
    [("assets/x.css", ""), ("assets/x.css", "stage-4/lesson-08-x/"), ("glossary/", "stage-1/a/"), ("a/", "404.html")],
)
def test_the_build_links_pages_as_mkdocs_does(url: str, from_url: str) -> None:
    """The engine's own relative addresses (so that it needs no generator's) are MkDocs' own."""
    from mkdocs.utils import get_relative_url

    from macros.build.state import relative_url

    assert relative_url(url, from_url) == get_relative_url(url, from_url)


def test_each_module_of_figure_kinds_is_named_for_its_topic_of_the_model() -> None:
    """A change to a topic touches `model/<topic>.py` and `figures/kinds/<topic>.py`, nothing else to find."""
    kinds = {path.stem for path in (PACKAGE / "figures" / "kinds").glob("*.py")}
    topics = {path.stem for path in (PACKAGE / "model").glob("*.py")}
    catalog_as_is = {"__init__", "registry", "catalog_values", "units"}
    assert kinds - catalog_as_is <= topics, (
        f"kinds modules with no model topic: {sorted(kinds - catalog_as_is - topics)}"
    )
