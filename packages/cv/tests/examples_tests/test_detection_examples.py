"""Smoke tests: the detection examples train and evaluate on a tiny VOC folder."""

from pathlib import Path

import numpy as np
from PIL import Image

NAMES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat")


def _write_voc(root: Path, n: int = 3) -> Path:
    rng = np.random.default_rng(0)
    for sub in ("JPEGImages", "Annotations", "ImageSets/Main"):
        (root / sub).mkdir(parents=True)
    ids = []
    for i in range(n):
        h, w = 48 + 8 * i, 64
        img = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
        img[10:30, 8:40] = (200, 40, 40)
        Image.fromarray(img).save(root / "JPEGImages" / f"{i:06d}.jpg")
        objects = "".join(
            f"<object><name>{NAMES[(i + j) % len(NAMES)]}</name>"
            f"<difficult>{int(j == 1)}</difficult><bndbox>"
            f"<xmin>{9 + 10 * j}</xmin><ymin>{11 + 5 * j}</ymin>"
            f"<xmax>{40 + 10 * j}</xmax><ymax>{30 + 10 * j}</ymax>"
            "</bndbox></object>"
            for j in range(2)
        )
        (root / "Annotations" / f"{i:06d}.xml").write_text(
            f"<annotation>{objects}</annotation>"
        )
        ids.append(f"{i:06d}")
    for split in ("trainval", "test"):
        (root / "ImageSets" / "Main" / f"{split}.txt").write_text("\n".join(ids) + "\n")
    return root


def test_ssd_train_and_eval(tmp_path, run_example, examples_dir):
    data = _write_voc(tmp_path / "VOC")
    out = tmp_path / "result"
    run_example(
        examples_dir / "ssd" / "train.py",
        "--data-dir",
        str(data),
        "--test-data-dir",
        str(data),
        "--iteration",
        "2",
        "--batchsize",
        "2",
        "--step",
        "1",
        "--pretrained-model",
        "none",
        "--out",
        str(out),
        "--log-interval",
        "1",
        "--no-progress",
        cwd=tmp_path,
    )
    assert (out / "model_iter_2").exists() and (out / "log").exists()
    result = run_example(
        examples_dir / "ssd" / "eval.py",
        "--pretrained-model",
        str(out / "model_iter_2"),
        "--data-dir",
        str(data),
        "--batchsize",
        "2",
        cwd=tmp_path,
    )
    assert "mAP:" in result.stdout and "aeroplane" in result.stdout


def test_faster_rcnn_train_and_eval(tmp_path, run_example, examples_dir):
    data = _write_voc(tmp_path / "VOC", n=2)
    out = tmp_path / "result"
    run_example(
        examples_dir / "faster_rcnn" / "train.py",
        "--data-dir",
        str(data),
        "--test-data-dir",
        str(data),
        "--iteration",
        "2",
        "--step",
        "1",
        "--min-size",
        "64",
        "--max-size",
        "96",
        "--pretrained-model",
        "none",
        "--out",
        str(out),
        "--log-interval",
        "1",
        "--no-progress",
        cwd=tmp_path,
    )
    assert (out / "model_iter_2").exists()
    result = run_example(
        examples_dir / "faster_rcnn" / "eval.py",
        "--pretrained-model",
        str(out / "model_iter_2"),
        "--data-dir",
        str(data),
        "--min-size",
        "64",
        "--max-size",
        "96",
        cwd=tmp_path,
    )
    assert "mAP:" in result.stdout
