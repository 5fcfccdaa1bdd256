"""Figure kinds: every function that computes a figure, registered once with its id scheme.

Each module holds the kinds of one topic; importing it registers them in
`KINDS` (see `registry`). A new kind is a function in one of these modules,
decorated with `@figure_kind("its-id-prefix")`: `define_env` makes it a macro,
and `printed.yml` may key a paper's value by its ids.
"""

from __future__ import annotations

from . import (  # noqa: F401 (importing a module registers its kinds)
    activations,
    catalog_values,
    checkpointing,
    communication,
    compute,
    formats,
    fsdp,
    layout,
    memory,
    pipeline,
    ring,
    shape,
    sharding,
    tensor,
    units,
    zero,
)
from .registry import KINDS, FigureKind, FigureKindError, check_printed, figure_kind, kind_of

__all__ = ["KINDS", "FigureKind", "FigureKindError", "check_printed", "figure_kind", "kind_of"]
