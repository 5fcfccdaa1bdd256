"""One linear layer's training iteration in DeepSeek-V3's FP8 recipe, frame by frame: which tensors it keeps in fp8,
bf16 and fp32, and where each conversion goes."""

from __future__ import annotations

from collections.abc import Mapping

from ...model import fp8
from .frames import Frames
from .iteration import iteration_frames

#: The columns of the frames, and where each tensor is drawn: column and symbol.
_COLUMNS = ("weights", "activations", "gradients", "moments")

_CELLS: Mapping[str, tuple[int, str]] = {
    "parameters": (0, "W"),
    "activations": (1, "X"),
    "outputs": (1, "Y"),
    "output_gradients": (2, "∂Y"),
    "activation_gradients": (2, "∂X"),
    "gradients": (2, "∂W"),
    "momentum": (3, "m"),
    "variance": (3, "v"),
}

#: What each step does, in words: its title, then its description.
_WORDS: Mapping[str, tuple[str, str]] = {
    "start": (
        "Between iterations.",
        "The layer's master weights W are kept in fp32, and AdamW's two moments m and v (the last column) in bf16."
        " (X stands for the layer's input, Y for its output, and ∂X, ∂Y and ∂W for the gradients of the loss with"
        " respect to its input, its output and its weights.)",
    ),
    "quantize": (
        "Quantize the weights to fp8.",
        "The fp32 master weights are cast to E4M3, each 128x128 block of them with a scaling factor of its own,"
        " for the GEMMs of both passes.",
    ),
    "forward": (
        "Forward pass: Fprop in fp8.",
        "The layer's input X arrives in bf16 and is quantized to E4M3, a scaling factor per token per 128"
        " channels. The GEMM multiplies the fp8 input by the fp8 weights, adding up the products in the Tensor Cores"
        " and, every 128 of them along the inner dimension, in fp32 on the CUDA Cores, and writes its output Y in"
        " bf16. The input is kept for the backward pass in fp8 too, tiled the other way, 128x1, a factor per"
        " channel for each tile of tokens, since Wgrad's inner dimension is the tokens (the report's Appendix B.2).",
    ),
    "backward": (
        "Backward pass: Dgrad and Wgrad in fp8.",
        "The gradient of the output, ∂Y, arrives in bf16 and is quantized to fp8 twice, in 1x128 tiles"
        " for Dgrad and in 128x1 tiles for Wgrad. Dgrad multiplies it by the fp8"
        " weights into ∂X, in bf16, for the layer before; Wgrad multiplies it by the fp8 input kept from the"
        " forward pass into the weights' gradient ∂W, in fp32. The kept input is no longer needed.",
    ),
    "update": (
        "Update: AdamW, fp32 weights, bf16 moments.",
        "The optimizer updates AdamW's moments, kept in bf16, and the fp32 master weights from the fp32 gradient."
        " The fp8 copy of the weights is now out of date: the next iteration quantizes the master weights again.",
    ),
}


def fp8_linear_frames() -> Frames:
    """One linear layer in DeepSeek-V3's FP8 recipe (its §3.3 and Figure 6), frame by frame, from
    `model.fp8.fp8_linear_iteration`: a row per precision, a column per kind of tensor."""
    return iteration_frames(
        fp8.fp8_linear_iteration(),
        (fp8.MASTER, fp8.WIDE, fp8.GEMM),
        _COLUMNS,
        _CELLS,
        _WORDS,
        "tinted: in fp8, with its scaling factors",
    )
