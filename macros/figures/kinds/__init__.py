"""Figure kinds: every function that computes a figure, registered once with its id scheme.

Each module holds the kinds of one topic of the model and has its name (`model.tensor`'s kinds are
in `tensor`), but for `catalog_values` and `units`, which show the catalog's values and units as they
are. Importing a module registers its kinds in `KINDS` (see `registry`). A new kind is a function in
one of these modules, decorated with `@figure_kind("its-id-prefix")`: the build makes it a macro, and
`printed.yml` may key a paper's value by its ids.
"""

from __future__ import annotations

from . import (  # noqa: F401 (importing a module registers its kinds)
    activations,
    catalog_values,
    checkpointing,
    communication,
    compute,
    conditions,
    context,
    experts,
    formats,
    fsdp,
    layout,
    memory,
    parallel_activations,
    pipeline,
    planner,
    shape,
    sharding,
    tensor,
    units,
    zero,
)
from .registry import KINDS, FigureKind, FigureKindError, check_measured, check_printed, figure_kind, kind_of

__all__ = ["KINDS", "FigureKind", "FigureKindError", "check_measured", "check_printed", "figure_kind", "kind_of"]
