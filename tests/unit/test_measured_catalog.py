"""What the engine tier measured reaches the figures it vouches for: figures.json and the tooltip."""

from __future__ import annotations

import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from macros.data.catalog import CatalogError, load_catalog
from macros.data.quantities import display_quantity
from macros.figures.figure import FigureLog, digest, tooltip
from macros.figures.kinds import KINDS, FigureKindError, check_measured, kind_of
from tests.conftest import ROOT

RECORD = """\
model-states/ddp/fp32-adam/world-4:
  vouches: [model-states]
  software: torch 2.14.1
  measured: 20
  course: 16
  unit: B/param
  test: tests/engine/test_data_parallel.py::test_ddp[4]
  differs: DDP keeps its gradient buckets, a second copy of the gradients
  figure: {figure}
  digest: {digest}
"""


def _record(figure: str, digest_of: str | None = None) -> str:
    """RECORD vouching for `figure`, with the digest of the figure `digest_of` (itself, unless said) as the real
    catalog computes it now, or a made-up one where that figure is not the course's."""
    named = digest_of or figure
    try:
        kind = kind_of(named, KINDS)
        fingerprint = digest(kind.figure(load_catalog(ROOT / "catalog"), *kind.arguments(named)).computed)
    except KeyError:
        fingerprint = "0123456789abcdef"
    return RECORD.format(figure=figure, digest=fingerprint)


def _catalog_with(tmp_path: Path, measured: str) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(ROOT / "catalog", folder)
    (folder / "measured.yml").write_text(measured, encoding="utf-8")
    return folder


def test_a_measured_figure_carries_the_value_the_software_would_show(tmp_path: Path) -> None:
    catalog = load_catalog(_catalog_with(tmp_path, _record("model-states/gpt2-1.5b")))
    check_measured(catalog)
    figure = KINDS["model_states"].figure(catalog, "gpt2-1.5b")
    log = FigureLog()
    log.add("a.md", "a/", figure, display_quantity(figure.value, figure.unit))
    (record,) = log.records()
    # The course's 16 bytes a parameter, scaled to the 20 the software kept.
    assert Fraction(record["engine"]["measured"]) == Fraction(figure.value) * 20 / 16
    assert record["engine"]["software"] == "torch 2.14.1"
    assert record["engine"]["test"].startswith("tests/engine/")
    assert "buckets" in record["engine"]["differs"]
    # The course's 24 GB (16 bytes × 1.5 billion), as the software's 20 bytes a parameter would show it.
    assert tooltip(figure)["measured"] == [
        ["torch 2.14.1", "DDP keeps its gradient buckets, a second copy of the gradients", "30 GB"]
    ]


def test_a_figure_without_a_measurement_says_none(tmp_path: Path) -> None:
    catalog = load_catalog(_catalog_with(tmp_path, _record("model-states/gpt2-1.5b")))
    figure = KINDS["model_states"].figure(catalog, "gpt2-1.5b", "fp16_parameters")
    assert figure.measured == () and "measured" not in tooltip(figure)


def test_a_record_for_a_figure_the_course_does_not_compute_is_refused(tmp_path: Path) -> None:
    catalog = load_catalog(_catalog_with(tmp_path, _record("model-states/gpt2-9b")))
    with pytest.raises(FigureKindError, match=re.escape("measured.yml: model-states/ddp/fp32-adam/world-4: figure")):
        check_measured(catalog)


def test_a_malformed_record_is_refused_at_its_key(tmp_path: Path) -> None:
    broken = _record("model-states/gpt2-1.5b").replace("measured: 20", "measured: 19.99")
    with pytest.raises(CatalogError, match=r"measured.yml:\d+: model-states/ddp/fp32-adam/world-4\.measured"):
        load_catalog(_catalog_with(tmp_path, broken))


def test_a_measurement_shows_as_a_figure_of_its_ratio_to_the_course(tmp_path: Path) -> None:
    catalog = load_catalog(_catalog_with(tmp_path, _record("model-states/gpt2-1.5b")))
    figure = KINDS["measured"].figure(catalog, "model-states/ddp/fp32-adam/world-4")
    assert figure.value == Fraction(20, 16) and figure.unit == "1"
    (source,) = figure.computed.inputs
    assert source.source.id == "engine-tier" and source.where == "tests/engine/test_data_parallel.py::test_ddp[4]"
    with pytest.raises(KeyError, match="Did you mean"):
        KINDS["measured"].figure(catalog, "model-states/ddp/fp32-adam/world-5")


def test_a_record_of_a_figure_changed_since_it_was_measured_is_refused(tmp_path: Path) -> None:
    """A record measured when the figure was another (here: the digest of the fp32 SGD figure, not of the
    mixed-precision one it names) vouches for nothing now: the build says to measure it again."""
    old = _record("model-states/gpt2-1.5b", digest_of="model-states/gpt2-1.5b/all/fp32-sgd")
    catalog = load_catalog(_catalog_with(tmp_path, old))
    with pytest.raises(FigureKindError, match=r"has changed since the engine tier measured it .* ENGINE_WRITE=1"):
        check_measured(catalog)


def test_a_record_naming_a_figure_without_its_digest_is_refused(tmp_path: Path) -> None:
    undigested = "\n".join(line for line in _record("model-states/gpt2-1.5b").splitlines() if "digest" not in line)
    with pytest.raises(CatalogError, match="names a figure exactly when it gives that figure's digest"):
        load_catalog(_catalog_with(tmp_path, undigested + "\n"))


def test_a_changed_catalog_value_leaves_a_measured_ratio_vouching_for_its_figure(tmp_path: Path) -> None:
    """Bytes per parameter measured on a small model hold for any count: a new parameter count for GPT-2 1.5B is
    still the figure the tier measured, scaled as before."""
    folder = _catalog_with(tmp_path, _record("model-states/gpt2-1.5b"))
    models = folder / "models.yml"
    models.write_text(
        models.read_text(encoding="utf-8").replace("parameters: 1_500_000_000", "parameters: 1_600_000_000", 1),
        encoding="utf-8",
    )
    catalog = load_catalog(folder)
    check_measured(catalog)
    figure = KINDS["model_states"].figure(catalog, "gpt2-1.5b")
    assert figure.value == 16 * 1_600_000_000 and figure.measured
