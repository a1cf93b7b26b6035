"""Write a CHW array to an image file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Any

import numpy as np
from PIL import Image

from kusari_cv._typing import Array


def write_image(
    img: Array,
    file: str | os.PathLike[str] | IO[bytes] | Any,
    format: str | None = None,
) -> None:
    """Write an image given as a CHW array.

    Args:
        img: An array of shape ``(3, H, W)`` (RGB) or ``(1, H, W)`` (gray),
            values in ``[0, 255]``; it is cast to uint8.
        file: A path or a binary file-like object. A path is written through
            a temporary file and renamed, so no half-written file is left.
        format: The file format (e.g. ``'PNG'``); by default taken from the
            file name's extension.
    """
    if getattr(img, "ndim", None) != 3 or img.shape[0] not in (1, 3):
        raise ValueError(
            "write_image: img must have shape (1, H, W) or (3, H, W), got "
            f"{getattr(img, 'shape', None)}"
        )
    arr = np.asarray(img)
    if arr.shape[0] == 1:
        pil = Image.fromarray(arr[0].astype(np.uint8))
    else:
        pil = Image.fromarray(arr.transpose(1, 2, 0).astype(np.uint8))
    if hasattr(file, "write"):
        pil.save(file, format=format)
        return
    path = Path(file)
    if format is None:
        format = Image.registered_extensions().get(path.suffix.lower())
        if format is None:
            raise ValueError(
                f"write_image: cannot tell the format of {str(path)!r} from its "
                "extension; pass format="
            )
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            pil.save(f, format=format)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
