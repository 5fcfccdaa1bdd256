"""Charts, diagrams and the calculator in Chromium, and the page's arithmetic held to Python's."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from macros.pictures.calculator import MESSAGES, calculator_config, evaluate
from tests.browser.conftest import PHONE, page_errors, show_palette
from tests.conftest import catalog, site_pages, soup


def _first_page_with(site_dir: Path, selector: str) -> str:
    page = next(p for p in site_pages() if soup(site_dir / p).select(selector))
    return page.removesuffix("index.html")


@pytest.fixture(scope="module")
def calculator_page(site_dir: Path) -> str:
    return _first_page_with(site_dir, "form[data-sbn-calculator]")


@pytest.fixture(scope="module")
def frames_page(site_dir: Path) -> str:
    return _first_page_with(site_dir, "figure.sbn-frames")


# ------------------------------------------------------------------ parity


def _inputs(count: int) -> list[dict[str, str]]:
    """Random inputs and the edges: valid and invalid counts, every choice, and text that is not a number."""
    config = calculator_config(catalog())
    rng = random.Random(12)
    models = [m["id"] for m in config["models"]] + ["custom"] * 3 + ["no-such-model"]
    recipes = [r["id"] for r in config["recipes"]] + ["sgd"]
    gpus = [g["id"] for g in config["gpus"]] + [""]
    stages = ["0", "1", "2", "3", "4", ""]
    billions = ["", "0", "-1", "abc", "1e9", "1,000", " 7.5 ", ".5", "5.", "0.000000001", "0.0000000001",
                "999999.999999999", "1000000", "1000000.000000001", "9999999", "2.147483648", "175", "１",
                "1,5", "1,50", "1,500.5", "12,345,678", "1,5000", ",5", ".", "\ufeff7.5", "7.5\u200b", "\u00a07.5",
                "\x1c7.5", "0.001", "0.000999999"]  # fmt: skip
    wholes = ["", "0", "-2", "8.5", "1", "64", "1000000", "1000001", "999999999", "1e3", " 16 "]
    cases = []
    for index in range(count):
        edge = index % 3 == 0
        cases.append(
            {
                "model": rng.choice(models),
                "parameters": rng.choice(billions) if edge else f"{rng.uniform(0.001, 2000):.{rng.randint(0, 9)}f}",
                "recipe": rng.choice(recipes if edge else recipes[:-1]),
                "gpu": rng.choice(gpus if edge else gpus[:-1]),
                "devices": rng.choice(wholes)
                if edge
                else str(rng.choice([1, 2, 3, 8, 64, 1000, rng.randint(1, 10**6)])),
                "stage": rng.choice(stages if edge else stages[:4]),
                "batch": rng.choice(["", "", rng.choice(wholes), str(rng.randint(1, 512)), "10000"]),
                "sequence": rng.choice(["", "", rng.choice(wholes), str(rng.randint(1, 65536)), "1000"]),
                "recompute": rng.choice([r["id"] for r in config["recompute"]] + ([""] if edge else [])),
            }
        )
    return cases


def _close(ours: object, theirs: object) -> bool:
    if ours is None or theirs is None:
        return ours is theirs
    return abs(float(ours) - float(theirs)) <= 1e-12 * max(1.0, abs(float(ours)))  # type: ignore[arg-type]


def test_the_page_computes_what_python_computes_on_a_thousand_inputs(
    tab: Page, base_url: str, calculator_page: str
) -> None:
    tab.goto(base_url + calculator_page)
    cases = _inputs(1500)
    # The page's own code, with the JSON the page carries.
    results = tab.evaluate(
        """(cases) => {
            const config = JSON.parse(document.querySelector("form[data-sbn-calculator]").dataset.sbnConfig);
            return cases.map((inputs) => window.sbnCalculator.compute(config, inputs));
        }""",
        cases,
    )
    config = calculator_config(catalog())
    computed = told = 0
    for inputs, theirs in zip(cases, results, strict=True):
        ours = evaluate(config, inputs)
        assert theirs["problems"] == ours["problems"], inputs
        if ours["problems"]:
            told += 1
            continue
        computed += 1
        for role, value in ours["bytes"].items():
            assert _close(value, theirs["bytes"][role]), (inputs, role)
        assert _close(ours["total"], theirs["total"]) and theirs["capacity"] == ours["capacity"], inputs
        assert theirs["fits"] == ours["fits"], inputs
    assert computed > 200 and told > 300, (computed, told)


# ------------------------------------------------------------------- the form


def test_bad_input_is_told_at_its_field_not_computed(tab: Page, base_url: str, calculator_page: str) -> None:
    tab.goto(base_url + calculator_page)
    form = tab.locator("form[data-sbn-calculator]").first
    parameters = form.get_by_label("Parameters, in billions")
    for typed, message in (
        ("abc", "billions"),
        ("", "empty_billions"),
        ("-3", "billions"),
        ("2000000", "too_many_parameters"),
    ):
        parameters.fill(typed)
        parameters.press("Enter")
        expect(parameters).to_have_attribute("aria-invalid", "true")
        expect(form.locator(f"#{parameters.get_attribute('id')}-problem")).to_have_text(MESSAGES[message])
        expect(form.get_by_role("status")).to_contain_text("Not computed: check Parameters, in billions.")
    devices = form.get_by_label("Data-parallel devices, Nd")
    parameters.fill("7.5")
    devices.fill("0")
    devices.press("Enter")
    expect(form.get_by_role("status")).to_contain_text("Not computed: check Data-parallel devices, Nd.")


def test_the_reader_works_it_with_the_keyboard_alone_and_hears_the_result(
    tab: Page, base_url: str, calculator_page: str
) -> None:
    tab.goto(base_url + calculator_page)
    form = tab.locator("form[data-sbn-calculator]").first
    form.get_by_label("Model").focus()
    tab.keyboard.press("End")  # the last option: the reader's own model
    tab.keyboard.press("Tab")
    tab.keyboard.type("7.5")
    tab.keyboard.press("Tab")  # recipe
    tab.keyboard.press("Tab")  # GPU
    tab.keyboard.press("Tab")
    tab.keyboard.press("Control+A")
    tab.keyboard.type("64")
    tab.keyboard.press("Tab")  # ZeRO stage
    tab.keyboard.press("End")  # stage 3
    tab.keyboard.press("Enter")
    status = form.get_by_role("status")
    expect(status).to_have_attribute("aria-live", "polite")
    # ZeRO Figure 1: 7.5B parameters on 64 devices at P_os+g+p, 1.875 GB.
    expect(status).to_contain_text("Total1.88 GB")


def test_the_readers_last_inputs_are_remembered_and_a_corrupt_store_dropped(
    tab: Page, base_url: str, calculator_page: str
) -> None:
    tab.goto(base_url + calculator_page)
    form = tab.locator("form[data-sbn-calculator]").first
    ident = form.get_attribute("data-sbn-calculator")
    form.get_by_label("Data-parallel devices, Nd").fill("64")
    form.get_by_label("ZeRO stage").select_option("1")
    tab.reload()
    expect(form.get_by_label("Data-parallel devices, Nd")).to_have_value("64")
    expect(form.get_by_label("ZeRO stage")).to_have_value("1")
    keys = tab.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('sbn:'))")
    assert keys == [f"sbn:/course/:{ident}"]
    default = json.loads(form.get_attribute("data-sbn-defaults") or "")["devices"]
    for corrupt in ("{not json", '{"v": 1, "inputs": {"devices": 12}}', '{"v": 1, "inputs": {"stage": "9"}}', "null"):
        tab.evaluate("([key, value]) => localStorage.setItem(key, value)", [keys[0], corrupt])
        tab.reload()
        expect(form.get_by_label("Data-parallel devices, Nd")).to_have_value(default)
        expect(form.get_by_role("status")).to_contain_text("Total")


def test_a_page_reached_by_instant_navigation_gets_its_scripts(
    tab: Page, base_url: str, calculator_page: str, frames_page: str
) -> None:
    with page_errors(tab) as errors:
        tab.goto(base_url)
        # The calculator's list of models is filled in by its script; the frames get their buttons from theirs.
        for target, ready in (
            (calculator_page, "form[data-sbn-mounted] option"),
            (frames_page, ".sbn-frames--stepping"),
        ):
            tab.evaluate(
                "(url) => { const a = document.createElement('a'); a.href = url; document.body.append(a); a.click(); }",
                base_url + target,
            )
            expect(tab.locator(ready).first).to_be_attached()
            assert tab.evaluate("performance.getEntriesByType('navigation').length") == 1  # no full load
    assert errors == []


def test_every_option_of_the_calculator_shows_whole(tab: Page, base_url: str, calculator_page: str) -> None:
    """At a desktop's and a phone's width, each list is wide enough for the longest of its options, the arrow
    beside it included."""
    wide: ViewportSize = {"width": 1280, "height": 800}
    for viewport in (wide, PHONE):
        tab.set_viewport_size(viewport)
        tab.goto(base_url + calculator_page)
        cut = tab.evaluate(
            """() => {
                const measure = document.createElement("canvas").getContext("2d");
                return [...document.querySelectorAll("form[data-sbn-mounted] select")].flatMap((select) => {
                    const style = getComputedStyle(select);
                    measure.font = `${style.fontSize} ${style.fontFamily}`;
                    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
                    const room = select.clientWidth - padding - 20;
                    return [...select.options].filter((o) => measure.measureText(o.textContent).width > room)
                        .map((o) => o.textContent);
                });
            }"""
        )
        assert cut == [], (viewport, cut)


# ---------------------------------------------------------------- the frames


def test_the_frames_step_with_buttons_and_arrow_keys(tab: Page, base_url: str, frames_page: str) -> None:
    tab.goto(base_url + frames_page)
    diagram = tab.locator("figure.sbn-frames").first
    frames = diagram.locator(".sbn-frames__frame")
    total = frames.count()
    status = diagram.get_by_role("status")
    expect(status).to_contain_text(f"Step 1 of {total}")
    expect(frames.nth(0)).to_be_visible()
    expect(frames.nth(1)).to_be_hidden()
    expect(diagram.get_by_role("button", name="Previous")).to_be_disabled()
    diagram.get_by_role("button", name="Next").click()
    expect(status).to_contain_text(f"Step 2 of {total}")
    tab.keyboard.press("ArrowRight")
    expect(status).to_contain_text(f"Step 3 of {total}")
    tab.keyboard.press("End")
    expect(status).to_contain_text(f"Step {total} of {total}")
    expect(diagram.get_by_role("button", name="Next")).to_be_disabled()
    expect(diagram.get_by_role("button", name="Previous")).to_be_focused()
    tab.keyboard.press("Home")
    expect(frames.nth(0)).to_be_visible()


def test_without_javascript_every_frame_shows_in_a_row(browser: Browser, base_url: str, frames_page: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url + frames_page)
    diagram = page.locator("figure.sbn-frames").first
    frames = diagram.locator(".sbn-frames__frame")
    boxes = [frames.nth(i).bounding_box() for i in range(frames.count())]
    assert all(box is not None for box in boxes)
    assert len({round(box["y"]) for box in boxes if box}) == 1  # one row
    expect(diagram.locator(".sbn-frames__controls")).to_be_hidden()
    context.close()


# ---------------------------------------------------------------- palettes

_CONTRAST = """(element) => {
    const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const luminance = ([r, g, b]) => {
        const c = [r, g, b].map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const background = rgb(getComputedStyle(document.body).backgroundColor);
    // Every mark that carries data or reads as text, in the drawing and in its legend.
    const drawn = `.sbn-chart__series :is(path, circle), .sbn-chart__segment, .sbn-chart__bound,
        .sbn-chart__mark circle, .sbn-chart__reference line, .sbn-chart__legend line, text`;
    const marks = [...element.querySelectorAll(drawn)];
    return marks.map((mark) => {
        const style = getComputedStyle(mark);
        const stroked = mark.matches("path, line, .sbn-chart__mark circle");
        const colour = stroked ? style.stroke : style.fill;
        const [a, b] = [luminance(rgb(colour)), luminance(background)].sort((x, y) => y - x);
        return { colour, contrast: (a + 0.05) / (b + 0.05) };
    });
}"""


def test_charts_follow_the_light_and_dark_palettes(tab: Page, base_url: str, site_dir: Path) -> None:
    """Every chart's marks and labels change with the palette, and stand at least 3:1 against the page in each
    (WCAG 1.4.11), at a phone's width; the palette is switched as a reader switches it."""
    pages = [p.removesuffix("index.html") for p in site_pages() if soup(site_dir / p).select("figure.sbn-chart")]
    tab.set_viewport_size(PHONE)
    for path in pages:
        tab.goto(base_url + path)
        charts = tab.locator("figure.sbn-chart")
        colours: dict[str, list[list[str]]] = {}
        for scheme in ("default", "slate"):
            show_palette(tab, scheme)
            colours[scheme] = []
            for index, marks in enumerate(charts.evaluate_all(f"(charts) => charts.map({_CONTRAST})")):
                for mark in marks:
                    assert mark["contrast"] >= 3, (path, scheme, index, mark)
                colours[scheme].append([mark["colour"] for mark in marks])
        assert colours["default"], f"{path}: no chart drawn"
        for index, (light, dark) in enumerate(zip(colours["default"], colours["slate"], strict=True)):
            assert light != dark, f"{path}: chart {index + 1} keeps its colours in the dark palette"


# ------------------------------------------------------------- the drawings

#: What is wrong with the drawings of the open page as the browser lays them out: a text that leaves its
#: drawing (clipped by the viewBox), two texts that overlap, a text that a plotted line runs through (the
#: line sampled along its length), a cell's text wider than its cell, and text that does not read at about
#: the size of the page's body text (from 0.85 to 1.25 times it).
_DRAWINGS = """() => {
    for (const frame of document.querySelectorAll(".sbn-frames__frame")) frame.hidden = false; // every frame
    const body = parseFloat(getComputedStyle(document.querySelector("article")).fontSize);
    const wrong = [];
    const inside = (a, b, slack = 0.5) => a.left >= b.left - slack && a.right <= b.right + slack
        && a.top >= b.top - slack && a.bottom <= b.bottom + slack;
    const meet = (a, b, slack = 1) => a.left < b.right - slack && b.left < a.right - slack
        && a.top < b.bottom - slack && b.top < a.bottom - slack;
    for (const figure of document.querySelectorAll("article :is(figure.sbn-chart, figure.sbn-frames)")) {
        for (const svg of figure.querySelectorAll("svg[role=img]")) {
            if (!svg.checkVisibility()) continue;
            const name = `${figure.id} ${svg.closest("li")?.id ?? ""}`;
            const frame = svg.getBoundingClientRect();
            const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim());
            const boxes = texts.map((t) => t.getBoundingClientRect());
            texts.forEach((text, i) => {
                const what = `${name} "${text.textContent.trim()}"`;
                if (!inside(boxes[i], frame)) wrong.push(`${what} leaves the drawing`);
                const size = parseFloat(getComputedStyle(text).fontSize) * frame.width / svg.viewBox.baseVal.width;
                const off = size < 0.85 * body || size > 1.25 * body;
                if (off) wrong.push(`${what} is ${size.toFixed(1)} px (body ${body})`);
                for (let j = i + 1; j < texts.length; j++) {
                    if (meet(boxes[i], boxes[j])) wrong.push(`${what} overlaps "${texts[j].textContent.trim()}"`);
                }
                const cell = text.closest(".sbn-frames__svg") && text.parentElement.querySelector(":scope > rect");
                const wide = cell && !inside(boxes[i], cell.getBoundingClientRect(), 0);
                if (wide) wrong.push(`${what} is wider than its cell`);
            });
            for (const path of svg.querySelectorAll(".sbn-chart__series path")) {
                const [length, matrix] = [path.getTotalLength(), path.getScreenCTM()];
                const within = (p, b) => p.x > b.left + 1 && p.x < b.right - 1 && p.y > b.top + 1 && p.y < b.bottom - 1;
                for (let at = 0; at <= length; at += 1) {
                    const { x, y } = path.getPointAtLength(at);
                    const point = new DOMPoint(x, y).matrixTransform(matrix);
                    const hit = boxes.findIndex((box) => within(point, box));
                    if (hit >= 0) {
                        wrong.push(`${name} "${texts[hit].textContent.trim()}" is crossed by a line`);
                        break;
                    }
                }
            }
        }
    }
    return [...new Set(wrong)];
}"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE], ids=["desktop", "phone"])
def test_a_drawings_text_is_whole_apart_and_at_body_size(
    tab: Page, base_url: str, site_dir: Path, viewport: ViewportSize
) -> None:
    pages = [p.removesuffix("index.html") for p in site_pages() if soup(site_dir / p).select("svg[role=img]")]
    tab.set_viewport_size(viewport)
    wrong = []
    for path in pages:
        tab.goto(base_url + path)
        wrong += [f"{path}: {problem}" for problem in tab.evaluate(_DRAWINGS)]
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("inputs", [{"model": "llama-3-9b"}, {"model": "__proto__"}, {"recipe": "__proto__"}])
def test_a_stored_choice_the_calculators_lists_do_not_offer_is_dropped(
    tab: Page, base_url: str, calculator_page: str, inputs: dict[str, str]
) -> None:
    """As the planner's (attack round F12c): the lesson's value shows and the stored value is removed."""
    tab.goto(base_url + calculator_page)
    form = tab.locator("form[data-sbn-calculator]").first
    key = f"sbn:/course/:{form.get_attribute('data-sbn-calculator')}"
    defaults = json.loads(form.get_attribute("data-sbn-defaults") or "")
    tab.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, json.dumps({"v": 1, "inputs": inputs})])
    tab.reload()
    expect(tab.locator("form[data-sbn-calculator][data-sbn-mounted]").first).to_be_attached()
    for name in inputs:
        expect(form.locator(f"[name={name}]")).to_have_value(defaults[name])
    assert tab.evaluate("(key) => localStorage.getItem(key)", key) is None
