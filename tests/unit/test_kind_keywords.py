"""A figure kind's arguments given by name, as FIGURE_KINDS.md and the error messages write them
(`device_states(parameters, devices=1, stage=0, ...)`): put in their places, the rest read as display options."""

from __future__ import annotations

import pytest

from macros.figures.kinds import KINDS, FigureKindError

DEVICE_STATES = KINDS["device_states"]


def test_arguments_by_name_take_their_places_and_defaults_fill_the_gap() -> None:
    assert DEVICE_STATES.placed(("gpt2-1.5b",), {"stage": 3, "digits": 2}) == (("gpt2-1.5b", 1, 3), {"digits": 2})
    assert DEVICE_STATES.placed(("gpt2-1.5b", 8), {"stage": 3}) == (("gpt2-1.5b", 8, 3), {})


def test_a_call_by_name_names_the_same_figure_as_by_place() -> None:
    by_name, options = DEVICE_STATES.placed(("gpt2-1.5b",), {"devices": 8, "stage": 3})
    assert DEVICE_STATES.figure_id(by_name) == DEVICE_STATES.figure_id(("gpt2-1.5b", 8, 3)) and options == {}


def test_keywords_that_name_no_parameter_are_left_as_display_options() -> None:
    assert DEVICE_STATES.placed(("gpt2-1.5b",), {"digits": 2}) == (("gpt2-1.5b",), {"digits": 2})


def test_an_argument_given_twice_is_refused() -> None:
    with pytest.raises(FigureKindError, match="devices is given twice"):
        DEVICE_STATES.placed(("gpt2-1.5b", 8), {"devices": 4})


def test_an_argument_without_a_default_cannot_be_skipped() -> None:
    with pytest.raises(FigureKindError, match="parameters has no default"):
        DEVICE_STATES.placed((), {"devices": 4})
