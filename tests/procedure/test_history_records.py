"""Pai Gow hand histories are built without a validation pass (paigow_history._trusted): they must be
exactly what validating the same data gives."""

from __future__ import annotations

from monitor.procedure.history import PaiGowHistory
from monitor.procedure.replay import replay
from tests.support.paths import PROCEDURE_SAMPLES

SAMPLES = sorted(PROCEDURE_SAMPLES.glob("paigow_*.jsonl"))


def test_unvalidated_histories_equal_validated_ones_field_for_field() -> None:
    checked = 0
    for path in SAMPLES:
        for h in replay(path).histories:
            assert isinstance(h, PaiGowHistory)
            again = PaiGowHistory.model_validate(h.model_dump(exclude_unset=True))
            assert again == h, path.name
            assert again.model_dump_json() == h.model_dump_json()
            assert again.model_fields_set == h.model_fields_set  # "game" is not given: the default
            assert [s.model_fields_set for s in again.seats] == [s.model_fields_set for s in h.seats]
            assert repr(again) == repr(h)  # same field order, same value types
            checked += 1
    assert checked >= len(SAMPLES)

