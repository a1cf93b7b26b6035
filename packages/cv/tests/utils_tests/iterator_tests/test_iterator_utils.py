import gc
import io

import numpy as np
import pytest

from kusari.iterators import SerialIterator
from kusari_cv.utils import ProgressHook, apply_to_iterator, unzip


def test_unzip_is_lazy_and_buffers():
    pulled = []

    def source():
        for i in range(4):
            pulled.append(i)
            yield i, str(i), -i

    a, b, c = unzip(source())
    assert pulled == [0]
    assert next(b) == "0"
    assert [next(a) for _ in range(3)] == [0, 1, 2]
    assert pulled == [0, 1, 2]
    assert list(b) == ["1", "2", "3"]
    assert list(a) == [3] and list(c) == [0, -1, -2, -3]


def test_unzip_drops_deleted_outputs():
    a, b = unzip((i, np.zeros(10)) for i in range(5))
    del b
    gc.collect()
    assert list(a) == [0, 1, 2, 3, 4]


def test_unzip_empty_and_ragged():
    assert unzip(iter([])) == ()
    a, b = unzip(iter([(1, 2), (3,)]))
    next(a)
    with pytest.raises(ValueError, match="unzip: every item must have 2 elements"):
        next(a)


def test_apply_to_iterator():
    data = [(np.full((1, 2, 2), i), i * 10, "x" * i) for i in range(5)]
    it = SerialIterator(data, 2, repeat=False, shuffle=False)
    batches = []

    def func(imgs):
        batches.append(len(imgs))
        return [img.sum() for img in imgs], [img.mean() for img in imgs]

    hook_calls = []
    ins, outs, rests = apply_to_iterator(
        func, it, hook=lambda i, o, r: hook_calls.append((len(i[0]), len(o), len(r)))
    )
    assert len(ins) == 1 and len(outs) == 2 and len(rests) == 2
    assert list(outs[0]) == [0, 4, 8, 12, 16]
    assert list(outs[1]) == [0, 1, 2, 3, 4]
    assert list(rests[0]) == [0, 10, 20, 30, 40]
    assert list(rests[1]) == ["", "x", "xx", "xxx", "xxxx"]
    assert [img[0, 0, 0] for img in ins[0]] == [0, 1, 2, 3, 4]
    assert batches == [2, 2, 1]
    assert hook_calls == [(2, 2, 2), (2, 2, 2), (1, 2, 2)]


def test_apply_to_iterator_n_input_and_plain_samples():
    it = SerialIterator([(1, 2, 3), (4, 5, 6)], 2, repeat=False, shuffle=False)
    ins, outs, rests = apply_to_iterator(
        lambda a, b: [x + y for x, y in zip(a, b)], it, n_input=2
    )
    assert list(outs[0]) == [3, 9] and list(rests[0]) == [3, 6]
    it = SerialIterator([1, 2, 3], 2, repeat=False, shuffle=False)
    ins, outs, rests = apply_to_iterator(lambda xs: [x * 2 for x in xs], it)
    assert list(outs[0]) == [2, 4, 6] and rests == ()


def test_apply_to_iterator_checks_output_length():
    it = SerialIterator([1, 2], 2, repeat=False, shuffle=False)
    with pytest.raises(
        ValueError, match="apply_to_iterator: func must return one value"
    ):
        apply_to_iterator(lambda xs: [0], it)


def test_progress_hook():
    stream = io.StringIO()
    hook = ProgressHook(n_total=4, stream=stream)
    it = SerialIterator(list(range(4)), 3, repeat=False, shuffle=False)
    _, outs, _ = apply_to_iterator(lambda xs: xs, it, hook=hook)
    list(outs[0])
    text = stream.getvalue()
    assert "3 of 4 samples, 75.00%" in text and "4 of 4 samples, 100.00%" in text
    assert "samples/sec" in text


@pytest.mark.parametrize("size", [2, 3])
def test_apply_to_iterator_spreads_batches_over_workers(
    size, thread_comms, run_workers
):
    comms = thread_comms(size)
    shares = []

    def func(xs, ys):
        shares.append(len(xs))
        return [x + y for x, y in zip(xs, ys)], [x * y for x, y in zip(xs, ys)]

    returned = []
    threads = run_workers(
        comms, lambda c: returned.append(apply_to_iterator(func, None, 2, comm=c))
    )
    data = [(i, 10 * i, str(i)) for i in range(11)]
    it = SerialIterator(data, 4, repeat=False, shuffle=False)
    ins, outs, rests = apply_to_iterator(func, it, 2, comm=comms[0])
    assert list(outs[0]) == [11 * i for i in range(11)]
    assert list(outs[1]) == [10 * i * i for i in range(11)]
    assert list(rests[0]) == [str(i) for i in range(11)]
    assert list(ins[1]) == [10 * i for i in range(11)]
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive()
    assert returned == [None] * (size - 1)
    # Every sample was computed once, in shares of about batch / size.
    assert sum(shares) == 11 and max(shares) <= -(-4 // size)
