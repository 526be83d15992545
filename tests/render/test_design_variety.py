"""What generated decks (proc:SEED) vary beyond the index: pip layouts of the 7 to 10, suit shapes,
court pictures and jokers; each still one deck per seed, with the right number of pips."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from monitor.render.card_art import PIP_LAYOUT, PIP_LAYOUTS, PX_PER_MM, TEX_H, TEX_W
from monitor.render.random_design import (
    ACE_STYLES,
    COURT_STYLES,
    JOKER_ARTS,
    JOKER_WORDS,
    DesignParams,
    design_params,
    draw_random_face,
    index_box,
    pip_centres,
    pip_height,
    suit_parts,
    suit_ratio,
)
from monitor.render.suits import fill_poly

SEEDS = range(80)


def _ink(p: DesignParams, tex: np.ndarray) -> np.ndarray:
    return (np.abs(tex[..., :3].astype(int) - np.array(p.paper)).sum(axis=2) > 150).astype(np.uint8)


def _pips_seen(p: DesignParams, key: str) -> int:
    """Ink blobs on a number card outside its two corner indices and the cut edge."""
    ink = _ink(p, draw_random_face(p, key))
    iw, ih = index_box(p)
    w, h = int(np.ceil(iw * PX_PER_MM)) + 1, int(np.ceil(ih * PX_PER_MM)) + 1
    ink[:h, :w] = 0
    ink[-h:, -w:] = 0
    ink[:4], ink[-4:], ink[:, :4], ink[:, -4:] = 0, 0, 0, 0
    n, _ = cv2.connectedComponents(ink, connectivity=4)
    return n - 1


def test_a_seed_draws_the_same_deck_every_time() -> None:
    for seed in (4,):
        assert design_params(seed) == design_params(seed)
        for key in ("9h", "Qs", "Jk", "Ad"):
            assert np.array_equal(
                draw_random_face(design_params(seed), key), draw_random_face(design_params(seed), key)
            )
    assert not np.array_equal(
        draw_random_face(design_params(4), "Jk"), draw_random_face(design_params(5), "Jk")
    )


def test_every_pip_layout_has_as_many_pips_as_its_rank_and_the_standard_is_one_of_them() -> None:
    for rank, variants in PIP_LAYOUTS.items():
        assert PIP_LAYOUT[rank] in variants.values()
        for name, layout in variants.items():
            assert len(layout) == rank, (rank, name)
            assert len(set(layout)) == rank, (rank, name)  # no two pips on one spot
            assert all(19.5 <= x <= 43.5 and 17.0 <= y <= 71.0 for x, y in layout), (rank, name)
    # the nines real decks print: the odd pip at the centre, or up between the first two rows
    nine_odd = {name: [y for x, y in lay if x == 31.5] for name, lay in PIP_LAYOUTS[9].items()}
    assert nine_odd["centre"] == [44.0] and nine_odd["upper"][0] < 35.0


def test_decks_choose_among_the_layouts_suit_shapes_courts_and_jokers() -> None:
    ps = [design_params(s) for s in SEEDS]
    for rank, variants in PIP_LAYOUTS.items():
        assert {p.pip_layouts[rank] for p in ps} == set(variants), rank
    assert {p.court_style for p in ps} == set(COURT_STYLES)
    assert {p.joker_art for p in ps} == set(JOKER_ARTS)
    assert {p.joker_word for p in ps} == set(JOKER_WORDS)
    assert {p.ace_style for p in ps} == set(ACE_STYLES)
    assert {p.court_heads[i] for p in ps for i in range(3)} == {0, 1, 2}
    shaped = [p for p in ps if p.suit_shapes is not None and p.suit_font is None]
    assert len(shaped) > 20
    # diamonds narrow and wide, hollow-sided and straight; hearts plump and slim
    widths = [suit_ratio(p, "d") / p.suit_aspect for p in shaped]
    assert min(widths) < 0.62 and max(widths) > 0.8
    assert min(p.suit_shapes.diamond[1] for p in shaped if p.suit_shapes) < -0.15
    hearts = [suit_ratio(p, "h") / p.suit_aspect for p in shaped]
    assert max(hearts) - min(hearts) > 0.25
    assert any(p.pip_h > 15 for p in ps) and any(p.pip_top < 12 for p in ps)  # big pips edge to edge


def test_suit_shapes_are_each_one_solid_symbol() -> None:
    # the decks' own drawn shapes (a quarter of the decks keep the built-in ones)
    shapes = [s for seed in SEEDS if (s := design_params(seed).suit_shapes) is not None]
    assert len(shapes) >= 25
    for one in shapes:
        parts = suit_parts(one)
        for suit, polys in parts.items():
            allp = np.concatenate(polys)
            assert np.allclose(np.ptp(allp[:, 1]), 1.0) and np.allclose(
                allp.min(axis=0) + allp.max(axis=0), 0
            )
            img = np.zeros((120, 120, 3), np.uint8)
            for q in polys:
                fill_poly(img, q * 100 + 60, (255, 255, 255))
            n, _ = cv2.connectedComponents((img[..., 0] > 127).astype(np.uint8))
            assert n == 2, suit


def test_pips_stay_clear_of_the_indices_the_edges_and_one_another() -> None:
    for seed in range(200):
        p = design_params(seed)
        iw, ih = index_box(p)
        for rank in range(2, 11):
            for suit in "cdhs":
                h = pip_height(p, rank, suit)
                w = h * suit_ratio(p, suit)
                assert h > 0.5 * p.pip_h
                pts = pip_centres(p, rank)
                for x, y in pts:
                    assert 1.0 < x - w / 2 < x + w / 2 < 62.0 and 1.0 < y - h / 2 < y + h / 2 < 87.0
                    assert not (x - w / 2 < iw and y - h / 2 < ih), (seed, rank)  # top-left index
                    assert not (x + w / 2 > 63 - iw and y + h / 2 > 88 - ih), (seed, rank)  # bottom-right
                for i, (xa, ya) in enumerate(pts):
                    for xb, yb in pts[i + 1 :]:
                        assert abs(xa - xb) >= w or abs(ya - yb) >= h, (seed, rank, suit)


@pytest.mark.parametrize("seed", [2, 13, 16, 19])  # drawn, large drawn, font and default suits
def test_every_layout_draws_its_number_of_pips(seed: int) -> None:
    p = replace(design_params(seed), four_index=False, face_frame=False)
    suit = "shdc"[seed % 4]
    for rank, variants in PIP_LAYOUTS.items():
        for name in variants:
            q = replace(p, pip_layouts={**p.pip_layouts, rank: name})
            assert _pips_seen(q, ("T" if rank == 10 else str(rank)) + suit) == rank, (seed, rank, name)


def _has_picture(p: DesignParams, tex: np.ndarray) -> bool:
    assert tex.shape == (TEX_H, TEX_W, 4)
    middle = _ink(p, tex)[TEX_H // 4 : 3 * TEX_H // 4, TEX_W // 4 : 3 * TEX_W // 4]
    return bool(middle.mean() > 0.02)


def test_court_pictures_of_every_style_render_and_differ_by_rank() -> None:
    base = design_params(2)
    for style in COURT_STYLES:
        for heads in range(3):  # each rank's three headwear styles, one split of the picture each
            split = "diagonal" if heads == 1 else "horizontal"
            p = replace(
                base, court_style=style, court_heads=(heads,) * 3, court_split=split, court_mirror=True
            )
            faces = {k: draw_random_face(p, k) for k in ("Jh", "Qh", "Kh")}
            assert all(_has_picture(p, f) for f in faces.values()), (style, heads)
            assert not np.array_equal(faces["Jh"], faces["Qh"]) and not np.array_equal(
                faces["Qh"], faces["Kh"]
            )


def test_jokers_of_every_art_and_word_placement_render() -> None:
    base = design_params(6)
    for i in range(2 * len(JOKER_WORDS)):  # every art with two placements of the word, every placement twice
        art, word = JOKER_ARTS[i % len(JOKER_ARTS)], JOKER_WORDS[i % len(JOKER_WORDS)]
        p = replace(base, joker_art=art, joker_word=word, joker_mirror=art == "jester" or i % 3 == 0)
        tex = draw_random_face(p, "Jk")
        assert tex.shape == (TEX_H, TEX_W, 4)
        assert _ink(p, tex).mean() > 0.01, (art, word)


def test_courts_and_jokers_render_for_many_seeds() -> None:
    for seed in range(100, 108):
        p = design_params(seed)
        for key in ("Jd", "Qc", "Ks", "Jk"):
            tex = draw_random_face(p, key)
            assert tex.shape == (TEX_H, TEX_W, 4) and tex[TEX_H // 2, TEX_W // 2, 3] == 255
            if key != "Jk":
                assert _has_picture(p, tex), (seed, key)


def test_some_decks_are_crowded_big_pips_right_beside_the_corner_index() -> None:
    ps = [design_params(seed) for seed in range(200)]
    crowded = [p for p in ps if p.pip_gap < 0.6]
    assert 0.2 < len(crowded) / len(ps) < 0.4
    beside = 0
    for p in crowded:
        iw, ih = index_box(p)
        h = pip_height(p, 9, "c")
        w = h * max(suit_ratio(p, s) for s in "cdhs")  # the widest suit's pips set the columns
        x, y = min(pip_centres(p, 9), key=lambda c: c[0] + c[1])  # the top-left pip of the nine
        beside += x - w / 2 - iw < 1.0 and y - h / 2 < ih  # level with the index, a millimetre off
    assert beside > 0.5 * len(crowded)
