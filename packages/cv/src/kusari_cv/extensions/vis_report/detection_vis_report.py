"""Save pictures of a detector's predictions next to the ground truth."""

from __future__ import annotations

import copy
import os
import tempfile
from collections.abc import Sequence
from typing import Any

from kusari.training import extension
from kusari_cv.visualizations import vis_bbox


class DetectionVisReport(extension.Extension):
    """Draw, for every image of ``iterator``, the ground-truth boxes above the
    predicted ones and save the figure in the trainer's output directory.

    The iterator yields ``(img, bbox, label, ...)`` and should not repeat;
    ``target.predict(imgs)`` returns ``(bboxes, labels, scores)``. Needs
    matplotlib.

    Args:
        iterator: The iterator over the images to draw.
        target: The detection link.
        label_names: Names of the foreground classes, for the captions.
        filename: The file name pattern; ``{iteration}`` and ``{index}`` (the
            image's position in the iterator) are filled in. The extension
            decides the format.
    """

    trigger = (1, "epoch")

    def __init__(
        self,
        iterator: Any,
        target: Any,
        label_names: Sequence[str] | None = None,
        filename: str = "detection_iter={iteration}_idx={index}.jpg",
    ) -> None:
        self.iterator = iterator
        self.target = target
        self.label_names = label_names
        self.filename = filename

    def __call__(self, trainer: Any) -> None:
        # Figures drawn straight onto Agg canvases: files only, and pyplot's
        # global state (an interactive backend, open figures) is left alone.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        if hasattr(self.iterator, "reset"):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        index = 0
        for batch in it:
            imgs = [sample[0] for sample in batch]
            pred_bboxes, pred_labels, pred_scores = self.target.predict(imgs)
            for k, sample in enumerate(batch):
                img, gt_bbox, gt_label = sample[:3]
                fig = Figure()
                FigureCanvasAgg(fig)
                ax_gt = fig.add_subplot(2, 1, 1)
                ax_gt.set_title("ground truth")
                vis_bbox(img, gt_bbox, gt_label, label_names=self.label_names, ax=ax_gt)
                ax_pred = fig.add_subplot(2, 1, 2)
                ax_pred.set_title("prediction")
                vis_bbox(
                    img,
                    pred_bboxes[k],
                    pred_labels[k],
                    pred_scores[k],
                    label_names=self.label_names,
                    ax=ax_pred,
                )
                name = self.filename.format(
                    iteration=trainer.updater.iteration, index=index
                )
                _save(fig, os.path.join(trainer.out, name))
                index += 1


def _save(fig: Any, path: str) -> None:
    """Write the figure through a temporary file, so no half image is left."""
    directory, name = os.path.split(path)
    os.makedirs(directory or ".", exist_ok=True)
    ext = os.path.splitext(name)[1].lstrip(".") or "png"
    fd, tmp = tempfile.mkstemp(dir=directory or ".", prefix=name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=ext)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
