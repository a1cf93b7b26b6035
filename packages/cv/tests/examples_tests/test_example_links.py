"""Smoke tests: the classification and SegNet examples train a few iterations
on tiny data sets written here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image

import kusari
from kusari_cv.links import ResNet50, SegNetBasic


def write_png(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array).save(path)


def test_train_imagenet_resnet50(tmp_path, run_example, examples_dir):
    rng = np.random.default_rng(0)
    lines = []
    for i in range(6):
        shape = (20 + i, 24, 3) if i % 3 else (22, 26)  # grayscale ones too
        write_png(tmp_path / "img" / f"{i}.png", rng.integers(0, 256, shape, np.uint8))
        lines.append(f"img/{i}.png {i % 3}")
    (tmp_path / "train.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "val.txt").write_text("\n".join(lines[:3]) + "\n")
    out = tmp_path / "result"
    run_example(
        examples_dir / "classification" / "train_imagenet.py",
        "train.txt", "val.txt", "--root", str(tmp_path),
        "--n-class", "3", "--batchsize", "2", "--iteration", "2",
        "--crop-size", "64", "--scale-size", "72", "--out", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    log = json.loads((out / "log").read_text())
    assert log[-1]["iteration"] == 2
    assert np.isfinite(log[-1]["main/loss"])
    assert 0 <= log[-1]["validation/main/accuracy"] <= 1
    # The snapshot is a ChainerCV-layout npz that a fresh model loads.
    model = ResNet50(n_class=3, pretrained_model=str(out / "model_iter_2.npz"))
    with kusari.using_config("train", False):
        prob = model(np.zeros((1, 3, 64, 64), np.float32)).array
    np.testing.assert_allclose(prob.sum(), 1, rtol=1e-5)

    # The evaluation script reads the same list with the trained snapshot.
    result = run_example(
        examples_dir / "classification" / "eval_imagenet.py",
        "val.txt", "--root", str(tmp_path), "--n-class", "3",
        "--pretrained-model", str(out / "model_iter_2.npz"), "--crop", "10",
        "--crop-size", "64", "--scale-size", "72", "--batchsize", "2",
        cwd=tmp_path,
    )  # fmt: skip
    top1 = float(result.stdout.split("top-1 error:")[1].split()[0])
    assert abs(top1 * 3 - round(top1 * 3)) < 1e-3  # 3 images: 0, 1/3, 2/3 or 1
    assert "top-5 error: 0.0000" in result.stdout  # 3 classes: always in top 5


def write_camvid(root: Path, rng: np.random.Generator) -> None:
    for split, n in (("train", 4), ("val", 2)):
        lines = []
        for i in range(n):
            img = rng.integers(0, 256, (16, 24, 3), np.uint8)
            label = rng.integers(0, 12, (16, 24), np.uint8)  # 11: unlabelled
            write_png(root / split / f"{i}.png", img)
            write_png(root / f"{split}annot" / f"{i}.png", label)
            lines.append(
                f"/SegNet/CamVid/{split}/{i}.png /SegNet/CamVid/{split}annot/{i}.png"
            )
        (root / f"{split}.txt").write_text("\n".join(lines) + "\n")


def test_segnet_train_on_camvid_layout(tmp_path, run_example, examples_dir):
    data = tmp_path / "CamVid"
    write_camvid(data, np.random.default_rng(1))
    out = tmp_path / "result"
    run_example(
        examples_dir / "segnet" / "train.py",
        "--data-dir", str(data), "--batchsize", "2", "--iteration", "2",
        "--val-interval", "2", "--log-interval", "1", "--out", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    log = json.loads((out / "log").read_text())
    assert [entry["iteration"] for entry in log] == [1, 2]
    assert all(np.isfinite(entry["main/loss"]) for entry in log)
    assert 0 <= log[-1]["validation/main/miou"] <= 1
    model = SegNetBasic(n_class=11, pretrained_model=str(out / "model_iter_2.npz"))
    assert model.predict([np.zeros((3, 16, 24), np.float32)])[0].shape == (16, 24)

    result = run_example(
        examples_dir / "segnet" / "eval_camvid.py",
        "--data-dir", str(data), "--split", "val", "--batchsize", "2",
        "--pretrained-model", str(out / "model_iter_2.npz"),
        cwd=tmp_path,
    )  # fmt: skip
    miou = float(result.stdout.split("mean IoU:")[1].split()[0])
    assert 0 <= miou <= 1
    assert "Bicyclist" in result.stdout
