"""`make audit`: every page of the built site against its budgets (tools/budgets.yml), in Lighthouse.

The site is served as its host serves it (`tools.serve`: gzipped, under site_url's path) and
every page of its sitemap (the home page, every lesson, the glossary: found, not listed) goes
through Lighthouse (npm's, pinned in package.json; Debian's Chromium), mobile, `runs` times,
the pages taking turns so that a busy moment of the machine does not fall on one page alone.
For each page it prints the median of the four scores (and the range of performance, the one
that varies), the bytes transferred, and the bytes of our own JavaScript and CSS it loads
(docs/assets/, gzipped), and it fails when a median falls below its score by more than the
noise measured for it, a page transfers more than its budget, a page asks another host for
anything, or the script and style every page loads (mkdocs.yml's extra_javascript and
extra_css) take more than theirs; what a page loads beyond them counts in its bytes.

Accessibility is also checked by axe on every page, in both palettes, by the browser tests
(tests/browser/test_pages.py, in `make test`); Lighthouse's accessibility score runs axe too.

`--beside DIR` audits another build of the site in the same run, page for page, turn for
turn (such as main's, to compare a change with what it changes, on the same machine at the
same time): Lighthouse's performance on a shared machine moves with its load, so only numbers
measured side by side compare.

Run it as `python -m tools.audit SITE_DIR [--beside DIR] [--runs N]`; it exits 1 on a budget
missed, 2 when it cannot run.

Why not Lighthouse CI (`@lhci/cli` 0.15.1, evaluated here in December 2026): it runs Lighthouse
several times and asserts medians, minimum category scores, resource budgets and a count of
third-party requests, as this module does, but it bundles its own Lighthouse (12.6.1, where
package.json pins 12.8.2 with the Chromium the tests use) and 165 MB of packages, and it cannot do
four things the course's budgets need: find the pages in the site's sitemap (it takes a list of
addresses), take turns across pages and across two builds so that `--beside` compares like with
like on a shared machine, hold a score to its page's measured noise rather than a fixed minimum,
or count the bytes of the course's own scripts and styles apart from Material's (its budgets know
resource types and third parties, not folders). What it would replace (the median and the score
and byte comparisons, some sixty lines here) is the small part; the rest would stay beside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit
from xml.etree import ElementTree

from macros.data.schema import (
    Fields,
    SchemaError,
    check_record,
    integer,
    list_of,
    load_yaml,
    optional,
    positive_count,
    text,
)
from tools.serve import site_server

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = Path(__file__).with_name("budgets.yml")
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
#: Chromium as root in a container, with nothing that reaches for Google's services on its own.
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
    " --disable-sync --no-first-run --disable-quic"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: Our own files a page may load: what docs/ holds of these kinds.
OWN_KINDS = (".js", ".css")


def _score(value: Any) -> int:
    """A score out of 100, 0 to 100."""
    number = integer(value)
    if not 0 <= number <= 100:
        raise ValueError(f"got {value!r}; expected a score from 0 to 100")
    return number


def _scores(value: Any) -> dict[str, int]:
    return check_record("scores", value, dict.fromkeys(CATEGORIES, _score), noun="category")


def check_record_of(fields: Fields) -> Callable[[Any], dict[str, Any]]:
    """A type function for a nested record of `fields`."""
    return lambda value: check_record("allowance", value, fields)


def _audit(value: Any) -> str:
    """A Lighthouse audit of a category, as "category: audit-id"."""
    category, _, audit = text(value).partition(":")
    if category not in CATEGORIES or not audit.strip():
        raise ValueError(f"got {value!r}; expected a category ({', '.join(CATEGORIES)}), a colon and an audit's id")
    return f"{category}: {audit.strip()}"


@dataclass(frozen=True)
class Budgets:
    """What every page is held to (tools/budgets.yml)."""

    scores: Mapping[str, int]
    noise: Mapping[str, int]
    runs: int
    #: Lighthouse's measure of the machine's speed below which a run's performance is not judged.
    min_benchmark: int
    transferred: int
    own_assets: int
    #: Bytes a page may transfer beyond `transferred` while a known cause is being fixed (`allowance_why`).
    allowance: int = 0
    allowance_why: str = ""
    #: Audits that miss for a known reason being fixed elsewhere, as "category: audit-id": scored as passed.
    known: frozenset[str] = frozenset()


def load_budgets(path: Path = BUDGETS) -> Budgets:
    """The budgets in `path`.

    Raises:
        SchemaError: a field is missing, unknown or out of range.
    """
    data = load_yaml(path.read_text(encoding="utf-8"), path.name)
    fields: Fields = {
        "scores": _scores,
        "noise": _scores,
        "runs": positive_count,
        "min_benchmark": positive_count,
        "transferred": positive_count,
        "own_assets": positive_count,
        "known": optional(list_of(_audit), ()),
        "allowance": optional(check_record_of({"bytes": positive_count, "why": text}), None),
    }
    clean = check_record(path.name, data, fields)
    allowance = clean.pop("allowance") or {"bytes": 0, "why": ""}
    known = frozenset(clean.pop("known"))
    return Budgets(**clean, known=known, allowance=allowance["bytes"], allowance_why=allowance["why"])


@dataclass(frozen=True)
class Run:
    """What one Lighthouse run found on one page."""

    #: Each category's score, out of 100.
    scores: Mapping[str, int]
    #: Bytes transferred in all (Lighthouse's total byte weight).
    transferred: int
    #: Every host the page asked for something, as host:port.
    hosts: frozenset[str]
    #: The paths, under the site's, of the scripts and style sheets it loaded.
    assets: tuple[str, ...]
    #: Lighthouse's measure of this machine's speed at the time (higher is faster).
    benchmark: float
    #: What cost a category points: its audits (and metrics) that did not score full marks.
    missed: frozenset[str] = frozenset()


def read_report(report: Mapping[str, Any], site_address: str, known: frozenset[str] = frozenset()) -> Run:
    """The run a Lighthouse JSON report describes, for a site served at `site_address`.

    A category's score is Lighthouse's, the mean of its audits' scores by their weights, with
    each `known` audit counted as passed.
    """
    categories = report["categories"]
    requests = report["audits"]["network-requests"]["details"]["items"]
    assets = []
    hosts = set()
    for request in requests:
        url = request["url"]
        if url.startswith("data:"):
            continue
        hosts.add(urlsplit(url).netloc)
        if url.startswith(site_address) and request.get("resourceType") in ("Script", "Stylesheet"):
            assets.append(urlsplit(url).path.removeprefix(urlsplit(site_address).path))
    missed = set()
    scores = {}
    for name in CATEGORIES:
        weighed = []
        for ref in categories[name]["auditRefs"]:
            score = report["audits"][ref["id"]].get("score")
            if ref["weight"] > 0 and score is not None:
                audit = f"{name}: {ref['id']}"
                if score < 1:
                    missed.add(audit)
                weighed.append((ref["weight"], 1 if audit in known else score))
        scores[name] = round(100 * sum(w * score for w, score in weighed) / sum(w for w, _ in weighed))
    return Run(
        scores=scores,
        transferred=int(report["audits"]["total-byte-weight"]["numericValue"]),
        hosts=frozenset(hosts),
        assets=tuple(assets),
        benchmark=float(report["environment"]["benchmarkIndex"]),
        missed=frozenset(missed),
    )


def own_assets(paths: Sequence[str], site_dir: Path, docs_dir: Path) -> dict[str, int]:
    """Of the assets a page loaded, ours (those docs/ holds), each with its size gzipped as served."""
    return {
        path: len(gzip.compress((site_dir / path).read_bytes(), mtime=0))
        for path in sorted(set(paths))
        if path.endswith(OWN_KINDS) and (docs_dir / path).is_file()
    }


@dataclass(frozen=True)
class PageResult:
    """A page's runs, summed up."""

    page: str
    #: Median scores; performance is None when no run was made on a machine fast enough to judge it.
    scores: Mapping[str, int | None]
    #: The performance of every run, judged or not.
    performance_range: tuple[int, int]
    transferred: int
    own: Mapping[str, int]
    foreign_hosts: frozenset[str]
    benchmark: float
    #: What cost points in any run (see `Run.missed`).
    missed: frozenset[str] = frozenset()

    def problems(self, budgets: Budgets) -> list[str]:
        """Each budget this page misses, in words."""
        found = []
        for name in CATEGORIES:
            score = self.scores[name]
            if score is not None and score < budgets.scores[name] - budgets.noise[name]:
                found.append(f"{name} {score} is below {budgets.scores[name]} by more than its noise")
        if self.transferred > budgets.transferred + budgets.allowance:
            allowed = f" and its allowance of {budgets.allowance:,}" if budgets.allowance else ""
            found.append(f"transfers {self.transferred:,} bytes, over its budget of {budgets.transferred:,}{allowed}")
        if self.foreign_hosts:
            found.append(f"asks another host: {', '.join(sorted(self.foreign_hosts))}")
        return found


def summarize(
    page: str, runs: Sequence[Run], site_address: str, own: Mapping[str, int], min_benchmark: float = 0
) -> PageResult:
    """A page's median scores (a score is whole: the lower middle of an even number of runs), and the rest.

    Performance is the median of the runs made while the machine was at least `min_benchmark` fast,
    or None when there is none: Lighthouse simulates a slow phone by scaling the time each task took
    here, so a run on a busy machine measures the machine.
    """
    scores: dict[str, int | None] = {
        name: int(statistics.median_low(run.scores[name] for run in runs)) for name in CATEGORIES
    }
    judged = [run.scores["performance"] for run in runs if run.benchmark >= min_benchmark]
    scores["performance"] = int(statistics.median_low(judged)) if judged else None
    performance = [run.scores["performance"] for run in runs]
    here = urlsplit(site_address).netloc
    return PageResult(
        page=page,
        scores=scores,
        performance_range=(min(performance), max(performance)),
        transferred=int(statistics.median_low(run.transferred for run in runs)),
        own=own,
        foreign_hosts=frozenset(host for run in runs for host in run.hosts if host != here),
        benchmark=statistics.median(run.benchmark for run in runs),
        missed=frozenset(item for run in runs for item in run.missed),
    )


def sitemap_pages(site_dir: Path, site_url: str) -> list[str]:
    """Every page of the built site's sitemap, as a path under the site's: "", "glossary/", "stage-4/…/"."""
    tree = ElementTree.parse(site_dir / "sitemap.xml")
    locations = [element.text or "" for element in tree.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    return [location.removeprefix(site_url) for location in locations if location.startswith(site_url)]


def lighthouse(url: str) -> dict[str, Any]:
    """One Lighthouse run of `url`, mobile, in a fresh Chromium profile: its JSON report."""
    command = [
        str(LIGHTHOUSE),
        url,
        f"--chrome-flags={CHROME_FLAGS}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--output=json",
        "--output-path=stdout",
        "--quiet",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env={**os.environ, "CHROME_PATH": CHROME}, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"Lighthouse failed on {url}: {done.stderr.strip()[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    if report.get("runtimeError"):
        raise RuntimeError(f"Lighthouse could not load {url}: {report['runtimeError']}")
    return report


def _turns(pages: Sequence[str], sites: Sequence[str], runs: int) -> Iterator[tuple[int, str, int]]:
    """(run, page, site) in the order to measure them: each run goes over every page, each page over every site."""
    for run in range(runs):
        for page in pages:
            for site in range(len(sites)):
                yield run, page, site


def _table(results: Sequence[tuple[str, PageResult]]) -> str:
    header = f"{'page':<58} {'site':<7} perf (range)  a11y  b.p.  seo  transferred  ours gz  benchmark"
    lines = [header, "-" * len(header)]
    for label, result in results:
        low, high = result.performance_range
        performance = "–" if result.scores["performance"] is None else result.scores["performance"]
        lines.append(
            f"{result.page or '(home)':<58.58} {label:<7} {performance:>4} ({low:>3}–{high:<3})"
            f"  {result.scores['accessibility']:>4}  {result.scores['best-practices']:>4}  {result.scores['seo']:>3}"
            f"  {result.transferred:>11,}  {sum(result.own.values()):>7,}  {result.benchmark:>9,.0f}"
        )
    return "\n".join(lines)


def measure(
    pages: Sequence[str], addresses: Sequence[str], labels: Sequence[str], runs: int, budgets: Budgets
) -> dict[tuple[str, int], list[Run]]:
    """Every page of every site (by its index in `addresses`) `runs` times, taking turns; then, for a page
    whose runs were made on a busy machine, as many again, until it has `runs` fast ones.

    Raises:
        RuntimeError, subprocess.TimeoutExpired: Lighthouse failed.
    """
    found: dict[tuple[str, int], list[Run]] = {}

    def run_once(page: str, site: int, what: str) -> None:
        print(f"{what}: {labels[site]} {page or '(home)'}", file=sys.stderr, flush=True)
        report = lighthouse(urljoin(addresses[site], page))
        found.setdefault((page, site), []).append(read_report(report, addresses[site], budgets.known))

    total = runs * len(pages) * len(addresses)
    for done, (run, page, site) in enumerate(_turns(pages, addresses, runs), start=1):
        run_once(page, site, f"[{done}/{total}] run {run + 1}")
    for (page, site), page_runs in found.items():
        while sum(run.benchmark >= budgets.min_benchmark for run in page_runs) < runs and len(page_runs) < 2 * runs:
            run_once(page, site, "again, as the machine was busy")
    return found


def main(argv: list[str] | None = None) -> int:
    from mkdocs.config import load_config

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site_dir", type=Path, help="the built site (make build writes site/)")
    parser.add_argument("--beside", type=Path, help="another build of the site, audited in the same run")
    parser.add_argument("--runs", type=int, help="runs of each page (default: budgets.yml's)")
    parser.add_argument("--page", help="audit only the pages whose path contains this text")
    parser.add_argument("--raw", type=Path, help="write every run's numbers to this JSON file")
    args = parser.parse_args(argv)
    try:
        budgets = load_budgets()
    except SchemaError as error:
        print(f"tools/{error}", file=sys.stderr)
        return 2
    if not LIGHTHOUSE.exists():
        print(f"{LIGHTHOUSE} not found: install it with `npm ci` (make audit does)", file=sys.stderr)
        return 2
    config = load_config(str(ROOT / "mkdocs.yml"))
    site_url, docs_dir = str(config.site_url), Path(config.docs_dir)
    dirs = [args.site_dir, *([args.beside] if args.beside else [])]
    labels = ["site", "beside"][: len(dirs)]
    pages = [page for page in sitemap_pages(args.site_dir, site_url) if args.page is None or args.page in page]
    runs = args.runs or budgets.runs
    try:
        with ExitStack() as stack:
            addresses = [stack.enter_context(site_server(directory, site_url)) for directory in dirs]
            found = measure(pages, addresses, labels, runs, budgets)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        print(error, file=sys.stderr)
        return 2
    if args.raw:
        raw = [
            {"page": page, "site": labels[site], **dataclasses.asdict(run), "hosts": sorted(run.hosts)}
            for (page, site), page_runs in found.items()
            for run in page_runs
        ]
        args.raw.write_text(json.dumps(raw, indent=1, default=sorted), encoding="utf-8")
    results = []
    for page in pages:
        for site, directory in enumerate(dirs):
            page_runs = found[(page, site)]
            own = own_assets([path for run in page_runs for path in run.assets], directory, docs_dir)
            results.append((labels[site], summarize(page, page_runs, addresses[site], own, budgets.min_benchmark)))
    print(f"Lighthouse, mobile, median of {runs} run(s) per page; bytes gzipped as served.")
    print(_table(results))
    print("axe: every page, light and dark, in tests/browser/test_pages.py (make test).")
    for label, result in results:
        if result.missed:
            print(f"{result.page or '(home)'} ({label}) lost points on: {', '.join(sorted(result.missed))}")
    problems = [
        f"{result.page or '(home)'}: {problem}"
        for label, result in results
        if label == "site"
        for problem in result.problems(budgets)
    ]
    over = [result for label, result in results if label == "site" and result.transferred > budgets.transferred]
    if over and budgets.allowance:
        print(f"ALLOWED {len(over)} page(s) over {budgets.transferred:,} bytes: {budgets.allowance_why}")
    elif budgets.allowance:
        print("NOTE no page needs tools/budgets.yml's allowance any more: take it out")
    everywhere = own_assets(
        [str(path) for path in (*config.extra_javascript, *config.extra_css)], args.site_dir, docs_dir
    )
    print(f"Our script and style on every page (mkdocs.yml's extra_*): {sum(everywhere.values()):,} bytes gzipped.")
    if sum(everywhere.values()) > budgets.own_assets:
        problems.append(
            f"our script and style on every page take {sum(everywhere.values()):,} bytes gzipped,"
            f" over their budget of {budgets.own_assets:,}"
        )
    missed = {item for label, result in results if label == "site" for item in result.missed}
    for audit in sorted(budgets.known):
        if audit in missed:
            print(f"known miss, scored as passed (tools/budgets.yml): {audit}")
        else:
            print(f"NOTE {audit} passes on every page now: take it out of tools/budgets.yml's known misses")
    for label, result in results:
        if label == "site" and result.scores["performance"] is None:
            print(
                f"NOT JUDGED {result.page or '(home)'}: performance, every run was made while the machine was busy"
                f" (Lighthouse's benchmark below {budgets.min_benchmark:,}); run make audit again on a quiet machine"
            )
    for problem in problems:
        print(f"FAIL {problem}")
    if not problems:
        print(f"Every page of {args.site_dir} is within its budgets.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
