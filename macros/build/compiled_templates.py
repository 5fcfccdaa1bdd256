"""The theme's templates, compiled by Jinja once and kept between builds.

Every MkDocs build makes a new Jinja environment for the theme, which compiles
Material's templates again: about a sixth of a rebuild under `mkdocs serve` and
of a small course's `mkdocs build`. `CompiledTemplates` is a Jinja bytecode cache
that keeps them in memory, for the builds of one process (`mkdocs serve`'s
rebuilds, the tests' copies of the course), and in a folder, for the next process.

Compiled code runs in the build, so the folder is never one that a commit can
fill: it is the user's own cache folder (`cache_root`: `$XDG_CACHE_HOME`, else
`~/.cache`), never a folder inside the checkout (where a pull request could add
a file, whatever `.gitignore` says), and a file is read only from a folder that
belongs to the user and that no one else can write (`_trusted`).

Jinja keys each template by its name and file, and checks the source it was
compiled from before using it, so an edited template is compiled anew. What
Jinja does not check is the environment it was compiled in (its extensions,
syntax options, filters and tests, the versions of Jinja and Python): those
name the cache's folder (`fingerprint`), so that an environment set up
otherwise never reads another's code. The cache is only ever a shortcut: a
folder that cannot be written or read leaves the build to compile as it would
without it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import sys
import tempfile
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

log = logging.getLogger("mkdocs.plugins.macros.compiled_templates")

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


def _pass_arg(function: object) -> str:
    """What a filter, test or finalize function asks Jinja to pass it first (context, environment, ...), if
    anything: the compiled call passes it."""
    pass_arg = getattr(function, "jinja_pass_arg", None)
    return pass_arg.name if pass_arg is not None else "-"


def fingerprint(env: jinja2.Environment) -> str:
    """A short hash of what, beside a template's source, decides its compiled code in `env`.

    Jinja's and Python's versions, the environment's code generator, extensions (by class)
    and syntax options, whether it autoescapes, how it finalizes, and its filters and tests
    by name with what each is passed: a call to each is compiled in, or a failure where
    one is missing.

    Raises:
        ValueError: `env` decides autoescaping by a function of the template's name, whose
            answers are compiled in and cannot be told apart by a fingerprint.
    """
    if not isinstance(env.autoescape, bool):
        raise ValueError("an environment whose autoescape is a function cannot share compiled templates")
    extensions = sorted(f"{type(ext).__module__}.{type(ext).__qualname__}" for ext in env.extensions.values())
    settings = [repr(getattr(env, name)) for name in _COMPILER_SETTINGS]
    generator = env.code_generator_class
    facts = [
        jinja2.__version__,
        sys.version,
        f"{generator.__module__}.{generator.__qualname__}",
        *extensions,
        *settings,
        f"autoescape={env.autoescape}",
        f"finalize={_pass_arg(env.finalize) if env.finalize is not None else None}",
        *(f"filter {name} {_pass_arg(function)}" for name, function in sorted(env.filters.items())),
        *(f"test {name} {_pass_arg(function)}" for name, function in sorted(env.tests.items())),
    ]
    return hashlib.sha256("\n".join(facts).encode()).hexdigest()[:16]


#: The cache's folder under the user's cache folder.
CACHE_FOLDER = Path("scale-by-the-numbers", "templates")


def cache_root(project_dir: Path) -> Path | None:
    """Where the course in `project_dir` keeps compiled templates: `CACHE_FOLDER` in the user's cache folder
    (`$XDG_CACHE_HOME` if it is an absolute path, else `~/.cache`; `%LOCALAPPDATA%` on Windows); None, for no
    folder at all, where there is no such folder or it is inside the project, where a commit can put files."""
    base = os.environ.get("LOCALAPPDATA" if os.name == "nt" else "XDG_CACHE_HOME", "")
    try:
        root = (Path(base) if Path(base).is_absolute() else Path.home() / ".cache").resolve() / CACHE_FOLDER
    except (RuntimeError, OSError):  # no home folder
        return None
    project = project_dir.resolve()
    return None if root == project or project in root.parents else root


def _trusted(path: Path, kind: int) -> bool:
    """Whether `path` is a file or folder (`kind`, a `stat.S_IF*`) of its own, not a link, that belongs to the
    user running the build and that no one else may write."""
    try:
        status = path.lstat()
    except OSError:
        return False
    if stat.S_IFMT(status.st_mode) != kind:
        return False
    getuid = getattr(os, "getuid", None)  # POSIX; elsewhere the user's own folder is all there is to go by
    return getuid is None or (status.st_uid == getuid() and not status.st_mode & 0o022)


class CompiledTemplates(BytecodeCache):
    """A Jinja bytecode cache for one environment, in memory and in a folder of `root` named by the
    environment's fingerprint (created when first written).

    Build one per environment, with `for_environment`.
    """

    def __init__(self, root: Path, environment_fingerprint: str) -> None:
        self.folder = root / environment_fingerprint
        self.fingerprint = environment_fingerprint

    @classmethod
    def for_environment(cls, env: jinja2.Environment, root: Path) -> CompiledTemplates | None:
        """The cache for `env`, kept under `root`; None for an environment that cannot share compiled code."""
        try:
            return cls(root, fingerprint(env))
        except ValueError as error:
            log.debug("templates compiled at every build: %s", error)
            return None

    def load_bytecode(self, bucket: Bucket) -> None:
        """Fill `bucket` with the code kept for its template, if any; Jinja drops code of another source."""
        code = _MEMORY.get((self.fingerprint, bucket.key))
        if code is None:
            path = self.folder / bucket.key
            if not (_trusted(self.folder, stat.S_IFDIR) and _trusted(path, stat.S_IFREG)):
                return
            try:
                code = path.read_bytes()
            except OSError:
                return
        try:
            bucket.bytecode_from_string(code)
        except Exception:  # a damaged file, whatever unpickling it raised: compile anew
            log.debug("%s: damaged, compiled anew", self.folder / bucket.key)
            bucket.reset()
        if bucket.code is not None:
            _MEMORY[(self.fingerprint, bucket.key)] = code

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Keep the code Jinja compiled for `bucket`'s template, in memory and in the folder."""
        code = bucket.bytecode_to_string()
        _MEMORY[(self.fingerprint, bucket.key)] = code
        # A folder that cannot be written (read-only, full) leaves the next process to compile again.
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
        except OSError as error:
            log.debug("compiled templates not kept on disk: %s", error)
            return
        # Written whole, then renamed: a build running beside this one reads the old file or the new.
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(code)
            os.replace(temporary, self.folder / bucket.key)
        except OSError as error:
            log.debug("compiled templates not kept on disk: %s", error)
            Path(temporary).unlink(missing_ok=True)
