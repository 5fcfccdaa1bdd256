"""One FP8 linear layer's training iteration in DeepSeek-V3's recipe: what it keeps in fp8, bf16 and fp32.

DeepSeek-AI, "DeepSeek-V3 Technical Report" (2024, https://arxiv.org/abs/2412.19437), §3.3 and its Figure 6,
"The overall mixed precision framework with FP8 data format. For clarification, only the Linear operator is
illustrated":

- §3.3.1: "all three GEMMs associated with the Linear operator, namely Fprop (forward pass), Dgrad (activation
  backward pass), and Wgrad (weight backward pass), are executed in FP8"; they "accept FP8 tensors as inputs and
  produce outputs in BF16 or FP32"; "the FP8 Wgrad GEMM allows activations to be stored in FP8 for use in the
  backward pass".
- §3.3.2: activations are scaled "on a 1x128 tile basis", weights "on a 128x128 block basis", E4M3 for all
  tensors, partial sums promoted to fp32 on CUDA Cores every N_C = 128 elements.
- §3.3.3: AdamW's "first and second moments" in bf16, "the master weights (stored by the optimizer) and gradients
  (used for batch size accumulation) are still retained in FP32".

The layer's input arrives in bf16 from the layer before, and its output gradient in bf16 from the layer after
(Figure 6); both are quantized to fp8 for the GEMMs that read them. A tensor is named as `mixed_precision`'s are,
so that a model state's `f"{precision}_{tensor}"` is its id in `memory.COUNTED_RECIPES["deepseek-v3-fp8"]`; the
fp8 copy of the weights is no model state there, since the report gives no count of it.
"""

from __future__ import annotations

from .mixed_precision import IterationStep, Kept

#: The precisions of the iteration: the master weights' and gradients', the moments' and the layer's outputs',
#: and the GEMMs' inputs'.
MASTER, WIDE, GEMM = "fp32", "bf16", "fp8"


def fp8_linear_iteration() -> tuple[IterationStep, ...]:
    """The iteration step by step: start, quantize the weights, forward (Fprop), backward (Dgrad, Wgrad), update.

    An fp8 tensor is marked `scaled`: it holds its values divided by its tiles' or blocks' scaling factors.
    """
    master = Kept("parameters", MASTER, model_state=True)
    moments = (Kept("momentum", WIDE, model_state=True), Kept("variance", WIDE, model_state=True))
    weights = Kept("parameters", GEMM, scaled=True)
    cached = Kept("activations", GEMM, scaled=True)
    output = Kept("outputs", WIDE)
    output_gradient = Kept("output_gradients", GEMM, scaled=True)
    input_gradient = Kept("activation_gradients", WIDE)
    gradients = Kept("gradients", MASTER, model_state=True)
    kept = (master, *moments)
    return (
        IterationStep("start", kept, ()),
        IterationStep("quantize", (*kept, weights), (weights,), (MASTER, GEMM)),
        IterationStep("forward", (*kept, weights, cached, output), (cached, output), (WIDE, GEMM)),
        IterationStep(
            "backward",
            (*kept, weights, output_gradient, input_gradient, gradients),
            (output_gradient, input_gradient, gradients),
            (WIDE, GEMM),
        ),
        IterationStep("update", (*kept, weights, gradients), (*moments, master)),
    )
