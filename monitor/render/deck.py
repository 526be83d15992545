"""Card designs as textures: the project's drawn designs and any design given as a folder of images.

A design maps each of the 54 keys (52 card texts like ``As``/``Td``, ``Jk`` for the joker, and
``back``) to a BGRA texture of the whole card at true aspect (63 x 88 mm), alpha giving the rounded
corners. Textures are built lazily, cached, and kept as mip levels so a card drawn 50 px wide is
resampled from a texture of about its size (no aliasing, and cheap).

Folder designs follow the vector-playing-cards naming: ``{2..10,jack,queen,king,ace}_of_{suit}.png``,
``black_joker.png`` and/or ``red_joker.png`` (either may be the deck's one joker), ``back.png`` (or
``back@2x.png``). Artwork may have a transparent background: the white card body is drawn here.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.card_art import PX_PER_MM, STYLES, TEX_H, TEX_W, draw_face, rounded_card_alpha
from monitor.rules.cards import PAI_GOW_53, RANK_NAMES, SUIT_NAMES

Image = NDArray[np.uint8]
BACK = "back"
CLASS_KEYS: tuple[str, ...] = (*(c.text for c in PAI_GOW_53), BACK)  # 54 identity classes
DRAWN_DESIGNS: tuple[str, ...] = tuple(STYLES)


class DesignError(ValueError):
    """A card design folder is missing files or holds unreadable images."""


def folder_filenames(key: str) -> list[str]:
    """Candidate file names for one key in a vector-playing-cards style folder (first found wins)."""
    if key == BACK:
        return ["back@2x.png", "back.png"]
    if key == "Jk":
        return ["black_joker.png", "red_joker.png"]
    from monitor.rules.cards import parse_card

    c = parse_card(key)
    rank = str(c.rank) if c.rank <= 10 else RANK_NAMES[c.rank]
    return [f"{rank}_of_{SUIT_NAMES[c.suit]}.png"]


def _mips(tex: Image, levels: int = 4) -> tuple[Image, ...]:
    out = [tex]
    for _ in range(levels - 1):
        t = out[-1]
        half = (max(1, t.shape[1] // 2), max(1, t.shape[0] // 2))
        out.append(as_image(cv2.resize(t, half, interpolation=cv2.INTER_AREA)))
    return tuple(out)


class CardDesign:
    """A named set of 54 card textures with mip levels. Subclasses provide :meth:`_make`."""

    name: str
    variants: dict[str, int]  # keys with more than one image (the folder's two jokers)

    def __init__(self, name: str) -> None:
        self.name = name
        self.variants = {}
        self._cache: dict[tuple[str, int], tuple[Image, ...]] = {}
        self._lock = threading.Lock()

    def _make(self, key: str, variant: int) -> Image:
        raise TypeError(f"{type(self).__name__} must implement _make")

    def mips(self, key: str, variant: int = 0) -> tuple[Image, ...]:
        if key not in CLASS_KEYS:
            raise KeyError(f"no card {key!r} in a design (keys: 52 cards like 'As', 'Jk', 'back')")
        variant = variant % self.variants.get(key, 1)
        ck = (key, variant)
        got = self._cache.get(ck)
        if got is None:
            tex = self._make(key, variant)
            if tex.shape != (TEX_H, TEX_W, 4):
                raise DesignError(
                    f"design {self.name}: texture for {key} is {tex.shape}, not {(TEX_H, TEX_W, 4)}"
                )
            got = _mips(tex)
            with self._lock:
                self._cache[ck] = got
        return got

    def texture(self, key: str, variant: int = 0) -> Image:
        return self.mips(key, variant)[0]

    def preload(self) -> None:
        for k in CLASS_KEYS:
            for v in range(self.variants.get(k, 1)):
                self.mips(k, v)


class DrawnDesign(CardDesign):
    def __init__(self, style: str) -> None:
        if style not in STYLES:
            raise DesignError(f"no drawn design {style!r} (drawn designs: {', '.join(STYLES)})")
        super().__init__(style)

    def _make(self, key: str, variant: int) -> Image:
        return draw_face(self.name, key)


class FolderDesign(CardDesign):
    """A design given as a folder of face images and a back (see the module docstring)."""

    def __init__(self, folder: str | Path, name: str | None = None) -> None:
        self.folder = Path(folder)
        super().__init__(name or self.folder.name)
        if not self.folder.is_dir():
            raise DesignError(f"card design folder {self.folder} does not exist or is not a folder")
        self._files: dict[str, list[Path]] = {}
        missing = []
        for key in CLASS_KEYS:
            found = [self.folder / f for f in folder_filenames(key) if (self.folder / f).is_file()]
            if key == BACK:
                found = found[:1]
            if not found:
                missing.append(" or ".join(folder_filenames(key)))
            self._files[key] = found
        if missing:
            raise DesignError(
                f"card design folder {self.folder} lacks {len(missing)} image(s): "
                + ", ".join(missing[:8])
                + (" ..." if len(missing) > 8 else "")
            )
        self.variants = {k: len(v) for k, v in self._files.items() if len(v) > 1}

    def _make(self, key: str, variant: int) -> Image:
        path = self._files[key][variant]
        art = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if art is None:
            raise DesignError(f"cannot read card image {path}")
        if art.ndim == 2:
            art = cv2.cvtColor(art, cv2.COLOR_GRAY2BGRA)
        elif art.shape[2] == 3:
            art = cv2.cvtColor(art, cv2.COLOR_BGR2BGRA)
        body_alpha = rounded_card_alpha(TEX_W, TEX_H, PX_PER_MM)
        out = np.full((TEX_H, TEX_W, 3), 255, np.float32)
        if key == BACK:
            # The back picture fills the card inside a thin white margin.
            m = round(2.5 * PX_PER_MM)
            w, h = TEX_W - 2 * m, TEX_H - 2 * m
            x0, y0 = m, m
        else:
            # Face art keeps its aspect, fitted inside the card body and centred.
            s = min(TEX_W / art.shape[1], TEX_H / art.shape[0])
            w, h = round(art.shape[1] * s), round(art.shape[0] * s)
            x0, y0 = (TEX_W - w) // 2, (TEX_H - h) // 2
        a = cv2.resize(art, (w, h), interpolation=cv2.INTER_AREA if w < art.shape[1] else cv2.INTER_CUBIC)
        al = a[..., 3:4].astype(np.float32) / 255
        region = out[y0 : y0 + h, x0 : x0 + w]
        out[y0 : y0 + h, x0 : x0 + w] = region * (1 - al) + a[..., :3].astype(np.float32) * al
        return np.dstack([out.clip(0, 255).astype(np.uint8), body_alpha])


@cache
def _drawn(style: str) -> DrawnDesign:
    return DrawnDesign(style)


@cache
def _folder(path: str) -> FolderDesign:
    return FolderDesign(path)


@cache
def _generated(seed: int) -> CardDesign:
    from monitor.render.random_design import ProceduralDesign

    return ProceduralDesign(seed)


def expand_designs(text: str) -> list[str]:
    """A comma list of design specs, with generated ranges spelled out: ``classic,proc:0-2`` ->
    ``classic, proc:0, proc:1, proc:2``."""
    out: list[str] = []
    for part in (d.strip() for d in text.split(",")):
        if part.startswith("proc:"):
            from monitor.render.random_design import parse_spec

            out += [f"proc:{s}" for s in parse_spec(part)]
        elif part:
            out.append(part)
    return out


def load_design(spec: str) -> CardDesign:
    """``classic`` / ``jumbo`` (drawn here), ``proc:SEED`` (generated, monitor.render.random_design) or a
    path to a folder design. Cached per process."""
    if spec in STYLES:
        return _drawn(spec)
    if spec.startswith("proc:"):
        from monitor.render.random_design import parse_spec

        seeds = parse_spec(spec)
        if len(seeds) != 1:
            raise DesignError(f"{spec!r} names {len(seeds)} designs; load one at a time (proc:SEED)")
        return _generated(seeds[0])
    p = Path(spec).expanduser()
    if p.exists():
        return _folder(str(p.resolve()))
    raise DesignError(
        f"card design {spec!r} is neither a drawn design ({', '.join(STYLES)}), a generated one (proc:SEED) "
        "nor a folder"
    )
