"""Bytes by role after a training step, one process, for each recipe the course counts.

The census of `scenarios.run` at the moments of the second step, on the same
small model, for fp32 Adam, autocast with fp16 (and a GradScaler) and with
bf16 (the model and Adam in fp32: the course's "fp32-adam"), and bf16 with an
fp32 master copy (ZeRO's "mixed-adam" with bf16 in fp16's place). Each role's
bytes per parameter are compared with `macros.model.role_bytes_per_parameter`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
import torch

from macros import model

from .conftest import Recorder
from .scenarios import Step, grads, make_model, optimizer_roles, parameter_count, run

SOFTWARE = ("torch",)
PSI = parameter_count()


def _plain(autocast: torch.dtype | None) -> Step:
    net = make_model()
    optimizer = torch.optim.Adam(net.parameters())
    scaler = torch.amp.GradScaler("cpu", enabled=autocast is torch.float16)

    def forward(batch: torch.Tensor) -> torch.Tensor:
        if autocast is None:
            return net(batch)
        with torch.autocast("cpu", dtype=autocast):
            return net(batch)

    def step() -> None:
        scaler.step(optimizer)
        scaler.update()

    def roles() -> dict[str, list[torch.Tensor]]:
        parameters = list(net.parameters())
        # GradScaler's loss scale and growth counter (two one-element tensors, made at its first scale()).
        scale = [
            t for t in (getattr(scaler, "_scale", None), getattr(scaler, "_growth_tracker", None)) if t is not None
        ]
        return {"parameters": parameters, "gradients": grads(parameters), **optimizer_roles(optimizer), "scale": scale}

    return Step(
        forward, lambda loss: scaler.scale(loss).backward(), step, lambda: optimizer.zero_grad(set_to_none=True), roles
    )


def _master() -> Step:
    """bf16 parameters and gradients, an fp32 master copy that Adam steps, copied back after each step."""
    net = make_model().to(torch.bfloat16)
    masters = [p.detach().float().requires_grad_() for p in net.parameters()]
    optimizer = torch.optim.Adam(masters)

    def step() -> None:
        for master, p in zip(masters, net.parameters(), strict=True):
            master.grad = p.grad.float()
        optimizer.step()
        for master, p in zip(masters, net.parameters(), strict=True):
            master.grad = None  # the fp32 gradient is made for the step and dropped after it
            p.data.copy_(master)

    def roles() -> dict[str, list[torch.Tensor]]:
        parameters = list(net.parameters())
        return {
            "parameters": parameters,
            "gradients": grads(parameters),
            "master_parameters": masters,
            **optimizer_roles(optimizer),
        }

    return Step(
        lambda batch: net(batch.to(torch.bfloat16)),
        lambda loss: loss.backward(),
        step,
        lambda: net.zero_grad(set_to_none=True),
        roles,
    )


#: Each recipe run, and the course's recipe whose roles it keeps.
RECIPES: dict[str, tuple[Callable[[], Step], str]] = {
    "fp32-adam": (lambda: _plain(None), "fp32-adam"),
    "autocast-fp16": (lambda: _plain(torch.float16), "fp32-adam"),
    "autocast-bf16": (lambda: _plain(torch.bfloat16), "fp32-adam"),
    "bf16-master": (_master, "mixed-adam"),
}


@cache
def measured(recipe: str) -> dict[str, Any]:
    return run(RECIPES[recipe][0])


def _roles(moment: dict[str, int]) -> dict[str, Fraction]:
    """The census by the course's roles, per parameter: the master copy is an optimizer state, as ZeRO counts it."""
    return {
        "parameters": Fraction(moment["parameters"], PSI),
        "gradients": Fraction(moment["gradients"], PSI),
        "optimizer_states": Fraction(moment["optimizer_states"] + moment.get("master_parameters", 0), PSI),
    }


@pytest.mark.parametrize("recipe", list(RECIPES))
def test_bytes_by_role_after_the_step(record: Recorder, recipe: str) -> None:
    """After the optimizer steps, each role holds the bytes per parameter its recipe counts, nothing else."""
    moment = measured(recipe)["moments"]["after-step"]
    course_recipe = RECIPES[recipe][1]
    course = model.role_bytes_per_parameter(course_recipe)
    roles = _roles(moment)
    for role, value in roles.items():
        record(
            f"bytes-per-parameter/{recipe}/{role}",
            ["bytes-per-parameter", "model-states", "model.role_bytes_per_parameter"],
            SOFTWARE,
            value,
            course[role],
            "B/param",
        )
    assert roles == dict(course)
    assert moment["other"] == moment["weight_casts"] == 0


@pytest.mark.parametrize("recipe", list(RECIPES))
def test_model_states_after_the_step(record: Recorder, recipe: str) -> None:
    """All model states together, one process and no data parallelism: the recipe's bytes per parameter (16 for
    fp32 Adam, 4 + 4 + 8), as a per-parameter figure and as a model's states, Ψ times it."""
    total = sum(_roles(measured(recipe)["moments"]["after-step"]).values(), Fraction(0))
    course = model.recipe(RECIPES[recipe][1]).bytes_per_parameter
    for key, vouches in (
        (f"bytes-per-parameter/{recipe}/all", ["bytes-per-parameter", "model.Recipe.bytes_per_parameter"]),
        (f"model-states/one-process/{recipe}", ["model-states", "model.model_state_bytes"]),
    ):
        record(key, vouches, SOFTWARE, total, course, "B/param")
    assert total == course


@pytest.mark.parametrize("recipe", ["autocast-fp16", "autocast-bf16"])
def test_autocast_keeps_half_precision_weights_until_the_backward(record: Recorder, recipe: str) -> None:
    """At the turn, autocast's cached 16-bit copy of every matmul weight is held: 2 bytes per weight."""
    turn = measured(recipe)["moments"]["turn"]
    after = measured(recipe)["moments"]["after-backward"]
    # A matmul keeps its weight for its input's gradient; the first layer's input, the batch, needs none.
    weights = sum(p.numel() for p in make_model()[1:].parameters() if p.dim() == 2)
    per_weight = Fraction(turn["weight_casts"], weights)
    record(
        f"bytes-per-parameter/{recipe}/weight-casts-at-the-turn",
        ["bytes-per-parameter", "model.role_bytes_per_parameter"],
        SOFTWARE,
        per_weight,
        0,
        "B/param",
        differs="autocast casts each weight to 16 bits in the forward pass and autograd keeps the cast for the"
        " backward: a copy the course's fp32-adam recipe does not count, held from forward to backward",
    )
    assert per_weight == model.BYTES_PER_VALUE["fp16" if recipe == "autocast-fp16" else "bf16"]
    assert after["weight_casts"] == 0
