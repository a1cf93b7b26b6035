"""SSD300 ``predict()`` on the CPU: kusari-cv vs a PyTorch model of the same shapes.

Both sides run a batch of ``--batch`` RGB images of 300 x 300 through
preprocessing, the VGG-16 SSD300 network (8732 default boxes, 21 classes),
box decoding, score thresholding (0.6, ChainerCV's ``'visualize'`` preset)
and per-class NMS (0.45), with random weights.

The PyTorch side is torchvision's ``ssd300_vgg16`` when torchvision imports
(its own resize/normalize transform and postprocess), else a hand-built torch
SSD300 with the same layer shapes, decoded and thresholded in torch (its NMS
then runs in kusari-cv's NumPy NMS; with random weights and this threshold
almost no box reaches it, so the times compare the networks).

Threads: BLAS and torch both use ``OMP_NUM_THREADS`` (default 1 here, set
before NumPy is imported). Best of ``--repeat`` runs, the two libraries
interleaved so that machine noise hits both alike.

Run: ``python bench_ssd.py [--batch 8] [--repeat 3] [--hand-built]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", os.environ["OMP_NUM_THREADS"])
os.environ.setdefault("MKL_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

import numpy as np

import kusari
from kusari_cv.links.model.ssd import SSD300

SCORE_THRESH = 0.6
NMS_THRESH = 0.45


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _torchvision_model(torch: Any) -> Callable[[list[np.ndarray]], Any] | None:
    try:
        from torchvision.models.detection import ssd300_vgg16
    except Exception:  # torchvision missing or built for another torch
        return None
    model = ssd300_vgg16(
        weights=None,
        weights_backbone=None,
        num_classes=21,
        score_thresh=SCORE_THRESH,
        nms_thresh=NMS_THRESH,
    ).eval()

    def predict(imgs: list[np.ndarray]) -> Any:
        with torch.inference_mode():
            return model([torch.from_numpy(img / 255) for img in imgs])

    return predict


def _hand_built_model(torch: Any) -> Callable[[list[np.ndarray]], Any]:
    nn = torch.nn
    fn = torch.nn.functional
    from kusari_cv.links.model.ssd import MultiboxCoder
    from kusari_cv.utils import non_maximum_suppression

    def conv(i: int, o: int, k: int, **kw: Any) -> Any:
        return nn.Conv2d(i, o, k, padding=kw.pop("padding", k // 2), **kw)

    class HandSSD300(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            chans = [(3, 64), (64, 64), (64, 128), (128, 128), (128, 256)]
            chans += [(256, 256), (256, 256), (256, 512), (512, 512), (512, 512)]
            chans += [(512, 512)] * 3
            self.vgg = nn.ModuleList(conv(i, o, 3) for i, o in chans)
            self.scale = nn.Parameter(torch.full((512,), 20.0))
            self.conv6 = conv(512, 1024, 3, padding=6, dilation=6)
            self.conv7 = conv(1024, 1024, 1)
            extras = [(1024, 256, 512, 2, 1), (512, 128, 256, 2, 1)]
            extras += [(256, 128, 256, 1, 0), (256, 128, 256, 1, 0)]
            self.extras = nn.ModuleList(
                nn.ModuleList([conv(i, m, 1), conv(m, o, 3, stride=s, padding=p)])
                for i, m, o, s, p in extras
            )
            n_box = [4, 6, 6, 6, 4, 4]
            in_ch = [512, 1024, 512, 256, 256, 256]
            self.loc = nn.ModuleList(conv(c, n * 4, 3) for c, n in zip(in_ch, n_box))
            self.conf = nn.ModuleList(conv(c, n * 21, 3) for c, n in zip(in_ch, n_box))

        def forward(self, x: Any) -> tuple[Any, Any]:
            ys = []
            blocks = (2, 2, 3, 3, 3)
            i = 0
            for b, n in enumerate(blocks):
                for _ in range(n):
                    x = fn.relu(self.vgg[i](x))
                    i += 1
                if b == 3:
                    ys.append(fn.normalize(x, dim=1) * self.scale[None, :, None, None])
                if b < 4:
                    x = fn.max_pool2d(x, 2, ceil_mode=True)
                else:
                    x = fn.max_pool2d(x, 3, 1, 1)
            x = fn.relu(self.conv7(fn.relu(self.conv6(x))))
            ys.append(x)
            for c1, c2 in self.extras:
                x = fn.relu(c2(fn.relu(c1(x))))
                ys.append(x)
            b = x.shape[0]
            locs = [
                h.permute(0, 2, 3, 1).reshape(b, -1, 4)
                for h in (m(y) for m, y in zip(self.loc, ys))
            ]
            confs = [
                h.permute(0, 2, 3, 1).reshape(b, -1, 21)
                for h in (m(y) for m, y in zip(self.conf, ys))
            ]
            return torch.cat(locs, 1), torch.cat(confs, 1)

    model = HandSSD300().eval()
    coder = MultiboxCoder(
        (38, 19, 10, 5, 3, 1),
        ((2,), (2, 3), (2, 3), (2, 3), (2,), (2,)),
        (8, 16, 32, 64, 100, 300),
        (30, 60, 111, 162, 213, 264, 315),
        (0.1, 0.2),
    )
    default = torch.from_numpy(coder.default_bbox)
    mean = torch.tensor([123.0, 117.0, 104.0]).reshape(1, 3, 1, 1)

    def predict(imgs: list[np.ndarray]) -> Any:
        with torch.inference_mode():
            x = torch.stack([torch.from_numpy(img) for img in imgs]) - mean
            locs, confs = model(x)
            center = default[:, :2] + locs[..., :2] * 0.1 * default[:, 2:]
            size = default[:, 2:] * torch.exp(locs[..., 2:] * 0.2)
            bbox = torch.cat((center - size / 2, center + size / 2), -1)
            prob = confs.softmax(-1)[..., 1:]
            out = []
            for b in range(len(imgs)):
                keep = []
                for lbl in range(20):
                    mask = prob[b, :, lbl] >= SCORE_THRESH
                    bb = bbox[b][mask].numpy()
                    keep.append(
                        non_maximum_suppression(
                            bb, NMS_THRESH, prob[b, :, lbl][mask].numpy()
                        )
                    )
                out.append(keep)
            return out

    return predict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--hand-built",
        action="store_true",
        help="compare with the hand-built torch SSD300 even when torchvision imports",
    )
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    imgs = [
        rng.uniform(0, 255, (3, 300, 300)).astype(np.float32) for _ in range(args.batch)
    ]
    threads = int(os.environ["OMP_NUM_THREADS"])

    np.random.seed(0)
    model = SSD300(n_fg_class=20)
    model.use_preset("visualize")
    model.predict(imgs[:1])  # lazy initialisation of the heads

    def kusari_forward() -> Any:
        x = np.stack([img - model.mean for img in imgs]).astype(np.float32)
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            return model(x)

    torch_predict = None
    torch_name = "unavailable"
    try:
        import torch

        torch.set_num_threads(threads)
        torch.manual_seed(0)
        torch_predict = None if args.hand_built else _torchvision_model(torch)
        torch_name = "torchvision ssd300_vgg16"
        if torch_predict is None:
            torch_predict = _hand_built_model(torch)
            torch_name = "hand-built torch SSD300"
        torch_predict(imgs[:1])
        torch_name += f" (torch {torch.__version__})"
    except ImportError:
        pass

    k_pred, k_fwd, t_pred = float("inf"), float("inf"), float("inf")
    for _ in range(args.repeat):
        k_pred = min(k_pred, _best(lambda: model.predict(imgs), 1))
        k_fwd = min(k_fwd, _best(kusari_forward, 1))
        if torch_predict is not None:
            t_pred = min(t_pred, _best(lambda: torch_predict(imgs), 1))

    print(
        f"SSD300 predict, batch {args.batch} of 300x300, {threads} thread(s), "
        f"best of {args.repeat}"
    )
    print(f"  kusari-cv predict : {k_pred:8.3f} s")
    print(f"  kusari-cv forward : {k_fwd:8.3f} s  (network only)")
    if torch_predict is not None:
        print(f"  {torch_name} predict : {t_pred:8.3f} s")
        print(f"  ratio kusari / torch : {k_pred / t_pred:6.2f}x")
    else:
        print("  torch: not importable, no comparison")


if __name__ == "__main__":
    main()
