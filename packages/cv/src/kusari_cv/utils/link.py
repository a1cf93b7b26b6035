"""Resolve a model's ``pretrained_model`` argument (ChainerCV's convention)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import kusari
from kusari_cv import _config
from kusari_cv.utils.download import download_model


def prepare_pretrained_model(
    param: dict[str, Any],
    pretrained_model: str | None,
    models: Mapping[str, Mapping[str, Any]],
    default: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], str | None]:
    """Fill a model's constructor parameters and find its weight file.

    ``models`` maps names of published weights to
    ``{'param': {...}, 'url': ..., 'overwritable': {...}, 'cv2': bool}``.
    When ``pretrained_model`` names one of them, its ``param`` fill the
    entries of ``param`` that are None; a given value that disagrees raises
    unless the key is ``overwritable``; the weights are downloaded (cached).
    Any other non-empty ``pretrained_model`` is taken as a path to a weight
    file. Entries still None then come from ``default``.

    Args:
        param: Constructor parameters, None where not given (e.g.
            ``{'n_fg_class': None}``). Updated in place and returned.
        pretrained_model: A key of ``models``, a file path, or None.
        models: The published weights of the model.
        default: Values for parameters nobody gave.

    Returns:
        ``(param, path)``: the completed parameters and the weight file
        (None when there is nothing to load).

    Raises:
        ValueError: A parameter conflicts with the chosen weights, or is still
            None at the end.
    """
    default = {} if default is None else default
    path: str | None = None
    if pretrained_model in models:
        model = models[pretrained_model]  # type: ignore[index]
        model_param = model.get("param", {})
        overwritable = model.get("overwritable", ())
        for key in param:
            if key not in model_param:
                continue
            if param[key] is None:
                param[key] = model_param[key]
            elif key not in overwritable and param[key] != model_param[key]:
                raise ValueError(
                    f"prepare_pretrained_model: {key} must be {model_param[key]} "
                    f"for the pretrained model {pretrained_model!r}, got {param[key]}"
                )
        path = download_model(model["url"])
        if model.get("cv2", False):
            # These weights were trained on images resized by OpenCV; Pillow's
            # resampling differs slightly and costs some accuracy.
            if not _config.cv2_available:
                warnings.warn(
                    "prepare_pretrained_model: OpenCV is not installed but "
                    f"{pretrained_model!r} was trained with OpenCV resizing; "
                    "results may differ slightly with Pillow",
                    RuntimeWarning,
                    stacklevel=2,
                )
            elif kusari.config.cv_resize_backend not in (None, "cv2"):
                warnings.warn(
                    "prepare_pretrained_model: kusari.config.cv_resize_backend "
                    f"is not 'cv2' but {pretrained_model!r} was trained with "
                    "OpenCV resizing; results may differ slightly",
                    RuntimeWarning,
                    stacklevel=2,
                )
    elif pretrained_model:
        path = pretrained_model
    for key in param:
        if param[key] is None:
            if key not in default:
                raise ValueError(
                    f"prepare_pretrained_model: {key} must be specified (no "
                    "pretrained model or default gives it)"
                )
            param[key] = default[key]
    return param, path
