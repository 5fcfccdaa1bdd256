"""The registry of figure kinds: each kind is a function and the id scheme of the figures it makes.

A figure kind is a function `kind(catalog, *arguments) -> Computed`, registered
once with `@figure_kind("prefix")`. Its figures' ids are the prefix and its
arguments joined by slashes, trailing defaults left out:
`model_states("gpt2-1.5b")` is `model-states/gpt2-1.5b`, and
`model_states("gpt2-1.5b", "fp16_parameters")` is
`model-states/gpt2-1.5b/fp16_parameters`. The same scheme read backwards checks
the keys of `printed.yml` when the catalog loads: each must name a figure the
registry can compute. `define_env` registers every kind as a macro of its
function's name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ...data.catalog import Catalog, PerCatalog
from ...data.quantities import DISPLAY_OPTIONS
from ...data.schema import check_argument
from ..figure import Computed, Figure, digest


class FigureKindError(ValueError):
    """A figure kind was called or named wrongly; the message says how to call it."""


@dataclass(frozen=True)
class FigureKind:
    """A function that computes figures, and the id scheme that names them."""

    name: str
    prefix: str
    compute: Callable[..., Computed]

    @cached_property
    def parameters(self) -> tuple[inspect.Parameter, ...]:
        """The function's parameters after the catalog, their annotations as types (`eval_str`), not strings."""
        return tuple(inspect.signature(self.compute, eval_str=True).parameters.values())[1:]

    @property
    def usage(self) -> str:
        """How to call it: `model_states(entry, state='all', recipe='mixed-adam')`."""
        written = (p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in self.parameters)
        return f"{self.name}({', '.join(written)})"

    @property
    def doc(self) -> str:
        """The first line of the function's docstring: what it computes."""
        return (self.compute.__doc__ or "").strip().splitlines()[0]

    def placed(self, arguments: tuple[Any, ...], options: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """A call's arguments with those it gave by name (`devices=8`) put in their places, and the rest of its
        keywords, which are display options: `usage` writes the ones with defaults as keywords.

        Raises:
            FigureKindError: an argument given twice, or by name after one left out that has no default.
        """
        names = [parameter.name for parameter in self.parameters]
        named = {name: value for name, value in options.items() if name in names}
        if not named:
            return arguments, dict(options)
        full = list(arguments)
        for parameter in self.parameters[len(arguments) : 1 + max(map(names.index, named))]:
            if parameter.name in named:
                full.append(named[parameter.name])
            elif parameter.default is not parameter.empty:
                full.append(parameter.default)
            else:
                raise FigureKindError(f"{parameter.name} has no default: give it too; call it as {self.usage}")
        twice = [name for name in named if names.index(name) < len(arguments)]
        if twice:
            raise FigureKindError(f"{twice[0]} is given twice, in its place and by name; call it as {self.usage}")
        return tuple(full), {name: value for name, value in options.items() if name not in named}

    def _bind(self, arguments: tuple[Any, ...]) -> tuple[Any, ...]:
        required = sum(1 for p in self.parameters if p.default is p.empty)
        if not required <= len(arguments) <= len(self.parameters):
            raise FigureKindError(f"call it as {self.usage}, then display options")
        for value, parameter in zip(arguments, self.parameters, strict=False):
            try:
                check_argument(parameter.name, value, parameter.annotation)
            except ValueError as error:
                raise FigureKindError(f"{error}; call it as {self.usage}, then display options") from None
        full = list(arguments) + [p.default for p in self.parameters[len(arguments) :]]
        # Trailing defaults do not name a different figure: leave them out of the id.
        while len(full) > required and full[-1] == self.parameters[len(full) - 1].default:
            full.pop()
        return tuple(full)

    def figure_id(self, arguments: tuple[Any, ...]) -> str:
        """The id of the figure these arguments make."""
        return "/".join([self.prefix, *map(str, self._bind(arguments))])

    def figure(self, catalog: Catalog, *arguments: Any) -> Figure:
        """The figure these arguments make, with what its source printed, if printed.yml has it.

        Raises:
            FigureKindError: too few or too many arguments.
            KeyError, ValueError, TypeError: what `compute` raises for a bad argument.
        """
        bound = self._bind(arguments)
        computed_already = _COMPUTED.of(catalog)
        try:
            return computed_already[self.name, bound]
        except KeyError:
            pass
        except TypeError:  # a list among the arguments: compute it every time
            return self._compute(catalog, bound)
        figure = computed_already[self.name, bound] = self._compute(catalog, bound)
        return figure

    def _compute(self, catalog: Catalog, bound: tuple[Any, ...]) -> Figure:
        figure_id = self.figure_id(bound)
        return Figure(
            id=figure_id,
            computed=self.compute(catalog, *bound),
            printed=catalog.printed.get(figure_id),
            measured=catalog.measured.get(figure_id, ()),
        )

    def arguments(self, figure_id: str) -> tuple[Any, ...]:
        """The arguments that make the figure `figure_id`: the id scheme read backwards."""
        segments = figure_id.split("/")[1:]
        if not len(segments) <= len(self.parameters):
            raise FigureKindError(f"{figure_id!r} has more parts than {self.usage} takes")
        return tuple(
            int(segment) if parameter.annotation is int and segment.isdigit() else segment
            for segment, parameter in zip(segments, self.parameters, strict=False)
        )


#: Every figure kind, by macro name.
KINDS: dict[str, FigureKind] = {}


#: Every figure computed so far from the catalog, by kind and arguments: a kind is a pure function of it.
_COMPUTED: PerCatalog[tuple[str, tuple[Any, ...]], Figure] = PerCatalog()


def figure_kind(prefix: str) -> Callable[[Callable[..., Computed]], Callable[..., Computed]]:
    """Register the decorated function as a figure kind whose ids start with `prefix`."""

    def register(compute: Callable[..., Computed]) -> Callable[..., Computed]:
        if compute.__name__ in KINDS or any(kind.prefix == prefix for kind in KINDS.values()):
            raise FigureKindError(f"a figure kind named {compute.__name__} or with prefix {prefix!r} exists already")
        kind = FigureKind(compute.__name__, prefix, compute)
        # A call's keywords name the kind's parameters or display options (`placed`): never both.
        shared = [parameter.name for parameter in kind.parameters if parameter.name in DISPLAY_OPTIONS]
        if shared:
            raise FigureKindError(f"{kind.name}'s parameter {shared[0]!r} has a display option's name: rename it")
        KINDS[compute.__name__] = kind
        return compute

    return register


def kind_of(figure_id: str, kinds: Mapping[str, FigureKind] = KINDS) -> FigureKind:
    """The kind whose id scheme `figure_id` follows."""
    prefix = figure_id.split("/", 1)[0]
    for kind in kinds.values():
        if kind.prefix == prefix:
            return kind
    raise FigureKindError(
        f"no figure kind makes ids starting {prefix!r}; kinds: {', '.join(k.prefix for k in kinds.values())}"
    )


def _figure_named(catalog: Catalog, figure_id: str, where: str, kinds: Mapping[str, FigureKind], rename: str) -> Figure:
    """The figure `figure_id` names, which a data file (`where`) refers to; refused unless the registry computes
    it and gives it that very id (`rename` says how to write the id instead).

    Raises:
        FigureKindError: naming `where` and what is wrong.
    """
    try:
        kind = kind_of(figure_id, kinds)
        figure = kind.figure(catalog, *kind.arguments(figure_id))
    except (FigureKindError, KeyError, ValueError, TypeError) as error:
        message = error.args[0] if error.args else str(error)
        raise FigureKindError(f"{where}: names no figure the course computes: {message}") from None
    if figure.id != figure_id:
        raise FigureKindError(f"{where}: that figure's id is {figure.id!r}; {rename}")
    return figure


def check_printed(catalog: Catalog, kinds: Mapping[str, FigureKind] = KINDS) -> None:
    """Check that every key of printed.yml names a figure the registry computes, in the printed unit.

    Raises:
        FigureKindError: naming the key and what is wrong with it.
    """
    for figure_id, printed in catalog.printed.items():
        where = f"printed.yml: {figure_id}"
        figure = _figure_named(catalog, figure_id, where, kinds, "key it so")
        if figure.unit != printed.unit:
            raise FigureKindError(f"{where}: the figure is in {figure.unit}, the printed value in {printed.unit}")


def check_measured(catalog: Catalog, kinds: Mapping[str, FigureKind] = KINDS) -> None:
    """Check that every figure measured.yml vouches for is one the registry computes, named by its own id, and
    is still the figure the tier measured (its digest): a formula or an input changed since is not vouched for.

    Raises:
        FigureKindError: naming the record and what is wrong with it.
    """
    for figure_id, records in catalog.measured.items():
        where = f"measured.yml: {records[0].key}: figure {figure_id!r}"
        figure = _figure_named(catalog, figure_id, where, kinds, "name it so")
        for record in records:
            if record.digest != digest(figure.computed):
                raise FigureKindError(
                    f"measured.yml: {record.key}: figure {figure_id!r} has changed since the engine tier measured it"
                    f" (its digest was {record.digest}, is {digest(figure.computed)}): run ENGINE_WRITE=1 make engine"
                    " to measure it again"
                )
