"""Configuration keys kusari_cv reads from ``kusari.config``.

ChainerCV keeps its backend choices in Chainer's global configuration
(``chainer.config.cv_read_image_backend = 'PIL'``); the same keys live in
kusari's. Every key defaults to None, meaning "OpenCV when installed, else
Pillow".
"""

from __future__ import annotations

import importlib.util
from typing import Any

import kusari

_KEYS = ("cv_read_image_backend", "cv_resize_backend", "cv_rotate_backend")

for _key in _KEYS:
    try:
        getattr(kusari.global_config, _key)
    except AttributeError:
        setattr(kusari.global_config, _key, None)

#: Whether OpenCV (``cv2``) can be imported; it is imported only when used.
cv2_available = importlib.util.find_spec("cv2") is not None


def backend(key: str, function: str) -> str:
    """Return ``'cv2'`` or ``'PIL'``, the backend ``kusari.config.<key>`` picks.

    Raises:
        ValueError: The key names an unknown backend, or ``'cv2'`` while
            OpenCV is not installed.
    """
    value: Any = getattr(kusari.config, key, None)
    if value is None:
        return "cv2" if cv2_available else "PIL"
    if value == "cv2":
        if not cv2_available:
            raise ValueError(
                f"{function}: kusari.config.{key} is 'cv2' but OpenCV is not "
                "installed (pip install opencv-python-headless)"
            )
        return "cv2"
    if value == "PIL":
        return "PIL"
    raise ValueError(
        f"{function}: kusari.config.{key} must be None, 'cv2' or 'PIL', got {value!r}"
    )
