"""unchain_variables: free the graphs of reported variables."""

from __future__ import annotations

from typing import Any

from kusari.training import extension
from kusari.variable import Variable


class unchain_variables(extension.Extension):
    """Unchain every Variable in the observation after the other
    extensions ran, releasing their graphs (useful with
    ``keep_graph_on_report``)."""

    trigger = (1, "iteration")
    priority = 0

    def __call__(self, trainer: Any) -> None:
        for value in trainer.observation.values():
            if isinstance(value, Variable):
                value.unchain_backward()
