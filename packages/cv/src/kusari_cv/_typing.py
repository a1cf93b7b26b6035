"""Type aliases for annotations across kusari_cv."""

from __future__ import annotations

from typing import Any

#: A NumPy or CuPy array (CuPy is optional, so no precise type is possible).
Array = Any
