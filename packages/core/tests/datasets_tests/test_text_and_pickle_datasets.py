import io
import pickle

import pytest

from kusari.datasets import (
    PickleDataset,
    PickleDatasetWriter,
    TextDataset,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from kusari.iterators import MultiprocessIterator


def test_text_dataset_single(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("one\ntwo\nthree\n")
    d = TextDataset(str(p))
    assert len(d) == 3 and d[1] == "two\n" and d[-1] == "three\n"
    with pytest.raises(IndexError):
        d[3]
    d.close()


def test_text_dataset_parallel_and_filter(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("x\n\ny\n")
    b.write_text("1\n2\n3\n")
    d = TextDataset([str(a), str(b)], filter_func=lambda s, t: s.strip() != "")
    assert len(d) == 2 and d[1] == ("y\n", "3\n")
    d.close()
    b.write_text("1\n")
    with pytest.raises(ValueError, match="different numbers of lines"):
        TextDataset([str(a), str(b)])


def test_text_dataset_options(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes("é\r\nz\r\n".encode("latin-1"))
    d = TextDataset(str(p), encoding="latin-1", newline="")
    assert d[0] == "é\r\n"
    d.close()
    with pytest.raises(ValueError, match="encoding has 2"):
        TextDataset(str(p), encoding=["utf-8", "utf-8"])
    with pytest.raises(ValueError, match="at least one"):
        TextDataset([])


def test_text_dataset_in_worker_processes(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("".join(f"{i}\n" for i in range(10)))
    d = TextDataset(str(p))
    with MultiprocessIterator(d, 5, repeat=False, shuffle=False, n_processes=2) as it:
        batches = list(it)
    assert batches[1] == [f"{i}\n" for i in range(5, 10)]
    d.close()


def test_pickle_dataset_round_trip():
    buf = io.BytesIO()
    w = PickleDatasetWriter(buf, protocol=pickle.DEFAULT_PROTOCOL)
    for i in range(4):
        w.write({"i": i})
    w.flush()
    d = PickleDataset(buf)
    assert len(d) == 4 and d[2] == {"i": 2} and d[1:3] == [{"i": 1}, {"i": 2}]


def test_pickle_dataset_files(tmp_path):
    path = tmp_path / "d.pkl"
    with open_pickle_dataset_writer(path) as w:
        w.write("a")
        w.write([1, 2])
    with open_pickle_dataset(path) as d:
        assert list(d) == ["a", [1, 2]]
        clone = pickle.loads(pickle.dumps(d))
        assert clone[1] == [1, 2]
        clone.close()


def test_pickle_dataset_needs_seekable():
    class NoSeek(io.BytesIO):
        def seekable(self):
            return False

    with pytest.raises(ValueError, match="seek"):
        PickleDataset(NoSeek())
