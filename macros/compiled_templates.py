"""The theme's templates, compiled by Jinja once and kept between builds.

Every MkDocs build makes a new Jinja environment for the theme, which compiles
Material's templates again: about a sixth of a rebuild under `mkdocs serve` and
of a small course's `mkdocs build`. `CompiledTemplates` is a Jinja bytecode cache
that keeps them in memory, for the builds of one process (`mkdocs serve`'s
rebuilds, the tests' copies of the course), and in a folder, for the next process.

Jinja keys each template by its name and file, and checks the source it was
compiled from before using it, so an edited template is compiled anew. What
Jinja does not check is the environment it was compiled in (its extensions and
syntax options, the versions of Jinja and Python): those name the cache's
folder (`fingerprint`), so that an environment set up otherwise never reads
another's code. The cache is only ever a shortcut: a folder that cannot be
written or read leaves the build to compile as it would without it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

#: Compiled templates by fingerprint and Jinja's key, for every build this process runs.
_MEMORY: dict[tuple[str, str], bytes] = {}

#: The environment settings that change the code Jinja compiles a template into.
_COMPILER_SETTINGS = (
    "block_start_string",
    "block_end_string",
    "variable_start_string",
    "variable_end_string",
    "comment_start_string",
    "comment_end_string",
    "line_statement_prefix",
    "line_comment_prefix",
    "trim_blocks",
    "lstrip_blocks",
    "newline_sequence",
    "keep_trailing_newline",
    "optimized",
    "is_async",
)


def fingerprint(env: jinja2.Environment) -> str:
    """A short hash of what, beside a template's source, decides its compiled code in `env`.

    Jinja's and Python's versions, the environment's extensions (by class) and syntax
    options, and whether it autoescapes or finalizes (which compile differently).
    """
    extensions = sorted(f"{type(ext).__module__}.{type(ext).__qualname__}" for ext in env.extensions.values())
    settings = [repr(getattr(env, name)) for name in _COMPILER_SETTINGS]
    facts = [
        jinja2.__version__,
        sys.version,
        *extensions,
        *settings,
        f"autoescape={env.autoescape if isinstance(env.autoescape, bool) else 'callable'}",
        f"finalize={env.finalize is not None}",
    ]
    return hashlib.sha256("\n".join(facts).encode()).hexdigest()[:16]


class CompiledTemplates(BytecodeCache):
    """A Jinja bytecode cache for one environment, in memory and in `folder` (created when first written).

    Build one per environment, with `for_environment`: its fingerprint keeps
    environments set up otherwise apart.
    """

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder / fingerprint
        self.fingerprint = fingerprint

    @classmethod
    def for_environment(cls, env: jinja2.Environment, folder: Path) -> CompiledTemplates:
        """The cache for `env`, kept under `folder`."""
        return cls(folder, fingerprint(env))

    def load_bytecode(self, bucket: Bucket) -> None:
        code = _MEMORY.get((self.fingerprint, bucket.key))
        if code is None:
            try:
                code = (self.folder / bucket.key).read_bytes()
            except OSError:
                return
        try:
            # Jinja resets the bucket if the code was compiled from another source or by another version.
            bucket.bytecode_from_string(code)
        except Exception:  # a damaged file, whatever unpickling it raised: compile anew
            bucket.reset()
        if bucket.code is not None:
            _MEMORY[(self.fingerprint, bucket.key)] = code

    def dump_bytecode(self, bucket: Bucket) -> None:
        code = bucket.bytecode_to_string()
        _MEMORY[(self.fingerprint, bucket.key)] = code
        # A folder that cannot be written (read-only, full) leaves the next process to compile again.
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
        except OSError:
            return
        # Written whole, then renamed: a build running beside this one reads the old file or the new.
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(code)
            os.replace(temporary, self.folder / bucket.key)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
