"""The picture of docs/architecture.md: what runs where, and what crosses between the parts.

    .venv/bin/python scripts/draw_architecture.py docs/img/architecture.png

matplotlib is the train extra's (``pip install -e '.[train]'``); nothing of the product is imported,
so the picture is drawn from this file alone: change it here when the architecture changes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

W, H = 24.6, 13.6  # drawing units (one unit is one inch of the figure)

# one colour per kind of part
SOURCE = "#fde9c9"
PERCEPTION = "#d9ecff"
STATE = "#dff3e4"
WATCHER = "#c3e8cd"
PROCEDURE = "#f6d8e4"
STORE = "#e6e0f5"
API = "#fff6bf"
OUTSIDE = "#eeeeee"
EDGE = "#4a4a4a"
CONTRACT = "#b0306a"  # the contracts between the parts, on the arrows


def region(ax: Axes, x: float, y: float, w: float, h: float, title: str, *, dashed: bool = False,
           colour: str = "#fafafa") -> None:
    """A process (or a group of packages), its name at its top left."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.18",
                                facecolor=colour, edgecolor="#888888", linewidth=1.4,
                                linestyle=(0, (5, 3)) if dashed else "-"))
    ax.text(x + 0.18, y + h - 0.2, title, ha="left", va="top", fontsize=12.5, fontweight="bold",
            color="#333333")


def box(ax: Axes, x: float, y: float, w: float, h: float, title: str, body: str = "", *,
        colour: str = STATE, thread: str = "", size: float = 9.6) -> tuple[float, float, float, float]:
    """A part: its name, a few words of what it does, and the thread it runs on (in brackets)."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.1",
                                facecolor=colour, edgecolor=EDGE, linewidth=1.1))
    top = y + h - 0.14
    ax.text(x + w / 2, top, title, ha="center", va="top", fontsize=size + 1, fontweight="bold")
    if body:
        ax.text(x + w / 2, top - 0.3, body, ha="center", va="top", fontsize=size, linespacing=1.25)
    if thread:
        ax.text(x + w / 2, y + 0.1, thread, ha="center", va="bottom", fontsize=size - 0.6,
                style="italic", color="#1f4e9a")
    return x, y, w, h


def arrow(ax: Axes, a: tuple[float, float], b: tuple[float, float], *, contract: bool = False,
          rad: float = 0.0, dashed: bool = False) -> None:
    """A flow from ``a`` to ``b`` (in the contracts' colour where a contract crosses there)."""
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=14,
                                 linewidth=1.5 if contract else 1.2, color=CONTRACT if contract else EDGE,
                                 connectionstyle=f"arc3,rad={rad}",
                                 shrinkA=2, shrinkB=2, linestyle=(0, (4, 3)) if dashed else "-"))


def right(b: tuple[float, float, float, float], f: float = 0.5) -> tuple[float, float]:
    return b[0] + b[2], b[1] + b[3] * f


def left(b: tuple[float, float, float, float], f: float = 0.5) -> tuple[float, float]:
    return b[0], b[1] + b[3] * f


def top(b: tuple[float, float, float, float], f: float = 0.5) -> tuple[float, float]:
    return b[0] + b[2] * f, b[1] + b[3]


def bottom(b: tuple[float, float, float, float], f: float = 0.5) -> tuple[float, float]:
    return b[0] + b[2] * f, b[1]


def label(ax: Axes, x: float, y: float, text: str, *, contract: bool = False, ha: str = "center",
          va: str = "center") -> None:
    """Words beside an arrow, on white so a crossing line does not strike them through."""
    ax.text(x, y, text, ha=ha, va=va, fontsize=8.8, color=CONTRACT if contract else EDGE, linespacing=1.15,
            fontweight="bold" if contract else "normal",
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.9, "pad": 1.2})


def draw(out: Path) -> None:
    fig = plt.figure(figsize=(W, H), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, W)
    ax.set_ylim(0, H)
    ax.axis("off")
    ax.text(0.3, H - 0.2, "table-monitor: the parts, the threads they run on, and the contracts between them",
            ha="left", va="top", fontsize=16, fontweight="bold")
    ax.text(0.3, H - 0.6, "boxes: the parts (their package in brackets)     italic blue: the thread or "
            "process it runs on     red: the contracts between the parts (events, the feed, the event "
            "writer)     dashed: optional", ha="left", va="top", fontsize=10.5, color="#555555")

    # ---- table-monitor run: one process per table --------------------------------------------------
    region(ax, 0.2, 5.35, 21.55, 7.3, "table-monitor run   (one process per table; demo: the same, a "
           "recording as its camera and a dice simulator)")

    camera = box(ax, 0.45, 10.45, 2.6, 1.45, "camera", "USB, RTSP or a file\nVideoSource (sources)",
                 colour=SOURCE, thread="capture thread: newest frame wins")
    dice = box(ax, 0.45, 8.65, 2.6, 1.45, "dice reader", "serial line protocol\nDiceReader (sources)",
               colour=SOURCE, thread="reader thread (or dice-sim)")
    console = box(ax, 0.45, 6.85, 2.6, 1.45, "dealer's console", "round start, no more bets,\nmisdeal, "
                  "round end", colour=SOURCE, thread="console-replay (--console-log)")

    perception = box(ax, 3.65, 10.1, 2.75, 1.8, "perception", "frame -> typed detections:\ncards, piles, "
                     "chips, dice;\nONNX models or oracle truth", colour=PERCEPTION,
                     thread="thread perception (+ perceive-beside)")
    ring = box(ax, 3.65, 8.65, 2.75, 1.05, "FrameRing (pipeline)", "the last frames, small: an\nalert's "
               "snapshot comes from it", colour=PERCEPTION, size=9.0)
    mapper = box(ax, 3.65, 6.85, 2.75, 1.45, "SourceEventMapper", "rolls, device_lost /\ndevice_recovered, "
                 "console\nas events (sources, events)", colour=SOURCE, size=9.0)

    # table state: the chain, the per-frame view and the watchers
    box(ax, 7.0, 5.95, 6.3, 5.95, "table state  (pipeline)", "", colour="#f1faf3",
                thread="thread table-state (a zone-read worker beside: the banker's place)")
    chain = box(ax, 7.2, 10.3, 5.9, 1.05, "TableChain", "placement (table mm, zones) -> tracking "
                "(ByteTrack) -> spot watch", colour=STATE, size=9.0)
    view = box(ax, 7.2, 9.2, 5.9, 0.8, "FrameView", "one typed per-frame view of the table", colour=STATE,
               size=9.0)
    ax.add_patch(FancyBboxPatch((7.2, 6.7), 5.9, 2.2, boxstyle="round,pad=0.02,rounding_size=0.1",
                                facecolor="#eef8f0", edgecolor=EDGE, linewidth=1.0))
    ax.text(10.15, 8.76, "watchers  (EventExtractor runs them in order)", ha="center", va="top", fontsize=10,
            fontweight="bold")
    names = ["rest", "deal", "deliveries", "exposures", "seats", "banker", "bets", "dice", "round"]
    for k, name in enumerate(names):
        col, row = k % 5, k // 5
        wx, wy = 7.36 + col * 1.14, 7.8 - row * 0.55
        ax.add_patch(FancyBboxPatch((wx, wy), 1.02, 0.4, boxstyle="round,pad=0.01,rounding_size=0.06",
                                    facecolor=WATCHER, edgecolor="#5a8a66", linewidth=0.8))
        ax.text(wx + 0.51, wy + 0.2, name, ha="center", va="center", fontsize=8.8)
    ax.text(10.15, 6.83, "each: its own state, FrameView in, events out; outside events join in "
            "media-time order", ha="center", va="bottom", fontsize=8.4, style="italic")

    box(ax, 14.45, 10.25, 2.25, 1.65, "ApiSink", "event batches to the\ningest, in order,\none call "
               "in flight", colour=API, thread="thread event-sink", size=9.0)
    forwarder = box(ax, 14.45, 5.95, 2.25, 1.75, "Forwarder", "every stored event\nto a central serve,\n"
                    "via an on-disk spool", colour=API, thread="thread forwarder (--server)", size=9.0)

    # the API served inside the run
    box(ax, 17.2, 5.95, 4.35, 5.95, "API  (api, procedure, store)", "", colour="#fffbe6")
    ax.text(19.38, 11.5, "thread api-server: uvicorn's asyncio loop", ha="center", va="center", fontsize=9.0,
            style="italic", color="#1f4e9a")
    ingest = box(ax, 17.4, 10.25, 3.95, 1.0, "ingest (api)", "group commit, the monitor, live push",
                 colour=API, size=9.0)
    feed = box(ax, 17.4, 8.95, 3.95, 1.1, "MonitorFeed in SnapshotFeed", "the procedure Monitor: alerts\nand "
               "hand histories, a snapshot each", colour=PROCEDURE, size=9.0)
    writer = box(ax, 17.4, 7.45, 3.95, 1.2, "EventWriter (store)", "events, rounds, alerts, histories:\none "
                 "transaction", colour=STORE, thread="ingest-writer thread: the monitor, the writes",
                 size=9.0)
    hooks = box(ax, 17.4, 6.35, 1.85, 0.8, "webhook outbox", "a worker a target", colour=API, size=8.6)
    hub = box(ax, 19.5, 6.35, 1.85, 0.8, "LiveHub", "WebSocket, SSE", colour=API, size=8.6)

    page = box(ax, 22.15, 6.0, 2.25, 2.3, "web page", "the dashboard in a\nbrowser (web):\nalerts, tables, "
               "hands;\nREST /api/v1", colour=OUTSIDE, size=8.8)

    # flows of the run
    arrow(ax, right(camera), left(perception, 0.65))
    label(ax, 3.35, 11.42, "frames")
    arrow(ax, bottom(perception), top(ring))
    arrow(ax, right(perception, 0.65), left(chain, 0.5))
    label(ax, 6.7, 11.25, "detections")
    arrow(ax, right(dice), left(mapper, 0.75), rad=-0.2)
    label(ax, 3.35, 8.35, "rolls,\nfaults")
    arrow(ax, right(console), left(mapper, 0.4))
    arrow(ax, right(mapper, 0.5), (7.2, 7.55))
    label(ax, 6.72, 7.95, "outside\nevents")
    arrow(ax, bottom(chain), top(view))
    arrow(ax, bottom(view), (10.15, 8.92))
    arrow(ax, (13.3, 11.0), (14.45, 11.0), contract=True)
    label(ax, 13.87, 11.5, "events\n(docs/events.md)", contract=True)
    arrow(ax, (13.3, 6.9), (14.45, 6.9), dashed=True)
    label(ax, 13.87, 7.4, "the same\n(TeeSink)")
    arrow(ax, (16.7, 11.0), (17.4, 11.0), contract=True)
    label(ax, 17.05, 11.5, "events", contract=True)
    arrow(ax, bottom(ingest), top(feed), contract=True)
    label(ax, 19.4 + 0.08, 10.2, "push(event)", contract=True, ha="left")
    arrow(ax, bottom(feed), top(writer), contract=True)
    label(ax, 19.4 + 0.08, 8.8, "FeedOutput: alerts, histories", contract=True, ha="left")
    arrow(ax, right(hub), left(page, 0.25))
    label(ax, 21.85, 7.15, "push", ha="center")

    # ---- the store, the webhooks' receivers, the central serve ---------------------------------------
    receivers = box(ax, 17.2, 3.3, 1.9, 1.6, "receivers", "the webhooks'\ntargets: signed\nPOSTs, retried",
                    colour=OUTSIDE, size=8.8)
    box(ax, 19.3, 3.3, 5.1, 1.6, "store: SQLite or PostgreSQL (store)", "events, rounds, alerts and "
                "their audit chain,\nhand histories, the webhook outbox", colour=STORE, size=9.0)
    arrow(ax, bottom(writer, 0.5), (19.38, 4.9), contract=True)
    label(ax, 19.38, 5.55, "EventWriter", contract=True)
    arrow(ax, bottom(hooks, 0.5), top(receivers, 0.5))
    arrow(ax, (23.3, 4.9), bottom(page, 0.52))
    label(ax, 23.3, 5.45, "REST /api/v1 reads")
    label(ax, 18.15, 5.55, "alerts")

    box(ax, 11.4, 0.3, 5.25, 4.6, "table-monitor serve", "the room's central server: the same\nAPI, ingest, "
        "MonitorFeed (each table by\nits table file's profile), store and page", colour="#fffbe6",
        thread="process serve (uvicorn: the threads of the run's API)", size=9.0)
    ax.text(14.02, 3.35, "from many  run --server  processes,\none a table, each from its spool:\n"
            "POST /api/v1/events/batch (sensor token),\nPUT each alert's snapshot,\nPUT the health of its "
            "camera and dice", ha="center", va="top", fontsize=8.8, linespacing=1.25)
    arrow(ax, bottom(forwarder, 0.5), (15.57, 4.9), contract=True)
    label(ax, 15.65, 5.42, "events, snapshots (HTTP)", contract=True, ha="left")

    # ---- the review -----------------------------------------------------------------------------------
    box(ax, 0.2, 0.3, 10.7, 4.6, "table-monitor review  (review)", "", colour="#f7f7fb",
        thread="one process, the recordings in turn (or Dask workers: --workers, --scheduler); "
               "one thread runs the chain", size=10)
    files = box(ax, 0.45, 1.2, 2.4, 2.75, "recordings", "video files (or\nrendered folders),\ntheir console "
                "and\ndice log beside\n(events/outside.py)", colour=SOURCE, size=8.8)
    same = box(ax, 3.3, 1.2, 3.3, 2.75, "the live chain, unpaced", "perception (models or\noracle truth), "
               "TableChain,\nthe same watchers;\na motion gate skips\nstill spans", colour=STATE, size=8.8)
    rfeed = box(ax, 7.1, 3.0, 3.55, 0.95, "MonitorFeed in SnapshotFeed", "the same judging as live",
                colour=PROCEDURE, size=8.8)
    outs = box(ax, 7.1, 1.85, 3.55, 0.85, "report, hands, alerts", "HTML, JSON, snapshots, clips",
               colour=OUTSIDE, size=8.8)
    rstore = box(ax, 7.1, 0.75, 3.55, 0.85, "the dashboard's store (--db)",
                 "the session, through EventWriter", colour=STORE, size=8.8)
    arrow(ax, right(files), left(same))
    label(ax, 3.07, 2.9, "frames")
    arrow(ax, right(same, 0.85), left(rfeed, 0.5), contract=True)
    label(ax, 6.85, 3.75, "events", contract=True)
    arrow(ax, bottom(rfeed), top(outs))
    arrow(ax, bottom(outs), top(rstore), contract=True)

    # ---- not the runtime ------------------------------------------------------------------------------
    region(ax, 17.2, 0.3, 7.2, 2.65, "not the runtime", dashed=True, colour="#fdf3f3")
    for k, (name, what) in enumerate([("lab", "bench-*, check-*"), ("render", "synthetic tables,\nrounds"),
                                      ("training", "torch, ultralytics")]):
        box(ax, 17.45 + k * 2.3, 1.2, 2.1, 1.15, f"monitor.{name}", what, colour="#fbe3e3", size=8.6)
    ax.text(20.8, 0.55, "they import the product; the product never imports them\n"
            "(tests/test_import_direction.py)", ha="center", va="bottom", fontsize=8.8, style="italic",
            color="#7a2020")

    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100, facecolor="white")
    plt.close(fig)


if __name__ == "__main__":
    draw(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "docs" / "img"
         / "architecture.png")
