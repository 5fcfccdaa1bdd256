"""How fast the course builds, beside plain Material on the same Markdown (`make bench`).

For each size (2, 30 and 100 lessons by default) this writes a synthetic course
into a temporary folder, copies of Lesson 8 renumbered so that the build takes
them as distinct lessons, then builds it in fresh processes, as an author's
`mkdocs build` does, in turns: as the course (macros, quizzes, checks) and as
plain Material, with the same Markdown and without the course's macros plugin
and extensions. It prints the median CPU time of each and the median ratio of
the pairs, the number the course's budget is set in (≤ 1.2×), then the wall time
of the real course's build, of an author's save → reload under `mkdocs serve`
(in Chromium), and of `make test`'s pytest run.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SEED = "docs/stage-4/lesson-08-why-data-parallelism-alone-runs-out-of-memory.md"
_ENVIRONMENT = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_build(project: Path, site_dir: Path, environment: dict[str, str] = _ENVIRONMENT) -> tuple[float, float]:
    """CPU and wall seconds of one `mkdocs build --strict` of `project`, in a fresh process with `environment`."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site_dir)]
    cpu, wall = _child_cpu(), time.perf_counter()
    subprocess.run(command, cwd=project, env=environment, check=True)
    return _child_cpu() - cpu, time.perf_counter() - wall


def synthetic_course(target: Path, lessons: int) -> None:
    """A copy of the course whose only lessons are `lessons` renumbered copies of Lesson 8."""
    target.mkdir(parents=True)
    for name in ("mkdocs.yml", "docs", "macros", "catalog", "overrides", "glossary"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target / name)
    seed = (ROOT / SEED).read_text(encoding="utf-8")
    for stage in (target / "docs").glob("stage-*"):
        shutil.rmtree(stage)
    folder = target / "docs" / "stage-4"
    folder.mkdir()
    names = []
    for number in range(1, lessons + 1):
        text = re.sub(r"(?m)^lesson: 8$", f"lesson: {number}", seed)
        text = re.sub(
            r"(?m)^prerequisites: \[7\]$", f"prerequisites: [{number - 1}]" if number > 1 else "prerequisites: []", text
        )
        text = text.replace("l8-", f"l{number}-").replace("Lesson 8.", f"Lesson {number}.")
        text = re.sub(r"\[Lesson 7\]\([^)]*\)", "Lesson 7", text)
        names.append(f"stage-4/lesson-{number:03d}.md")
        (target / "docs" / names[-1]).write_text(text, encoding="utf-8")
    config = (target / "mkdocs.yml").read_text(encoding="utf-8")
    nav = "nav:\n  - Home: index.md\n  - Stage 4:\n" + "".join(f"      - {name}\n" for name in names)
    nav += "  - Glossary: glossary.md\n"
    (target / "mkdocs.yml").write_text(re.sub(r"(?ms)^nav:.*", nav, config), encoding="utf-8")


def plain_material(project: Path) -> None:
    """Turn a course copy into plain Material: the same Markdown, none of the course's plugins or extensions."""
    path = project / "mkdocs.yml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["plugins"] = ["search"]
    config["markdown_extensions"] = [
        extension for extension in config["markdown_extensions"] if not str(extension).startswith("macros")
    ]
    config.pop("extra", None)
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def compare(lessons: int, runs: int) -> str:
    """One line: the course and plain Material at `lessons` lessons, median CPU seconds of each and the median
    ratio of the pairs.

    The course compiles the theme's templates at every build here, as plain Material does: its cache of
    them (in the user's cache folder, here one of its own) saves both the same work, so the ratio counts only
    what the course adds.
    """
    with tempfile.TemporaryDirectory() as work:
        course, plain = Path(work, "course"), Path(work, "plain")
        user_cache = Path(work, "user-cache")
        environment = {**_ENVIRONMENT, "XDG_CACHE_HOME": str(user_cache)}
        synthetic_course(course, lessons)
        shutil.copytree(course, plain)
        plain_material(plain)

        def build_course() -> float:
            shutil.rmtree(user_cache, ignore_errors=True)
            return time_build(course, course / "site", environment)[0]

        build_course(), time_build(plain, plain / "site")  # warm the file cache
        # In turns, one of each: a machine whose speed drifts (a shared one) moves both alike.
        pairs = [(build_course(), time_build(plain, plain / "site")[0]) for _ in range(runs)]
    ours, theirs = (statistics.median(times) for times in zip(*pairs, strict=True))
    ratio = statistics.median(a / b for a, b in pairs)
    return f"{lessons:>4} lessons: course {ours:.2f} s, plain Material {theirs:.2f} s CPU: {ratio:.2f}×"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def reload_times(saves: int, plain: bool = False) -> list[float]:
    """Seconds from saving Lesson 8 to the open page showing the change, under `mkdocs serve`, `saves` times.

    A copy of the course is served as `make serve` serves it; Chromium keeps the
    lesson open; each save appends a new sentence, and the time is taken when the
    page shows it.
    """
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    times = []
    with tempfile.TemporaryDirectory() as work:
        project = Path(work, "course")
        synthetic_course(project, 2)
        if plain:
            plain_material(project)
        lesson = project / "docs" / "stage-4" / "lesson-002.md"
        port = _free_port()
        command = [
            sys.executable,
            "-m",
            "mkdocs",
            "serve",
            "--no-strict",
            "--livereload",
            "--dev-addr",
            f"127.0.0.1:{port}",
        ]
        server = subprocess.Popen(
            command, cwd=project, env=_ENVIRONMENT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page()
                for _ in range(100):  # until the server answers
                    try:
                        page.goto(f"http://127.0.0.1:{port}/course/stage-4/lesson-002/")
                        break
                    except Exception:
                        time.sleep(0.2)
                for save in range(saves):
                    marker = f"Saved for the {save}th time."
                    start = time.perf_counter()
                    lesson.write_text(lesson.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")
                    page.wait_for_function(f"document.body.innerText.includes({marker!r})", timeout=60_000)
                    times.append(time.perf_counter() - start)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed builds of each after one warm-up (default 3)")
    parser.add_argument("--lessons", type=int, nargs="*", default=[2, 30, 100], help="synthetic course sizes")
    parser.add_argument("--no-tests", action="store_true", help="skip timing the test suite")
    parser.add_argument("--no-reload", action="store_true", help="skip timing save → reload under mkdocs serve")
    arguments = parser.parse_args()
    for lessons in arguments.lessons:
        print(compare(lessons, arguments.runs), flush=True)
    with tempfile.TemporaryDirectory() as site:
        time_build(ROOT, Path(site))
        walls = sorted(time_build(ROOT, Path(site))[1] for _ in range(arguments.runs))
    print(f"the course's own build: median {statistics.median(walls):.2f} s wall", flush=True)
    if not arguments.no_reload:
        ours = statistics.median(reload_times(arguments.runs + 2))
        theirs = statistics.median(reload_times(arguments.runs + 2, plain=True))
        print(
            f"save → reloaded page under mkdocs serve: course {ours:.2f} s, plain Material {theirs:.2f} s", flush=True
        )
    if not arguments.no_tests:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            cwd=ROOT,
            env=_ENVIRONMENT,
            check=True,
            capture_output=True,
        )
        print(f"make test's pytest run: {time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
