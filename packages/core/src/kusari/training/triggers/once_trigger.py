"""OnceTrigger: fire only at the first call."""

from __future__ import annotations

import warnings
from typing import Any


class OnceTrigger:
    """Fire at the first call (and, with ``call_on_resume``, once after a
    resume too).

    Args:
        call_on_resume: Fire again at the first call after loading a snapshot.
    """

    def __init__(self, call_on_resume: bool = False) -> None:
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self) -> bool:
        """True when the trigger will not fire any more."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer: Any) -> bool:
        fire = not self.finished
        self._flag_resumed = False
        self._flag_first = False
        return fire

    def serialize(self, serializer: Any) -> None:
        try:
            self._flag_first = serializer("_flag_first", self._flag_first)
        except KeyError:
            # A snapshot from before the flag was saved (Chainer < 5 wrote
            # nothing): a resumed run is past its first call.
            warnings.warn(
                "OnceTrigger: the snapshot has no '_flag_first'; assuming the "
                "trigger already fired before it was saved",
                stacklevel=2,
            )
            self._flag_first = False
