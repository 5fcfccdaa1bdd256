"""Ring attention, step by step: each device's queries stay, blocks of keys and values pass round the ring, and
each device's attention gathers every block (`model.context.ring_schedule`)."""

from __future__ import annotations

from ...model import context
from .frames import Cell, Device, Frame, Frames, check_devices


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def ring_attention_frames(devices: int = 4) -> Frames:
    """Ring attention over `devices` devices: the queries Qᵢ each keeps, the block of keys and values Kⱼ,Vⱼ it
    holds at each step, and the blocks its attention has met so far.

    Raises:
        DiagramError: fewer than 2 devices, or more than 6, which no longer fit a phone's width.
    """
    check_devices(devices)
    schedule = context.ring_schedule(devices)
    frames = []
    for step, holding in enumerate(schedule):
        rows = []
        for device, block in enumerate(holding):
            met = sorted({schedule[k][device] for k in range(step + 1)})
            complete = len(met) == devices
            seen = "every block" if complete else ("block " if len(met) == 1 else "blocks ") + ", ".join(map(str, met))
            rows.append(
                Device(
                    f"GPU {device}",
                    (
                        Cell(f"Q{_subscript(device)}", "own"),
                        Cell(f"K{_subscript(block)},V{_subscript(block)}", "received" if step else "own"),
                        Cell(seen, "complete" if complete else "partial"),
                    ),
                )
            )
        if step == 0:
            title = "Each GPU's own block"
            description = (
                "Each GPU holds its own s/c tokens' queries (Q), keys and values (K, V), and computes"
                " attention of its queries against its own keys and values, while it sends that block of keys and"
                " values to the next GPU round the ring."
            )
            arrows = tuple((d, (d + 1) % devices) for d in range(devices))
        else:
            title = f"Pass {step} of {devices - 1}"
            sends = "; ".join(f"GPU {d} now holds block {holding[d]}" for d in range(devices))
            description = (
                f"Each GPU received the block the GPU before it held, and computes its queries against it: {sends}."
            )
            if step < devices - 1:
                description += " Meanwhile it passes the block on."
                arrows = tuple((d, (d + 1) % devices) for d in range(devices))
            else:
                description += (
                    " After c − 1 passes every GPU's queries have met every block of keys and values: each GPU sent"
                    " c − 1 blocks, and held only its own block and the ones in flight, never the whole sequence's"
                    " keys and values."
                )
                arrows = ()
        frames.append(Frame(f"{title}.", description, tuple(rows), arrows))
    return Frames(
        tuple(frames),
        ("queries", "keys and values", "attention met"),
        {
            "own": "a GPU's own tokens",
            "partial": "attention over some blocks",
            "complete": "attention over every block",
            "received": "outlined: just received",
        },
    )
