"""Expert parallelism's two all-to-alls, frame by frame: tokens sent to their experts' devices, the experts'
outputs, and the outputs sent back."""

from __future__ import annotations

from fractions import Fraction

from ...model import experts
from .frames import Cell, Device, Frame, Frames, check_devices


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def alltoall_dispatch_frames(devices: int = 4) -> Frames:
    """Dispatch, experts and combine over `devices` GPUs, one expert each, from `experts.balanced_routing`.

    GPU 0's tokens are a₀, a₁, …, GPU 1's b₀, b₁, …; a token's expert output is primed (a₁′).

    Raises:
        DiagramError: fewer than 2 GPUs, or more than 6, which no longer fit a phone's width.
    """
    check_devices(devices)
    letters = "abcdef"
    routing = experts.balanced_routing(devices)
    name = [f"GPU {d} (expert {d})" for d in range(devices)]

    def token(d: int, j: int, done: bool = False) -> str:
        return f"{letters[d]}{_subscript(j)}{'′' if done else ''}"

    # After the dispatch, GPU g holds, in order of the sending GPU, the token each sent it.
    arrived = [[(s, routing[s].index(g)) for s in range(devices)] for g in range(devices)]
    sent = experts.alltoall_bytes(devices, 1, 1, 1, devices)
    share = Fraction(sent, devices)
    start = tuple(
        Device(
            name[d],
            tuple(
                Cell(f"{token(d, j)}→{routing[d][j]}", "own" if routing[d][j] == d else "forward")
                for j in range(devices)
            ),
        )
        for d in range(devices)
    )
    dispatched = tuple(
        Device(name[g], tuple(Cell(token(s, j), "own" if s == g else "received") for s, j in arrived[g]))
        for g in range(devices)
    )
    computed = tuple(
        Device(name[g], tuple(Cell(token(s, j, True), "complete") for s, j in arrived[g])) for g in range(devices)
    )
    combined = tuple(
        Device(
            name[d],
            tuple(
                Cell(token(d, j, True), "complete" if routing[d][j] == d else "complete received")
                for j in range(devices)
            ),
        )
        for d in range(devices)
    )
    frames = (
        Frame(
            "Start: the router has chosen.",
            f"Each GPU holds {devices} of its micro-batch's tokens, each marked with the GPU of the expert its router"
            f" picked (top-1). One token per GPU stays; the other {sent} are bound for other GPUs.",
            start,
        ),
        Frame(
            "Dispatch all-to-all.",
            f"Every GPU sends each other GPU the tokens bound for its expert: {sent} of its {devices},"
            f" (e − 1)/e = {share.numerator}/{share.denominator} of them, and receives as many. Each GPU now holds"
            " the tokens its expert computes.",
            dispatched,
        ),
        Frame(
            "The experts compute.",
            "Each GPU runs its expert on the tokens it holds (primed: the expert's output). No GPU holds another's"
            " expert: that is what expert parallelism saves in memory.",
            computed,
        ),
        Frame(
            "Combine all-to-all.",
            f"The outputs go back to their tokens' GPUs, the same {sent} per GPU the other way, where the router's"
            " weight scales each and the layer goes on. The backward pass runs both all-to-alls again, with the"
            " gradients.",
            combined,
        ),
    )
    return Frames(
        frames,
        tuple(f"slot {j}" for j in range(devices)),
        {
            "own": "a GPU's own token, for its own expert",
            "forward": "bound for another GPU's expert (→ its GPU)",
            "complete": "an expert's output (′)",
            "received": "outlined: just received",
        },
    )
