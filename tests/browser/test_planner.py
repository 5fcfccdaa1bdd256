"""The layout planner in Chromium: the page's arithmetic held to the model's, its form, its stored inputs, its looks."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.base import AXE_SCRIPT, AxeResults
from playwright.sync_api import Page, expect

from macros.model import planner
from macros.pictures.planner import MESSAGES, evaluate, layout_result, planner_config, read
from tests.browser.conftest import PHONE, WCAG_AA, page_errors, show_palette
from tests.conftest import catalog, site_pages, soup

FORM = "form[data-sbn-planner]"
#: What the planner offers a reader whose tensor degree does not divide the lesson's cluster of 16 on nodes of 8:
#: only degrees that keep a tensor-parallel group on a node (16 was offered, then refused).
TP_DIVISORS_16 = "1, 2, 4, 8"
TP_3 = MESSAGES["degree"].format(value=3, gpus=16, divisors=TP_DIVISORS_16)
TP_16 = MESSAGES["degree_node"].format(value=16, per_node=8, divisors=TP_DIVISORS_16)
#: The page's config, as the page carries it.
CONFIG_JS = f"JSON.parse(document.querySelector('{FORM}').dataset.sbnConfig)"


@pytest.fixture(scope="module")
def planner_page(site_dir: Path) -> str:
    page = next(p for p in site_pages() if soup(site_dir / p).select(FORM))
    return page.removesuffix("index.html")


@pytest.fixture(scope="module")
def config(site_dir: Path, planner_page: str) -> dict[str, Any]:
    """The config the page carries, which is `planner_config` of the lesson's model."""
    form = soup(site_dir / planner_page / "index.html").select_one(FORM)
    assert form is not None
    carried: dict[str, Any] = json.loads(str(form["data-sbn-config"]))
    assert carried == planner_config(catalog(), carried["models"][0]["id"])
    return carried


# ------------------------------------------------------------------ parity


def _shape(rng: random.Random, config: dict[str, Any]) -> dict[str, Any]:
    """A model of the catalog, or a random shape: grouped-query or not, gated or not, tied or not, biases,
    LayerNorm or RMSNorm, learned positions or rotary, and now and then a mixture of experts."""
    if rng.random() < 0.3:
        return dict(rng.choice(config["models"])["shape"])
    heads = rng.choice([4, 8, 12, 16, 32, 40, 64])
    dim = rng.choice([64, 80, 128])
    experts = rng.choice([0, 0, 0, 8])
    return {
        **config["shape_defaults"],
        "layers": rng.choice([1, 2, 3, 12, 24, 32, 40, 48, 80, 96, rng.randint(1, 128)]),
        "hidden": heads * dim,
        "heads": heads,
        "kv_heads": rng.choice(planner.divisors(heads)),
        "ffn": rng.choice([4 * heads * dim, 64 * rng.randint(1, 400)]),
        "vocabulary": rng.choice([32000, 50257, 128256, rng.randint(1, 300000)]),
        "gated": rng.random() < 0.5,
        "tied": rng.random() < 0.5,
        "norm": rng.choice(["rmsnorm", "layernorm"]),
        "attention_bias": rng.random() < 0.3,
        "output_bias": rng.random() < 0.3,
        "mlp_bias": rng.random() < 0.3,
        "positions": rng.choice([0, 0, 1024, 2048]),
        "head_dim": rng.choice([0, 0, 0, 96, 128]),
        "experts": experts,
        "experts_per_token": rng.choice([1, 2]) if experts else 0,
        "expert_ffn": 64 * rng.randint(1, 300) if experts else 0,
    }


def _cases(count: int, config: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Random requests and layouts: most of them valid (degrees that divide, enough micro-batches), a quarter
    with one field made random, which breaks one rule or another."""
    rng = random.Random(28)
    cases = []
    for _ in range(count):
        shape = _shape(rng, config)
        gpu = rng.choice(config["gpus"])
        per_node, nodes = rng.choice([1, 2, 4, 8, 8, 16]), rng.choice([1, 1, 2, 3, 4, 8, 16, 64])
        n = per_node * nodes
        width = shape["expert_ffn"] if shape["experts"] else shape["ffn"]
        t = rng.choice(planner.divisors(math.gcd(per_node, shape["heads"], shape["kv_heads"], width)))
        p = rng.choice(planner.divisors(math.gcd(shape["layers"], n // t)))
        d = n // (t * p)
        micro = rng.choice([1, 1, 2, 4])
        sequences = d * micro * rng.choice([p, p + 1, 2 * p, 8 * p, rng.randint(p, 64 * p)])
        sequence = rng.choice([128, 512, 2048, 4096, 8192, 32768])
        request = {
            "shape": shape,
            "hardware": {
                "peak_flops": gpu["peak_flops"],
                "memory": gpu["memory"],
                "nvlink_bandwidth": rng.choice([gpu["nvlink"], rng.randint(1, 10**6) / 100 * 1e9]),
                "network_bandwidth": rng.choice([gpu["network"], rng.randint(1, 10**6) / 100 * 1e9 / 8]),
                "per_node": per_node,
                "nodes": nodes,
            },
            "run": {
                "sequence": sequence,
                "global_batch": sequence * sequences,
                "share": rng.randint(1, 10000) / 10000,
                "recipe": rng.choice(config["recipes"])["id"],
                "training_tokens": rng.choice([None, 10**12, rng.randint(1, 10**15)]),
                "price": rng.choice([None, 2.5, rng.randint(1, 10**6) / 100]),
            },
            "fixed": {},
        }
        zeros = [0] if d == 1 else [0, 1] if p > 1 else [0, 1, 2, 3]
        layout = {
            "tp": t,
            "pp": p,
            "dp": d,
            "zero": rng.choice(zeros),
            "micro_batch": micro,
            "recompute": rng.choice(config["constants"]["recomputations"]),
            "sequence_parallel": t > 1 and rng.random() < 0.5,
            "chunks": 1,
            "cp": 1,
            "ep": 1,
            "hybrid": False,
        }
        if rng.random() < 0.3:  # context parallelism (issue 29): a degree out of the data-parallel one
            layout["cp"] = rng.choice(planner.divisors(d))
            layout["dp"] = d // layout["cp"]
        if shape["experts"] and rng.random() < 0.6:  # expert parallelism over cp × dp
            layout["ep"] = rng.choice(planner.divisors(math.gcd(shape["experts"], d)))
        elif rng.random() < 0.02:  # an expert degree for a dense model, or one that does not divide: a rule
            layout["ep"] = rng.choice([2, 3])
        if rng.random() < 0.25:  # FSDP's hybrid sharding: valid with ZeRO-3 across nodes, else its rule
            layout["hybrid"] = True
            layout["zero"] = 3 if rng.random() < 0.8 else layout["zero"]
        if rng.random() < 0.3:  # one field at random, the degrees still multiplying to the GPUs: a rule broken, or not
            name = rng.choice(["tp", "pp", "dp", "zero", "micro_batch", "sequence_parallel", "global_batch", "cp"])
            if name in ("tp", "pp"):
                layout[name] = rng.choice(planner.divisors(n if name == "tp" else n // t))
                product = layout["tp"] * layout["pp"]
                layout["dp"] = n // product if n % product == 0 else rng.randint(1, 8)
            elif name == "global_batch":
                request["run"]["global_batch"] += rng.choice([1, sequence])
            elif name == "cp":  # a degree that need not divide the GPUs or make 2·cp whole chunks of a sequence
                layout["cp"] = rng.choice([2, 3, 5, 64, 128])
            elif name == "sequence_parallel":
                layout[name] = True
            else:
                layout[name] = rng.randint(0, 3) if name == "zero" else rng.randint(1, 24)
        cases.append((request, layout))
    return cases


def _on_page(tab: Page, function: str, cases: list[Any]) -> list[Any]:
    """`function` of each case, in the page with its config: in and out as JSON text, which Playwright moves in a
    tenth of the time it takes to move as many objects."""
    text = tab.evaluate(
        f"(text) => {{ const config = {CONFIG_JS}; return JSON.stringify(JSON.parse(text).map({function})); }}",
        json.dumps(cases),
    )
    results: list[Any] = json.loads(text)
    return results


def _near(ours: float, theirs: float, scale: float) -> bool:
    """Equal but for floating point: within a billionth of `scale`, the whole the part belongs to."""
    return abs(ours - theirs) <= 1e-9 * max(scale, 1e-300)


def test_the_page_computes_what_the_model_computes_on_three_thousand_layouts(
    tab: Page, base_url: str, planner_page: str, config: dict[str, Any]
) -> None:
    tab.goto(base_url + planner_page)
    cases = _cases(3000, config)
    # The page's own function, with the JSON the page carries, all in one call.
    results = _on_page(tab, "([request, layout]) => window.sbnPlanner.evaluateLayout(config, request, layout)", cases)
    planned = broken = fitting = ringed = dispatched = hybrid = 0
    rules: set[str] = set()
    for (request, layout), theirs in zip(cases, results, strict=True):
        ours = layout_result(request, layout)
        where = (request, layout)
        if "rule" in ours:
            assert theirs == ours, where
            broken += 1
            rules.add(ours["rule"])
            continue
        planned += 1
        fitting += ours["fits"]
        ringed += ours["time"]["context"] > 0
        dispatched += ours["time"]["expert"] > 0
        hybrid += ours["layout"]["hybrid"]
        total = ours["memory"]["total"]
        for role, value in ours["memory"].items():
            assert _near(value, theirs["memory"][role], total), (where, role)
        assert theirs["stage"] == ours["stage"] and theirs["capacity"] == ours["capacity"], where
        if not _near(total, ours["capacity"], total):
            assert theirs["fits"] == ours["fits"], where
        step = ours["step_seconds"]
        assert _near(step, theirs["step_seconds"], step), where
        for part, value in ours["time"].items():
            assert _near(value, theirs["time"][part], step), (where, part)
        for rate in ("tokens_per_second", "share_of_peak", "gpu_hours", "cost", "days"):
            if ours[rate] is None:
                assert theirs[rate] is None, (where, rate)
            else:
                assert _near(ours[rate], theirs[rate], ours[rate]), (where, rate)
    # Enough of each: plans that fit and plans that do not, and most kinds of broken rule.
    assert planned > 1000 and 200 < fitting < planned and broken > 300, (planned, fitting, broken)
    assert len(rules) >= 15, sorted(rules)  # all but the interleaved schedule's and a recomputation's
    # Context and expert parallelism (issue 29): their rules, and plans whose ring and all-to-alls cost time.
    assert {"cp-sequence", "ep-dense", "ep-experts", "ep-devices", "hybrid"} <= rules, sorted(rules)
    assert ringed > 100 and dispatched > 100 and hybrid > 50, (ringed, dispatched, hybrid)


def _texts(count: int, config: dict[str, Any]) -> list[dict[str, str]]:
    """Random form inputs: mostly what a reader would type, and a field or two of garbage in a third of them
    (zero, negative, huge, not a number, grouped wrong, pasted with invisible characters, a choice not offered)."""
    rng = random.Random(13)
    garbage = ["", "0", "-2", "8.5", "1,0240", "abc", " 16 ", "\ufeff8", "1e3", "99999999999999999", "4,194,304",
                "$2", "2.555", "100.01", "1e16", "1.2345e3", "no-such", "swiglu"]  # fmt: skip
    models = [m["id"] for m in config["models"]] + [config["custom"]] * 3
    cases = []
    for _ in range(count):
        sequence = rng.choice([128, 2048, 8192])
        heads = rng.choice([16, 32, 64])
        inputs = {
            "model": rng.choice(models),
            "layers": str(rng.choice([16, 32, 80])),
            "hidden": str(heads * rng.choice([64, 128])),
            "heads": str(heads),
            "kv_heads": str(rng.choice([8, heads])),
            "ffn": str(rng.choice([5632, 14336])),
            "vocabulary": str(rng.choice([32000, 128256])),
            "head_dim": rng.choice(["", "", "128", "96"]),
            "mlp": rng.choice(list(config["mlp"])),
            "embeddings": rng.choice(list(config["embeddings"])),
            "biases": rng.choice(list(config["biases"])),
            "gpu": rng.choice([g["id"] for g in config["gpus"]]),
            "per_node": rng.choice(["8", "4", "1"]),
            "nodes": rng.choice(["1", "2", "16", "1,000"]),
            "nvlink_gbyte_s": rng.choice(["", "", "450", "37.55", "10000"]),
            "network_gbit_s": rng.choice(["", "", "400", "12.5", "0.01"]),
            "sequence": str(sequence),
            "global_batch": rng.choice([str(sequence * rng.randint(1, 512)), f"{sequence * 512:,}"]),
            "share": rng.choice(["50", "40.5", "100", "1"]),
            "recipe": rng.choice([r["id"] for r in config["recipes"]]),
            "tp": rng.choice(["", "", "1", "2", "3", "8"]),
            "pp": rng.choice(["", "", "1", "2", "4"]),
            "cp": rng.choice(["", "", "", "1", "2", "3", "16"]),
            "ep": rng.choice(["", "", "", "1", "2", "8"]),
            "training_tokens": rng.choice(["", "1e12", "1.5e13", "1000000", "1,000,000"]),
            "price": rng.choice(["", "2.5", "10000", "0.01"]),
        }
        if rng.random() < 0.35:
            for name in rng.sample(sorted(inputs), rng.choice([1, 1, 2])):
                inputs[name] = rng.choice(garbage)
        if rng.random() < 0.2:  # a field at its limit, or just past it
            name = rng.choice([name for name in config["limits"] if name in inputs])
            inputs[name] = str(config["limits"][name] + rng.choice([0, 1]))
        cases.append(inputs)
    return cases


def test_the_page_reads_the_form_as_python_does_on_two_thousand_inputs(
    tab: Page, base_url: str, planner_page: str, config: dict[str, Any]
) -> None:
    tab.goto(base_url + planner_page)
    cases = _texts(2000, config)
    results = _on_page(tab, "(inputs) => window.sbnPlanner.read(config, inputs)", cases)
    told = 0
    for inputs, theirs in zip(cases, results, strict=True):
        problems, request = read(config, inputs)
        assert theirs["problems"] == problems, inputs
        told += bool(problems)
        if request is None:
            assert theirs["request"] is None, inputs
            continue
        run, their_run = request.pop("run"), theirs["request"].pop("run")
        assert theirs["request"] == request, inputs
        assert their_run.pop("share") == pytest.approx(run.pop("share"), rel=1e-12), inputs
        assert their_run == run, inputs
    assert 300 < told < 1700, told


def test_the_page_plans_what_python_plans(tab: Page, base_url: str, planner_page: str, config: dict[str, Any]) -> None:
    """Whole plans, ranked, with their reasons and the rules broken: a few, Python's plans being slow."""
    tab.goto(base_url + planner_page)
    base = {"mlp": "gated", "embeddings": "untied", "biases": "none", "recipe": "bf16-adam", "tp": "", "pp": "",
            "price": ""}  # fmt: skip
    cases = [
        {**base, "model": model, "gpu": gpu, "per_node": "8", "nodes": nodes, "sequence": sequence,
         "global_batch": batch, "share": share, "training_tokens": tokens, "price": price}
        for model, gpu, nodes, sequence, batch, share, tokens, price in [
            ("llama-3-8b", "h100-sxm5", "2", "8192", "4194304", "50", "1e12", "2.5"),
            ("llama-3-70b", "h100-sxm5", "4", "8192", "4194304", "40", "", ""),
            ("llama-3-8b", "b200", "1", "4096", "1048576", "55.5", "1e12", ""),
            ("megatron-1.2b", "h200", "1", "1024", "524288", "30", "", ""),
            ("llama-3-70b", "h100-sxm5", "1", "2048", "1048576", "45", "3e11", "4"),  # none fits
            ("llama-3-8b", "h100-sxm5", "2", "8192", "4202496", "50", "1e12", ""),  # 513 sequences
            ("mixtral-8x7b", "h100-sxm5", "2", "4096", "2097152", "50", "", ""),  # ep searched too
        ]
    ] + [{**base, "model": "custom", "layers": "24", "hidden": "2048", "heads": "16", "kv_heads": "4",
          "ffn": "5632", "vocabulary": "32000", "gpu": "h100-sxm5", "per_node": "8", "nodes": "1",
          "sequence": "2048", "global_batch": "262144", "share": "50", "training_tokens": "", "pp": "2"}]  # fmt: skip
    results = _on_page(tab, "(inputs) => window.sbnPlanner.compute(config, inputs)", cases)
    for inputs, theirs in zip(cases, results, strict=True):
        ours = evaluate(config, inputs)
        assert theirs["problems"] == ours["problems"] == {}, inputs
        for key in ("parameters", "gpus", "valid", "fitting", "broken", "flops", "steps", "batch_hint"):
            assert theirs[key] == ours[key], (inputs, key)
        assert [p["layout"] for p in theirs["plans"]] == [p["layout"] for p in ours["plans"]], inputs
        for mine, page in zip(ours["plans"], theirs["plans"], strict=True):
            reason, said = mine["reason"], page["reason"]
            assert (said["kind"], said["part"]) == (reason["kind"], reason["part"]), inputs
            scale = mine["step_seconds"] if reason["kind"] == "slower" else mine["memory"]["total"]
            assert _near(said["extra"], reason["extra"], scale) and _near(said["slower_by"], reason["slower_by"], 1)
            assert _near(page["step_seconds"], mine["step_seconds"], mine["step_seconds"]), inputs
            assert _near(page["memory"]["total"], mine["memory"]["total"], mine["memory"]["total"]), inputs
        assert theirs["invalid"] == ours["invalid"], inputs


# ------------------------------------------------------------------- the form


@pytest.mark.parametrize(
    ("label", "typed", "message"),
    [
        ("Nodes", "0", MESSAGES["below_one"]),
        ("Nodes", "-3", MESSAGES["whole"]),
        ("Nodes", "999999999", MESSAGES["too_many_nodes"]),
        ("Sequence length, in tokens", "lots", MESSAGES["whole"]),
        ("Share of peak, in percent", "0", MESSAGES["share"]),
        ("Tensor-parallel degree (optional)", "3", TP_3),
        ("Tensor-parallel degree (optional)", "16", TP_16),
        ("NVLink per GPU, GB/s (optional)", "0", MESSAGES["nvlink_gbyte_s"]),
        ("Head dimension (optional)", "-1", MESSAGES["whole"]),
        ("Global batch, in tokens", "1000", MESSAGES["batch_sequences"].format(global_batch=1000, sequence=8192)),
    ],
)  # fmt: skip
def test_bad_input_is_told_at_its_field_and_nothing_breaks(
    tab: Page, base_url: str, planner_page: str, label: str, typed: str, message: str
) -> None:
    with page_errors(tab) as errors:
        tab.goto(base_url + planner_page)
        form = tab.locator(FORM).first
        field = form.get_by_label(label, exact=True)
        field.fill(typed)
        field.press("Enter")
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(form.locator(f"#{field.get_attribute('id')}-problem")).to_have_text(message)
        expect(form.get_by_role("status")).to_have_text(f"Not planned: check {label}.")
        field.fill("2" if label == "Nodes" else "")
    assert errors == []


def test_a_plan_no_layout_keeps_says_the_first_rule_it_breaks(tab: Page, base_url: str, planner_page: str) -> None:
    with page_errors(tab) as errors:
        tab.goto(base_url + planner_page)
        form = tab.locator(FORM).first
        form.get_by_label("Pipeline-parallel degree (optional)").fill("16")
        form.get_by_label("Global batch, in tokens").fill("65536")
        form.get_by_role("button", name="Plan").click()
        expect(form.get_by_role("status")).to_contain_text(
            "No layout keeps the rules: 8 micro-batches per replica, fewer than the pp = 16 stages"
        )
    assert errors == []


def test_a_typed_shape_is_planned_and_the_reader_sees_why_each_layout_ranks(
    tab: Page, base_url: str, planner_page: str
) -> None:
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    status = form.get_by_role("status")
    expect(status.get_by_role("table")).to_contain_text("the fastest layout that fits")
    form.get_by_label("Layers").fill("16")  # typing a count makes the shape the reader's own
    expect(form.get_by_label("Model")).to_have_value("custom")
    form.get_by_label("Training tokens (optional)").fill("1e12")
    form.get_by_label("Price per GPU-hour, in dollars (optional)").fill("3")
    form.get_by_role("button", name="Plan").click()
    table = status.get_by_role("table")
    expect(table.locator("th", has_text="cost")).to_have_count(1)
    expect(table.locator("tbody tr").first).to_contain_text("$")
    expect(status).to_contain_text("break a rule")


def test_the_table_shows_the_context_degree_and_the_expert_degree_for_a_mixture_of_experts(
    tab: Page, base_url: str, planner_page: str
) -> None:
    """Issue 29: the searched degrees are columns; a dense model's ep, always 1, is not; a fixed cp holds."""
    with page_errors(tab) as errors:
        tab.goto(base_url + planner_page)
        form = tab.locator(FORM).first
        table = form.get_by_role("status").get_by_role("table")
        expect(table.locator("th", has_text="cp")).to_have_count(1)
        expect(table.locator("thead th", has_text=re.compile(r"^ep$"))).to_have_count(0)
        form.get_by_label("Context-parallel degree (optional)").fill("2")
        form.get_by_role("button", name="Plan").click()
        cp = [h.inner_text() for h in table.locator("thead th").all()].index("cp")
        cells = table.locator("tbody tr").evaluate_all(f"rows => rows.map(r => r.cells[{cp}].textContent)")
        assert cells and set(cells) == {"2"}, cells
        form.get_by_label("Context-parallel degree (optional)").fill("")
        form.get_by_label("Model").select_option("mixtral-8x7b")
        form.get_by_role("button", name="Plan").click()
        expect(table.locator("thead th", has_text=re.compile(r"^ep$"))).to_have_count(1)
    assert errors == []


def test_a_planner_reached_by_instant_navigation_plans(tab: Page, base_url: str, planner_page: str) -> None:
    with page_errors(tab) as errors:
        tab.goto(base_url)
        tab.evaluate(
            "(url) => { const a = document.createElement('a'); a.href = url; document.body.append(a); a.click(); }",
            base_url + planner_page,
        )
        expect(tab.locator(f"{FORM}[data-sbn-mounted] .sbn-planner__result table")).to_be_attached()
        assert tab.evaluate("performance.getEntriesByType('navigation').length") == 1  # no full load
    assert errors == []


# ------------------------------------------------------------------ storage


def test_the_readers_inputs_are_kept_and_garbage_in_storage_never_breaks_the_page(
    tab: Page, base_url: str, planner_page: str
) -> None:
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    ident = form.get_attribute("data-sbn-planner")
    form.get_by_label("Nodes").fill("4")
    form.get_by_label("Nodes").press("Enter")
    tab.reload()
    expect(form.get_by_label("Nodes")).to_have_value("4")
    key = f"sbn:/course/:{ident}"
    assert tab.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('sbn:'))") == [key]
    default = json.loads(form.get_attribute("data-sbn-defaults") or "")["nodes"]
    garbage = [
        "{not json",
        "null",
        "[]",
        '"text"',
        '{"v": 2, "inputs": {"nodes": "4"}}',
        '{"v": 1, "inputs": "nodes"}',
        '{"v": 1, "inputs": {"nodes": 12, "gpu": ["h100"]}}',
        '{"v": 1, "inputs": {"model": "<img src=x onerror=alert(1)>", "recipe": "no-such"}}',
        '{"v": 1, "inputs": {"nodes": "' + "9" * 5000 + '"}}',
        '{"v": 1, "inputs": {"nodes": "0", "share": "abc", "__proto__": {"x": 1}}}',
    ]
    with page_errors(tab) as errors:
        for stored in garbage:
            tab.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, stored])
            tab.reload()
            status = form.get_by_role("status")
            if "share" in stored:  # a stored value that breaks a rule is told, like a typed one
                expect(status).to_contain_text("Not planned: check Nodes; Share of peak, in percent.")
            else:
                expect(form.get_by_label("Nodes")).to_have_value(default)
                expect(status.get_by_role("table")).to_be_visible()
    assert errors == []


# ------------------------------------------------------------------ looks


def _axe_on(tab: Page, selector: str) -> tuple[int, str]:
    """axe's WCAG AA rules on one element of the open page (the planner, its result drawn)."""
    if not tab.evaluate("() => typeof window.axe?.run === 'function'"):
        tab.evaluate(AXE_SCRIPT)
    violations = tab.evaluate(
        """([selector, rules]) => axe
            .run(document.querySelector(selector), {runOnly: rules, resultTypes: ["violations"]})
            .then((results) => results.violations)""",
        [selector, WCAG_AA],
    )
    results = AxeResults({"violations": violations})
    return results.violations_count, results.generate_report()


@pytest.mark.parametrize("width", [1280, PHONE["width"]])
def test_the_plan_fits_the_page_at_each_width_in_each_palette(
    tab: Page, base_url: str, planner_page: str, width: int
) -> None:
    """The table scrolls in its own box, its caption whole, the page never sideways; axe finds nothing."""
    tab.set_viewport_size({"width": width, "height": PHONE["height"]})
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    expect(form.get_by_role("status").get_by_role("table")).to_be_visible()
    for scheme in ("default", "slate"):
        show_palette(tab, scheme)
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        box = form.get_by_role("region")
        box_edges, caption = box.bounding_box(), form.locator("caption").bounding_box()
        assert box_edges and caption and box_edges["x"] - 0.5 <= caption["x"]
        assert caption["x"] + caption["width"] <= box_edges["x"] + box_edges["width"] + 0.5
        assert box.get_attribute("tabindex") == "0"  # the keyboard scrolls it
        if width == PHONE["width"]:
            assert box.evaluate("(box) => box.scrollWidth > box.clientWidth")
        violations, report = _axe_on(tab, FORM)
        assert violations == 0, f"{width} {scheme}: {report}"


# ------------------------------------------------------------ the reader trial (issue 28)


def test_the_table_follows_the_typing_without_leaving_the_field(tab: Page, base_url: str, planner_page: str) -> None:
    """The table was stale until a field lost focus; now it follows the keys, a moment after the last."""
    with page_errors(tab) as errors:
        tab.goto(base_url + planner_page)
        form = tab.locator(FORM).first
        status = form.get_by_role("status")
        expect(status).to_contain_text("on 16 ×")
        form.get_by_label("Nodes").select_text()
        form.get_by_label("Nodes").press_sequentially("4", delay=50)  # no Enter, no blur
        expect(status).to_contain_text("on 32 ×")
        expect(form.get_by_label("Nodes")).to_be_focused()
    assert errors == []


def test_reset_restores_the_lessons_values_and_forgets_the_stored_ones(
    tab: Page, base_url: str, planner_page: str
) -> None:
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    default = json.loads(form.get_attribute("data-sbn-defaults") or "")
    form.get_by_label("Nodes").fill("4")
    form.get_by_label("Layers").fill("16")
    form.get_by_role("button", name="Plan").click()
    form.get_by_role("button", name="Reset").click()
    expect(form.get_by_label("Nodes")).to_have_value(default["nodes"])
    expect(form.get_by_label("Model")).to_have_value(default["model"])
    expect(form.get_by_label("Layers")).to_have_value("32")
    assert tab.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('sbn:'))") == []
    expect(form.get_by_role("status").get_by_role("table")).to_be_visible()


def test_a_typed_shape_takes_biases_and_a_head_dimension(tab: Page, base_url: str, planner_page: str) -> None:
    """Qwen2-7B typed with its query, key and value biases is its 7,615,616,512; Mistral-Nemo's shape with its
    head dimension of 128 (5,120 over 32 heads would be 160) is its 12,247,782,400."""
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    status = form.get_by_role("status")
    for shape, count in [
        ({"Layers": "28", "Hidden size": "3584", "Attention heads": "28", "Key-value heads": "4",
          "MLP width": "18944", "Vocabulary": "152064", "Head dimension (optional)": ""}, "7,615,616,512"),
        ({"Layers": "40", "Hidden size": "5120", "Attention heads": "32", "Key-value heads": "8",
          "MLP width": "14336", "Vocabulary": "131072", "Head dimension (optional)": "128"}, "12,247,782,400"),
    ]:  # fmt: skip
        for label, value in shape.items():
            form.get_by_label(label, exact=True).fill(value)
        form.get_by_label("Biases").select_option("qkv" if count.startswith("7,") else "none")
        form.get_by_role("button", name="Plan").click()
        expect(status).to_contain_text(f"{count} parameters")


def test_the_page_says_the_flops_the_links_the_steps_and_what_the_activations_count(
    tab: Page, base_url: str, planner_page: str
) -> None:
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    status = form.get_by_role("status")
    form.get_by_label("Training tokens (optional)").fill("1e12")
    form.get_by_label("Network port per GPU, Gbit/s (optional)").fill("200")
    form.get_by_role("button", name="Plan").click()
    expect(status).to_contain_text("FLOPs per token: 57,914,425,344, 7.21 per parameter")
    expect(status).to_contain_text("The share of peak and the MFU column count these")
    expect(status).to_contain_text("NVLink (nvlink-h100) 450.0 GB/s per GPU; the network (as typed) 200.0 Gbit/s")
    expect(status).to_contain_text("are 238,419 steps of 4,194,304 tokens")
    expect(status.get_by_role("table").locator("th", has_text="days")).to_have_count(1)
    expect(status).to_contain_text("the dropout masks")
    form.get_by_label("Global batch, in tokens").fill("4202496")
    form.get_by_role("button", name="Plan").click()
    expect(status).to_contain_text("512 or 528 sequences (4,194,304 or 4,325,376 tokens) would divide")


@pytest.mark.parametrize(
    "inputs", [{"model": "llama-3-9b"}, {"model": "__proto__"}, {"recipe": "__proto__"}, {"model": "no", "nodes": "4"}]
)
def test_a_stored_choice_the_lists_do_not_offer_is_dropped_and_the_lessons_value_shown(
    tab: Page, base_url: str, planner_page: str, inputs: dict[str, str]
) -> None:
    """Attack round F12c: an unknown model or recipe showed the list's first option and stayed stored."""
    tab.goto(base_url + planner_page)
    form = tab.locator(FORM).first
    key = f"sbn:/course/:{form.get_attribute('data-sbn-planner')}"
    defaults = json.loads(form.get_attribute("data-sbn-defaults") or "")
    tab.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, json.dumps({"v": 1, "inputs": inputs})])
    tab.reload()
    expect(tab.locator(f"{FORM}[data-sbn-mounted]").first).to_be_attached()
    for name in ("model", "recipe"):
        expect(form.locator(f"[name={name}]")).to_have_value(defaults[name])
    kept = {name: value for name, value in inputs.items() if name == "nodes"}
    stored = tab.evaluate("(key) => localStorage.getItem(key)", key)
    assert (json.loads(stored)["inputs"] if stored else {}) == kept
