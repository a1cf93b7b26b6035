#!/usr/bin/env python
"""Write a small ImageNet-layout set of JPEG files to try train_imagenet.py offline.

Layout, as for ImageNet:

    OUT/train/n0000000k/*.JPEG   OUT/val/n0000000k/*.JPEG
    OUT/train.txt, OUT/val.txt   ("train/n00000003/img_0007.JPEG 3" per line)
    OUT/mean.npy                 (mean training image, float32 (3, size, size))

Each of the 10 classes has its own structure (stripe orientation and
frequency, colour, a blob position) plus noise, so a network can learn it.

    python make_tiny_imagenet.py tiny --per-class 30 --size 64
"""

import argparse
import os

import numpy as np
from PIL import Image

N_CLASSES = 10


def make_image(label: int, size: int, rng: np.random.RandomState) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    angle = np.pi * label / N_CLASSES
    freq = 2 + (label % 3) * 2
    phase = rng.uniform(0, 2 * np.pi)
    stripes = np.sin(
        2 * np.pi * freq * (np.cos(angle) * xx + np.sin(angle) * yy) + phase
    )
    cy, cx = 0.25 + 0.5 * (label // 5), 0.2 + 0.15 * (label % 5)
    blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 0.01)
    colour = (
        np.array(
            [(label * 37) % 256, (label * 91) % 256, (label * 53) % 256], np.float32
        )
        / 255.0
    )
    img = 0.5 + 0.25 * stripes[..., None] + 0.4 * blob[..., None] * colour
    img += rng.normal(0, 0.08, img.shape)
    return (np.clip(img, 0, 1) * 255).astype(np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="output directory")
    parser.add_argument(
        "--per-class",
        type=int,
        default=30,
        help="training images per class (validation: a third)",
    )
    parser.add_argument("--size", type=int, default=64, help="image side in pixels")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.RandomState(args.seed)
    total = np.zeros((3, args.size, args.size), np.float64)
    n_train = 0
    for split, per_class in (
        ("train", args.per_class),
        ("val", max(1, args.per_class // 3)),
    ):
        lines = []
        for label in range(N_CLASSES):
            wnid = f"n{label:08d}"
            os.makedirs(os.path.join(args.out, split, wnid), exist_ok=True)
            for i in range(per_class):
                rel = f"{split}/{wnid}/img_{i:04d}.JPEG"
                img = make_image(label, args.size, rng)
                Image.fromarray(img).save(os.path.join(args.out, rel), quality=90)
                lines.append(f"{rel} {label}")
                if split == "train":
                    # The mean of the decoded JPEGs, as the trainer will see them.
                    with Image.open(os.path.join(args.out, rel)) as im:
                        total += np.asarray(im, np.float64).transpose(2, 0, 1)
                    n_train += 1
        with open(os.path.join(args.out, f"{split}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    np.save(os.path.join(args.out, "mean.npy"), (total / n_train).astype(np.float32))
    print(f"wrote {n_train} training images of {N_CLASSES} classes to {args.out}")


if __name__ == "__main__":
    main()
