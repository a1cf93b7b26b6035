"""ProgressBar: a text progress bar with speed and ETA."""

from __future__ import annotations

import collections
import datetime
import sys
import time
from typing import IO, Any

from kusari.training import extension

#: Measurements (one per redraw, plus one at ``initialize``) the speed is
#: averaged over, as in Chainer.
_WINDOW = 100

#: Shown in place of the speed and the ETA until they can be estimated.
_UNKNOWN = "--"


class ProgressBar(extension.Extension):
    """Print the training progress, iterations per second and the estimated
    time to finish every ``update_interval`` iterations.

    The speed is measured over a moving window of the recent redraws (and
    the start of training); until two measurements exist it is shown as
    ``--``, and so is the estimated time to finish.

    Args:
        training_length: ``(length, unit)``; taken from the trainer's stop
            trigger (``get_training_length()``) by default.
        update_interval: Iterations between redraws.
        bar_length: Width of the bars in characters.
        out: The stream (``sys.stdout`` at call time by default).
    """

    trigger = (1, "iteration")

    def __init__(
        self,
        training_length: tuple[float, str] | None = None,
        update_interval: int = 100,
        bar_length: int = 50,
        out: IO[str] | None = None,
    ) -> None:
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        # (iteration, epoch_detail, time) of the recent measurements.
        self._recent_timing: collections.deque[tuple[int, float, float]] = (
            collections.deque(maxlen=_WINDOW)
        )

    def _stream(self) -> IO[str]:
        return sys.stdout if self._out is None else self._out

    def _bar(self, rate: float) -> str:
        marks = "#" * int(rate * self._bar_length)
        return marks + "." * (self._bar_length - len(marks))

    def _measure(self, iteration: int, epoch: float) -> tuple[float, float] | None:
        """Record a measurement; return (iterations/s, epochs/s) over the
        window, or None while fewer than two measurements show progress."""
        timing = self._recent_timing
        if timing and timing[-1][0] == iteration:
            timing.pop()  # no update since: keep the newer time only
        timing.append((iteration, epoch, time.perf_counter()))
        old_it, old_epoch, old_time = timing[0]
        new_it, new_epoch, new_time = timing[-1]
        span = new_time - old_time
        if span <= 0 or new_it <= old_it:
            return None
        return (new_it - old_it) / span, (new_epoch - old_epoch) / span

    def initialize(self, trainer: Any) -> None:
        """Take the first measurement, so the first redraw has a speed."""
        self._recent_timing.clear()
        updater = trainer.updater
        self._measure(updater.iteration, updater.epoch_detail)

    def __call__(self, trainer: Any) -> None:
        if self._training_length is None:
            get_length = getattr(trainer.stop_trigger, "get_training_length", None)
            if get_length is None:
                raise TypeError(
                    "ProgressBar: cannot get the training length from "
                    f"{type(trainer.stop_trigger).__name__}; pass "
                    "training_length"
                )
            self._training_length = get_length()
        length, unit = self._training_length
        updater = trainer.updater
        iteration = updater.iteration
        if iteration % self._update_interval != 0:
            return
        epoch = updater.epoch_detail
        speeds = self._measure(iteration, epoch)
        done = iteration if unit == "iteration" else epoch
        rate = min(done / length, 1.0)
        epoch_rate = epoch - int(epoch)
        lines = [
            f"     total [{self._bar(rate)}] {rate:6.2%}\n",
            f"this epoch [{self._bar(epoch_rate)}] {epoch_rate:6.2%}\n",
            f"{iteration:10} iter, {updater.epoch} epoch / {length} {unit}s\n",
        ]
        if speeds is None:
            speed_text = eta = _UNKNOWN
        else:
            speed_it, speed_epoch = speeds
            speed_text = f"{speed_it:10.5g}"
            speed = speed_it if unit == "iteration" else speed_epoch
            eta = (
                str(datetime.timedelta(seconds=max(length - done, 0) / speed))
                if speed > 0
                else _UNKNOWN
            )
        lines.append(f"{speed_text:>10} iters/sec. Estimated time to finish: {eta}.\n")
        out = self._stream()
        out.write("\033[J")
        for line in lines:
            out.write(line)
        out.write(f"\033[{len(lines)}A")
        if hasattr(out, "flush"):
            out.flush()

    def finalize(self) -> None:
        out = self._stream()
        out.write("\033[J")
        if hasattr(out, "flush"):
            out.flush()
