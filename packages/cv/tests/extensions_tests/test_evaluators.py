import numpy as np
import pytest

import kusari
from kusari.iterators import SerialIterator
from kusari_cv.evaluations import (
    eval_detection_coco,
    eval_detection_voc,
    eval_instance_segmentation_voc,
)
from kusari_cv.extensions import (
    DetectionCOCOEvaluator,
    DetectionVOCEvaluator,
    InstanceSegmentationCOCOEvaluator,
    InstanceSegmentationVOCEvaluator,
    SemanticSegmentationEvaluator,
)


class LookupLink(kusari.Link):
    """predict() answers from a table keyed by the image's first pixel."""

    def __init__(self, answers):
        super().__init__()
        self.answers = answers
        self.calls = 0

    def predict(self, imgs):
        self.calls += 1
        outs = [self.answers[int(img[0, 0, 0])] for img in imgs]
        if isinstance(outs[0], tuple):
            return tuple(list(x) for x in zip(*outs))
        return outs


def _img(i, h=40, w=50):
    img = np.zeros((3, h, w), np.float32)
    img[0, 0, 0] = i
    return img


def _detection_data(n=5, seed=0):
    rng = np.random.default_rng(seed)
    dataset, answers = [], {}
    for i in range(n):
        tl = rng.uniform(0, 20, (3, 2))
        gt = np.concatenate((tl, tl + rng.uniform(5, 20, (3, 2))), 1).astype(np.float32)
        gl = rng.integers(0, 3, 3).astype(np.int32)
        difficult = np.array([False, False, i == 2])
        pred = (gt + rng.normal(0, 2, gt.shape)).astype(np.float32)
        answers[i] = (pred, gl.copy(), rng.uniform(size=3).astype(np.float32))
        dataset.append((_img(i), gt, gl, difficult))
    return dataset, answers


def test_detection_voc_evaluator_reports_map_and_names():
    dataset, answers = _detection_data()
    link = LookupLink(answers)
    it = SerialIterator(dataset, 2, repeat=False, shuffle=False)
    ev = DetectionVOCEvaluator(it, link, label_names=("a", "b", "c", "d"))
    result = ev()
    expected = eval_detection_voc(
        [answers[i][0] for i in range(5)],
        [answers[i][1] for i in range(5)],
        [answers[i][2] for i in range(5)],
        [d[1] for d in dataset],
        [d[2] for d in dataset],
        [d[3] for d in dataset],
    )
    assert result["main/map"] == pytest.approx(expected["map"])
    for lbl, name in enumerate("abc"):
        np.testing.assert_allclose(result[f"main/ap/{name}"], expected["ap"][lbl])
    assert np.isnan(result["main/ap/d"])
    assert link.calls == 3
    # A second call resets the iterator and gives the same numbers; under a
    # trainer the extension's name prefixes the keys.
    ev.name = "validation"
    assert ev()["validation/main/map"] == pytest.approx(expected["map"])


def test_detection_voc_evaluator_without_difficult_and_07():
    dataset, answers = _detection_data(seed=1)
    dataset = [d[:3] for d in dataset]
    it = SerialIterator(dataset, 3, repeat=False, shuffle=False)
    result = DetectionVOCEvaluator(it, LookupLink(answers), use_07_metric=True)()
    expected = eval_detection_voc(
        [answers[i][0] for i in range(5)],
        [answers[i][1] for i in range(5)],
        [answers[i][2] for i in range(5)],
        [d[1] for d in dataset],
        [d[2] for d in dataset],
        use_07_metric=True,
    )
    assert result["main/map"] == pytest.approx(expected["map"])
    assert list(result) == ["main/map"]


def test_detection_coco_evaluator():
    dataset, answers = _detection_data(seed=2)
    areas = [np.full(3, 50.0, np.float32) for _ in dataset]
    crowds = [np.zeros(3, bool) for _ in dataset]
    dataset = [d[:3] + (a, c) for d, a, c in zip(dataset, areas, crowds)]
    it = SerialIterator(dataset, 2, repeat=False, shuffle=False)
    result = DetectionCOCOEvaluator(
        it, LookupLink(answers), label_names=("a", "b", "c")
    )()
    expected = eval_detection_coco(
        [answers[i][0] for i in range(5)],
        [answers[i][1] for i in range(5)],
        [answers[i][2] for i in range(5)],
        [d[1] for d in dataset],
        [d[2] for d in dataset],
        areas,
        crowds,
    )
    key = "map/iou=0.50:0.95/area=all/max_dets=100"
    assert result["main/" + key] == pytest.approx(expected[key])
    assert "main/mar/iou=0.50:0.95/area=small/max_dets=100" in result
    assert result["main/ap/iou=0.50/area=all/max_dets=100/b"] == pytest.approx(
        expected["ap/iou=0.50/area=all/max_dets=100"][1]
    )


def test_semantic_segmentation_evaluator():
    rng = np.random.default_rng(0)
    dataset, answers = [], {}
    for i in range(4):
        gt = rng.integers(-1, 3, (40, 50)).astype(np.int32)
        pred = np.where(rng.uniform(size=gt.shape) < 0.7, np.maximum(gt, 0), 1)
        answers[i] = pred.astype(np.int32)
        dataset.append((_img(i), gt))
    it = SerialIterator(dataset, 3, repeat=False, shuffle=False)
    result = SemanticSegmentationEvaluator(it, LookupLink(answers), label_names="xyz")()
    conf = np.zeros((3, 3))
    for i, (_, gt) in enumerate(dataset):
        ok = gt >= 0
        np.add.at(conf, (gt[ok], answers[i][ok]), 1)
    iou = np.diag(conf) / (conf.sum(0) + conf.sum(1) - np.diag(conf))
    assert result["main/miou"] == pytest.approx(iou.mean())
    assert result["main/iou/y"] == pytest.approx(iou[1])
    assert result["main/pixel_accuracy"] == pytest.approx(
        np.diag(conf).sum() / conf.sum()
    )
    assert "main/class_accuracy/z" in result


def _mask_data():
    dataset, answers = [], {}
    for i in range(3):
        gt = np.zeros((2, 40, 50), bool)
        gt[0, 5:20, 5:20] = True
        gt[1, 25:35, 10 + i : 40] = True
        pred = gt.copy()
        pred[1, 25:30] = False  # half of the second mask
        answers[i] = (
            pred,
            np.array([0, 1], np.int32),
            np.array([0.9, 0.4], np.float32),
        )
        dataset.append((_img(i), gt, np.array([0, 1], np.int32)))
    return dataset, answers


def test_instance_segmentation_evaluators():
    dataset, answers = _mask_data()
    it = SerialIterator(dataset, 2, repeat=False, shuffle=False)
    voc = InstanceSegmentationVOCEvaluator(
        it, LookupLink(answers), label_names=("p", "q")
    )()
    expected = eval_instance_segmentation_voc(
        [a[0] for a in answers.values()],
        [a[1] for a in answers.values()],
        [a[2] for a in answers.values()],
        [d[1] for d in dataset],
        [d[2] for d in dataset],
    )
    assert voc["main/map"] == pytest.approx(expected["map"])
    assert voc["main/ap/p"] == pytest.approx(1.0)
    it = SerialIterator(dataset, 2, repeat=False, shuffle=False)
    coco = InstanceSegmentationCOCOEvaluator(it, LookupLink(answers))()
    # Class 0 is perfect; class 1's masks have IoU 0.5: AP 1 at IoU 0.50 only.
    assert coco["main/map/iou=0.50/area=all/max_dets=100"] == pytest.approx(1.0)
    assert coco["main/map/iou=0.50:0.95/area=all/max_dets=100"] == pytest.approx(
        (1.0 + 0.1) / 2
    )


def test_wrong_sample_layout():
    dataset = [(_img(0), np.zeros((0, 4), np.float32))]
    it = SerialIterator(dataset, 1, repeat=False, shuffle=False)
    answers = {
        0: (
            np.zeros((0, 4), np.float32),
            np.zeros(0, np.int32),
            np.zeros(0, np.float32),
        )
    }
    with pytest.raises(
        ValueError, match="DetectionVOCEvaluator: the dataset must give 2 or 3"
    ):
        DetectionVOCEvaluator(it, LookupLink(answers))()


def test_detection_vis_report(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    from kusari_cv.extensions import DetectionVisReport

    dataset, answers = _detection_data(n=3)
    it = SerialIterator(dataset, 2, repeat=False, shuffle=False)

    class FakeTrainer:
        out = str(tmp_path)

        class updater:
            iteration = 7

    DetectionVisReport(it, LookupLink(answers), label_names=("a", "b", "c"))(
        FakeTrainer
    )
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"detection_iter=7_idx={i}.jpg" for i in range(3)]
    with Image.open(tmp_path / names[0]) as img:
        assert img.format == "JPEG" and img.size[0] > 100
        # Something other than white was drawn (image and red boxes).
        assert len(img.getcolors(1 << 20)) > 10


def test_detection_voc_evaluator_with_workers(thread_comms, run_workers):
    dataset, answers = _detection_data(n=6, seed=3)
    comms = thread_comms(3)
    links = [LookupLink(answers) for _ in comms]
    worker_results = []
    threads = run_workers(
        comms,
        lambda c: worker_results.append(
            DetectionVOCEvaluator(None, links[c.rank], comm=c)()
        ),
    )
    it = SerialIterator(dataset, 3, repeat=False, shuffle=False)
    result = DetectionVOCEvaluator(it, links[0], comm=comms[0])()
    for t in threads:
        t.join(timeout=30)
    single = DetectionVOCEvaluator(
        SerialIterator(dataset, 3, repeat=False, shuffle=False), LookupLink(answers)
    )()
    assert result["main/map"] == pytest.approx(single["main/map"])
    assert worker_results == [{}, {}]
    assert all(link.calls == 2 for link in links)  # 2 batches, one share each
