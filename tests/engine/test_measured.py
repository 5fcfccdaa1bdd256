"""The tier's data file, `catalog/measured.yml`, against what this run measured (runs last).

With ENGINE_WRITE=1 the file is rewritten, but only if no test of the run
failed; otherwise every record this run made must be in the file as it is, and
when the whole tier ran, the file must hold no record it did not make.
"""

from __future__ import annotations

import pytest

from . import records


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
