"""Every endpoint but /health refuses a missing token, a wrong token and a role too low for it."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from monitor.api.app import create_app
from tests.support.api import TOKENS, WRONG_TOKEN, auth, make_settings

# The least permission each endpoint needs; a route missing here fails the completeness test.
REQUIRED = {
    ("GET", "/api/v1/alerts"): "read",
    ("GET", "/api/v1/alerts/{alert_id}"): "read",
    ("GET", "/api/v1/alerts/{alert_id}/snapshot"): "read",
    ("PUT", "/api/v1/alerts/{alert_id}/snapshot"): "ingest",
    ("POST", "/api/v1/alerts/{alert_id}/acknowledge"): "act",
    ("POST", "/api/v1/alerts/{alert_id}/resolve"): "act",
    ("GET", "/api/v1/tables"): "read",
    ("GET", "/api/v1/tables/{table_id}"): "read",
    ("PUT", "/api/v1/tables/{table_id}/sources"): "ingest",
    ("GET", "/api/v1/rounds"): "read",
    ("GET", "/api/v1/rounds/{round_id}"): "read",
    ("GET", "/api/v1/hands"): "read",
    ("GET", "/api/v1/hands/{round_id}"): "read",
    ("POST", "/api/v1/events"): "ingest",
    ("POST", "/api/v1/events/batch"): "ingest",
    ("GET", "/api/v1/live/sse"): "read",
    ("GET", "/metrics"): "read",
    ("GET", "/api/v1/me"): "any",
    ("GET", "/api/v1/audit/verify"): "admin",
    ("GET", "/api/v1/webhooks"): "admin",
    ("GET", "/api/v1/webhooks/dead"): "admin",
    ("POST", "/api/v1/webhooks/deliveries/{delivery_id}/retry"): "admin",
    ("POST", "/api/v1/webhooks/dead/retry"): "admin",
    ("GET", "/api/v1/rules"): "read",
    ("GET", "/api/v1/rules/{book_id}"): "read",
    ("GET", "/api/v1/rules/{book_id}/{number}"): "read",
}
OPEN = {("GET", "/health")}
# A role that lacks each permission (the API must answer 403 to it).
TOO_LOW = {"read": ["sensor"], "act": ["viewer", "sensor"], "ingest": ["viewer", "supervisor"],
           "admin": ["supervisor", "viewer", "sensor"], "any": []}


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The app on a SQLite file, and again on PostgreSQL where a server can be started."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('auth') / 'auth.db'}"
    else:
        url = request.getfixturevalue("pg_cluster").new_database()
    with TestClient(create_app(make_settings(url))) as c:
        yield c


def _routes(tmp: str) -> list[tuple[str, str]]:
    """Every operation of the app's OpenAPI document (the contract clients see)."""
    paths = create_app(make_settings(f"sqlite:///{tmp}/listing.db")).openapi()["paths"]
    return [(method.upper(), path) for path, ops in paths.items() for method in ops]


def test_the_permission_table_covers_every_route(tmp_path) -> None:
    routes = set(_routes(str(tmp_path)))
    assert routes - OPEN == set(REQUIRED), "add new routes to REQUIRED with the permission they need"
    assert routes >= OPEN


def _call(client: TestClient, method: str, path: str, headers: dict[str, str]):
    url = re.sub(r"\{[a-z_]+\}", "x", path)
    if path == "/api/v1/live/sse":
        # An accepted SSE request streams forever; only refusals are tested here.
        return client.request(method, url, headers=headers)
    return client.request(method, url, headers=headers, json={} if method == "POST" else None)


@pytest.mark.parametrize(("method", "path"), sorted(REQUIRED))
def test_missing_and_wrong_tokens_are_refused(client: TestClient, method: str, path: str) -> None:
    missing = _call(client, method, path, {})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = _call(client, method, path, {"Authorization": f"Bearer {WRONG_TOKEN}"})
    assert wrong.status_code == 401
    assert WRONG_TOKEN not in wrong.text  # never echoed
    basic = _call(client, method, path, {"Authorization": "Basic dXNlcjpwYXNz"})
    assert basic.status_code == 401


@pytest.mark.parametrize(("method", "path", "role"),
                         [(m, p, r) for (m, p), need in sorted(REQUIRED.items()) for r in TOO_LOW[need]])
def test_a_role_too_low_is_forbidden(client: TestClient, method: str, path: str, role: str) -> None:
    response = _call(client, method, path, auth(role))
    assert response.status_code == 403
    assert f"role '{role}' may not" in response.json()["detail"]


@pytest.mark.parametrize(("method", "path"), sorted((m, p) for (m, p), need in REQUIRED.items()
                                                    if need in ("read", "any") and "{" not in p
                                                    and p != "/api/v1/live/sse"))
def test_a_sufficient_role_gets_in(client: TestClient, method: str, path: str) -> None:
    assert _call(client, method, path, auth("viewer")).status_code == 200


def test_health_is_open_and_says_nothing_secret(client: TestClient) -> None:
    response = client.get("/health")
    assert response.status_code == 200 and response.json()["database"] == "ok"
    assert "sqlite" not in response.text


@pytest.mark.parametrize(("first_message", "code"), [
    (None, 4401), ({"type": "auth", "token": WRONG_TOKEN}, 4401),
    ({"type": "auth", "token": TOKENS["sensor"]}, 4403), ({"type": "hello"}, 4401),
])
def test_the_websocket_refuses_without_a_reading_token(client: TestClient, first_message, code: int) -> None:
    with client.websocket_connect("/api/v1/live/ws") as ws:
        if first_message is None:
            ws.send_text("not json")
        else:
            ws.send_json(first_message)
        with pytest.raises(WebSocketDisconnect) as refused:
            ws.receive_text()
    assert refused.value.code == code


def test_the_websocket_admits_a_viewer(client: TestClient) -> None:
    with client.websocket_connect("/api/v1/live/ws") as ws:
        ws.send_json({"type": "auth", "token": TOKENS["viewer"]})
        assert ws.receive_json() == {"type": "hello", "data": {"name": "viewer-user", "role": "viewer"}}


def test_the_openapi_document_needs_a_token_and_there_is_no_cdn_docs_page(client: TestClient) -> None:
    assert client.get("/openapi.json").status_code == 401
    document = client.get("/openapi.json", headers=auth("sensor"))
    assert document.status_code == 200 and "/api/v1/alerts" in document.json()["paths"]
    assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    # The page and its static files are open (the sign-in form) and hold no data.
    assert client.get("/").status_code == 200 and client.get("/static/app.js").status_code == 200
