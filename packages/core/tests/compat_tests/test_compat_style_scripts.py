"""Our own Chainer-style scripts, run unchanged through ``python -m kusari.compat``.

Each script in ``scripts/`` is written the way Chainer's examples are
(``import chainer``, ``chainer.functions as F``, ``training.extensions``,
``--device -1``) and exercises the API one family of Chainer's examples
needs; it asserts on its own results and prints ``OK <name>`` at the end.
They run here on generated data, a few iterations each, so CI keeps what the
real examples need covered without their code or their downloads.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from alias_runner import SCRIPTS, run_with_alias


def _check(result, name: str) -> None:
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert f"OK {name}" in result.stdout


def test_classify_digits(offline_root: Path, tmp_path: Path) -> None:
    result = run_with_alias(
        SCRIPTS / "classify_digits.py", ["--device", "-1"], tmp_path, offline_root
    )
    _check(result, "classify_digits")
    first = tmp_path / "result" / "first"
    assert {"log", "cg.dot", "snapshot_iter_6"} <= {p.name for p in first.iterdir()}


def test_classify_digits_with_deprecated_gpu_option(
    offline_root: Path, tmp_path: Path
) -> None:
    # ``--gpu -1`` reaches chainer.get_device as the integer -1.
    result = run_with_alias(
        SCRIPTS / "classify_digits.py", ["--gpu", "-1"], tmp_path, offline_root
    )
    _check(result, "classify_digits")
    assert "Device: @numpy" in result.stdout


def test_language_model(offline_root: Path, tmp_path: Path) -> None:
    result = run_with_alias(
        SCRIPTS / "language_model.py", ["--device", "-1"], tmp_path, offline_root
    )
    _check(result, "language_model")
    assert (tmp_path / "result" / "final.npz").exists()


def test_word_vectors(offline_root: Path, tmp_path: Path) -> None:
    result = run_with_alias(
        SCRIPTS / "word_vectors.py", ["--device", "-1"], tmp_path, offline_root
    )
    _check(result, "word_vectors")
    header = (tmp_path / "result" / "vectors.txt").read_text().splitlines()[0]
    assert header == "120 8"


def test_variational(offline_root: Path, tmp_path: Path) -> None:
    result = run_with_alias(
        SCRIPTS / "variational.py",
        ["--device", "-1", "--binary"],
        tmp_path,
        offline_root,
    )
    _check(result, "variational")
    assert (tmp_path / "result" / "sampled.png").stat().st_size > 0


def test_adversarial(offline_root: Path, tmp_path: Path) -> None:
    result = run_with_alias(
        SCRIPTS / "adversarial.py", ["--device", "-1"], tmp_path, offline_root
    )
    _check(result, "adversarial")
    assert sorted(p.name for p in (tmp_path / "result" / "preview").iterdir()) == [
        "image0002.png",
        "image0004.png",
    ]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_image_folder(offline_root: Path, tmp_path: Path, dtype: str) -> None:
    images = offline_root / "images"
    args = [
        str(images / "train.txt"),
        str(images / "val.txt"),
        "--root",
        str(images),
        "--mean",
        str(images / "mean.npy"),
        "--device",
        "-1",
        "--dtype",
        dtype,
    ]
    result = run_with_alias(SCRIPTS / "image_folder.py", args, tmp_path, offline_root)
    _check(result, "image_folder")
    assert f"OK image_folder {dtype}" in result.stdout
    # Start again from the snapshot the first run wrote.
    again = run_with_alias(
        SCRIPTS / "image_folder.py",
        [*args, "--initmodel", "result/model_iter_2", "--out", "again"],
        tmp_path,
        offline_root,
    )
    _check(again, "image_folder")


def test_text_models(offline_root: Path, tmp_path: Path) -> None:
    # The tree reader looks for trees/ in the working directory, as the
    # sentiment example does.
    (tmp_path / "trees").symlink_to(offline_root / "trees")
    result = run_with_alias(
        SCRIPTS / "text_models.py", ["--gpu", "-1"], tmp_path, offline_root
    )
    _check(result, "text_models")
    assert (tmp_path / "result" / "rnn" / "best_model.npz").exists()


def test_small_images(offline_root: Path, tmp_path: Path) -> None:
    result = run_with_alias(
        SCRIPTS / "small_images.py", ["--gpu", "-1"], tmp_path, offline_root
    )
    _check(result, "small_images")
    assert (tmp_path / "result" / "snapshot_epoch_1").exists()
