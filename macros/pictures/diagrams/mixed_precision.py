"""One mixed-precision iteration for a layer, frame by frame: which tensors it keeps in fp32 and which in fp16, and
where the loss scale goes."""

from __future__ import annotations

from collections.abc import Mapping

from ...model import mixed_precision
from .frames import Frames
from .iteration import iteration_frames

#: The columns of a mixed-precision iteration's frames, and where each of its tensors is drawn: column and symbol.
_ITERATION_COLUMNS = ("weights", "activations", "gradients", "Adam m, v")


_ITERATION_CELLS: Mapping[str, tuple[int, str]] = {
    "parameters": (0, "W"),
    "activations": (1, "A"),
    "activation_gradients": (2, "∂A"),
    "gradients": (2, "∂W"),
    "momentum": (3, "m"),
    "variance": (3, "v"),
}


#: What each step of the iteration does, in words: its title, then its description.
_ITERATION_WORDS: Mapping[str, tuple[str, str]] = {
    "start": (
        "Between iterations.",
        "The layer's weights W are kept in fp32, the master copy, and so are the two moments m and v that Adam keeps"
        " for each weight. (A stands for the layer's activations, ∂A and ∂W for the gradients of the loss with"
        " respect to the layer's input and to its weights, and S for the loss scale.)",
    ),
    "round": (
        "Round the weights to fp16.",
        "The fp32 master weights are rounded to an fp16 copy, the weights the forward and backward passes use.",
    ),
    "forward": (
        "Forward pass, in fp16.",
        "The forward pass multiplies by the fp16 weights, adding up the products in fp32 and rounding each result to"
        " fp16, and stores the layer's activations A in fp16 for the backward pass.",
    ),
    "backward": (
        "Backward pass, in fp16, from the loss times S.",
        "The loss is multiplied by the loss scale S, so every gradient of the backward pass comes out S times its"
        " true value, which lifts small ones above fp16's floor. The layer makes, in fp16, the gradient of its"
        " input, S∂A, which it passes to the layer below, and the gradient of its weights, S∂W; its activations are"
        " no longer needed.",
    ),
    "update": (
        "Update, in fp32.",
        "The optimizer converts the weight gradients to fp32 and divides them by S, which leaves ∂W as it would be"
        " without scaling, updates Adam's fp32 moments with it, and then the fp32 master weights. ZeRO's"
        " count of the bytes keeps no lasting fp32 copy of the gradients; Megatron-LM's count, with one, is higher."
        " The fp16 copy of the weights is now out of date: the next iteration rounds the master"
        " weights again.",
    ),
}


def mixed_precision_frames() -> Frames:
    """One mixed-precision iteration for a layer (Micikevicius et al., Figure 1, with their loss scaling), frame by
    frame, from `model.mixed_precision_iteration`: a row per precision, a column per kind of tensor."""
    return iteration_frames(
        mixed_precision.mixed_precision_iteration(),
        (mixed_precision.MASTER, mixed_precision.PASSES),
        _ITERATION_COLUMNS,
        _ITERATION_CELLS,
        _ITERATION_WORDS,
        "tinted: S times its true value",
        scaled_symbol="S",
    )
