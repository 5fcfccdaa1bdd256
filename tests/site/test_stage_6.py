"""Stage 6's lessons as a reader gets them: the papers quoted word for word, numeric keys from the formulas.

Quotes are typed from the papers (Megatron-LM arXiv v4; Narayanan et al. arXiv v5;
Korthikanti et al.; GPipe v5); keys from the arithmetic written beside them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from macros.figures.kinds import KINDS
from tests.checks import attribute, lesson_body, one
from tests.conftest import catalog, soup
from tests.site.test_lessons import lesson_page

QUOTES = {
    11: [
        # Megatron-LM, Figure 3 caption
        "f is an identity operator in the forward pass and all reduce in the backward pass while g is an all reduce"
        " in the forward pass and identity in the backward pass.",
        # Narayanan et al. §3.2
        "when t is larger than the number of GPUs in a single node, the overhead of performing tensor model"
        " parallelism across slower inter-node links can be impractical.",
        # Korthikanti et al. §4.2.2
        "the communication bandwidth used for tensor parallelism and tensor together with sequence parallelism are"
        " the same.",
        # Narayanan et al. §5.4.1
        "we see peak performance when the tensor-parallel size is equal to the number of GPUs in a single node",
        # NCCL issue 687 (S. Jeaugey)
        "Ring Allreduce requires data to go through each GPU and enter/exit the node once",
        # Korthikanti et al. §6.2
        "an optimization in the backward pass where we overlap all-reduce communication with the linear weight's"
        " gradient computation",
        # Korthikanti et al. §4.2.2
        "we store only the Y",
        "part on the ith tensor parallel rank and perform an extra all-gather in the backward pass",
        # Megatron-Core, megatron/core/transformer/transformer_config.py (August 2026)
        "num_attention_heads ... must be a multiple of tensor_model_parallel_size",
        "must be a multiple or divisor of tensor_model_parallel_size",
    ],
    12: [
        # GPipe §2.2
        "divides every mini-batch of size N into M equal micro-batches, which are pipelined through the K"
        " accelerators.",
        # Narayanan et al. §2.2.1
        "activations to be stashed for p or fewer microbatches (compared to m microbatches for the GPipe schedule).",
        # Narayanan et al. §2.2.2
        "Quantitatively, the amount of communication also increases by v.",
        # Narayanan et al. §1
        "As much as 50% of time can be spent flushing the pipeline depending on the number of microbatches injected"
        " into the pipeline",
        # Narayanan et al. §3.5
        "Activation recomputation is required to train reasonably large models with pipeline parallelism to keep"
        " memory footprint acceptably low",
        # Narayanan et al., Figure 3 caption, and Appendix
        "The efficiency of the pipeline schedule does not depend on this factor.",
        "double the number of FLOPs",
        # Narayanan et al. §5.4.1
        "the total number of pipeline stages should thus be limited so that the number of microbatches in the"
        " pipeline is a reasonable multiple of the number of pipeline stages",
        # PipeDream (SOSP 2019) §1
        "In 1F1B's steady state, each worker strictly alternates between forward and backward passes for its stage",
        # Qi et al., abstract
        "split the backward computation into two parts, one that computes gradient for the input and another that"
        " computes for the parameters",
        # Megatron-Core: finalize_model_grads.py's _allreduce_word_embedding_grads, and the config's delay_wgrad_compute
        "are shared between the input and output layers",
        "improve batch-level communication overlapping",
    ],
    16: [
        # Narayanan et al. §3.2, Takeaway #1
        "When considering different forms of model parallelism, tensor model parallelism should generally be used up"
        " to degree g when using g-GPU servers, and then pipeline model parallelism can be used to scale up to larger"
        " models across servers.",
        # ZeRO, SC20 version, §VII-C "Comparison with MP" (not in arXiv v3, whose §7 ends at §7.2.2)
        "The communication volume of MP per mini-batch is proportional to the number of samples in the batch while"
        " communication for ZeRO-DP is a constant w.r.t mini-batch",
        # Narayanan et al. §3
        "do not present direct cost models for communication time, which is harder to model for a hierarchical"
        " network topology where interconnects between GPUs on the same server have higher bandwidth than"
        " interconnects between servers",
        # Narayanan et al. §5.2
        "by doubling the number of GPUs (keeping the batch size the same), PTD-P outperforms ZeRO-3 by 70% for both"
        " models due to less cross-node communication. We note that we have only considered ZeRO-3 without tensor"
        " parallelism.",
        # Narayanan et al. §6
        "can be partially hidden by carefully overlapping computation and communication. However, this can become"
        " harder if tensor parallelism is not used or the batch size is not large enough to hide the extra"
        " communication overhead",
        # Narayanan et al. §5.1
        "we use the interleaved pipeline schedule with the scatter/gather optimization enabled",
        # pytorch/pytorch#126166 (FSDP2)
        "incurs the collective per microbatch backward but saves gradient memory",
        # Austin et al., "How to Parallelize a Transformer for Training" (scaling book Part 5), data parallelism
        "it's fairly hard to become bottlenecked by pure data parallelism",
        # the same, "Takeaways from LLM Training on TPUs", model parallelism
        "around 8-16 way for most models",
        # Meta's Llama 3 model card, the caption of its GPU-hours table
        "total GPU time required for training each model",
        # Narayanan et al. §5.2
        "ZeRO-3 can be combined with model parallelism",
    ],
}


def _text(site_dir: Path, number: int) -> str:
    return " ".join(lesson_body(soup(site_dir / lesson_page(number))).get_text().split())


@pytest.mark.parametrize(("number", "quote"), [(n, q) for n, quotes in QUOTES.items() for q in quotes])
def test_stage_6_quotes_its_papers_word_for_word(site_dir: Path, number: int, quote: str) -> None:
    assert quote in _text(site_dir, number)


def _keys(site_dir: Path, number: int) -> dict[str, Fraction]:
    """The numeric keys of a lesson, exact: `data-key-value` is digits, or p/q where no decimal ends."""
    forms = lesson_body(soup(site_dir / lesson_page(number))).select("form[data-quiz-kind=numeric]")
    return {attribute(form, "data-quiz-id"): Fraction(attribute(form, "data-key-value")) for form in forms}


def test_lesson_11_keys_its_bytes_by_narayanans_count(site_dir: Path) -> None:
    keys = _keys(site_dir, 11)
    # 8 × 2 × 2048 × 12288 × 3/4 values × 2 bytes; over 25 GB/s.
    assert keys["l11-practice-1"] == 603_979_776
    assert keys["l11-practice-2"] == Fraction(603_979_776, 25 * 10**9)


def test_lesson_12_keys_its_bubbles_by_both_denominators(site_dir: Path) -> None:
    keys = _keys(site_dir, 12)
    assert keys["l12-practice-1"] == Fraction(7, 32)  # (8 − 1)/32
    assert keys["l12-practice-2"] == Fraction(7, 39)  # (8 − 1)/(32 + 8 − 1)
    assert keys["l12-practice-4"] == 100_663_296  # 2 × 2048 × 12288 × 2 bytes


def test_lesson_16_keys_its_layout_by_the_papers_degrees(site_dir: Path) -> None:
    keys = _keys(site_dir, 16)
    # The first stage's GPUs: 16 bytes × (a 35th of 529.6 billion parameters less the embeddings, and the embeddings,
    # (51,200 + 2,048) × 20,480 by Eq. 2), over its t = 8 GPUs.
    embeddings = 53_248 * 20_480
    assert keys["l13-practice-2"] == 16 * (Fraction(529_600_000_000 - embeddings, 35) + embeddings) / 8
    # d = 2520 / 280 = 9, m = 2520 / 9 = 280, (35 − 1)/280.
    assert keys["l13-practice-3"] == Fraction(34, 280)


def test_lesson_12s_diagram_steps_through_the_schedules_of_its_two_tables(site_dir: Path) -> None:
    # Drawn by one function, the diagram's frame for slot t shows, for each stage, what the GPipe table's and the
    # 1F1B table's cells say that stage runs in column t; an idle slot is blank in both.
    body = lesson_body(soup(site_dir / lesson_page(12)))
    gpipe, one_f_one_b = (
        [[cell.get_text() for cell in row.select("td")] for row in table.select("tbody tr")]
        for table in body.select("table.sbn-schedule")
    )
    frames = one(body, "figure.sbn-frames").select(".sbn-frames__frame")
    assert len(frames) == len(gpipe[0]) == len(one_f_one_b[0])
    for slot, frame in enumerate(frames):
        cells = [one(group, "text").get_text() for group in frame.select("svg g[class^=sbn-frames__cell]")]
        # Each stage's row: GPipe's pass, its stash, 1F1B's pass, its stash.
        assert cells[0::4] == [row[slot] for row in gpipe], slot
        assert cells[2::4] == [row[slot] for row in one_f_one_b], slot


def test_lesson_12s_schedule_tables_show_the_bubble_its_figure_gives(site_dir: Path) -> None:
    # The GPipe table of 4 stages and 8 micro-batches leaves each stage idle as long as the figure beside it says:
    # GPipe §2.3's (K − 1)/(M + K − 1) of the step, 3/11, read off the table's own cells.
    body = lesson_body(soup(site_dir / lesson_page(12)))
    tables = body.select("table.sbn-schedule")
    assert len(tables) == 2
    figure = body.select_one('.fig[data-fig-id="pipeline-bubble/4/8/gpipe/total"]')
    # data-value is decimal, to 20 digits.
    assert figure is not None and abs(Fraction(attribute(figure, "data-value")) - Fraction(3, 11)) < Fraction(1, 10**19)
    for table in tables:
        for row in table.select("tbody tr"):
            cells = row.select("td")
            assert Fraction(sum(not cell.get_text(strip=True) for cell in cells), len(cells)) == Fraction(3, 11)


def test_a_bar_chart_of_layouts_crosses_out_exactly_those_whose_model_states_do_not_fit(
    site_dir: Path, page: str
) -> None:
    # A bar's name carries ✗ (the caption says what it means) when the layout's model states alone exceed the
    # memory of the workload's GPU: the name is typed, the fit computed, and this holds the one to the other.
    for chart in lesson_body(soup(site_dir / page)).select("figure.sbn-chart:has(svg.sbn-chart__svg--bars)"):
        table = one(chart, "details.sbn-chart__data table")
        names = [th.get_text() for th in table.select("thead th")][1:]
        for name, figure in zip(names, table.select("tbody tr")[0].select(".fig"), strict=True):
            kind, workload, scheme, _ = [*attribute(figure, "data-fig-id").split("/"), "", "", ""][:4]
            if kind != "layout":
                break
            states = KINDS["layout"].figure(catalog(), workload, scheme, "states").value
            gpu = catalog().workload(workload).gpu
            assert gpu is not None
            assert ("✗" in name) == (states > catalog().quantity(gpu.id, "memory").value), (page, name)
