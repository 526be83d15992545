"""Source health exported to Prometheus at scrape time."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from prometheus_client import CollectorRegistry, generate_latest

from monitor.sources.backend import SourceSpec
from monitor.sources.dice_reader import DiceReader
from monitor.sources.prometheus import SourceCollector
from monitor.sources.video_source import VideoSource


def write_video(path: Path, frames: int) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, (64, 48))
    for i in range(frames):
        writer.write(np.full((48, 64, 3), i * 20, np.uint8))
    writer.release()
    return path


def test_scrape_reports_frames_and_states(tmp_path: Path) -> None:
    video = VideoSource(SourceSpec.parse(str(write_video(tmp_path / "m.avi", frames=5))))
    reader = DiceReader(str(tmp_path / "no-such-port"))  # never started: state not_started
    registry = CollectorRegistry()
    collector = SourceCollector([video])
    registry.register(collector)
    collector.add(reader)
    with video:
        assert len(list(video)) == 5
    text = generate_latest(registry).decode()
    name = str(tmp_path / "m.avi")
    assert f'table_monitor_source_frames_total{{fate="captured",source="{name}"}} 5.0' in text
    assert f'table_monitor_source_frames_total{{fate="consumed",source="{name}"}} 5.0' in text
    assert f'table_monitor_source_state{{kind="camera",source="{name}",state="ended"}} 1.0' in text
    port = str(tmp_path / "no-such-port")
    assert f'table_monitor_source_up{{kind="dice_reader",source="{port}"}} 0.0' in text
    assert f'table_monitor_dice_lines_total{{outcome="readings",source="{port}"}} 0.0' in text
