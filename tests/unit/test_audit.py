"""`make audit`'s reading of Lighthouse and its judgement against the budgets (tools/audit.py)."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path
from typing import Any

import pytest

from macros.data.schema import SchemaError
from tools.audit import BUDGETS as BUDGETS_FILE
from tools.audit import Budgets, Run, load_budgets, own_assets, read_report, sitemap_pages, summarize

SITE = "http://127.0.0.1:8001/course/"
BUDGETS = Budgets(
    scores={"performance": 100, "accessibility": 100, "best-practices": 100, "seo": 100},
    noise={"performance": 5, "accessibility": 0, "best-practices": 0, "seo": 0},
    runs=3,
    min_benchmark=1000,
    transferred=1000,
    own_assets=100,
)


def _report(requests: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The parts of a Lighthouse JSON report the audit reads: each category's audits, and their scores."""
    refs = {
        "performance": [{"id": "cumulative-layout-shift", "weight": 25}],
        "accessibility": [{"id": "aria-dialog-name", "weight": 7}, {"id": "color-contrast", "weight": 7}],
        "best-practices": [{"id": "errors-in-console", "weight": 1}],
        "seo": [{"id": "meta-description", "weight": 1}, {"id": "structured-data", "weight": 0}],
    }
    return {
        "categories": {name: {"auditRefs": audits} for name, audits in refs.items()},
        "audits": {
            "cumulative-layout-shift": {"score": 0.97},
            "aria-dialog-name": {"score": 0},
            "color-contrast": {"score": 1},
            "errors-in-console": {"score": 1},
            "meta-description": {"score": 1},
            "structured-data": {"score": None},
            "total-byte-weight": {"numericValue": 97850},
            "network-requests": {"details": {"items": requests or []}},
        },
        "environment": {"benchmarkIndex": 2570.5},
    }


def test_a_report_gives_the_scores_bytes_hosts_assets_and_what_lost_points() -> None:
    requests = [
        {"url": SITE + "stage-4/lesson-08/", "resourceType": "Document"},
        {"url": SITE + "assets/javascripts/course.js", "resourceType": "Script"},
        {"url": SITE + "assets/stylesheets/course.css", "resourceType": "Stylesheet"},
        {"url": "data:image/svg+xml;charset=utf-8,<svg/>", "resourceType": "Image"},
        {"url": "https://fonts.example.com/font.css", "resourceType": "Stylesheet"},
    ]
    run = read_report(_report(requests=requests), SITE)
    assert run.scores == {"performance": 97, "accessibility": 50, "best-practices": 100, "seo": 100}
    assert run.transferred == 97850
    assert run.hosts == {"127.0.0.1:8001", "fonts.example.com"}
    assert run.assets == ("assets/javascripts/course.js", "assets/stylesheets/course.css")
    assert run.missed == {"performance: cumulative-layout-shift", "accessibility: aria-dialog-name"}
    assert run.benchmark == 2570.5


def test_a_category_is_scored_as_lighthouse_scores_it_with_known_misses_passed() -> None:
    """Accessibility: two audits of the same weight, one failed."""
    assert read_report(_report(), SITE).scores["accessibility"] == 50
    assert read_report(_report(), SITE, frozenset({"accessibility: aria-dialog-name"})).scores["accessibility"] == 100
    assert read_report(_report(), SITE).scores["performance"] == 97  # one metric, of score 0.97


def _run(
    performance: int,
    transferred: int = 900,
    hosts: frozenset[str] = frozenset({"127.0.0.1:8001"}),
    benchmark: float = 2000.0,
) -> Run:
    scores = {"performance": performance, "accessibility": 100, "best-practices": 100, "seo": 100}
    return Run(scores, transferred, hosts, (), benchmark)


def test_a_page_takes_the_median_of_its_runs_and_passes_within_the_noise() -> None:
    result = summarize("", [_run(99), _run(80), _run(96)], SITE, {"assets/javascripts/course.js": 60})
    assert result.scores["performance"] == 96
    assert result.performance_range == (80, 99)
    assert result.problems(BUDGETS) == []


def test_an_even_number_of_runs_takes_the_lower_middle() -> None:
    assert summarize("", [_run(99), _run(94), _run(96), _run(100)], SITE, {}).scores["performance"] == 96


def test_a_page_below_its_budget_by_more_than_the_noise_fails() -> None:
    assert summarize("", [_run(94), _run(94), _run(100)], SITE, {}).problems(BUDGETS) == [
        "performance 94 is below 100 by more than its noise"
    ]


def test_performance_is_judged_on_the_runs_made_on_a_quiet_machine_only() -> None:
    runs = [_run(60, benchmark=400), _run(97, benchmark=2000), _run(70, benchmark=999), _run(99, benchmark=1000)]
    result = summarize("", runs, SITE, {}, min_benchmark=1000)
    assert result.scores["performance"] == 97
    assert result.performance_range == (60, 99)
    assert result.problems(BUDGETS) == []


def test_performance_on_a_busy_machine_alone_is_not_judged_and_the_rest_still_is() -> None:
    result = summarize("", [_run(60, transferred=1001, benchmark=400)], SITE, {}, min_benchmark=1000)
    assert result.scores["performance"] is None
    assert result.problems(BUDGETS) == ["transfers 1,001 bytes, over its budget of 1,000"]


def test_a_heavy_page_fails_on_its_bytes() -> None:
    result = summarize("", [_run(100, transferred=1001)], SITE, {"a.js": 600, "a.css": 410})
    assert result.problems(BUDGETS) == ["transfers 1,001 bytes, over its budget of 1,000"]


def test_an_allowance_lets_a_page_over_its_bytes_by_that_much_and_no_more() -> None:
    allowed = dataclasses.replace(BUDGETS, allowance=100, allowance_why="a known cause")
    assert summarize("", [_run(100, transferred=1100)], SITE, {}).problems(allowed) == []
    assert summarize("", [_run(100, transferred=1101)], SITE, {}).problems(allowed) == [
        "transfers 1,101 bytes, over its budget of 1,000 and its allowance of 100"
    ]


def test_a_request_to_another_host_fails() -> None:
    hosts = frozenset({"127.0.0.1:8001", "api.github.com"})
    assert summarize("", [_run(100, hosts=hosts)], SITE, {}).problems(BUDGETS) == ["asks another host: api.github.com"]


def test_our_assets_are_the_scripts_and_styles_docs_holds_measured_gzipped(tmp_path: Path) -> None:
    docs, site = tmp_path / "docs", tmp_path / "site"
    for folder in (docs, site):
        (folder / "assets").mkdir(parents=True)
        (folder / "assets" / "ours.js").write_text("let a = 1;\n" * 100, encoding="utf-8")
    (site / "assets" / "material.js").write_text("theirs", encoding="utf-8")
    found = own_assets(["assets/ours.js", "assets/material.js", "assets/ours.js"], site, docs)
    assert found == {"assets/ours.js": len(gzip.compress(b"let a = 1;\n" * 100, mtime=0))}


def test_the_pages_are_the_sitemaps(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.org/course/</loc></url><url><loc>https://example.org/course/a/b/</loc></url>"
        "</urlset>",
        encoding="utf-8",
    )
    assert sitemap_pages(tmp_path, "https://example.org/course/") == ["", "a/b/"]


def test_the_budgets_file_is_read_and_checked(tmp_path: Path) -> None:
    budgets = load_budgets()
    assert budgets.scores == dict.fromkeys(("performance", "accessibility", "best-practices", "seo"), 100)
    assert budgets.transferred == 120 * 1024
    assert budgets.own_assets == 8 * 1024
    assert (budgets.allowance == 0) == (budgets.allowance_why == ""), "an allowance says why, and only one does"
    broken = tmp_path / "budgets.yml"
    broken.write_text(BUDGETS_FILE.read_text(encoding="utf-8").replace("seo: 100", "seo: 101"), encoding="utf-8")
    with pytest.raises(SchemaError, match=r"scores.*seo.*101.*from 0 to 100"):
        load_budgets(broken)
    text = BUDGETS_FILE.read_text(encoding="utf-8")
    broken.write_text(text.replace("known: []", "known: [aria-dialog-name]"), encoding="utf-8")
    with pytest.raises(SchemaError, match=r"aria-dialog-name.*expected a category"):
        load_budgets(broken)
