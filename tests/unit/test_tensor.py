"""Tensor parallelism and activation memory against what Megatron-LM, Narayanan et al. and Korthikanti et al. print.

Expected values are typed from the sources named beside them, or from the
arithmetic written out beside them, never from the code's output.
"""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from macros import model
from macros.data.catalog import load_catalog
from macros.figures.kinds import KINDS
from macros.model import parallel_activations, tensor
from tests.conftest import catalog, course


def test_a_layer_all_reduces_twice_forward_and_twice_backward() -> None:
    # Megatron-LM §3: "only two all-reduces in the forward path and two in the backward path";
    # Figure 4: "There are 4 total communication operations in the forward and backward pass".
    assert (tensor.tensor_allreduces("forward"), tensor.tensor_allreduces("backward")) == (2, 2)
    assert tensor.tensor_allreduces() == 4


@pytest.mark.parametrize(("b", "s", "h", "t"), [(1, 2048, 12288, 8), (8, 1024, 3072, 8), (4, 1024, 1600, 2)])
def test_each_device_sends_8bsh_t_minus_1_over_t_values_per_layer(b: int, s: int, h: int, t: int) -> None:
    # Narayanan et al. §3.2: "a total communication of 8bsh((t−1)/t) per layer per device for each microbatch"
    assert tensor.tensor_bytes_per_layer(b, s, h, t, 1) == 8 * b * s * h * Fraction(t - 1, t)
    assert tensor.tensor_bytes_per_layer(b, s, h, t, 2) == 2 * 8 * b * s * h * Fraction(t - 1, t)


def test_gpt3s_layer_sends_352_mb_per_microbatch() -> None:
    # 8 × 1 × 2048 × 12288 × 7/8 values = 176,160,768 values, × 2 bytes.
    assert tensor.tensor_bytes_per_layer(1, 2048, 12288, 8, 2) == 352_321_536


def test_recomputing_the_forward_pass_repeats_its_two_all_reduces() -> None:
    # Megatron-LM §3: two all-reduces (g) in the forward pass; recomputation runs the forward pass again before the
    # backward pass, so 4 + 2 = 6 all-reduces: 12bsh(t − 1)/t values.
    assert tensor.allreduces_per_layer("recompute") == 6
    assert tensor.tensor_bytes_per_layer(1, 2048, 12288, 8, 2, "recompute") == 12 * 2048 * 12288 * Fraction(7, 8) * 2
    with pytest.raises(KeyError, match="no-recompute, recompute"):
        tensor.allreduces_per_layer("twice")


@pytest.mark.parametrize(("heads", "t"), [(25, 2), (25, 4), (25, 8), (96, 64)])
def test_a_tensor_parallel_degree_that_does_not_divide_the_heads_is_refused(heads: int, t: int) -> None:
    # Megatron-LM §3: each attention head "is done locally on one GPU"; its code divides the heads by t exactly.
    with pytest.raises(ValueError, match=f"{heads} attention heads do not split {t} ways"):
        tensor.check_heads(heads, t)


@pytest.mark.parametrize(("heads", "t"), [(25, 5), (96, 8), (16, 8), (32, 8)])
def test_a_degree_that_divides_the_heads_is_accepted(heads: int, t: int) -> None:
    tensor.check_heads(heads, t)


def test_one_device_sends_nothing_to_itself() -> None:
    with pytest.raises(ValueError, match="at least 2 devices"):
        tensor.tensor_bytes_per_layer(1, 2048, 12288, 1, 2)


def test_a_layer_with_recomputation_costs_96bsh2_1_plus_s_over_6h() -> None:
    # Narayanan et al., Appendix: "the total number of FLOPs per transformer layer is
    # 4×(24Bsh² + 4Bs²h) = 96Bsh²(1 + s/(6h))".
    b, s, h = 1, 2048, 12288
    assert tensor.layer_flops(b, s, h, "recompute") == 96 * b * s * h**2 * (1 + Fraction(s, 6 * h))
    assert tensor.layer_flops(b, s, h) * 4 == tensor.layer_flops(b, s, h, "recompute") * 3


def test_megatrons_abstract_efficiency_is_its_aggregate_over_512_baselines() -> None:
    # Megatron-LM, abstract: "15.1 PetaFLOPs ... with 76% scaling efficiency ... baseline that sustains 39 TeraFLOPs"
    efficiency = tensor.scaling_efficiency(15.1e15, 512, 39e12)
    assert round(efficiency, 2) == Fraction(76, 100)


def test_megatrons_section_5_efficiency_stands_for_less_than_15_1_petaflops() -> None:
    # §5.1.1: "74% scaling" on 512 GPUs: 0.74 × 512 × 39 TFLOP/s = 14,776.32 TFLOP/s.
    assert tensor.sustained_flops(Fraction(74, 100), 512, 39 * 10**12) == 14_776_320 * 10**9


def test_a_dgx_2h_gives_each_of_its_16_v100s_131_teraflops() -> None:
    # Tom's Hardware: the DGX-2H "increases performance from 2 petaflops to 2.1 petaflops", 16 Tesla V100s.
    assert tensor.per_device_rate(Fraction(21, 10) * 10**15, 16) == Fraction(13125, 100) * 10**12
    assert KINDS["per_device_flops"].figure(catalog(), "dgx2h-peak").value == Fraction(13125, 100) * 10**12


def test_39_teraflops_at_30_percent_means_a_peak_of_130() -> None:
    # §5.1.1: "39 TeraFLOPS ..., which is 30% of the theoretical peak FLOPS for a single GPU in a DGX-2H server"
    assert tensor.implied_peak(39 * 10**12, Fraction(3, 10)) == 130 * 10**12


def test_a_layers_activations_sum_attention_mlp_and_layer_norms() -> None:
    # Korthikanti et al. §4.1: attention 11sbh + 5as²b, MLP 19sbh, layer norms 4sbh: Eq. 1, sbh(34 + 5as/h).
    s, b, h, a = 2048, 1, 12288, 96
    attention, mlp, layer_norms = 11 * s * b * h + 5 * a * s**2 * b, 19 * s * b * h, 4 * s * b * h
    assert parallel_activations.layer_activation_bytes(s, b, h, a) == attention + mlp + layer_norms


def test_tensor_and_sequence_parallelism_divide_equation_1_by_t() -> None:
    # §4.2.2: "The above equation is now Equation 1 divided by the tensor parallel size."
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    full = parallel_activations.layer_activation_bytes(s, b, h, a)
    assert parallel_activations.layer_activation_bytes(s, b, h, a, t, "tensor-sequence") == full / t


def test_tensor_parallelism_alone_leaves_10sbh_undivided() -> None:
    # §4.2.2: "the 10sbh part of Equation 2 is due to these replicated operations"
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    tensor_only = parallel_activations.layer_activation_bytes(s, b, h, a, t, "tensor")
    both = parallel_activations.layer_activation_bytes(s, b, h, a, t, "tensor-sequence")
    assert tensor_only - both == 10 * s * b * h - Fraction(10 * s * b * h, t)


def test_full_recomputation_keeps_2sbh_per_layer() -> None:
    # §5: "this method reduces the total required memory for activations to 2sbhL"
    assert parallel_activations.layer_activation_bytes(2048, 1, 12288, 96, 8, "full-recompute") == 2 * 2048 * 12288


@pytest.mark.parametrize(
    ("heads", "hidden", "ratio", "saving"),
    [  # §5: "For GPT-3, a = 96, s = 2048, and h = 12288 and as a result 5as/h = 80. For MT-NLG, a = 128,
        # s = 2048, and h = 20480 so 5as/h = 64." ... "we can save 70% and 65%"
        (96, 12288, 80, Fraction(70, 100)),
        (128, 20480, 64, Fraction(65, 100)),
    ],
)
def test_selective_recomputation_saves_what_korthikanti_prints(
    heads: int, hidden: int, ratio: int, saving: Fraction
) -> None:
    assert model.attention_score_term(heads, 2048, hidden) == ratio
    assert round(parallel_activations.selective_saving(2048, hidden, heads), 2) == saving


def test_an_unknown_technique_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="none, tensor, tensor-sequence"):
        parallel_activations.layer_activation_bytes(2048, 1, 12288, 96, 8, "offload")


def test_gpt2s_activations_by_korthikanti_are_nearly_five_times_zeros_estimate() -> None:
    # ZeRO §3.2 counts 12·h·b·s·L values in fp16: 24 bytes per sbh per layer. Korthikanti's Eq. 1 for
    # GPT-2 (25 heads, s = 1024, h = 1600): 5as/h = 80, so 34 + 80 = 114 bytes per sbh per layer.
    zero = KINDS["activations"].figure(catalog(), "zero-gpt2-activations").value
    theirs = KINDS["layer_activations"].figure(catalog(), "zero-gpt2-activations", "none", "model").value
    assert Fraction(theirs) / Fraction(zero) == Fraction(114, 24)


def test_the_tensor_kinds_read_the_workload() -> None:
    figure = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "infiniband-hdr", "model")
    assert figure.id == "tensor-seconds/megatron-8.3b-tp/infiniband-hdr/model"
    # 8 × 8 × 1024 × 3072 × 7/8 × 2 bytes × 72 layers, over 25 GB/s.
    assert figure.value == Fraction(8 * 8 * 1024 * 3072 * 7 * 2 * 72, 8 * 25 * 10**9)


def test_the_same_bytes_take_twelve_times_longer_over_infiniband_than_over_nvlink() -> None:
    # NVIDIA: 12 NVLinks × 25 GB/s each way on an A100; Narayanan et al. §5: one 200 Gb/s HDR adapter per GPU.
    nvlink = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "nvlink-a100").value
    network = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "infiniband-hdr").value
    assert Fraction(network) / Fraction(nvlink) == 12


def test_a_group_split_four_and_four_over_two_servers_sends_a_quarter_per_adapter() -> None:
    # Two groups of 8 with 4 GPUs in each of two servers: each group's ring leaves a server once, and the server's
    # 8 adapters carry both groups' rings, so each adapter carries what one GPU sends ÷ 4 (NCCL issues 687, 412).
    spread = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "infiniband-hdr", "layer", 4)
    assert spread.id == "tensor-seconds/megatron-8.3b-tp/infiniband-hdr/layer/4"
    assert spread.value == Fraction(8 * 8 * 1024 * 3072 * 7 * 2, 8 * 4 * 25 * 10**9)


def test_the_tensor_kinds_refuse_a_degree_that_does_not_divide_the_heads(tmp_path: Path) -> None:
    # GPT-2's 25 heads split 8 ways, written into a copy of the catalog as a workload, is refused by the kind.
    copy = tmp_path / "catalog"
    shutil.copytree(course().catalog_dir, copy)
    with (copy / "workloads.yml").open("a", encoding="utf-8") as workloads:
        workloads.write(
            "gpt2-tp8:\n  name: GPT-2 split eight ways\n  model: gpt2-1.5b\n  sequence: 1024\n  batch: 1\n"
            "  tensor: 8\n  source: course\n  where: a test\n"
        )
    with pytest.raises(ValueError, match="25 attention heads do not split 8 ways"):
        KINDS["tensor_bytes"].figure(load_catalog(copy), "gpt2-tp8")


def test_selective_recomputation_saves_less_against_tensor_parallelism_alone() -> None:
    # Table 2, GPT-3 at t = 8 (5as/h = 80): tensor parallel sbh(10 + 24/8 + 80/8) = 23sbh, with selective
    # recomputation sbh(10 + 24/8) = 13sbh, a saving of 10/23; with sequence parallelism too, (80/8)/(114/8) = 80/114.
    figure = KINDS["selective_saving"].figure(catalog(), "gpt3-activations", "tensor")
    assert (figure.id, figure.value) == ("selective-saving/gpt3-activations/tensor", Fraction(10, 23))
    assert KINDS["selective_saving"].figure(catalog(), "gpt3-activations", "tensor-sequence").value == Fraction(80, 114)
    assert KINDS["selective_saving"].figure(catalog(), "gpt3-activations").value == Fraction(80, 114)
    with pytest.raises(KeyError, match="none, tensor, tensor-sequence"):
        KINDS["selective_saving"].figure(catalog(), "gpt3-activations", "full-recompute")


def test_the_backward_all_reduces_hide_behind_a_wide_layers_weight_gradients() -> None:
    # GPT-3 (h = 12288), one sequence, t = 8 on A100 NVLink: an all-reduce of 2048 × 12288 values sends 2 × 7/8 of
    # them at 2 bytes over 300 GB/s; the query-key-value weights' gradient, 2 × 2048 × 12288 × 3 × 12288/8 FLOPs at
    # 312 TFLOP/s, takes longer, so only the forward pass's two all-reduces are exposed.
    one = Fraction(2 * 7 * 2048 * 12288 * 2, 8 * 300 * 10**9)
    assert tensor.weight_gradient_flops(1, 2048, 12288, 8, 3) == 2 * 2048 * 12288 * 3 * 12288 // 8
    assert tensor.exposed_allreduce_seconds(one, 1, 2048, 12288, 8, 312 * 10**12) == 2 * one
    assert tensor.exposed_allreduce_seconds(one, 1, 2048, 12288, 8, 312 * 10**12, "recompute") == 4 * one


def test_over_the_network_the_backward_all_reduces_mostly_stay_exposed() -> None:
    # The 8.3B model's layer (b = 8, s = 1024, h = 3072, t = 8), each GPU in another server: one all-reduce is
    # 2 × 7/8 × 8 × 1024 × 3072 × 2 bytes over 25 GB/s; its weight-gradient GEMMs, 2 × 8192 × 3072 × 3 × 3072/8 and
    # 2 × 8192 × 3072 × 4 × 3072/8 FLOPs at 312 TFLOP/s, hide only their own length of the backward pair.
    one = Fraction(2 * 7 * 8 * 1024 * 3072 * 2, 8 * 25 * 10**9)
    gemms = [Fraction(2 * 8192 * 3072 * width * 3072, 8 * 312 * 10**12) for width in (3, 4)]
    figure = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "infiniband-hdr", "layer", 1, "exposed")
    assert figure.id == "tensor-seconds/megatron-8.3b-tp/infiniband-hdr/layer/1/exposed"
    assert figure.value == 4 * one - sum(gemms)
    whole = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "infiniband-hdr", "model", 1, "exposed")
    assert whole.value == 72 * figure.value
    with pytest.raises(ValueError, match="names no GPU"):
        KINDS["tensor_seconds"].figure(catalog(), "gpt3-activations", "nvlink-a100", "layer", 1, "exposed")


def test_the_forward_pair_is_the_least_a_layer_waits_and_the_peak_the_most() -> None:
    # The 8.3B model's layer (b = 8, s = 1024, h = 3072, t = 8) over A100 NVLink: one all-reduce is
    # 2 × 7/8 × 8 × 1024 × 3072 × 2 bytes over 300 GB/s, 294 µs. At 312 TFLOP/s the weight-gradient GEMMs,
    # 2 × 8192 × 3072 × 3 × 3072/8 and 2 × 8192 × 3072 × 4 × 3072/8 FLOPs, take 186 and 248 µs, shorter, so the GPU
    # waits for part of the backward pair too; at 60% of that peak they take 310 and 413 µs, longer than the
    # all-reduce, and it waits for the forward pair alone: less than at the peak, never less than the forward pair.
    one = Fraction(2 * 7 * 8 * 1024 * 3072 * 2, 8 * 300 * 10**9)
    peak = 312 * 10**12
    gemms = [Fraction(2 * 8192 * 3072 * width * 3072, 8 * peak) for width in (3, 4)]
    at_peak = tensor.exposed_allreduce_seconds(one, 8, 1024, 3072, 8, peak)
    below = tensor.exposed_allreduce_seconds(one, 8, 1024, 3072, 8, Fraction(6, 10) * peak)
    assert tensor.forward_allreduce_seconds(one) == 2 * one
    assert tensor.forward_allreduce_seconds(one, "recompute") == 4 * one
    assert at_peak == 4 * one - sum(gemms)
    assert below == 2 * one < at_peak
    # The step is still bounded below by the peak: below it, the layer's compute, 3 × (24bsh² + 4bs²h)/t FLOPs,
    # grows by more than the GEMMs hide.
    compute = Fraction(3 * (24 * 8 * 1024 * 3072**2 + 4 * 8 * 1024**2 * 3072), 8)
    assert compute / (Fraction(6, 10) * peak) + below > compute / peak + at_peak
    figure = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "nvlink-a100", "layer", 1, "forward")
    assert (figure.id, figure.value) == ("tensor-seconds/megatron-8.3b-tp/nvlink-a100/layer/1/forward", 2 * one)
    whole = KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "nvlink-a100", "model", 1, "forward")
    assert whole.value == 72 * 2 * one
    with pytest.raises(KeyError, match="all, forward, exposed"):
        KINDS["tensor_seconds"].figure(catalog(), "megatron-8.3b-tp", "nvlink-a100", "layer", 1, "backward")


def test_with_recomputation_a_layer_sends_six_all_reduces() -> None:
    # Megatron-LM §4.2 checkpoints every layer: the 8.3B model's 72 layers × 12 × 8 × 1024 × 3072 × 7/8 × 2 bytes.
    figure = KINDS["tensor_bytes"].figure(catalog(), "megatron-8.3b-tp", "model", "recompute")
    assert figure.value == 72 * 12 * 8 * 1024 * 3072 * Fraction(7, 8) * 2


def test_sequence_parallelism_sends_a_quarter_more_with_its_backward_all_gathers() -> None:
    # Korthikanti et al. §4.2.2: four all-gathers and four reduce-scatters in place of four all-reduces (the same
    # bytes), and "an extra all-gather in the backward pass" of each block's input: 10 against 8 × (t − 1)/t bsh.
    assert tensor.sequence_parallel_bytes_per_layer(1, 2048, 12288, 8, 2) == 10 * Fraction(7, 8) * 2048 * 12288 * 2
    sent = KINDS["sequence_parallel_bytes"].figure(catalog(), "gpt3-activations").value
    assert Fraction(sent) / Fraction(KINDS["tensor_bytes"].figure(catalog(), "gpt3-activations").value) == Fraction(
        5, 4
    )
    with pytest.raises(ValueError, match="at least 2 devices"):
        tensor.sequence_parallel_bytes_per_layer(1, 2048, 12288, 1, 2)


def test_the_rounding_of_39_teraflops_and_30_percent_bounds_the_peak() -> None:
    # §5.1.1's "39 TeraFLOPS" and "30%" lie within 38.5 to 39.5 and 29.5% to 30.5%: the peak lies between
    # 38.5/0.305 and 39.5/0.295 teraFLOP/s, above the V100's 125 even at its lowest.
    low = KINDS["implied_peak"].figure(catalog(), "megatron-baseline", "low")
    high = KINDS["implied_peak"].figure(catalog(), "megatron-baseline", "high")
    assert (low.value, high.value) == (Fraction(385, 305) * 10**14, Fraction(395, 295) * 10**14)
    assert low.value > 125 * 10**12
    with pytest.raises(KeyError, match="unknown bound"):
        tensor.implied_peak_bound(39, Fraction(3, 10), 1, Fraction(1, 100), "middle")


def test_an_h100_servers_nvlink_is_nine_times_its_adapter_and_an_a100s_twelve() -> None:
    # NVIDIA: 900 GB/s bidirectional NVLink per H100 against one 400 Gb/s ConnectX-7 port per GPU (DGX H100);
    # 12 links × 25 GB/s each way on an A100 against one 200 Gb/s HDR adapter per GPU (Narayanan et al. §5).
    assert KINDS["link_ratio"].figure(catalog(), "nvlink-h100", "connectx7-400g").value == 9
    assert KINDS["link_ratio"].figure(catalog(), "nvlink-a100", "infiniband-hdr").value == 12
