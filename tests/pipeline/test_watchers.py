"""The extractor's watchers one at a time, each on a small hand-built sequence of frames."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from monitor.calibration.table_file import load_table
from monitor.pipeline.extract import ExtractorSettings
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.bets import BetsWatcher
from monitor.pipeline.watchers.dice import DiceWatcher
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round import RoundWatcher
from monitor.pipeline.watchers.view import FrameView, TableLayout
from tests.support.paths import TABLE_FILE


def test_a_tables_layout_is_its_pile_slots_and_the_stubs_place() -> None:
    cal = load_table(TABLE_FILE)
    layout = TableLayout.of(cal.zones)
    assert sorted(layout.slot_centers) == list(range(1, 8))
    assert layout.slot_centers[3] == cal.zones["pile3"].center
    assert layout.deck_at == cal.zones["stub"].center
    bare = TableLayout.of({k: v for k, v in cal.zones.items() if k != "stub"})
    assert bare.deck_at is None and bare.slot_centers == layout.slot_centers


def test_a_frame_view_is_a_value() -> None:
    view = FrameView(3, 0.1)
    assert (view.objects, dict(view.spots), view.stub, view.settled) == ((), {}, None, ())
    with pytest.raises(AttributeError):
        view.index = 4  # type: ignore[misc]


# ---- the watchers, each on a few hand-built frames ------------------------------------------------

FPS = 30.0


class _Hands:
    """The hands' progress as the bets watcher reads it, set by hand."""

    def __init__(self) -> None:
        self.banker_exposed = False
        self.banker_face_up = False
        self.piles_delivered = False


class _Rig:
    """A rest watcher and one watcher over it, frame by frame with the objects given."""

    def __init__(self, **settings: object) -> None:
        self.s = ExtractorSettings(**settings)  # type: ignore[arg-type]
        self.rest = RestWatcher(self.s)
        self.out = Outbox("T1")
        self.n = 0

    def view(self, *objects: Seen) -> FrameView:
        view = self.rest.frame(FrameView(self.n, self.n / FPS, objects))
        self.out.at(self.n, self.n / FPS)
        self.n += 1
        return self.rest.with_present(view, carry=True)


def _die(track: str, x: float, pips: int) -> Seen:
    return Seen(track, "die", "dice", x, 0.0, value=pips)


def test_rest_an_object_rests_after_settle_frames_and_one_odd_reading_does_not_move_it() -> None:
    rig = _Rig()
    c = Seen("c", "card", "pile3", 0.0, 0.0)
    views = [rig.view(c) for _ in range(3)]
    assert [len(v.settled) for v in views] == [0, 0, 1]  # rests at the third still look
    assert views[2].settled[0] == (c, None) and rig.rest.at_rest(c)
    jumped = Seen("c", "card", "pile3", 40.0, 0.0)
    rig.view(jumped)  # one reading 40 mm off: a corner's jitter while it rests
    assert rig.rest.at_rest(c) and rig.rest.tracks["c"].x == 0.0
    rig.view(jumped)  # twice in a row: it moved
    assert not rig.rest.at_rest(jumped) and rig.rest.tracks["c"].still == 1


def test_rest_a_resting_object_missed_for_a_moment_is_still_present_and_a_moving_one_is_not() -> None:
    rig = _Rig()
    c, m = Seen("c", "card", "pile3", 0.0, 0.0), Seen("m", "card", "felt", 0.0, 0.0)
    for x in range(4):
        view = rig.view(c, replace(m, x=50.0 * x))
    assert set(view.present) == {"c", "m"}
    view = rig.view()  # neither detected
    assert set(view.visible) == set() and set(view.present) == {"c"}
    for _ in range(round(0.2 * FPS)):
        view = rig.view()
    assert view.present == {}  # missed longer than missing_s: gone


def test_rest_a_card_that_vanishes_landing_on_a_pile_is_handed_on_once_missing_s_passed() -> None:
    rig = _Rig()
    rig.view(Seen("c", "card", "felt", 0.0, 0.0))
    view = rig.view(Seen("c", "card", "pile2", 100.0, 0.0))
    assert rig.rest.gone_landing(view) == []  # still in view, landing
    view = rig.view()
    assert rig.rest.gone_landing(view) == []  # a frame's dropout, maybe
    for _ in range(round(0.2 * FPS)):
        view = rig.view()
    assert rig.rest.gone_landing(view) == ["c"]
    assert rig.rest.gone_landing(view) == []  # once


def test_dice_three_dice_at_rest_for_stable_s_are_rolled_once_and_again_after_a_reset() -> None:
    rig = _Rig()
    dice = DiceWatcher(rig.s, rig.rest, rig.out)
    throw = (_die("a", 0.0, 3), _die("b", 30.0, 5), _die("c", 60.0, 1))
    events: list[Any] = []
    for _ in range(round(0.5 * FPS)):
        events += dice.frame(rig.view(*throw[:2]))  # two dice: not a throw
    assert events == []
    for _ in range(round(0.5 * FPS)):
        events += dice.frame(rig.view(*reversed(throw)))
    assert [(e.type, e.values) for e in events] == [("dice_rolled", [3, 5, 1])]  # left to right
    # held stable_s after the third die came to rest (three frames)
    assert events[0].media_time == pytest.approx(2 / FPS + 0.5 + 0.3, abs=1.5 / FPS)
    for _ in range(10):
        events += dice.frame(rig.view(*throw))
    assert len(events) == 1  # the same throw lying there is one roll
    dice.reset()
    for _ in range(round(0.5 * FPS)):
        events += dice.frame(rig.view(*throw))
    assert len(events) == 2


def test_dice_a_die_read_out_of_range_is_no_roll() -> None:
    rig = _Rig()
    dice = DiceWatcher(rig.s, rig.rest, rig.out)
    events: list[Any] = []
    for _ in range(round(FPS)):
        events += dice.frame(rig.view(_die("a", 0.0, 3), _die("b", 30.0, 7), _die("c", 60.0, 1)))
    assert events == []


def _chips(track: str, seat: int, cents: int, x: float = 0.0) -> Seen:
    return Seen(track, "chips", f"seat{seat}.bet", x, 0.0, value=cents)


def _runner(rig: _Rig, bets: BetsWatcher, events: list[Any]) -> Callable[..., None]:
    """Frames of the given objects for so many seconds through the bets watcher, its events kept."""

    def run(seconds: float, *objects: Seen) -> None:
        for _ in range(round(seconds * FPS)):
            view = rig.view(*objects)
            bets.look(view)
            events.extend(bets.frame(view))

    return run


def test_bets_chips_resting_are_a_bet_placed_then_changed_and_settlement_is_not_followed() -> None:
    rig = _Rig()
    hands = _Hands()
    bets = BetsWatcher(rig.s, rig.rest, rig.out, hands)
    events: list[Any] = []
    run = _runner(rig, bets, events)

    run(1.0, _chips("a", 2, 2500))
    assert [(e.type, e.seat, e.amount) for e in events] == [("bet_placed", 2, 2500)]
    assert events[0].media_time == pytest.approx(2 / FPS)  # dated when the chips came to rest
    run(1.5, _chips("a", 2, 2500), _chips("b", 2, 500, x=50.0))  # chips added before the close
    assert [(e.type, e.before, e.after) for e in events[1:]] == [("bet_changed", 2500, 3000)]
    hands.banker_exposed = True  # settlement: chips move on purpose
    run(1.5, _chips("a", 2, 5000))
    assert len(events) == 2


def test_bets_a_reading_changed_after_the_close_with_nothing_touching_the_spot_is_a_reread() -> None:
    rig = _Rig()
    bets = BetsWatcher(rig.s, rig.rest, rig.out, _Hands())
    events: list[Any] = []
    run = _runner(rig, bets, events)

    run(1.0, _chips("a", 4, 1000))
    bets.close(rig.n / FPS)
    run(2.0, _chips("a", 4, 1500))  # the same stack read as another worth: untouched
    assert [e.type for e in events] == ["bet_placed"] and bets.rereads == 1
    run(0.5)  # covered (an arm over the spot): touched
    run(2.0, _chips("a2", 4, 2500))
    assert [(e.type, e.before, e.after) for e in events[1:]] == [("bet_changed", 1500, 2500)]
    bets.reset()  # a new round: the same chips are the next round's bet
    run(1.0, _chips("a2", 4, 2500))
    assert [e.type for e in events[2:]] == ["bet_placed"]


def test_round_from_vision_chips_at_rest_open_it_and_a_clear_table_closes_it_dated_when_it_cleared() -> None:
    rig = _Rig(round_from_vision=True, clear_s=1.0, banker_seat=3)
    opened: list[int] = []
    rounds = RoundWatcher(rig.s, rig.rest, rig.out, lambda: opened.append(rig.n - 1))
    events: list[Any] = []

    def run(seconds: float, *objects: Seen) -> None:
        for _ in range(round(seconds * FPS)):
            events.extend(rounds.frame(rig.view(*objects)))

    assert not rounds.open
    run(0.5, Seen("tray", "chips", "tray", 0.0, 0.0, value=10000))  # the house's chips: no round
    assert events == [] and not rounds.open
    run(0.5, _chips("a", 2, 2500))
    assert [(e.type, e.banker_seat) for e in events] == [("round_started", 3)]
    assert rounds.open and opened == [15 + 2]  # the others told first, at the third still look
    run(0.5)  # the chips gone: the table must stay clear clear_s
    assert len(events) == 1
    run(1.0)
    assert [e.type for e in events] == ["round_started", "round_ended"] and not rounds.open
    cleared = 29 / FPS + 0.2  # last seen at frame 29, carried as present missing_s more
    assert events[1].media_time == pytest.approx(cleared, abs=1.5 / FPS)


def test_round_with_a_console_every_frame_is_a_rounds_until_it_says_otherwise() -> None:
    rig = _Rig()
    rounds = RoundWatcher(rig.s, rig.rest, rig.out, lambda: None)
    assert rounds.open
    assert [e for _ in range(60) for e in rounds.frame(rig.view())] == []  # the table clear: still open
    rounds.closed()
    assert not rounds.open
    rounds.opened()
    assert rounds.open
