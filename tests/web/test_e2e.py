"""The console in headless Chromium (Debian's, never a downloaded browser): log in, see an alert
appear live after an event is posted, acknowledge it, find it in the history."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from monitor.api.app import create_app
from tests.support.api import TOKENS, ServerThread, auth, event, faulty_round, make_settings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path):
    with ServerThread(create_app(make_settings(f"sqlite:///{tmp_path / 'web.db'}"))) as srv:
        yield srv


@pytest.fixture
def page():
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip("Debian chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        pg.set_default_timeout(15_000)
        yield pg
        browser.close()


def test_log_in_see_a_live_alert_acknowledge_it_and_find_it_in_history(server, page) -> None:
    page.goto(server.url + "/")
    page.fill("#token", "wrong-token-" + "w" * 20)
    page.click("#login-button")
    page.wait_for_selector("#login-error:has-text('not valid')")
    page.fill("#token", TOKENS["supervisor"])
    page.click("#login-button")
    page.wait_for_selector("#conn:has-text('live')")
    assert page.locator("#who").inner_text() == "supervisor-user · supervisor"
    assert page.locator("#feed .alert").count() == 0

    # An event arrives from a sensor: its alert appears without reloading the page.
    with httpx.Client(base_url=server.url, timeout=30) as client:
        events = faulty_round("T7")[:7]  # up to the stub of five
        response = client.post("/api/v1/events/batch", headers=auth("sensor"), json=events)
        assert response.status_code == 200
    stub = page.locator("#feed .alert.sev-misdeal", has_text="stub has 5 cards")
    stub.wait_for()
    assert "Table T7" in stub.inner_text() and "Livermore Casino Pai Gow Poker, rule 55" in stub.inner_text()
    page.wait_for_selector("[data-table='T7'] .phase:has-text('dealt')")
    # the table card says which profile judges the table (no table file here: the default)
    assert page.locator("[data-table='T7'] .profile").inner_text().startswith(
        "Profile livermore: Livermore Casino Pai Gow Poker, house way trump_plaza, "
        "dice counted counterclockwise")

    # Acknowledge it from its detail, with a comment.
    stub.click()
    page.wait_for_selector("#detail[open]")
    assert "four cards remaining" in page.locator("#detail-rule").inner_text()
    # The citation links to the product's own reference for the rule.
    cited = page.locator("#detail-rule a", has_text="Livermore Casino Pai Gow Poker, rule 55")
    assert cited.get_attribute("href") == "/rules/livermore#rule-55"
    assert "Four cards in the stub" in page.locator("#detail-rule").inner_text()
    assert "stub_counted" in page.locator("#detail-evidence").inner_text()
    assert "Profile\nlivermore" in page.locator("#detail-facts").inner_text()
    page.fill("#detail-comment", "floor called, redealing")
    page.click("#ack-button")
    page.wait_for_selector("#detail-facts dd:has-text('floor called, redealing')")
    assert page.locator("#ack-button").is_disabled()
    page.click("#detail-close")
    page.wait_for_selector("#feed .alert.status-acknowledged:has-text('stub has 5 cards')")

    # Find it in the history, filtered by table and status.
    page.click("[data-view='history']")
    page.fill("#history-form input[name='table_id']", "T7")
    page.select_option("#history-form select[name='status']", "acknowledged")
    page.click("#history-form button[type='submit']")
    row = page.locator("#history-rows tr.row", has_text="stub has 5 cards")
    # The unfiltered list shows first; wait until the filtered answer has replaced it.
    expect(page.locator("#history-rows tr.row")).to_have_count(1)
    assert "supervisor-user" in row.inner_text()

    # And a later round's hand history is browsable.
    with httpx.Client(base_url=server.url, timeout=30) as client:
        rest = [*faulty_round("T7")[7:], event(9, "round_started", "T7", round_id="R2", banker_seat=1)]
        assert client.post("/api/v1/events/batch", headers=auth("sensor"), json=rest).status_code == 200
    page.click("[data-view='hands']")
    page.locator("#hands-rows tr.row", has_text="R1").click()
    assert "stub_not_four" in page.locator("#hand-detail").inner_text()


def test_a_central_server_shows_each_tables_devices_and_the_snapshot_its_run_sent(tmp_path: Path,
                                                                                  page) -> None:
    import cv2
    import numpy as np

    settings = make_settings(f"sqlite:///{tmp_path / 'web.db'}", snapshot_dir=tmp_path / "snapshots")
    with ServerThread(create_app(settings)) as srv, httpx.Client(base_url=srv.url, timeout=30) as client:
        stub = client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T3")[:7])
        alert_id = stub.json()["alerts"][-1]
        page.goto(srv.url + "/")
        page.fill("#token", TOKENS["viewer"])
        page.click("#login-button")
        page.wait_for_selector("#conn:has-text('live')")
        page.wait_for_selector("[data-table='T3']")
        # the table's run reports its devices: they appear on its card without a reload
        report = {"sources": [
            {"source": "usb:0", "kind": "camera", "state": "running", "up": True, "fps": 29.5,
             "captured": 900, "dropped": 3, "reconnects": 0},
            {"source": "/dev/ttyUSB0", "kind": "dice_reader", "state": "reconnecting", "up": False,
             "reconnects": 1, "bad_lines": 2, "missing_readings": 0, "silent_s": 14.0}]}
        assert client.put("/api/v1/tables/T3/sources", headers=auth("sensor"), json=report).status_code == 200
        camera = page.locator("[data-table='T3'] .source[data-kind='camera']")
        expect(camera).to_have_text("camera · usb:0 · 29.5 fps · 3 dropped")
        dice = page.locator("[data-table='T3'] .source[data-kind='dice_reader']")
        expect(dice).to_have_text("dice reader · /dev/ttyUSB0 · reconnecting · 2 bad lines · silent 14 s · "
                                  "1 reconnects")
        assert "source-down" in (dice.get_attribute("class") or "")
        # then the alert's snapshot: the open detail shows it
        page.locator("#feed .alert", has_text="stub has 5 cards").click()
        page.wait_for_selector("#detail[open]")
        assert page.locator("#detail-snapshot").is_hidden()
        ok, jpeg = cv2.imencode(".jpg", np.full((60, 80, 3), 120, np.uint8))
        put = client.put(f"/api/v1/alerts/{alert_id}/snapshot", content=jpeg.tobytes(),
                         headers={**auth("sensor"), "Content-Type": "image/jpeg"})
        assert ok and put.json()["attached"]
        expect(page.locator("#detail-snapshot")).to_be_visible()


def test_a_viewer_sees_alerts_but_cannot_act(server, page) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"))
    page.goto(server.url + "/")
    page.fill("#token", TOKENS["viewer"])
    page.click("#login-button")
    page.locator("#feed .alert").first.wait_for()
    assert page.locator("#feed .alert").count() == 4
    assert page.locator("#feed .alert button").count() == 0  # no quick-acknowledge for a viewer
    page.locator("#feed .alert").first.click()
    page.wait_for_selector("#detail[open]")
    assert page.locator("#detail-actions").is_hidden()


def test_an_admin_sees_refused_webhook_deliveries_and_retries_them(tmp_path: Path, page) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from monitor.api.settings import WebhookTarget

    answers = {"code": 410}  # the receiver's endpoint is gone, until it is fixed
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            if answers["code"] == 200:
                received.append(self.headers["Idempotency-Key"])
            self.send_response(answers["code"])
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    hook = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=hook.serve_forever, daemon=True).start()
    target = WebhookTarget(name="hook", url=f"http://127.0.0.1:{hook.server_address[1]}/in")
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'web.db'}", webhooks=[target]))
    try:
        with ServerThread(app) as srv:
            with httpx.Client(base_url=srv.url, timeout=30) as client:
                client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"))
            # a supervisor has no deliveries tab
            page.goto(srv.url + "/")
            page.fill("#token", TOKENS["supervisor"])
            page.click("#login-button")
            page.wait_for_selector("#conn:has-text('live')")
            assert page.locator("[data-view='deliveries']").is_hidden()
            page.click("#logout")
            page.fill("#token", TOKENS["admin"])
            page.click("#login-button")
            page.wait_for_selector("#conn:has-text('live')")
            page.click("[data-view='deliveries']")
            rows = page.locator("#deliveries-rows tr.row")
            for _ in range(60):  # the four deliveries are refused in the background: reload until shown
                if rows.count() == 4:
                    break
                page.wait_for_timeout(250)
                page.evaluate("location.hash = '#/live'")
                page.evaluate("location.hash = '#/deliveries'")
            expect(rows).to_have_count(4)
            assert "HTTP 410 Gone" in rows.first.inner_text()
            answers["code"] = 200
            rows.first.locator("button", has_text="Retry").click()
            expect(rows).to_have_count(3)
            page.click("#deliveries-retry-all")
            expect(page.locator("#deliveries-rows")).to_contain_text("No refused deliveries.")
            for _ in range(100):  # the worker sends them within a second or so
                if len(received) == 4:
                    break
                page.wait_for_timeout(100)
            assert sorted(set(received)) == sorted(received) and len(received) == 4  # each once
    finally:
        hook.shutdown()
