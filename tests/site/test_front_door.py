"""The course's front door and each lesson's end, in the built HTML: where to start, what comes next, how a page
describes itself, and the page for an address the course does not have."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from bs4 import Tag
from mkdocs.config import load_config

from macros.data.lessons import index_lessons, read_front_matter
from tests.checks import attribute, lesson_body, one
from tests.conftest import catalog, course, site_pages, soup

SITE_URL = course().site_url
#: mkdocs.yml's site_name.
SITE_NAME = "Scale by the Numbers"


def _url(page: str) -> str:
    """A built page's address on the hosted site."""
    return urljoin(SITE_URL, page.removesuffix("index.html"))


def _source(page: str) -> Path:
    """The Markdown source of a built page."""
    stem = page.removesuffix("index.html").rstrip("/") or "index"
    return course().docs_dir / f"{stem}.md"


def _lesson_urls() -> dict[int, str]:
    """Every lesson's address on the hosted site, by number, from the lesson index."""
    lessons = index_lessons(course().docs_dir).lessons
    return {number: urljoin(SITE_URL, lesson.src_path.removesuffix(".md") + "/") for number, lesson in lessons.items()}


def _href(site_page: str, element: Tag) -> str:
    """Where a link on a built page leads, as an address on the hosted site, without its fragment."""
    target = urljoin(_url(site_page), attribute(element, "href"))
    return target.split("#")[0]


def test_start_here_links_the_first_lesson_published(site_dir: Path) -> None:
    box = soup(site_dir / "index.html").select_one("#start-here")
    first = min(_lesson_urls())
    assert box is not None
    link = one(box, "a")
    assert _href("index.html", link) == _lesson_urls()[first]
    assert link.get_text() == index_lessons(course().docs_dir).lessons[first].title


def test_where_to_start_comes_first_then_what_a_reader_will_be_able_to_do_then_the_syllabus(site_dir: Path) -> None:
    article = lesson_body(soup(site_dir / "index.html"))
    order = [element.get("id") for element in article.select("#start-here, h2")]
    assert order[:3] == ["start-here", "mission", "syllabus"]


def test_the_syllabus_carries_every_lessons_question_and_rep_ids_for_its_progress(site_dir: Path) -> None:
    home = soup(site_dir / "index.html")
    data = json.loads(one(home, "head script#sbn-syllabus").get_text())
    elements = {attribute(element, "data-sbn-lesson"): element for element in home.select("[data-sbn-lesson]")}
    assert sorted(elements, key=int) == sorted(data, key=int) == [str(n) for n in sorted(_lesson_urls())]
    for number, lesson in index_lessons(course().docs_dir).lessons.items():
        page = lesson_body(soup(site_dir / lesson.src_path.removesuffix(".md") / "index.html"))
        forms = page.select("form[data-quiz-id]")
        assert data[str(number)] == {
            "questions": [form["data-quiz-id"] for form in forms],
            "reps": [box["data-rep-id"] for box in page.select("input[data-rep-id]")],
            # What course.js reads off each form, so that the home page keeps only what the lesson would, and the
            # digest of a checked question's key, under which the home page counts a stored verdict.
            "answers": {
                form["data-quiz-id"]: {
                    "kind": form["data-quiz-kind"],
                    "options": [box["value"] for box in form.select("input[type=radio], input[type=checkbox]")],
                }
                | ({"verdict": form["data-quiz-verdict"]} if form["data-quiz-kind"] != "free" else {})
                for form in forms
            },
        }
        assert elements[str(number)].has_attr("hidden")
        assert elements[str(number)].get_text() == ""


def test_no_mission_bullet_names_a_stage_that_does_not_cover_it(site_dir: Path) -> None:
    bullets = soup(site_dir / "index.html").select("#success-looks-like + ol > li")
    assert len(bullets) == len(catalog().mission)
    for bullet in bullets:
        assert "Stage" not in bullet.get_text()


def test_a_lesson_ends_with_what_comes_next(site_dir: Path, lesson: str) -> None:
    lessons = index_lessons(course().docs_dir)
    this = next(
        item for item in lessons.lessons.values() if item.src_path.removesuffix(".md") + "/index.html" == lesson
    )
    later = sorted(number for number in lessons.lessons if number > this.number)
    block = lesson_body(soup(site_dir / lesson)).select_one("nav.sbn-next")
    assert block is not None and one(block, "h2").get_text() == "What comes next"
    links = [_href(lesson, a) for a in block.select("a")]
    assert links[-1] == SITE_URL  # the syllabus, on the home page
    published = lessons.by_stage()
    following = lessons.lessons[later[0]] if later else None
    writing = [
        stage
        for number, stage in catalog().stages.items()
        if this.stage < number < (following.stage if following else 10**9) and number not in published
    ]
    said = [" ".join(p.get_text().split()) for p in block.select(".sbn-next__stage")]
    assert said == [f"Stage {stage.number}: {stage.title} is being written. {stage.summary}" for stage in writing]
    if following is None:
        assert links == [SITE_URL]
        assert one(block, ".sbn-next__end").get_text() == "This is the course's last lesson."
    else:
        assert links == [_lesson_urls()[following.number], SITE_URL]
        assert one(block, ".sbn-next__lesson a").get_text() == following.title


def test_a_page_describes_itself_from_its_front_matter(site_dir: Path, page: str) -> None:
    head = one(soup(site_dir / page), "head")
    properties = {tag["property"]: tag["content"] for tag in head.select("meta[property^='og:']")}
    assert one(head, "meta[name='twitter:card']")["content"] == "summary"
    if page == "404.html":  # no front matter, and no address of its own: the site's
        config = load_config(str(course().project_dir / "mkdocs.yml"))
        assert properties == {
            "og:site_name": SITE_NAME,
            "og:type": "website",
            "og:title": SITE_NAME,
            "og:description": config.site_description,
        }
        return
    meta = read_front_matter(_source(page).read_text(encoding="utf-8"), page)
    assert meta.get("description"), f"{_source(page)} has no description in its front matter"
    assert one(head, "meta[name=description]")["content"] == meta["description"]
    assert properties == {
        "og:site_name": SITE_NAME,
        "og:type": "article" if "lesson" in meta else "website",
        "og:title": meta["title"],
        "og:description": meta["description"],
        "og:url": _url(page),
    }
    assert one(head, "link[rel=canonical]")["href"] == _url(page)


def test_the_404_page_leads_back_to_every_page_of_the_course(site_dir: Path) -> None:
    page = soup(site_dir / "404.html")
    article = lesson_body(page)
    assert one(article, "h1").get_text() == "This page is not in the course"
    site_path = urlsplit(SITE_URL).path
    hrefs = [attribute(a, "href") for a in article.select("a[href]")]
    assert all(href.startswith((site_path, "https://")) for href in hrefs), "links must work from any address"
    listed = {urljoin(SITE_URL, attribute(a, "href")) for a in article.select(".sbn-lost__pages a")}
    assert listed == {_url(built) for built in site_pages() if built != "404.html"}
    assert f"{site_path}.#start-here" in hrefs
    assert any(href.startswith(course().repo_url + "/issues/new") for href in hrefs)
    assert one(page, "head meta[property='og:title']")["content"] == "Scale by the Numbers"
