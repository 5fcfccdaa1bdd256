"""A pull request cannot run code in a build through the compiled-template cache: nothing in the checkout is read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import material
import pytest
from jinja2.bccache import Bucket
from mkdocs.config import load_config

from macros.build import compiled_templates
from macros.build.compiled_templates import CompiledTemplates, fingerprint
from tests.conftest import build_copy


def test_compiled_code_planted_in_the_checkout_never_runs(
    course_copy: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The attack: a commit adds `.cache/templates/<fingerprint>/<key>`, code for Material's base template with
    that template's own checksum, where the cache was kept in the checkout (`.gitignore` stops no commit)."""
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})  # a new process: nothing compiled yet
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    marker = tmp_path / "pwned"
    env = load_config(str(course_copy / "mkdocs.yml")).theme.get_env()
    base = Path(material.__file__).parent / "templates" / "base.html"
    source = base.read_text(encoding="utf-8")
    bucket = Bucket(env, "", hashlib.sha1(source.encode("utf-8")).hexdigest())
    bucket.code = compile(f"open({str(marker)!r}, 'w').write('ran')", str(base), "exec")
    key = CompiledTemplates(tmp_path, fingerprint(env)).get_cache_key("base.html", str(base))
    for root in (course_copy / ".cache" / "templates", course_copy / "docs" / ".cache"):
        planted = root / fingerprint(env) / key
        planted.parent.mkdir(parents=True)
        planted.write_bytes(bucket.bytecode_to_string())
    assert build_copy(course_copy).ok
    assert not marker.exists(), "the planted code ran"
