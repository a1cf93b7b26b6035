"""ProgressBar: a text progress bar with speed and ETA."""

from __future__ import annotations

import datetime
import sys
import time
from typing import IO, Any

from kusari.training import extension


class ProgressBar(extension.Extension):
    """Print the training progress, iterations per second and the estimated
    time to finish every ``update_interval`` iterations.

    Args:
        training_length: ``(length, unit)``; taken from the trainer's stop
            trigger (``get_training_length()``) by default.
        update_interval: Iterations between redraws.
        bar_length: Width of the bars in characters.
        out: The stream (``sys.stdout`` at call time by default).
    """

    trigger = (1, "iteration")

    def __init__(self, training_length: tuple[float, str] | None = None,
                 update_interval: int = 100, bar_length: int = 50,
                 out: IO[str] | None = None) -> None:
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        self._recent_timing: list[tuple[int, float, float]] = []

    def _stream(self) -> IO[str]:
        return sys.stdout if self._out is None else self._out

    def _bar(self, rate: float) -> str:
        marks = "#" * int(rate * self._bar_length)
        return marks + "." * (self._bar_length - len(marks))

    def __call__(self, trainer: Any) -> None:
        if self._training_length is None:
            get_length = getattr(trainer.stop_trigger, "get_training_length", None)
            if get_length is None:
                raise TypeError("ProgressBar: cannot get the training length from "
                                f"{type(trainer.stop_trigger).__name__}; pass "
                                "training_length")
            self._training_length = get_length()
        length, unit = self._training_length
        updater = trainer.updater
        iteration = updater.iteration
        if iteration % self._update_interval != 0:
            return
        out = self._stream()
        epoch = updater.epoch_detail
        now = time.perf_counter()
        timing = self._recent_timing
        timing.append((iteration, epoch, now))
        rate = min((iteration if unit == "iteration" else epoch) / length, 1.0)
        epoch_rate = epoch - int(epoch)
        out.write("\033[J")
        out.write(f"     total [{self._bar(rate)}] {rate:6.2%}\n")
        out.write(f"this epoch [{self._bar(epoch_rate)}] {epoch_rate:6.2%}\n")
        out.write(f"{iteration:10} iter, {updater.epoch} epoch / {length} {unit}s\n")
        old_it, old_epoch, old_time = timing[0]
        span = now - old_time
        if span > 0:
            speed_it = (iteration - old_it) / span
            speed_epoch = (epoch - old_epoch) / span
        else:
            speed_it = speed_epoch = float("inf")
        remaining = length - (iteration if unit == "iteration" else epoch)
        speed = speed_it if unit == "iteration" else speed_epoch
        if speed in (0, float("inf")):
            eta = "unknown" if speed == 0 else "0:00:00"
        else:
            eta = str(datetime.timedelta(seconds=max(remaining / speed, 0)))
        out.write(f"{speed_it:10.5g} iters/sec. Estimated time to finish: {eta}.\n")
        out.write("\033[4A")
        if hasattr(out, "flush"):
            out.flush()
        if len(timing) > 100:
            del timing[0]

    def finalize(self) -> None:
        out = self._stream()
        out.write("\033[J")
        if hasattr(out, "flush"):
            out.flush()
