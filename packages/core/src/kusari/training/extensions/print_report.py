"""PrintReport: print chosen entries of the LogReport as a table."""

from __future__ import annotations

import sys
from typing import IO, Any

from kusari.training import extension
from kusari.training.extensions import log_report as log_report_module


class PrintReport(extension.Extension):
    """Print new LogReport entries as table rows.

    Args:
        entries: The keys to print, as columns.
        log_report: The LogReport, or the name it was registered under.
        out: The stream (``sys.stdout`` at call time by default).
    """

    def __init__(
        self,
        entries: list[str],
        log_report: Any = "LogReport",
        out: IO[str] | None = None,
    ) -> None:
        self._entries = entries
        self._log_report = log_report
        self._log_len = 0
        self._out = out
        widths = [max(10, len(s)) for s in entries]
        self._header: str | None = (
            "  ".join(e.ljust(w) for e, w in zip(entries, widths)) + "\n"
        )
        self._templates = [
            (e, f"{{:<{w}g}}  ", " " * (w + 2)) for e, w in zip(entries, widths)
        ]

    def _stream(self) -> IO[str]:
        return sys.stdout if self._out is None else self._out

    def __call__(self, trainer: Any) -> None:
        out = self._stream()
        if self._header:
            out.write(self._header)
            self._header = None
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        elif isinstance(log_report, log_report_module.LogReport):
            log_report(trainer)
        else:
            raise TypeError(
                f"PrintReport: log_report must be a LogReport or a name, got "
                f"{type(log_report).__name__}"
            )
        log = log_report.log
        while len(log) > self._log_len:
            out.write("\033[J")
            self._print(log[self._log_len])
            self._log_len += 1

    def _print(self, observation: dict[str, Any]) -> None:
        out = self._stream()
        for entry, template, empty in self._templates:
            if entry in observation:
                out.write(template.format(observation[entry]))
            else:
                out.write(empty)
        out.write("\n")
        if hasattr(out, "flush"):
            out.flush()

    def serialize(self, serializer: Any) -> None:
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer["_log_report"])
        try:
            self._log_len = serializer("_log_len", self._log_len)
        except KeyError:
            pass  # snapshots written by Chainer do not record it
