"""Computer vision on kusari, with ChainerCV's API.

Submodules load on first use (``kusari_cv.links``-style attribute access works
without importing them explicitly), so ``import kusari_cv`` stays cheap.
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

_SUBMODULES = frozenset(
    {
        "chainer_experimental",
        "datasets",
        "evaluations",
        "experimental",
        "extensions",
        "functions",
        "links",
        "transforms",
        "utils",
        "visualizations",
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
