"""One iteration of mixed-precision training for a layer: its steps, and what each keeps in which precision.

Micikevicius et al., "Mixed Precision Training" (ICLR 2018,
https://arxiv.org/abs/1710.03740), Figure 1, "Mixed precision training
iteration for a layer", and §3.1: "weights, activations and gradients are
stored as FP16", and "an FP32 master copy of weights is maintained and updated
with the weight gradient during the optimizer step. In each iteration an FP16
copy of the master weights is used in the forward and backward pass". Its loss
scaling multiplies the loss by a factor S before the backward pass, so that
every gradient is S times its true value, and divides the weight gradients by S
again before the update. The optimizer is Adam, whose two moments are kept in
fp32 beside the master weights, as the ZeRO paper counts mixed-precision Adam
(§3.1; the recipe "mixed-adam" of `memory`).

A tensor that is a model state is named as the recipe's states are, after
what it is ("parameters", "gradients", "momentum", "variance"), so that
`f"{precision}_{tensor}"` is the state's id in `memory.RECIPES`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The precisions the iteration keeps values in: the master copy's and the passes'.
MASTER, PASSES = "fp32", "fp16"


@dataclass(frozen=True)
class Kept:
    """A tensor the iteration holds, the precision it is held in, whether it is S times its true value, and
    whether it is a model state, kept from one iteration to the next (the rest are made and used within one)."""

    tensor: str
    precision: str
    scaled: bool = False
    model_state: bool = False


@dataclass(frozen=True)
class IterationStep:
    """One step of the iteration: its name, what is held after it, what it made or changed, and the conversion
    between precisions it performs, if any (from, to)."""

    name: str
    held: tuple[Kept, ...]
    made: tuple[Kept, ...]
    converts: tuple[str, str] | None = None


def mixed_precision_iteration() -> tuple[IterationStep, ...]:
    """The iteration step by step: start, round, forward, backward (from the scaled loss), update.

    - start: the fp32 master weights and Adam's fp32 moments;
    - round: the master weights rounded to an fp16 copy, for the passes;
    - forward: the layer's activations, in fp16;
    - backward: from the loss times S, the gradients of the layer's input (passed to the layer below) and of its
      weights, in fp16 and S times their true value; the activations are used up;
    - update: the weight gradients converted to fp32 and divided by S (not a model state: ZeRO counts no fp32 copy),
      then Adam's moments and the master weights updated in fp32; the fp16 copy waits for the next round.
    """
    master = Kept("parameters", MASTER, model_state=True)
    moments = (Kept("momentum", MASTER, model_state=True), Kept("variance", MASTER, model_state=True))
    copy = Kept("parameters", PASSES, model_state=True)
    activations = Kept("activations", PASSES)
    backward = (
        Kept("activation_gradients", PASSES, scaled=True),
        Kept("gradients", PASSES, scaled=True, model_state=True),
    )
    unscaled = Kept("gradients", MASTER)
    return (
        IterationStep("start", (master, *moments), ()),
        IterationStep("round", (master, *moments, copy), (copy,), (MASTER, PASSES)),
        IterationStep("forward", (master, *moments, copy, activations), (activations,)),
        IterationStep("backward", (master, *moments, copy, *backward), backward),
        IterationStep(
            "update", (master, *moments, copy, backward[1], unscaled), (unscaled, *moments, master), (PASSES, MASTER)
        ),
    )
