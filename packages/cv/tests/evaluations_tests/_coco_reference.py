"""pycocotools, driven the way ChainerCV drives it, as a reference."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

coco = pytest.importorskip("pycocotools.coco", reason="pycocotools is not installed")
cocoeval = pytest.importorskip("pycocotools.cocoeval")
mask_tools = pytest.importorskip("pycocotools.mask")


def _box_anno(bb, label, score, img_id, anno_id, area, crowd):
    y0, x0, y1, x1 = bb
    h, w = y1 - y0, x1 - x0
    anno = {
        "image_id": img_id,
        "category_id": int(label),
        "bbox": [np.round(x0, 2), np.round(y0, 2), np.round(w, 2), np.round(h, 2)],
        "area": h * w if area is None else area,
        "id": anno_id,
        "iscrowd": int(crowd),
    }
    if score is not None:
        anno["score"] = score
    return anno


def _mask_anno(msk, label, score, img_id, anno_id, area, crowd):
    rle = mask_tools.encode(np.asfortranarray(msk.astype(np.uint8)))
    anno = {
        "image_id": img_id,
        "category_id": int(label),
        "segmentation": rle,
        "area": mask_tools.area(rle) if area is None else area,
        "id": anno_id,
        "iscrowd": int(crowd),
    }
    if score is not None:
        anno["score"] = score
    return anno


def run(kind, preds, pred_labels, pred_scores, gts, gt_labels, gt_areas, gt_crowds):
    """Return (COCOeval after accumulate, stats, sorted labels)."""
    make = _box_anno if kind == "bbox" else _mask_anno
    pred_annos, gt_annos, images, labels = [], [], [], set()
    for i in range(len(preds)):
        img_id = i + 1
        for p, lbl, s in zip(preds[i], pred_labels[i], pred_scores[i]):
            pred_annos.append(make(p, lbl, s, img_id, len(pred_annos) + 1, None, 0))
            labels.add(int(lbl))
        for j, (g, lbl) in enumerate(zip(gts[i], gt_labels[i])):
            area = None if gt_areas is None else gt_areas[i][j]
            crowd = 0 if gt_crowds is None else gt_crowds[i][j]
            gt_annos.append(make(g, lbl, None, img_id, len(gt_annos) + 1, area, crowd))
            labels.add(int(lbl))
        image = {"id": img_id}
        if kind == "segm":  # pycocotools reads the size to decode masks
            shape = (preds[i] if len(preds[i]) else gts[i]).shape
            image.update(height=shape[-2], width=shape[-1])
        images.append(image)
    labels = sorted(labels)
    gt_coco, pred_coco = coco.COCO(), coco.COCO()
    for c, annos in ((gt_coco, gt_annos), (pred_coco, pred_annos)):
        c.dataset["categories"] = [{"id": lbl} for lbl in labels]
        c.dataset["annotations"] = annos
        c.dataset["images"] = images
    with contextlib.redirect_stdout(io.StringIO()):
        gt_coco.createIndex()
        pred_coco.createIndex()
        ev = cocoeval.COCOeval(gt_coco, pred_coco, kind)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return ev, np.asarray(ev.stats), labels


def per_class(ev, is_ap, iou, area, max_det):
    """ChainerCV's per-class reduction of COCOeval's arrays."""
    p = ev.params
    a, m = p.areaRngLbl.index(area), p.maxDets.index(max_det)
    v = ev.eval["precision"] if is_ap else ev.eval["recall"]
    if iou is not None:
        v = v[iou == p.iouThrs]
    v = v[:, :, :, a, m] if is_ap else v[:, :, a, m]
    v = v.astype(np.float64).copy()
    v[v == -1] = np.nan
    v = v.reshape(-1, v.shape[-1])
    out = np.full(v.shape[1], np.nan)
    ok = ~np.isnan(v).all(axis=0)
    out[ok] = np.nanmean(v[:, ok], axis=0)
    return out
