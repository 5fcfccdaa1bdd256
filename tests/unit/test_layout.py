"""Five layouts of one step, and the trillion-parameter run, against Narayanan et al. and ZeRO.

Expected values are typed from the sources named beside them, or from the
arithmetic written out beside them, never from the code's output.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from macros.kinds import KINDS
from macros.model import communication, layout
from tests.conftest import catalog

# GPT-3 as Narayanan et al. run it in Table 2 (PTD-P, 1536 GPUs), on Selene's A100s and links:
# §5.3.2 "96 layers, 96 attention heads, hidden size of 12288"; §5 "Each cluster node has 8 NVIDIA 80-GB A100 GPUs";
# §5.1 "All models use a vocabulary size (denoted by V) of 51,200".
GPT3 = layout.Cluster(
    parameters=175 * 10**9,
    layers=96,
    hidden=12288,
    heads=96,
    vocabulary=51_200,
    sequence=2048,
    batch=1536,
    microbatch=1,
    devices=1536,
    per_host=8,
    tensor=8,
    pipeline=12,
    peak_flops=312 * 10**12,
    nvlink_bandwidth=300 * 10**9,
    network_bandwidth=25 * 10**9,
)
# 16-bit gradients of GPT-3, in bytes (ZeRO §7: Ψ values of 2 bytes each).
GRADIENTS = 2 * 175 * 10**9
# The token and position embeddings, Eq. 2's (V + s)h: (51,200 + 2,048) × 12,288 parameters.
EMBEDDINGS = 53_248 * 12_288
# Eq. 3's FLOPs of one GPT-3 step, 96Bslh²(1 + s/(6h) + V/(16lh)) with B = 1536, s = 2048, l = 96, h = 12288.
EQ3 = 96 * 1536 * 2048 * 96 * 12288**2 * (1 + Fraction(2048, 6 * 12288) + Fraction(51_200, 16 * 96 * 12288))


@pytest.mark.parametrize("scheme", layout.SCHEMES)
def test_every_layout_uses_every_gpu(scheme: str) -> None:
    # Narayanan et al. §3.1: "We require p·t·d = n."
    t, p, d = layout.degrees(scheme, 8, 12, 1536)
    assert t * p * d == 1536


def test_the_trillion_parameter_run_has_six_data_parallel_replicas() -> None:
    # Table 1: tensor 8, pipeline 64, 3072 GPUs; 3072 / (8 × 64) = 6.
    assert layout.degrees("ptd", 8, 64, 3072) == (8, 64, 6)
    assert KINDS["layout_degree"].figure(catalog(), "narayanan-1t-run", "ptd", "data").value == 6


def test_zero3_sends_one_and_a_half_times_what_data_parallelism_sends() -> None:
    # ZeRO §7.2.2: "The total volume is therefore 3Ψ which is 1.5x compared to the baseline."
    dp, zero3 = layout.step("dp", GPT3), layout.step("zero3", GPT3)
    assert zero3.network_bytes == Fraction(3, 2) * dp.network_bytes


def test_zero3_divides_the_model_states_over_every_gpu_and_ptd_holds_the_first_stages() -> None:
    # ZeRO §3.1: 16Ψ bytes; Table 1 of ZeRO: P_os+g+p holds 16Ψ/N_d. PTD-P's most loaded GPUs are the first stage's:
    # a twelfth of the layers and the embeddings ("first group of L/p layers which also includes the input
    # embeddings", Korthikanti et al. §4.2.3), split 8 ways.
    assert layout.step("zero3", GPT3).states == Fraction(16 * 175 * 10**9, 1536)
    assert layout.step("ptd", GPT3).states == 16 * (Fraction(175 * 10**9 - EMBEDDINGS, 12) + EMBEDDINGS) / 8
    assert layout.step("dp", GPT3).states == 16 * 175 * 10**9


def test_a_pipeline_of_one_layer_per_stage_holds_the_embeddings_on_its_first() -> None:
    # 96 stages: the first holds one layer's share of the rest, 1/96 of Ψ − (V + s)h, and all of (V + s)h.
    step = layout.step("pipeline", replace(GPT3, devices=768))
    assert step.states == 16 * (Fraction(175 * 10**9 - EMBEDDINGS, 96) + EMBEDDINGS)
    assert step.states > Fraction(16 * 175 * 10**9, 96)


def test_the_model_shared_evenly_puts_less_on_a_gpu_than_the_first_stage_holds() -> None:
    # PTD-P's 8 × 12 GPUs of a pipeline, shared evenly: 16 bytes × 175 billion ÷ 96. The first stage holds more, its
    # embeddings whole; ZeRO-3, which shares everything over all 1536 GPUs, holds the same either way.
    step = layout.step("ptd", GPT3)
    assert step.states_even == Fraction(16 * 175 * 10**9, 96) < step.states
    assert layout.step("zero3", GPT3).states_even == Fraction(16 * 175 * 10**9, 1536)
    figure = KINDS["layout"].figure(catalog(), "narayanan-530b-run", "ptd", "states_even")
    # Narayanan et al.'s 530B model (529.6 billion parameters, Table 1), t = 8, p = 35.
    assert figure.value == Fraction(16 * 529_600_000_000, 8 * 35)


def test_the_model_states_take_the_recipes_bytes_per_parameter() -> None:
    # Megatron-LM's distributed-optimizer guide: bf16 parameters with fp32 gradients take 18 bytes, not ZeRO's 16.
    assert layout.step("ptd", GPT3, "bf16-adam").states == Fraction(18, 16) * layout.step("ptd", GPT3).states
    with pytest.raises(KeyError, match="unknown recipe"):
        layout.step("ptd", GPT3, "fp64")


def test_a_step_computes_equation_3s_flops() -> None:
    # Narayanan et al. §5.1, Eq. 3, with the recomputed forward pass: "equation (3) assumes activation recomputation".
    assert layout.iteration_flops(1536, 2048, 96, 12288, 51_200) == EQ3
    assert layout.step("ptd", GPT3).compute == EQ3 / (1536 * 312 * 10**12)


def test_the_ptd_bubble_is_p_minus_1_over_m_of_the_compute() -> None:
    # m = 1536 / (16 replicas × 1) = 96; (12 − 1)/96.
    step = layout.step("ptd", GPT3)
    assert step.microbatches == 96
    assert step.bubble == Fraction(11, 96) * step.compute


def test_tensor_parallel_bytes_stay_on_nvlink_with_the_recomputed_forward_passs_all_reduces() -> None:
    # Narayanan et al. §3.2: l_stage × 8bsh(t−1)/t per microbatch, and the recomputed forward pass (§5.1: Eq. 3
    # "assumes activation recomputation") repeats its two all-reduces: 12bsh(t−1)/t. 96 microbatches × 8 layers
    # × 12 × 2048 × 12288 × 7/8 values × 2 bytes.
    step = layout.step("ptd", GPT3)
    assert step.nvlink_bytes == 96 * 8 * 12 * 2048 * 12288 * Fraction(7, 8) * 2
    assert step.nvlink == step.nvlink_bytes / (300 * 10**9)


def test_gpt3s_backward_all_reduces_hide_behind_their_weight_gradient_gemms() -> None:
    # One all-reduce: 2 × 7/8 × 2048 × 12288 values × 2 bytes over 300 GB/s, 0.29 ms; the smaller of the two GEMMs it
    # runs beside, the query-key-value weights' gradient, 2 × 2048 × 12288 × 3 × 12288/8 FLOPs at 312 TFLOP/s, 0.59 ms.
    # So of the six all-reduces per layer, the four of the forward and the recomputed forward passes stay exposed.
    step = layout.step("ptd", GPT3)
    assert step.nvlink_exposed == step.nvlink * Fraction(4, 6)
    # Those four are what the GPU waits for whatever it computes at: here the least is also the most.
    assert step.nvlink_forward == step.nvlink_exposed


def test_a_narrow_models_backward_all_reduces_outlast_their_gemms() -> None:
    # Megatron-LM's 1.2B model (hidden 1536) in microbatches of 8 on one server: one all-reduce of 8 × 1024 × 1536
    # values, 2 × 7/8 of them × 2 bytes over 300 GB/s; the GEMMs beside them, 2 × 8192 × 1536 × 3 × 1536/8 and
    # 2 × 8192 × 1536 × 4 × 1536/8 FLOPs at 312 TFLOP/s, are shorter, and what the all-reduces take beyond them shows.
    small = replace(GPT3, parameters=12 * 10**8, layers=40, hidden=1536, heads=16, sequence=1024, batch=64)
    step = layout.step("tensor", replace(small, devices=8, microbatch=8, pipeline=1))
    one = Fraction(2 * 7 * 8 * 1024 * 1536 * 2, 8 * 300 * 10**9)
    gemms = [Fraction(2 * 8192 * 1536 * width * 1536, 8 * 312 * 10**12) for width in (3, 4)]
    per_layer = 4 * one + sum(one - gemm for gemm in gemms)
    assert step.nvlink_exposed == 8 * 40 * per_layer
    assert step.nvlink * Fraction(4, 6) < step.nvlink_exposed < step.nvlink
    # Whatever the GPU computes at, it waits for the four all-reduces of the forward and recomputed forward passes.
    assert step.nvlink_forward == 8 * 40 * 4 * one


def test_a_servers_adapters_share_the_rings_of_a_data_parallel_group_it_holds_eight_of() -> None:
    # Data parallelism over all 1536 GPUs: each GPU sends 2(n − 1)/n of the gradients in the ring, and the eight
    # GPUs of a server share its eight adapters, so each adapter carries an eighth of that (NCCL issues 687, 412).
    step = layout.step("dp", GPT3)
    assert step.sharing == 8
    assert step.network_bytes == 2 * Fraction(1535, 1536) * GRADIENTS / 8
    assert step.network == step.network_bytes / (25 * 10**9)


def test_one_gpu_of_a_group_per_server_sends_its_whole_ring_through_its_own_adapter() -> None:
    # Tensor parallelism 8 ways in each server leaves d = 192 with one GPU per server: 2(d − 1)/d of Ψ/8 values.
    step = layout.step("tensor", GPT3)
    assert step.sharing == 1
    assert step.network_bytes == 2 * Fraction(191, 192) * GRADIENTS / 8


def test_ptd_sends_its_data_parallel_ring_and_the_scattered_stage_boundaries() -> None:
    # d = 16 replicas of Ψ/96 gradients, one GPU per server; 96 microbatches × 2 directions × bsh/t × 2 bytes.
    step = layout.step("ptd", GPT3)
    assert step.network_bytes == 2 * Fraction(15, 16) * GRADIENTS / 96 + 96 * 2 * 2048 * 12288 * 2 / 8


def test_a_pipeline_sends_b_s_h_each_way_per_microbatch_across_servers() -> None:
    # 96 single-layer stages on 768 GPUs: d = 8 replicas per stage fill one server, so every boundary crosses
    # between servers and the stage's data-parallel ring is shared by its eight adapters.
    step = layout.step("pipeline", replace(GPT3, devices=768))
    assert (step.pipeline, step.data, step.microbatches, step.sharing) == (96, 8, 192, 8)
    ring = 2 * Fraction(7, 8) * GRADIENTS / 96
    assert step.network_bytes == ring / 8 + 192 * 2 * 2048 * 12288 * 2


def test_one_server_sends_everything_over_nvlink() -> None:
    # Megatron-LM's 1.2B model (Table 1: 40 layers, hidden 1536, 16 heads) data parallel on one server of 8.
    one_server = replace(GPT3, parameters=12 * 10**8, layers=40, hidden=1536, heads=16, sequence=1024, batch=64)
    step = layout.step("dp", replace(one_server, devices=8, microbatch=8, pipeline=1))
    assert step.one_server
    assert step.network_bytes == 2 * Fraction(7, 8) * 2 * 12 * 10**8
    assert step.network == step.network_bytes / (300 * 10**9)


def test_a_layout_that_does_not_divide_is_refused() -> None:
    with pytest.raises(ValueError, match="do not divide"):
        layout.degrees("ptd", 8, 12, 1000)
    with pytest.raises(ValueError, match="layers"):
        layout.step("pipeline", replace(GPT3, pipeline=16))
    with pytest.raises(ValueError, match="fill whole servers"):  # 96 stages of one GPU each on 96 GPUs
        layout.step("pipeline", replace(GPT3, devices=96))
    with pytest.raises(ValueError, match="does not divide a server"):
        layout.step("ptd", replace(GPT3, tensor=16, pipeline=6))


def test_the_tensor_parallel_degree_must_divide_the_heads() -> None:
    # GPT-2's 25 heads (its released configuration) cannot be split 8 ways; each GPU computes whole heads.
    with pytest.raises(ValueError, match="25 attention heads do not split 8 ways"):
        layout.step("tensor", replace(GPT3, heads=25))
    assert layout.step("dp", replace(GPT3, heads=25)).tensor == 1


def test_cross_host_bytes_per_port_reaches_the_bus_bandwidth_nvidia_measures() -> None:
    # NVIDIA (nccl issue 812): "On an Nvidia DGX-A100 system we have 8x200Gbit/s IB cards and we measure
    # 192GB/s AllReduce BusBW". Bus bandwidth is each GPU's ring bytes ÷ time; with the server's eight adapters
    # sharing the rings, the line rate bounds it at 8 × 25 GB/s, above what was measured. Charged to one adapter,
    # it would be bounded at 25 GB/s, far below.
    per_gpu = 10**9
    seconds = communication.transfer_seconds(communication.cross_host_bytes_per_port(per_gpu, 8), 25 * 10**9)
    assert 192 * 10**9 <= per_gpu / seconds == 200 * 10**9


def test_a_measured_throughput_stands_for_a_step_of_equation_3s_flops_over_n_x() -> None:
    # Table 2: ZeRO-3 on 1536 GPUs at 44 teraFLOP/s per GPU; Eq. 3's FLOPs per step, as the paper counts them.
    assert layout.measured_step(GPT3, 1536, 44 * 10**12) == EQ3 / (1536 * 44 * 10**12)
    figure = KINDS["measured_step"].figure(catalog(), "gpt3-ptd", "gpt3-zero3-768-throughput")
    assert figure.value == EQ3 / (768 * 88 * 10**12)


def test_those_steps_give_table_2s_training_days() -> None:
    # Table 2, ZeRO-3 on 768 GPUs at 88 teraFLOP/s: "Training time for 300B tokens (days)" 74. 300e9 / (1536 × 2048)
    # steps of the measured step: 73.7 days, within half a day.
    figure = KINDS["measured_training_time"].figure(catalog(), "gpt3-ptd", "gpt3-zero3-768-throughput")
    assert figure.value == Fraction(300 * 10**9, 1536 * 2048) * EQ3 / (768 * 88 * 10**12)
    assert abs(figure.value / 86_400 - 74) < Fraction(1, 2)


@pytest.mark.parametrize(
    ("layers", "hidden", "printed"),
    [  # Narayanan et al., Table 1 (V = 51,200, s = 2048), number of parameters in billions
        (24, 2304, Fraction("1.7")),
        (80, 12288, Fraction("145.6")),
        (105, 20480, Fraction("529.6")),
        (128, 25600, Fraction("1008.0")),
    ],
)
def test_equation_2_gives_table_1s_parameter_counts(layers: int, hidden: int, printed: Fraction) -> None:
    count = layout.transformer_parameters(layers, hidden, 51_200, 2048)
    assert abs(Fraction(count, 10**9) - printed) <= Fraction(1, 20)


def test_the_trillion_parameter_run_reaches_52_percent_of_the_a100s_peak() -> None:
    # Table 1: 163 teraFLOP/s per GPU, 52% of peak, 502.0 petaFLOP/s on 3072 GPUs; §5: peak 312 teraFLOP/s.
    share = KINDS["peak_share"].figure(catalog(), "narayanan-1t-throughput", "a100-selene").value
    assert round(share, 2) == Fraction(52, 100)
    aggregate = KINDS["aggregate_flops"].figure(catalog(), "narayanan-1t-throughput").value
    assert aggregate == 163 * 3072 * 10**12
    assert abs(aggregate - 502 * 10**15) < 3072 * 10**12 // 2


def test_the_layout_kind_names_its_part() -> None:
    figure = KINDS["layout"].figure(catalog(), "gpt3-ptd", "zero3", "states")
    assert (figure.id, figure.unit) == ("layout/gpt3-ptd/zero3/states", "B")
    assert figure.value == Fraction(16 * 175 * 10**9, 1536)
    with pytest.raises(KeyError, match="states, compute"):
        KINDS["layout"].figure(catalog(), "gpt3-ptd", "zero3", "memory")


def test_overlap_hides_the_network_behind_the_compute_but_not_the_exposed_tensor_all_reduces() -> None:
    step = layout.step("ptd", GPT3)
    assert step.total == step.compute + step.bubble + step.network + step.nvlink
    assert step.overlapped == step.compute + step.bubble + step.nvlink_exposed
    zero3 = layout.step("zero3", GPT3)
    # ZeRO-3's 3Ψ × 2 bytes, (n − 1)/n of it per collective, an eighth per adapter, over 25 GB/s: 5.25 s, less
    # than its 9.41 s of compute, so at the line rate its step is the compute's.
    assert zero3.network == 3 * Fraction(1535, 1536) * GRADIENTS / 8 / (25 * 10**9)
    assert zero3.overlapped == zero3.compute > zero3.network


def test_zero3_gathers_and_reduce_scatters_once_per_microbatch() -> None:
    # On 384 GPUs each holds 1536/384 = 4 sequences a step: in microbatches of one, ZeRO-3 all-gathers the parameters
    # for each microbatch's forward and backward passes and reduce-scatters each one's gradients, four times the
    # traffic of one microbatch of four (PyTorch #126166: accumulating with FSDP "incurs the collective per
    # microbatch backward"), while data parallelism all-reduces once a step either way.
    quarter = replace(GPT3, devices=384)
    ones, fours = layout.step("zero3", quarter), layout.step("zero3", replace(quarter, microbatch=4))
    assert (ones.microbatches, fours.microbatches) == (4, 1)
    assert ones.network_bytes == 4 * fours.network_bytes == 4 * 3 * Fraction(383, 384) * GRADIENTS / 8
    assert layout.step("dp", quarter).network_bytes == layout.step("dp", replace(quarter, microbatch=4)).network_bytes


def test_the_bound_implies_a_throughput_per_gpu() -> None:
    # The FLOPs per GPU (Eq. 3) over the step with the network hidden: ZeRO-3's is the compute, so the peak.
    assert KINDS["layout_rate"].figure(catalog(), "gpt3-ptd", "zero3").value == 312 * 10**12
    ptd = layout.step("ptd", GPT3)
    rate = KINDS["layout_rate"].figure(catalog(), "gpt3-ptd", "ptd").value
    assert rate == EQ3 / 1536 / ptd.overlapped
