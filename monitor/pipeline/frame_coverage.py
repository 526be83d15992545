"""Is the live chain keeping up with its camera? A live source hands perception the newest frame and
drops the ones it had no time for, so a starved chain (a slow machine, another process on its cores)
still runs, only on fewer frames: a card dealt between two perceived frames is never counted, and the
deal is miscounted (the demo run beside a render perceived 2,708 of 3,433 frames and raised
three false alerts). The camera's own frame numbers show every frame that never got through.

>>> watch = FrameCoverage(window_s=1.0, lost_below=0.8, back_above=0.95)
>>> [watch.update(i, i / 10) for i in range(11)][-1] is None  # every frame of a second: fed
True
>>> problem = [watch.update(i, i / 10) for i in range(12, 40, 2)]  # every other frame
>>> next(p for p in problem if p)
'73% of the frames of the last 1.0 s were perceived: this machine is too slow or busy, cards can be missed'
>>> 'ok' in [watch.update(i, i / 10) for i in range(40, 60)]  # all of them again
True
>>> watch.skipped, watch.processed
(15, 45)
"""

from __future__ import annotations

from collections import deque


class FrameCoverage:
    """Share of a camera's frames that went through table state over the last ``window_s`` seconds
    of media time. A problem starts when the share falls below ``lost_below`` and clears once it is
    above ``back_above`` again (two thresholds: a share near one value does not flap)."""

    def __init__(self, window_s: float = 5.0, lost_below: float = 0.85, back_above: float = 0.95,
                 step: int = 1) -> None:
        if not 0 < lost_below <= back_above <= 1:
            raise ValueError(f"need 0 < lost_below <= back_above <= 1, got {lost_below}, {back_above}")
        if window_s <= 0 or step < 1:
            raise ValueError(f"window_s must be positive and step at least 1, got {window_s}, {step}")
        self.window_s = window_s
        self.lost_below = lost_below
        self.back_above = back_above
        self.step = step  # frame numbers a source advances between frames it hands out on purpose
        self.problem: str | None = None
        self.processed = 0
        self.skipped = 0  # frames the source numbered that never went through (gaps in the numbers)
        self._seen: deque[tuple[float, int]] = deque()  # (media time, frame number) in the window

    def update(self, index: int, media_time: float) -> str | None:
        """One frame through table state: a problem text when one starts, ``'ok'`` when it clears,
        None when nothing changed."""
        if self._seen and index <= self._seen[-1][1]:
            self._seen.clear()  # the numbers started again (a looped file, a reconnected camera)
        if self._seen:
            self.skipped += max(0, (index - self._seen[-1][1]) // self.step - 1)
        self.processed += 1
        self._seen.append((media_time, index))
        while self._seen and media_time - self._seen[0][0] > self.window_s + 1e-9:
            self._seen.popleft()
        first_t, first_i = self._seen[0]
        if media_time - first_t < self.window_s * 0.9:
            return None  # not a window's worth of frames yet: no verdict
        share = len(self._seen) / ((index - first_i) // self.step + 1)
        if self.problem is None and share < self.lost_below:
            self.problem = (f"{share:.0%} of the frames of the last {self.window_s:.1f} s were perceived: "
                            "this machine is too slow or busy, cards can be missed")
            return self.problem
        if self.problem is not None and share >= self.back_above:
            self.problem = None
            return "ok"
        return None
