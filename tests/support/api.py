"""The API under test: its tokens and settings, events and a faulty round to send it, a real server in
a thread."""

from __future__ import annotations

from tests.support.postgres import free_port

TOKENS = {
    "admin": "admin-token-" + "a" * 24,
    "supervisor": "super-token-" + "s" * 24,
    "viewer": "viewer-token-" + "v" * 24,
    "sensor": "sensor-token-" + "n" * 24,
}
WRONG_TOKEN = "not-a-known-token-" + "x" * 20


def auth(role: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[role]}"}


def make_settings(db: str, **overrides: object):  # -> Settings
    from pydantic import SecretStr

    from monitor.api.settings import Settings

    tokens = ",".join(f"{role}-user:{role}:{token}" for role, token in TOKENS.items())
    values: dict[str, object] = {"db_url": db, "tokens": SecretStr(tokens), "table_push_interval_s": 0.05,
                                 **overrides}
    return Settings(**values)  # type: ignore[arg-type]


def event(seq: int, type_: str, table: str = "T1", **fields: object) -> dict[str, object]:
    from datetime import UTC, datetime

    return {"type": type_, "table_id": table, "seq": seq, "media_time": 10 + seq * 2.0,
            "wall_time": datetime.now(UTC).isoformat(), "source": "vision", **fields}


def faulty_round(table: str = "T1", start: int = 0, round_id: str = "R1") -> list[dict[str, object]]:
    """A Pai Gow round with four faults: a bet changed after no more bets (seed 000 rule 32), an ace
    exposed on the deal (48a), a stub of five (55), and an impossible dice reading (8)."""
    s = start
    return [
        event(s, "round_started", table, round_id=round_id, banker_seat=1),
        event(s + 1, "bet_placed", table, seat=2, amount=2500),
        event(s + 2, "bet_placed", table, seat=4, amount=10000),
        event(s + 3, "bets_closed", table),
        event(s + 4, "bet_changed", table, seat=4, before=10000, after=20000),
        event(s + 5, "card_exposed", table, card="As", zone="pile:3"),
        event(s + 6, "stub_counted", table, n=5),
        event(s + 7, "dice_rolled", table, values=[3, 9, 2]),
        event(s + 8, "round_ended", table),
    ]


class ServerThread:
    """A real uvicorn server on a free loopback port, in a thread."""

    def __init__(self, app: object, port: int | None = None) -> None:
        import threading

        import uvicorn

        self.port = port or free_port()  # a port of its own, or the one a stopped server had
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",  # type: ignore[arg-type]
                                access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        import time

        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
