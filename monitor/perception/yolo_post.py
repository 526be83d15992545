"""YOLO pre- and post-processing in numpy: letterbox, output decoding, NMS (boxes and oriented boxes).

Output layouts of the ultralytics ONNX exports (one image): detect ``(1, 4 + nc, N)`` rows
``cx, cy, w, h, class scores``; OBB ``(1, 4 + nc + 1, N)`` with the angle (radians) as the last row.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
STRIDE = 32  # YOLO's largest feature stride: input sides are multiples of it
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Letterbox:
    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, pts: F64) -> F64:
        """Map network-input coordinates (..., 2) back to the original image."""
        out = pts.astype(np.float64).copy()
        out[..., 0] = (out[..., 0] - self.pad_x) / self.scale
        out[..., 1] = (out[..., 1] - self.pad_y) / self.scale
        return out


def letterbox(img: npt.NDArray[np.uint8], shape: tuple[int, int]) -> tuple[F32, Letterbox]:
    """Resize keeping aspect into ``shape`` (h, w), pad with grey 114, return NCHW RGB float32 in [0, 1]."""
    h, w = img.shape[:2]
    th, tw = shape
    s = min(th / h, tw / w)
    nh, nw = round(h * s), round(w * s)
    resized = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    top, left = (th - nh) // 2, (tw - nw) // 2
    canvas = np.full((th, tw, 3), 114, dtype=np.uint8)
    canvas[top:top + nh, left:left + nw] = resized
    x = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / np.float32(255.0)
    return np.ascontiguousarray(x), Letterbox(s, float(left), float(top))


def crop_input(crop: npt.NDArray[np.uint8], scale: float, stride: int = STRIDE) -> tuple[F32, Letterbox]:
    """A part of a frame as network input at ``scale`` (the whole frame's), padded right and below to
    the stride with grey 114; NCHW RGB float32 in [0, 1]."""
    h, w = crop.shape[:2]
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    resized = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    th, tw = -(-nh // stride) * stride, -(-nw // stride) * stride
    canvas = np.full((th, tw, 3), 114, dtype=np.uint8)
    canvas[:nh, :nw] = resized
    x = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / np.float32(255.0)
    # the scale actually applied on each axis differs from ``scale`` by rounding: take the mean
    return np.ascontiguousarray(x), Letterbox((nw / w + nh / h) / 2, 0.0, 0.0)


def xywhr_to_corners(b: F64) -> F64:
    """(N, 5) cx, cy, w, h, angle -> (N, 4, 2) corners (same convention as ultralytics)."""
    c, s = np.cos(b[:, 4]), np.sin(b[:, 4])
    v1 = np.stack([b[:, 2] / 2 * c, b[:, 2] / 2 * s], axis=1)
    v2 = np.stack([-b[:, 3] / 2 * s, b[:, 3] / 2 * c], axis=1)
    ctr = b[:, :2]
    return np.stack([ctr + v1 + v2, ctr + v1 - v2, ctr - v1 - v2, ctr - v1 + v2], axis=1)


def xywh_to_corners(b: F64) -> F64:
    x1, y1 = b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2
    x2, y2 = b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2
    return np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1),
                     np.stack([x1, y2], 1)], axis=1)


def box_iou(a: F64, b: F64) -> F64:
    """IoU between (N, 4) and (M, 4) xyxy boxes."""
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    out: F64 = inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)
    return out


def probiou(a: F64, b: F64, eps: float = 1e-7) -> F64:
    """Probabilistic IoU (Gaussian Bhattacharyya) between (N, 5) and (M, 5) oriented boxes, as ultralytics."""

    def cov(x: F64) -> tuple[F64, F64, F64]:
        va, vb, r = x[:, 2] ** 2 / 12, x[:, 3] ** 2 / 12, x[:, 4]
        c, s = np.cos(r), np.sin(r)
        return va * c * c + vb * s * s, va * s * s + vb * c * c, (va - vb) * c * s

    a1, b1, c1 = (v[:, None] for v in cov(a))
    a2, b2, c2 = (v[None, :] for v in cov(b))
    x1, y1 = a[:, 0][:, None], a[:, 1][:, None]
    x2, y2 = b[:, 0][None, :], b[:, 1][None, :]
    den = (a1 + a2) * (b1 + b2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (b1 + b2) * (x1 - x2) ** 2) / den * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / den * 0.5
    det1 = np.clip(a1 * b1 - c1 ** 2, 0, None)
    det2 = np.clip(a2 * b2 - c2 ** 2, 0, None)
    t3 = np.log(den / (4 * np.sqrt(det1 * det2) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    out: F64 = 1.0 - np.sqrt(1.0 - np.exp(-bd) + eps)
    return out


def greedy_nms(scores: F64, iou: F64, threshold: float) -> list[int]:
    """Indices kept by greedy NMS given a precomputed pairwise IoU matrix."""
    order = list(np.argsort(-scores))
    keep: list[int] = []
    suppressed = np.zeros(len(scores), dtype=bool)
    for i in order:
        if suppressed[i]:
            continue
        keep.append(int(i))
        suppressed |= iou[i] > threshold
    return keep


@dataclass(frozen=True, slots=True)
class RawDetections:
    corners: F64  # (N, 4, 2) in network-input pixels
    scores: F64
    classes: npt.NDArray[np.int64]


def decode(output: F32, num_classes: int, oriented: bool, conf: float = 0.25, iou: float = 0.6,
           max_det: int = 300) -> RawDetections:
    """Decode one image's raw output, then class-aware NMS."""
    o = np.asarray(output, dtype=np.float64)
    if o.ndim == 3:
        o = o[0]
    expected = 4 + num_classes + (1 if oriented else 0)
    if o.shape[0] != expected:
        raise ValueError(f"model output has {o.shape[0]} rows, expected {expected} "
                         f"({'oriented' if oriented else 'axis-aligned'} boxes, {num_classes} classes)")
    cls_scores = o[4:4 + num_classes]
    cls = cls_scores.argmax(axis=0)
    score = cls_scores[cls, np.arange(o.shape[1])]
    m = score >= conf
    if not m.any():
        return RawDetections(np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0, dtype=np.int64))
    boxes = (o[:5] if oriented else o[:4])[:, m].T
    if oriented:
        boxes[:, 4] = o[-1, m]
    score, cls = score[m], cls[m]
    if len(score) > 3000:  # bound NMS cost on pathological outputs
        top = np.argsort(-score)[:3000]
        boxes, score, cls = boxes[top], score[top], cls[top]
    if oriented:
        xywhr = boxes
        # class-aware: push different classes far apart so they never suppress each other
        shifted = xywhr.copy()
        shifted[:, :2] += cls[:, None] * 10000.0
        keep = greedy_nms(score, probiou(shifted, shifted), iou)
        corners = xywhr_to_corners(xywhr[keep])
    else:
        xyxy = np.concatenate([boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2], axis=1)
        shifted = xyxy + cls[:, None] * 10000.0
        keep = greedy_nms(score, box_iou(shifted, shifted), iou)
        corners = xywh_to_corners(boxes[keep])
    keep = keep[:max_det]
    return RawDetections(corners[:max_det], score[keep], cls[keep])


@dataclass(frozen=True, slots=True)
class RawKeypoints:
    boxes: F64  # (N, 4) xyxy in network-input pixels
    keypoints: F64  # (N, K, 2) in network-input pixels
    scores: F64


def decode_pose(output: F32, num_keypoints: int, conf: float = 0.25, iou: float = 0.6,
                max_det: int = 300) -> RawKeypoints:
    """Decode one image's raw single-class pose output ``(1, 4 + 1 + 3K, N)`` (rows ``cx, cy, w, h,
    score``, then ``x, y, visibility`` per keypoint), then NMS on the boxes."""
    o = np.asarray(output, dtype=np.float64)
    if o.ndim == 3:
        o = o[0]
    if o.shape[0] != 5 + 3 * num_keypoints:
        raise ValueError(f"model output has {o.shape[0]} rows, expected {5 + 3 * num_keypoints} "
                         f"(one class, {num_keypoints} keypoints)")
    m = o[4] >= conf
    if not m.any():
        return RawKeypoints(np.zeros((0, 4)), np.zeros((0, num_keypoints, 2)), np.zeros(0))
    sel = o[:, m]
    score = sel[4]
    if len(score) > 3000:  # bound NMS cost on pathological outputs
        top = np.argsort(-score)[:3000]
        sel, score = sel[:, top], score[top]
    xyxy = np.concatenate([sel[:2] - sel[2:4] / 2, sel[:2] + sel[2:4] / 2]).T
    keep = greedy_nms(score, box_iou(xyxy, xyxy), iou)[:max_det]
    kp = sel[5:].T.reshape(-1, num_keypoints, 3)[keep, :, :2]
    return RawKeypoints(xyxy[keep], kp, score[keep])
