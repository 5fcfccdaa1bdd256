"""How fast the course builds, beside plain Material on the same Markdown (`make bench`).

For each size (13 and 50 lessons by default: the course's, and a course four
times its size) this writes a synthetic course into a temporary folder, copies
of Lesson 8 renumbered so that the build takes them as distinct lessons, then
builds it in fresh processes, as an author's `mkdocs build` does, in turns: as
the course (macros, quizzes, checks) and as plain Material fed the same Markdown
after the course's macros have expanded it (`expand_macros`), without the
course's plugin and extensions. It prints the median CPU time of each and the median ratio of
the pairs, the number the course's budget is set in (≤ 1.2×), then the wall time
of the real course's build, of an author's save → reload under `mkdocs serve`
(in Chromium) for each kind of edit (a lesson, the catalog, the glossary, the
package's Python) paired with plain Material's lesson edit, and of `make test`'s
pytest run.
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
        # Links to the other lessons, which the synthetic course does not have, keep their words only.
        text = re.sub(r"\[([^\]]*)\]\((?:\.\./stage-\d+/)?lesson-[^)]*\.md(?:#[^)]*)?\)", r"\1", text)
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


def expand_macros(course: Path, plain: Path) -> None:
    """Give plain Material the course's pages as the course's Markdown extension reads them: each page's macro
    calls expanded to the HTML they make, so that both builds convert the same content and the ratio counts
    only the course's own work (its macros, quizzes and checks). The course is built once, in a process of its
    own (`--expand-into`), and each page's expanded Markdown written over plain's copy."""
    command = [sys.executable, "-m", "tests.benchmark", "--expand-into", str(plain / "docs")]
    # This module from the repository; the course's package and configuration from the copy, its folder.
    environment = {**_ENVIRONMENT, "PYTHONPATH": str(ROOT)}
    subprocess.run(command, cwd=course, env=environment, check=True, stdout=subprocess.DEVNULL)


def _expand_into(docs: Path) -> None:
    """Build the course in this folder, writing each page as its macros expanded it (front matter kept) in `docs`.

    What a macro made stands in the Markdown as a token for its HTML (`macros.build.state.TOKEN`); here the
    token becomes the HTML itself, as raw HTML in the Markdown."""
    sys.path.insert(0, os.getcwd())  # this course's own package, as mkdocs-macros imports it
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from macros.build import state

    render = state.Build.render

    def expanding(self: state.Build, markdown: str) -> str:
        rendered = render(self, markdown)
        page = self.page
        if page is not None:
            expanded = state.TOKEN.sub(lambda token: page.html[int(token.group(1))][0], rendered)
            front_matter = page.source[: len(page.source) - len(markdown)] if page.source.endswith(markdown) else ""
            target = docs / page.src_path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(front_matter + expanded, encoding="utf-8")
        return rendered

    state.Build.render = expanding  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as site:
        build(load_config("mkdocs.yml", site_dir=site))


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
        expand_macros(course, plain)

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


#: The edits an author makes, each to a file of the course's copy, and a sentence or comment appended to it.
EDITS = {
    "lesson": ("docs/stage-4/lesson-002.md", "\n\nSaved for the {n}th time.\n"),
    "catalog": ("catalog/models.yml", "\n# saved for the {n}th time\n"),
    "glossary": ("glossary/terms.yml", "\n# saved for the {n}th time\n"),
    "python": ("macros/model/memory.py", "\n# saved for the {n}th time\n"),
}


def _serve(project: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`project` served as `make serve` serves it, on a free port."""
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
        command, cwd=project, env=_ENVIRONMENT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return server, port


def reload_pairs(saves: int) -> dict[str, list[tuple[float, float]]]:
    """Seconds from a save to the open page reloaded, for each kind of edit (`EDITS`) to the course, each paired
    with a lesson edit to plain Material on the same Markdown, in turns: a machine whose speed drifts moves both.

    Two copies are served as `make serve` serves them; Chromium keeps each one's lesson open; the time is taken
    when the page has been replaced (a mark set on it is gone) and has loaded.
    """
    from playwright.sync_api import Page, sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    def reloaded(page: Page, path: Path, addition: str) -> float:
        page.evaluate("window.__sbnMark = true")
        start = time.perf_counter()
        path.write_text(path.read_text(encoding="utf-8") + addition, encoding="utf-8")
        page.wait_for_function("!window.__sbnMark && document.readyState === 'complete'", timeout=60_000, polling=20)
        return time.perf_counter() - start

    pairs: dict[str, list[tuple[float, float]]] = {kind: [] for kind in EDITS}
    with tempfile.TemporaryDirectory() as work:
        course, plain = Path(work, "course"), Path(work, "plain")
        synthetic_course(course, 2)
        synthetic_course(plain, 2)
        plain_material(plain)
        servers = [_serve(course), _serve(plain)]
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                pages = []
                for _, port in servers:
                    page = browser.new_page()
                    for _ in range(150):  # until the server answers
                        try:
                            page.goto(f"http://127.0.0.1:{port}/course/stage-4/lesson-002/")
                            break
                        except Exception:
                            time.sleep(0.2)
                    pages.append(page)
                lesson, addition = EDITS["lesson"]
                for save in range(saves + 1):  # the first pair warms both up
                    for kind, (name, text) in EDITS.items():
                        ours = reloaded(pages[0], course / name, text.format(n=save))
                        theirs = reloaded(pages[1], plain / lesson, addition.format(n=f"{kind} {save}"))
                        if save:
                            pairs[kind].append((ours, theirs))
                browser.close()
        finally:
            for server, _ in servers:
                server.terminate()
                server.wait(timeout=30)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed builds of each after one warm-up (default 3)")
    parser.add_argument("--lessons", type=int, nargs="*", default=[13, 50], help="synthetic course sizes")
    parser.add_argument("--no-tests", action="store_true", help="skip timing the test suite")
    parser.add_argument("--no-reload", action="store_true", help="skip timing save → reload under mkdocs serve")
    parser.add_argument("--expand-into", type=Path, help=argparse.SUPPRESS)  # `expand_macros`' own process
    arguments = parser.parse_args()
    if arguments.expand_into:
        _expand_into(arguments.expand_into)
        return
    for lessons in arguments.lessons:
        print(compare(lessons, arguments.runs), flush=True)
    with tempfile.TemporaryDirectory() as site:
        time_build(ROOT, Path(site))
        walls = sorted(time_build(ROOT, Path(site))[1] for _ in range(arguments.runs))
    print(f"the course's own build: median {statistics.median(walls):.2f} s wall", flush=True)
    if not arguments.no_reload:
        print("save → reloaded page under mkdocs serve, beside plain Material's lesson edit (budget ≤ 1.2×):")
        for kind, pairs in reload_pairs(arguments.runs + 2).items():
            ours, theirs = (statistics.median(times) for times in zip(*pairs, strict=True))
            ratio = statistics.median(a / b for a, b in pairs)
            print(f"  {kind:>8} edit: course {ours:.2f} s, plain Material {theirs:.2f} s: {ratio:.2f}×", flush=True)
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
