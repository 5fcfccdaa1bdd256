"""The tier's data file, `catalog/measured.yml`, against what this run measured (runs last).

With ENGINE_WRITE=1 the file is rewritten, but only if no test of the run
failed; otherwise every record this run made must be in the file as it is, and
when the whole tier ran, the file must hold no record it did not make.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from . import records
from .conftest import FIGURES, course_figure


def test_measured_file_is_current(request: pytest.FixtureRequest) -> None:
    made = {record.key: record.as_yaml() for record in records.RECORDED}
    assert made, "no test recorded anything: the tier's other tests did not run"
    if records.writing():
        assert request.session.testsfailed == 0, "a test failed: measured.yml is written only from a passing run"
        records.MEASURED.write_text(records.dump(records.RECORDED), encoding="utf-8")
        return
    committed = records.load()
    changed = sorted(key for key, data in made.items() if committed.get(key) != data)
    assert not changed, (
        f"measured.yml is not what this run measured for {', '.join(changed)}: if the change is meant,"
        f" rewrite it with {records.WRITE_VARIABLE}=1 make engine"
    )
    whole_tier = not request.config.option.keyword and not request.config.args[1:]
    if whole_tier and request.session.testscollected == len(request.session.items):
        stale = sorted(set(committed) - set(made))
        assert not stale, f"measured.yml holds records no test made any more: {', '.join(stale)}"
        unmade = sorted(set(FIGURES) - set(made))
        assert not unmade, f"figures.yml names records no test made: {', '.join(unmade)}"


#: The units of a record whose course value is the figure's per parameter (or the figure itself, for a count).
PER_PARAMETER = {"param", "B/param", "FLOP/param", "element/param"}
#: The units of a record measured at its figure's own shape (bytes sent by a world run at the figure's case): the
#: course value it was compared with is the figure's value itself.
AT_THE_FIGURES_SHAPE = {"B"}


def test_each_record_vouches_for_a_figure_of_its_own_case() -> None:
    """A record that names a figure measured the figure's case: the course's value it was compared with is the
    figure's value, per parameter where the figure counts bytes or FLOPs of a model (its parameter count an
    input), itself where the record is in bytes at the figure's shape. A ratio (unit 1, B/sbh, B/as2b) is the
    layer's own, and scales any figure of that layer."""
    named = [record for record in records.RECORDED if record.figure]
    assert named, "no record names a figure: figures.yml is not read"
    for record in named:
        figure = course_figure(record.figure)
        per: Fraction | float | int
        if record.unit in AT_THE_FIGURES_SHAPE:
            per = Fraction(figure.value)
        elif record.unit not in PER_PARAMETER:
            assert record.unit in {"1", "B/sbh", "B/as2b"}, f"{record.key}: no rule for unit {record.unit}"
            continue
        else:
            counts = [quantity.value for quantity in figure.computed.inputs if quantity.unit == "param"]
            per = Fraction(figure.value) / counts[0] if len(counts) == 1 and record.unit != "param" else figure.value
        assert per == Fraction(record.course), (
            f"{record.key} compared the software with the course's {records.exact(record.course)} {record.unit},"
            f" but {record.figure} is {per} of it: name a figure of the record's own case in figures.yml"
        )
