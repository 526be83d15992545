"""Schemathesis against the app's own OpenAPI: no generated request gets a server error, and every
answer matches its documented schema (bounded number of examples per operation)."""

from __future__ import annotations

from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from monitor.api.app import create_app
from tests.support.api import ServerThread, auth, faulty_round, make_settings


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory):
    db = Path(tmp_path_factory.mktemp("schemathesis")) / "fuzz.db"
    with ServerThread(create_app(make_settings(f"sqlite:///{db}"))) as server:
        import httpx

        # Some data, so that ids in paths can also hit real rows.
        httpx.post(f"{server.url}/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"),
                   timeout=60).raise_for_status()
        # The OpenAPI document itself needs a token (any role).
        assert httpx.get(f"{server.url}/openapi.json", timeout=30).status_code == 401
        schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json", headers=auth("viewer"))
        # The live SSE stream never ends; it is exercised by its own test.
        yield schema.exclude(path="/api/v1/live/sse")


def test_no_server_errors_and_documented_answers(api_schema) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 15

    for operation in operations:
        # Admin reaches every operation (sensor the ingest ones), so inputs get past auth.
        role = "sensor" if operation.path.startswith("/api/v1/events") else "admin"

        _fuzz(operation, role)


# No server error, answers as documented. (Not "positive data acceptance": the event union's
# JSON Schema lists `type` as optional, but the discriminated union needs it, and says so with 422.)
CHECKS = [
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.response_schema_conformance,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
]


def _fuzz(operation, role: str) -> None:
    @given(case=operation.as_strategy())
    @settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def check(case: schemathesis.Case) -> None:
        case.call_and_validate(headers=auth(role), timeout=60, checks=CHECKS)

    check()
