"""What autograd saves for one layer's backward pass, in bytes, and its coefficients fitted exactly.

A layer runs once under `saved_tensors_hooks`; the bytes are those of the
distinct storages of what it saved, less the layer's own parameters (a weight a
matmul saves is a model state, not an activation), less autocast's cast copies
of them (counted apart: `weight_casts`), and less the inputs the model computes
once for all its layers (Llama's rotary tables). The layer's input counts when
the layer saves it, as Korthikanti et al. count it.

Bytes are then fitted, exactly, to a sum of monomials in s, b, h and a (`TERMS`)
over a few small shapes, by solving with fractions; one more shape checks the
fit. The coefficients are what a formula of Korthikanti's form would print
(34 per s·b·h, 5 per a·s²·b), and the fit at the course's own shapes gives the
bytes a layer of that size saves, without running it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import torch
from torch.nn import functional

from .census import SavedTensors, storage_key

#: The monomials a layer's saved bytes are fitted to: per token and hidden unit, the attention
#: scores, per token and head (a softmax's log-sum-exp), per token (a norm's statistics).
TERMS: dict[str, Callable[[int, int, int, int], int]] = {
    "sbh": lambda s, b, h, a: s * b * h,
    "as2b": lambda s, b, h, a: a * s * s * b,
    "asb": lambda s, b, h, a: a * s * b,
    "sb": lambda s, b, h, a: s * b,
}


@dataclass(frozen=True)
class Shape:
    sequence: int
    batch: int
    hidden: int
    heads: int

    def term(self, name: str) -> int:
        return TERMS[name](self.sequence, self.batch, self.hidden, self.heads)


@dataclass(frozen=True)
class Saved:
    """What one forward pass saved: activation bytes, and the bytes of cast copies of the parameters."""

    activations: int
    weight_casts: int


def is_weight_cast(tensor: torch.Tensor, parameters: set[int]) -> bool:
    """Whether `tensor` is a cast of one of the parameters (autocast's cached copy: ToCopyBackward from the leaf)."""
    base = tensor._base if tensor._base is not None else tensor  # a matmul saves the cast's transpose
    function = base.grad_fn
    if function is None or type(function).__name__ != "ToCopyBackward0":
        return False
    source = function.next_functions[0][0]
    variable = getattr(source, "variable", None)
    return variable is not None and id(variable) in parameters


def saved_bytes(
    run: Callable[[], torch.Tensor], parameters: Iterable[torch.Tensor], shared: Iterable[torch.Tensor] = ()
) -> Saved:
    """Bytes `run()` saves for backward, by distinct storage, parameters and `shared` inputs left out."""
    parameters = list(parameters)
    ids = {id(p) for p in parameters}
    skip = {storage_key(t)[0] for t in (*parameters, *shared)}
    recorder = SavedTensors()
    with recorder.hooks(), fused_dropout():
        output = run()
    activations: dict[int, int] = {}
    casts: dict[int, int] = {}
    for tensor in recorder.alive():
        key, size = storage_key(tensor)
        if key not in skip:
            (casts if is_weight_cast(tensor, ids) else activations)[key] = size
    del output
    return Saved(sum(activations.values()), sum(casts.values()))


@contextmanager
def fused_dropout() -> Iterator[None]:
    """Dropout as CUDA runs it: the fused `native_dropout`, whose backward keeps a 1-byte bool mask.

    On the CPU, `F.dropout` multiplies by a mask in the input's dtype (2 bytes in bf16); CUDA's fused kernel,
    which Korthikanti et al. count ("a mask of size sbh", 1 byte per value), keeps a bool one. Inside the
    block every `F.dropout` call (and so `nn.Dropout`) in training goes through `torch.native_dropout`.
    """
    original = functional.dropout

    def dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> torch.Tensor:
        if not training or p == 0:
            return input
        return torch.native_dropout(input, p, True)[0]

    functional.dropout = dropout
    try:
        yield
    finally:
        functional.dropout = original


def solve(rows: Sequence[Sequence[int | Fraction]], values: Sequence[int | Fraction]) -> list[Fraction]:
    """The exact solution of a square linear system (Gauss-Jordan over fractions).

    Raises:
        ValueError: the shapes chosen do not determine every coefficient.
    """
    size = len(rows)
    matrix = [[Fraction(x) for x in row] + [Fraction(v)] for row, v in zip(rows, values, strict=True)]
    for column in range(size):
        pivot = next((r for r in range(column, size) if matrix[r][column]), None)
        if pivot is None:
            raise ValueError("the shapes do not separate the terms: choose shapes that vary each term apart")
        matrix[column], matrix[pivot] = matrix[pivot], matrix[column]
        for r in range(size):
            if r != column and matrix[r][column]:
                factor = matrix[r][column] / matrix[column][column]
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[column], strict=True)]
    return [matrix[r][size] / matrix[r][r] for r in range(size)]


@dataclass(frozen=True)
class Fit:
    """Saved bytes as Σ coefficient × term, exactly, and whether a shape outside the fit agreed."""

    coefficients: dict[str, Fraction]
    checked: bool

    def bytes(self, shape: Shape) -> Fraction:
        return sum((c * shape.term(name) for name, c in self.coefficients.items()), Fraction(0))


def fit(measure: Callable[[Shape], int], shapes: Sequence[Shape], check: Shape) -> Fit:
    """Fit `measure` over `shapes` (one per term) and test the fit on `check`."""
    names = list(TERMS)
    coefficients = solve([[shape.term(n) for n in names] for shape in shapes], [measure(s) for s in shapes])
    result = Fit(dict(zip(names, coefficients, strict=True)), checked=False)
    return Fit(result.coefficients, checked=result.bytes(check) == measure(check))
