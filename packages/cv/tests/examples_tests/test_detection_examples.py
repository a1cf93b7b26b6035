"""Smoke tests: the detection examples train and evaluate on a tiny VOC folder."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
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


def _run(script: Path, *args: str, cwd: Path) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_ssd_train_and_eval(tmp_path):
    data = _write_voc(tmp_path / "VOC")
    out = tmp_path / "result"
    _run(
        EXAMPLES / "ssd" / "train.py",
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
    stdout = _run(
        EXAMPLES / "ssd" / "eval.py",
        "--pretrained-model",
        str(out / "model_iter_2"),
        "--data-dir",
        str(data),
        "--batchsize",
        "2",
        cwd=tmp_path,
    )
    assert "mAP:" in stdout and "aeroplane" in stdout


def test_faster_rcnn_train_and_eval(tmp_path):
    data = _write_voc(tmp_path / "VOC", n=2)
    out = tmp_path / "result"
    _run(
        EXAMPLES / "faster_rcnn" / "train.py",
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
    stdout = _run(
        EXAMPLES / "faster_rcnn" / "eval.py",
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
    assert "mAP:" in stdout
