"""Diagrams drawn at build time as frames of device boxes, which a reader steps through.

`frames` says what a diagram is (`Frames`: frames of devices holding cells, each
frame with its description in words, its text alternative) and draws it
(`frames_html`). Each diagram is a module of its own with its prose: a function
that builds `Frames` from the model, such as `ring_allreduce_frames`, registered
by name in `DIAGRAMS`, so that a lesson draws
`{{ diagram("ring_allreduce", devices=4, caption="…") }}` from the same
algorithm its figures use. Nothing here imports MkDocs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .alltoall_dispatch import alltoall_dispatch_frames
from .fp8_linear import fp8_linear_frames
from .frames import Frames
from .fsdp_unit import fsdp_unit_frames
from .mixed_precision import mixed_precision_frames
from .pipeline_schedules import pipeline_schedules_frames
from .ring_allreduce import ring_allreduce_frames
from .ring_attention import ring_attention_frames
from .zero_stages import zero_stages_frames

#: Diagrams a lesson can draw, by name: each builds its frames from keyword options.
DIAGRAMS: Mapping[str, Callable[..., Frames]] = {
    "ring_allreduce": ring_allreduce_frames,
    "ring_attention": ring_attention_frames,
    "zero_stages": zero_stages_frames,
    "fsdp_unit": fsdp_unit_frames,
    "pipeline_schedules": pipeline_schedules_frames,
    "mixed_precision": mixed_precision_frames,
    "alltoall_dispatch": alltoall_dispatch_frames,
    "fp8_linear": fp8_linear_frames,
}
