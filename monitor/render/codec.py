"""Stream compression as a camera applies it: a JPEG or an H.264 encode/decode round trip of a frame.

H.264 goes through libx264 (PyAV) exactly as a camera's stream or a recorder would: the frame is
converted to YUV 4:2:0 (chroma at half resolution, the colour bleeding every H.264 stream has),
encoded at a constant rate factor as an intra frame, and decoded again with FFmpeg's H.264
decoder. Higher CRF is smaller and blockier: 18 is near transparent, 28 a typical recorder, 35-40
a starved network camera.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image

Image = NDArray[np.uint8]
H264_PRESET = "veryfast"  # the preset the recorder (rounds/video.py) uses too


class CodecError(RuntimeError):
    pass


def jpeg_roundtrip(img: Image, quality: int) -> Image:
    """Encode as JPEG at ``quality`` (1..100) and decode again."""
    if not 1 <= quality <= 100:
        raise ValueError(f"JPEG quality {quality} is outside 1..100")
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise CodecError(f"JPEG encoding of a {img.shape} image failed")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def h264_roundtrip(img: Image, crf: int, preset: str = H264_PRESET, threads: int = 1) -> Image:
    """Encode a BGR frame with libx264 at ``crf`` (0..51) and decode it again with FFmpeg's decoder.

    Odd sizes (4:2:0 needs even ones) are padded by repeating the last row/column and cropped back.
    ``threads`` 1 keeps the encoder on the calling core (dataset workers already use every core).
    """
    import av

    if not 0 <= crf <= 51:
        raise ValueError(f"H.264 CRF {crf} is outside 0..51")
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"h264_roundtrip needs an 8-bit BGR image, got {img.shape} {img.dtype}")
    h, w = img.shape[:2]
    ph, pw = h + (h & 1), w + (w & 1)
    src = (
        img
        if (ph, pw) == (h, w)
        else as_image(cv2.copyMakeBorder(img, 0, ph - h, 0, pw - w, cv2.BORDER_REPLICATE))
    )
    enc = av.CodecContext.create("libx264", "w")
    enc.width, enc.height, enc.pix_fmt = pw, ph, "yuv420p"
    enc.time_base = Fraction(1, 30)
    enc.options = {"crf": str(int(crf)), "preset": preset, "threads": str(threads)}
    frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(src), format="bgr24").reformat(format="yuv420p")
    packets = [*enc.encode(frame), *enc.encode(None)]
    dec = av.CodecContext.create("h264", "r")
    out = []
    for p in packets:
        out += dec.decode(p)
    out += dec.decode(None)
    if not out:
        raise CodecError(f"H.264 round trip of a {w}x{h} frame decoded nothing")
    got = np.asarray(out[0].to_ndarray(format="bgr24"), np.uint8)
    return got[:h, :w] if (ph, pw) != (h, w) else got


def video_codec(path: str | Path) -> tuple[str, int, tuple[int, int]]:
    """(codec name, frame count, (width, height)) of a video file's first video stream, decoded in
    full (so a truncated or mislabelled file fails here)."""
    import av

    with av.open(str(path)) as f:
        if not f.streams.video:
            raise CodecError(f"{path}: no video stream")
        st = f.streams.video[0]
        name = st.codec_context.name
        n = sum(1 for _ in f.decode(st))
        return name, n, (st.codec_context.width, st.codec_context.height)
