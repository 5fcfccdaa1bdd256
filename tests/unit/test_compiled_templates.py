"""The theme's compiled templates, kept between builds: used while their source and environment are the same."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
from jinja2.bccache import bc_magic

from macros.build import compiled_templates
from macros.build.compiled_templates import CACHE_FOLDER, CompiledTemplates, cache_root, fingerprint


@pytest.fixture(autouse=True)
def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new process does: nothing compiled in memory."""
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the templates Jinja compiles from source while the test runs."""
    names: list[str] = []
    compile_source = jinja2.Environment.compile

    def counting(self: jinja2.Environment, source: Any, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        names.append(str(name))
        return compile_source(self, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    yield names


def _environment(
    templates: Path, cache: Path, filters: dict[str, Callable[..., Any]] | None = None, **settings: Any
) -> jinja2.Environment:
    """A theme-like environment over `templates`, with `filters` added, and the course's cache under `cache`."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates), **settings)
    env.filters.update(filters or {})
    env.bytecode_cache = CompiledTemplates.for_environment(env, cache)
    return env


@pytest.fixture
def theme(tmp_path: Path) -> Path:
    """A folder with one template."""
    folder = tmp_path / "theme"
    folder.mkdir()
    (folder / "main.html").write_text("<h1>{{ title }}</h1>", encoding="utf-8")
    return folder


def _render(env: jinja2.Environment) -> str:
    return env.get_template("main.html").render(title="Lesson 8")


def test_a_template_compiled_by_one_build_is_not_compiled_by_the_next(
    theme: Path, tmp_path: Path, compiled: list[str]
) -> None:
    cache = tmp_path / "cache"
    assert _render(_environment(theme, cache)) == "<h1>Lesson 8</h1>"
    assert _render(_environment(theme, cache)) == "<h1>Lesson 8</h1>"  # the same process: from memory
    assert compiled == ["main.html"]


def test_a_new_process_reads_what_an_earlier_one_compiled(
    theme: Path, tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    _render(_environment(theme, cache))
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})
    assert _render(_environment(theme, cache)) == "<h1>Lesson 8</h1>"
    assert compiled == ["main.html"]


def test_an_edited_template_is_compiled_anew(theme: Path, tmp_path: Path, compiled: list[str]) -> None:
    cache = tmp_path / "cache"
    _render(_environment(theme, cache))
    (theme / "main.html").write_text("<h2>{{ title }}</h2>", encoding="utf-8")
    assert _render(_environment(theme, cache)) == "<h2>Lesson 8</h2>"
    assert compiled == ["main.html", "main.html"]


@pytest.mark.parametrize(
    "change",
    [
        {"trim_blocks": True},
        {"extensions": ["jinja2.ext.i18n"]},
        {"autoescape": True},
        {"variable_start_string": "[[", "variable_end_string": "]]"},
    ],
    ids=["trim_blocks", "extension", "autoescape", "syntax"],
)
def test_an_environment_set_up_otherwise_never_reads_anothers_code(
    theme: Path, tmp_path: Path, compiled: list[str], change: dict[str, Any]
) -> None:
    cache = tmp_path / "cache"
    plain = _environment(theme, cache)
    other = _environment(theme, cache, **change)
    assert fingerprint(plain) != fingerprint(other)
    _render(plain)
    _render(other)
    assert compiled == ["main.html", "main.html"]


@jinja2.pass_context
def _shout_in_context(context: Any, value: str) -> str:
    return value.upper()


def _shout(value: str) -> str:
    return value.upper()


def test_a_filter_passed_its_context_elsewhere_is_compiled_anew(tmp_path: Path, compiled: list[str]) -> None:
    """Jinja compiles into a filter's call whether the filter takes the context: each way gets its own code."""
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "main.html").write_text("{{ title|shout }}", encoding="utf-8")
    cache = tmp_path / "cache"
    in_context = _environment(theme, cache, {"shout": _shout_in_context})
    plain = _environment(theme, cache, {"shout": _shout})
    assert in_context.get_template("main.html").render(title="a") == "A"
    assert plain.get_template("main.html").render(title="b") == "B"
    assert compiled == ["main.html", "main.html"]


def test_a_finalize_that_takes_the_context_elsewhere_is_compiled_anew(theme: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = _environment(theme, cache, finalize=lambda value: value)
    in_context = _environment(theme, cache, finalize=jinja2.pass_context(lambda context, value: value))
    assert fingerprint(plain) != fingerprint(in_context)
    assert _render(plain) == _render(in_context) == "<h1>Lesson 8</h1>"


def test_an_environment_that_autoescapes_by_name_gets_no_cache(tmp_path: Path) -> None:
    """Its answer for each template is compiled in, which no fingerprint of the environment tells."""
    env = jinja2.Environment(autoescape=jinja2.select_autoescape())
    assert CompiledTemplates.for_environment(env, tmp_path) is None
    with pytest.raises(ValueError, match="autoescape is a function"):
        fingerprint(env)


@pytest.mark.parametrize(
    "damage",
    [
        lambda code: code[: len(code) // 2],
        lambda code: b"",
        lambda code: b"\x00" * len(code),
        lambda code: bc_magic + b"\xff" * 16,
    ],
    ids=["truncated", "empty", "zeroed", "garbage-after-the-header"],
)
def test_a_damaged_file_is_compiled_anew_without_an_error(
    theme: Path,
    tmp_path: Path,
    compiled: list[str],
    monkeypatch: pytest.MonkeyPatch,
    damage: Callable[[bytes], bytes],
) -> None:
    cache = tmp_path / "cache"
    _render(_environment(theme, cache))
    (stored,) = (path for path in cache.rglob("*") if path.is_file())
    stored.write_bytes(damage(stored.read_bytes()))
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})
    assert _render(_environment(theme, cache)) == "<h1>Lesson 8</h1>"
    assert compiled == ["main.html", "main.html"]


def test_a_folder_that_cannot_be_written_leaves_the_build_as_it_was(theme: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache's folder would be", encoding="utf-8")
    assert _render(_environment(theme, blocked)) == "<h1>Lesson 8</h1>"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["blocked", "theme"]
    assert blocked.read_text(encoding="utf-8") == "a file where the cache's folder would be"


def test_what_is_written_is_only_the_compiled_templates(theme: Path, tmp_path: Path) -> None:
    """Each written whole and renamed into place: no temporary file is left behind."""
    cache = tmp_path / "cache"
    _render(_environment(theme, cache))
    assert [path.name.startswith(".tmp-") for path in cache.rglob("*") if path.is_file()] == [False]


def test_the_cache_is_the_users_own_folder_never_the_projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled code runs in the build: a folder a commit can fill (the checkout) is never read."""
    project = tmp_path / "course"
    project.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root(project) == (tmp_path / "xdg").resolve() / CACHE_FOLDER
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not a cache folder by the XDG rules: ~/.cache
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root(project) == (tmp_path / "home").resolve() / ".cache" / CACHE_FOLDER
    for inside in (project, project / ".cache", project / "docs" / "x"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(inside))
        assert cache_root(project) is None
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(project))
    assert cache_root(project) is None


def _kept(theme: Path, cache: Path) -> Path:
    """The one file the first build kept in `cache`, as a new process finds it."""
    _render(_environment(theme, cache))
    (stored,) = (path for path in cache.rglob("*") if path.is_file())
    return stored


@pytest.mark.parametrize(
    "untrust",
    [
        lambda stored: stored.parent.chmod(0o777),
        lambda stored: stored.parent.chmod(0o770),
        lambda stored: stored.chmod(0o666),
        lambda stored: stored.chmod(0o620),
    ],
    ids=["folder-world-writable", "folder-group-writable", "file-world-writable", "file-group-writable"],
)
def test_a_file_others_may_write_is_never_read(
    theme: Path,
    tmp_path: Path,
    compiled: list[str],
    monkeypatch: pytest.MonkeyPatch,
    untrust: Callable[[Path], None],
) -> None:
    untrust(_kept(theme, tmp_path / "cache"))
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})
    assert _render(_environment(theme, tmp_path / "cache")) == "<h1>Lesson 8</h1>"
    assert compiled == ["main.html", "main.html"]


def test_a_link_or_another_users_file_is_never_read(
    theme: Path, tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = _kept(theme, tmp_path / "cache")
    elsewhere = tmp_path / "planted"
    stored.rename(elsewhere)
    stored.symlink_to(elsewhere)
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})
    _render(_environment(theme, tmp_path / "cache"))
    stored.unlink()
    elsewhere.rename(stored)
    owner = stored.stat().st_uid
    monkeypatch.setattr("macros.build.compiled_templates.os.getuid", lambda: owner + 1)
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})
    _render(_environment(theme, tmp_path / "cache"))
    assert compiled == ["main.html", "main.html", "main.html"]
