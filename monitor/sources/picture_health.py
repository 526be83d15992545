"""Is a live camera's picture usable? A frozen feed (the same picture again and again: a hung
encoder) or a blind one (uniform: lens covered, lights off, camera knocked to face the ceiling)
delivers frames but shows nothing, so the capture loop would never notice on its own.

The checks look at a sparse grid of pixels (every 16th row and column), so they cost a
fraction of a millisecond per 1080p frame.

>>> import numpy as np
>>> health = PictureHealth(frozen_after_s=1.0)
>>> still = np.full((64, 64, 3), 90, np.uint8); still[::3] = 200
>>> [health.update(still, t / 10) for t in range(12)][-2:]
[None, 'frozen: the same picture for 1.0 s (the camera or its encoder hangs)']
>>> health.update(still // 2, 1.2)  # the picture moves again
'ok'
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

GRID = 16


class PictureHealth:
    def __init__(
        self, frozen_after_s: float = 10.0, blind_after_s: float = 5.0, blind_std: float = 3.0
    ) -> None:
        self.frozen_after_s = frozen_after_s
        self.blind_after_s = blind_after_s
        self.blind_std = blind_std
        self.problem: str | None = None
        self.problem_since: float | None = None
        self._previous: NDArray[np.uint8] | None = None
        self._same_since: float | None = None
        self._blind_since: float | None = None

    def update(self, image: NDArray[np.uint8], t: float) -> str | None:
        """A problem text when one starts, ``'ok'`` when it clears, None when nothing changed."""
        sample = np.ascontiguousarray(image[::GRID, ::GRID])
        same = self._previous is not None and np.array_equal(sample, self._previous)
        self._previous = sample
        self._same_since = (self._same_since if self._same_since is not None else t) if same else None
        uniform = float(sample.std()) < self.blind_std
        self._blind_since = (self._blind_since if self._blind_since is not None else t) if uniform else None
        problem = None
        if self._same_since is not None and t - self._same_since >= self.frozen_after_s:
            span = t - self._same_since
            problem = f"frozen: the same picture for {span:.1f} s (the camera or its encoder hangs)"
        elif self._blind_since is not None and t - self._blind_since >= self.blind_after_s:
            problem = (f"blind: a uniform picture for {t - self._blind_since:.1f} s "
                       "(lens covered, no light, or the camera turned away)")
        if problem is not None and self.problem is None:
            self.problem, self.problem_since = problem, t
            return problem
        healthy = self._same_since is None and self._blind_since is None
        if problem is None and self.problem is not None and healthy:
            self.problem = None
            return "ok"
        return None
