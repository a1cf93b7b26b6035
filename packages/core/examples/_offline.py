"""Small generated stand-ins for datasets that cannot be downloaded offline."""

from __future__ import annotations

import numpy as np

from kusari.datasets import TupleDataset


def synthetic_digits(
    n_train: int = 6000, n_test: int = 1000, seed: int = 0, ndim: int = 1
) -> tuple[TupleDataset, TupleDataset]:
    """Ten classes of noisy 28x28 strokes, shaped like MNIST (float32 in [0, 1]).

    Each class is a fixed random pattern of a few thick strokes; examples add
    a random shift and pixel noise, so a model has something real to learn.
    """
    rng = np.random.default_rng(seed)
    protos = np.zeros((10, 28, 28), np.float32)
    for c in range(10):
        for _ in range(3):
            r0, c0, r1, c1 = rng.integers(4, 24, 4)
            n = 40
            rr = np.linspace(r0, r1, n).astype(int)
            cc = np.linspace(c0, c1, n).astype(int)
            for dr in (-1, 0, 1):
                protos[c, np.clip(rr + dr, 0, 27), cc] = 1.0

    def make(n: int) -> TupleDataset:
        labels = rng.integers(0, 10, n).astype(np.int32)
        images = np.empty((n, 28, 28), np.float32)
        for i, c in enumerate(labels):
            shifted = np.roll(protos[c], tuple(rng.integers(-2, 3, 2)), axis=(0, 1))
            images[i] = np.clip(shifted + rng.normal(0, 0.3, (28, 28)), 0, 1)
        x = images.reshape(n, -1) if ndim == 1 else images[:, None]
        return TupleDataset(x, labels)

    return make(n_train), make(n_test)


def synthetic_images(
    n_train: int = 2000, n_test: int = 500, n_class: int = 10, seed: int = 0
) -> tuple[TupleDataset, TupleDataset]:
    """CIFAR-shaped (3x32x32 float32 in [0, 1]) images of ten textured classes.

    Each class has its own colour and stripe orientation/frequency, plus noise
    and a random phase, so convolutions have real structure to find.
    """
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32)
    colours = rng.uniform(0.2, 1.0, (n_class, 3)).astype(np.float32)
    angles = np.linspace(0, np.pi, n_class, endpoint=False)
    freqs = rng.uniform(0.3, 0.9, n_class)

    def make(n: int) -> TupleDataset:
        labels = rng.integers(0, n_class, n).astype(np.int32)
        phase = rng.uniform(0, 2 * np.pi, n).astype(np.float32)
        images = np.empty((n, 3, 32, 32), np.float32)
        for i, c in enumerate(labels):
            wave = np.sin(
                freqs[c] * (np.cos(angles[c]) * xx + np.sin(angles[c]) * yy) + phase[i]
            )
            img = colours[c][:, None, None] * (0.5 + 0.5 * wave)[None]
            images[i] = np.clip(img + rng.normal(0, 0.15, img.shape), 0, 1)
        return TupleDataset(images, labels)

    return make(n_train), make(n_test)


def synthetic_corpus(
    n_words: int = 60000, vocab_size: int = 200, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """A word-id corpus from a random bigram model with strong structure.

    Returns (train, valid, test, vocab) like ``get_ptb_words`` plus a vocab
    dict. Each word has a few likely successors, so a language model can
    reach a perplexity far below the vocabulary size.
    """
    rng = np.random.default_rng(seed)
    successors = rng.integers(0, vocab_size, (vocab_size, 3))
    words = np.empty(n_words, np.int32)
    w = 0
    for i in range(n_words):
        words[i] = w
        w = (
            successors[w, rng.integers(0, 3)]
            if rng.random() < 0.9
            else rng.integers(0, vocab_size)
        )
    vocab = {f"w{i}": i for i in range(vocab_size)}
    a, b = int(n_words * 0.8), int(n_words * 0.9)
    return words[:a], words[a:b], words[b:], vocab


def synthetic_translation(
    n_pairs: int = 3000, vocab: int = 30, max_len: int = 8, seed: int = 0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs (source, target): the target is the source reversed with each
    token mapped by a fixed permutation. Ids 0 and 1 are reserved (EOS/UNK)."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(vocab - 2) + 2
    pairs = []
    for _ in range(n_pairs):
        n = int(rng.integers(2, max_len + 1))
        src = rng.integers(2, vocab, n).astype(np.int32)
        pairs.append((src, perm[src[::-1] - 2].astype(np.int32)))
    return pairs


def synthetic_trees(
    n_trees: int = 600, vocab: int = 20, max_depth: int = 4, seed: int = 0
) -> list[dict]:
    """Binary parse trees with a sentiment label at every node.

    Leaves carry a word whose polarity is positive (even id) or negative (odd
    id); an inner node's label is the sign of its children's summed polarity,
    with word 1 acting as a negation ("not") on its sibling.
    """
    rng = np.random.default_rng(seed)

    def leaf() -> dict:
        w = int(rng.integers(0, vocab))
        return {"word": w, "score": (1 if w % 2 == 0 else -1) if w != 1 else 0}

    def build(depth: int) -> dict:
        if depth == 0 or rng.random() < 0.3:
            node = leaf()
        else:
            left, right = build(depth - 1), build(depth - 1)
            if left.get("word") == 1:
                score = -right["score"]
            else:
                score = left["score"] + right["score"]
            node = {"children": (left, right), "score": score}
        node["label"] = int(node["score"] > 0)
        return node

    return [build(max_depth) for _ in range(n_trees)]
