"""Training data from labelled real photos (a YOLO folder such as the shared poker-cards set).

The photos' boxes are axis-aligned, while a card on a table lies at any angle. Each box's card is cut
out by its own edges where they can be found (``card_quad``: the card's bright, unsaturated body inside
the box, whose min-area rectangle must fill the labelled box); elsewhere (a card under or over others,
a card on a white desk) the box itself is the card's outline. From those outlines:

- ``export_crops``: rectified crops for the card readers (``ROOT/SPLIT/CLASS/*.jpg``), cut as the runtime
  cuts a card, with a little corner jitter (the detector's corners are never exact);
- ``export_faces``: folder card designs (one face per card, cut from clear, whole cards) for the
  renderer, so rendered table scenes carry real faces, edges, blur and sensor noise;
- ``export_detect``: oriented-box detector frames at the trained table scale: several photos, each
  shrunk so its cards are as long as a table camera sees them, laid out in one 1920 x 1080 frame.

Label corrections (``monitor.evaluation.corrections``) apply to every one of them.
"""

from __future__ import annotations

import csv
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from monitor.evaluation.corrections import Corrections
from monitor.evaluation.photo_metrics import Truth, iou, overlapped_flags
from monitor.evaluation.yolo_cards import Photo, TrueCard, read_split
from monitor.perception.card_scale import CANVAS_WH, TRAINED_CARD_PX
from monitor.perception.imageio import as_image
from monitor.perception.labels import CARD_TEXTS
from monitor.perception.rectify import CROP_SIZE, card_side_lengths, order_card_corners, rectify_card

Quad = npt.NDArray[np.float64]
OUT_SPLITS = {"train": "train", "val": "val", "valid": "val", "test": "test"}
# A found outline replaces the labelled box where its bounds overlap the box this much (the set's boxes
# are drawn loosely: a card cut cleanly by its edges overlaps its box by a median 0.79) and it has a
# card's shape (63 x 88 mm, short over long 0.72, spread by the photos' stretch to a square)
FILL_IOU = 0.65
CARD_ASPECT = (0.55, 0.88)
RECT_FILL = 0.86  # the card's blob fills its min-area rectangle this much (rounded corners, a few holes)
JITTER = 0.03  # of the card's long side: how far each corner of a crop may move


def _box_quad(box: tuple[float, float, float, float]) -> Quad:
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)


def card_quad(img: npt.NDArray[np.uint8], box: tuple[float, float, float, float]) -> Quad | None:
    """The card's own outline inside its labelled box, or None where it cannot be told from the rest."""
    h, w = img.shape[:2]
    x1, y1, x2, y2 = box
    m = 0.06 * max(x2 - x1, y2 - y1)
    X1, Y1 = max(0, int(x1 - m)), max(0, int(y1 - m))
    X2, Y2 = min(w, int(np.ceil(x2 + m))), min(h, int(np.ceil(y2 + m)))
    roi = img[Y1:Y2, X1:X2]
    if roi.shape[0] < 12 or roi.shape[1] < 12:
        return None
    hsv = cv2.cvtColor(roi, cv2.COLOR_BGR2HSV)
    v = cv2.GaussianBlur(hsv[..., 2], (5, 5), 0)
    _, bright = cv2.threshold(v, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    body = (bright > 0) & (hsv[..., 1] < 90)
    mask = cv2.morphologyEx(body.astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    box_rect = cv2.minAreaRect(c)
    if cv2.contourArea(c) < RECT_FILL * box_rect[1][0] * box_rect[1][1]:
        return None  # not one clean rectangle: the card merged with the bright background or another card
    rect = cv2.boxPoints(box_rect).astype(np.float64) + np.array([X1, Y1], dtype=np.float64)
    bounds = (
        float(rect[:, 0].min()),
        float(rect[:, 1].min()),
        float(rect[:, 0].max()),
        float(rect[:, 1].max()),
    )
    short, long_ = card_side_lengths(order_card_corners(rect))
    card_like = long_ > 0 and CARD_ASPECT[0] <= short / long_ <= CARD_ASPECT[1]
    return rect if card_like and iou(bounds, box) >= FILL_IOU else None


@dataclass(frozen=True, slots=True)
class CardOutline:
    card: TrueCard
    quad: Quad
    own_edges: bool  # cut by its own edges (else the labelled box)
    overlapped: bool


def outlines(photo: Photo, img: npt.NDArray[np.uint8]) -> list[CardOutline]:
    flags = overlapped_flags([Truth(c.box, c.identity) for c in photo.cards])
    out = []
    for c, over in zip(photo.cards, flags, strict=True):
        q = None if over else card_quad(img, c.box)
        out.append(CardOutline(c, q if q is not None else _box_quad(c.box), q is not None, over))
    return out


def labelled_photos(
    root: Path, split: str, corrections: Corrections | None
) -> Iterator[tuple[Photo, npt.NDArray[np.uint8]]]:
    for photo in read_split(root, split, corrections):
        img = cv2.imread(str(photo.image), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"cannot read {photo.image}")
        yield photo, as_image(img)


def _jittered(quad: Quad, rng: np.random.Generator) -> Quad:
    long_side = card_side_lengths(order_card_corners(quad))[1]
    return quad + rng.normal(0.0, JITTER * long_side / 2, size=quad.shape)


def export_crops(
    root: Path,
    out: Path,
    splits: tuple[str, ...],
    corrections: Corrections | None,
    copies: int = 2,
    seed: int = 0,
) -> dict[str, Counter[str]]:
    """``out/SPLIT/CLASS/*.jpg``: each labelled card rectified ``copies`` times (the first exact, the
    rest with jittered corners; held-out splits once, exact); ``out/manifest_real.csv`` says how each was
    cut."""
    rng = np.random.default_rng(seed)
    counts: dict[str, Counter[str]] = {}
    out.mkdir(parents=True, exist_ok=True)
    with (out / "manifest_real.csv").open("w", newline="") as mf:
        writer = csv.writer(mf)
        writer.writerow(
            ["split", "file", "image", "line", "identity", "own_edges", "overlapped", "corrected"]
        )
        for split in splits:
            dst_split = OUT_SPLITS.get(split, split)
            n_copies = copies if dst_split == "train" else 1
            counts[dst_split] = Counter()
            for photo, img in tqdm(
                list(labelled_photos(root, split, corrections)), desc=f"crops {split}", unit="photo"
            ):
                for o in outlines(photo, img):
                    d = out / dst_split / o.card.identity
                    d.mkdir(parents=True, exist_ok=True)
                    for k in range(n_copies):
                        q = o.quad if k == 0 else _jittered(o.quad, rng)
                        name = f"real_{photo.image.stem[:40]}_{o.card.line}_{k}.jpg"
                        cv2.imwrite(
                            str(d / name), rectify_card(img, q, CROP_SIZE), [cv2.IMWRITE_JPEG_QUALITY, 95]
                        )
                        writer.writerow(
                            [
                                dst_split,
                                f"{o.card.identity}/{name}",
                                photo.image.name,
                                o.card.line + 1,
                                o.card.identity,
                                int(o.own_edges),
                                int(o.overlapped),
                                int(o.card.corrected),
                            ]
                        )
                        counts[dst_split][o.card.identity] += 1
    return counts


FACE_WH = (222, 310)  # a face image's size (63 x 88 mm)
BORDER = 0.07  # of the face's width: the plain white margin every card prints around its art


def border_whiteness(face: npt.NDArray[np.uint8]) -> float:
    """The share of a cut face's margin that is card white (bright, unsaturated): 1 for a face cut on its
    own edges, less where the cut took in the table or a neighbouring card's edge."""
    hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV)
    h, w = face.shape[:2]
    m = max(2, round(BORDER * w))
    ring = np.ones((h, w), bool)
    ring[m:h - m, m:w - m] = False
    v, sat = hsv[..., 2][ring].astype(np.float64), hsv[..., 1][ring]
    white = (v >= 0.8 * float(np.percentile(hsv[..., 2], 90))) & (sat < 60)
    return float(white.mean())


def export_faces(
    root: Path, out: Path, designs: int, filler: Path, corrections: Corrections | None, split: str = "train"
) -> list[Path]:
    """``designs`` folder designs ``out/real-K/`` of the photos' deck: for each card, the K-th clearest
    whole card cut by its own edges (a card with fewer such cuts repeats its last). The deck has no
    joker and no back: those come from the ``filler`` design folder."""
    cuts: dict[str, list[tuple[float, npt.NDArray[np.uint8]]]] = {}
    for photo, img in tqdm(list(labelled_photos(root, split, corrections)), desc="faces", unit="photo"):
        for o in outlines(photo, img):
            if not o.own_edges:
                continue
            q = order_card_corners(o.quad).astype(np.float32)
            dst = np.array(
                [[0, 0], [FACE_WH[0] - 1, 0], [FACE_WH[0] - 1, FACE_WH[1] - 1], [0, FACE_WH[1] - 1]],
                dtype=np.float32,
            )
            face = cv2.warpPerspective(
                img, cv2.getPerspectiveTransform(q, dst), FACE_WH, flags=cv2.INTER_AREA
            )
            face = as_image(face)
            cuts.setdefault(o.card.identity, []).append((border_whiteness(face), face))
    from monitor.render.deck import folder_filenames

    missing = [k for k in CARD_TEXTS if k not in cuts]
    if missing:
        raise ValueError(f"{root} {split}: no clear whole card of {', '.join(missing)} to make a face of")
    made = []
    for k in range(designs):
        d = out / f"real-{k}"
        d.mkdir(parents=True, exist_ok=True)
        for key, faces in cuts.items():
            faces.sort(key=lambda f: -f[0])
            face = faces[min(k, len(faces) - 1)][1]
            if k % 2:  # a card shows its second index turned 180 degrees: both ways up are its face
                face = as_image(np.ascontiguousarray(face[::-1, ::-1]))
            cv2.imwrite(str(d / folder_filenames(key)[0]), face)
        for name in ("black_joker.png", "red_joker.png", "back.png", "back@2x.png"):
            if (filler / name).is_file():
                shutil.copy(filler / name, d / name)
        made.append(d)
    return made


def export_detect(
    root: Path,
    out: Path,
    splits: tuple[str, ...],
    corrections: Corrections | None,
    photos_per_frame: int = 6,
    seed: int = 0,
    classes: int = 6,
    passes: int = 1,
    card_px: float = TRAINED_CARD_PX,
) -> dict[str, int]:
    """``out/images/SPLIT/*.jpg`` + ``out/labels/SPLIT/*.txt`` (ultralytics OBB: class 0, card face up,
    and four normalised corners), and ``out/real.yaml``: frames of ``photos_per_frame`` photos each, every
    photo shrunk so its cards' median long side is ``card_px`` (a table camera's by default,
    ``TRAINED_CARD_PX``; times a random 0.7-1.5) and laid out in a grid with the gaps filled by its
    border colour; training photos go into ``passes`` frames each."""
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    for split in splits:
        dst = OUT_SPLITS.get(split, split)
        (out / "images" / dst).mkdir(parents=True, exist_ok=True)
        (out / "labels" / dst).mkdir(parents=True, exist_ok=True)
        items = list(labelled_photos(root, split, corrections))
        # held-out splits once; training photos ``passes`` times, each time at other sizes and places
        order = np.concatenate([rng.permutation(len(items)) for _ in range(passes if dst == "train" else 1)])
        n = 0
        for f0 in tqdm(range(0, len(order), photos_per_frame), desc=f"detect {split}", unit="frame"):
            group = [items[i] for i in order[f0 : f0 + photos_per_frame]]
            frame, lines = _compose(group, rng, card_px)
            name = f"real_{dst}_{n:05d}"
            cv2.imwrite(str(out / "images" / dst / f"{name}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            (out / "labels" / dst / f"{name}.txt").write_text("".join(lines))
            n += 1
        counts[dst] = n
    names = ["card_face_up", "card_face_down", "pile", "chip", "dice", "hand"][:classes]
    (out / "real.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        + ("test: images/test\n" if "test" in counts else "")
        + "names:\n"
        + "".join(f"  {i}: {c}\n" for i, c in enumerate(names))
    )
    return counts


def _compose(
    group: list[tuple[Photo, npt.NDArray[np.uint8]]], rng: np.random.Generator, target_px: float
) -> tuple[npt.NDArray[np.uint8], list[str]]:
    W, H = CANVAS_WH
    cols = 3
    rows = max(1, int(np.ceil(len(group) / cols)))
    cw, ch = W // cols, H // rows
    frame = np.empty((H, W, 3), dtype=np.uint8)
    frame[:] = np.median(np.concatenate([g[1][0] for g in group]), axis=0).astype(np.uint8)
    lines: list[str] = []
    for k, (photo, img) in enumerate(group):
        outs = outlines(photo, img)
        longs = [card_side_lengths(order_card_corners(o.quad))[1] for o in outs]
        card_px = float(np.median(longs)) if longs else img.shape[0] / 3
        f = target_px * float(rng.uniform(0.7, 1.5)) / card_px
        f = min(f, 0.98 * cw / img.shape[1], 0.98 * ch / img.shape[0])
        nw, nh = max(1, round(img.shape[1] * f)), max(1, round(img.shape[0] * f))
        small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
        r, c = divmod(k, cols)
        x0 = c * cw + int(rng.integers(0, max(1, cw - nw)))
        y0 = r * ch + int(rng.integers(0, max(1, ch - nh)))
        frame[y0 : y0 + nh, x0 : x0 + nw] = small
        sx, sy = nw / img.shape[1], nh / img.shape[0]
        for o in outs:
            q = o.quad * np.array([sx, sy]) + np.array([x0, y0])
            q = q / np.array([W, H])
            lines.append("0 " + " ".join(f"{v:.6f}" for v in np.clip(q, 0, 1).reshape(-1)) + "\n")
    return as_image(frame), lines
