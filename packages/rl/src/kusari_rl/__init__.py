"""Deep reinforcement learning on kusari and Gymnasium, with ChainerRL's API.

Submodules load on first use (``kusari_rl.agents``-style attribute access works
without importing them explicitly), so ``import kusari_rl`` stays cheap.
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

_SUBMODULES = frozenset(
    {
        "action_value",
        "agent",
        "agents",
        "distribution",
        "envs",
        "experiments",
        "explorer",
        "explorers",
        "functions",
        "links",
        "misc",
        "optimizers",
        "policies",
        "policy",
        "q_function",
        "q_functions",
        "replay_buffer",
        "replay_buffers",
        "v_function",
        "v_functions",
        "wrappers",
    }
)


def __getattr__(name: str) -> _Any:
    if name in _SUBMODULES:
        module = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES)
