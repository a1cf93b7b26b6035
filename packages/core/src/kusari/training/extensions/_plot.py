"""matplotlib access for the plotting extensions (optional dependency)."""

from __future__ import annotations

import os
import warnings
from typing import Any

from kusari.utils.atomic import atomic_write

_available: bool | None = None


def importable() -> bool:
    """True when matplotlib is installed; imports nothing, warns nothing."""
    if _available is not None:
        return _available
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def module_getattr(module: str, name: str) -> Any:
    """``__getattr__`` of the plotting modules: Chainer's expose
    ``_available`` (whether matplotlib imports), which code written for
    Chainer reads to skip plotting; it is computed when first read."""
    if name == "_available":
        return importable()
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def check_available() -> bool:
    """True when matplotlib imports; warns once otherwise."""
    global _available
    if _available is None:
        try:
            import matplotlib  # noqa: F401

            _available = True
        except ImportError:
            _available = False
            warnings.warn(
                "matplotlib is not installed, so nothing will be "
                "plotted. Install it with `pip install matplotlib`.",
                stacklevel=3,
            )
    return _available


def new_figure(figsize: Any = None) -> Any:
    """A matplotlib Figure on the Agg canvas (no pyplot global state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Any, path: str, **kwargs: Any) -> None:
    """Save ``fig`` to ``path`` atomically (format from the extension)."""
    fmt = os.path.splitext(path)[1][1:] or "png"
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format=fmt, **kwargs)
