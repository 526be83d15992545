"""Perception: one frame in, typed detections out (cards with identity, face-down cards, piles, chips, dice).

Runtime only: ONNX Runtime or OpenVINO, numpy and OpenCV. PyTorch and ultralytics live in
``monitor.training`` and are never imported here.
"""

from monitor.perception.detections import Detection, Detections

__all__ = ["Detection", "Detections"]
