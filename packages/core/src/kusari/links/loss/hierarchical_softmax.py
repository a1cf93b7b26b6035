"""Hierarchical softmax over a binary tree (``BinaryHierarchicalSoftmax``)."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from typing import Any

import numpy

import kusari
from kusari import backend, initializers, link, variable
from kusari.functions.activation import softplus as softplus_module
from kusari.functions.array import reshape as reshape_module
from kusari.functions.connection import embed_id as embed_id_module
from kusari.functions.math import matmul as matmul_module
from kusari.functions.math import sum as sum_module


class TreeParser:
    """Walks a binary tree of nested pairs and records, for every leaf, the
    internal nodes on its path (numbered depth-first) and the branch codes
    (+1 left, -1 right)."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype
        self.next_id = 0
        self.paths: dict[Any, Any] = {}
        self.codes: dict[Any, Any] = {}

    def size(self) -> int:
        """Number of internal nodes."""
        return self.next_id

    def get_paths(self) -> dict[Any, Any]:
        return self.paths

    def get_codes(self) -> dict[Any, Any]:
        return self.codes

    def parse(self, tree: Any) -> None:
        self.next_id = 0
        self.paths = {}
        self.codes = {}
        path: list[int] = []
        code: list[float] = []
        stack: list[tuple[Any, int]] = [(tree, 0)]
        # Iterative depth-first walk (deep Huffman trees exceed the
        # recursion limit): state 0 = enter, 1 = after left, 2 = after right.
        while stack:
            node, state = stack.pop()
            if not isinstance(node, tuple):
                self.paths[node] = numpy.array(path, dtype=numpy.int32)
                self.codes[node] = numpy.array(code, dtype=self.dtype)
                continue
            if len(node) != 2:
                raise ValueError(
                    "BinaryHierarchicalSoftmax: all internal nodes must have two "
                    f"children, got {len(node)}"
                )
            if state == 0:
                path.append(self.next_id)
                self.next_id += 1
                code.append(1.0)
                stack.append((node, 1))
                stack.append((node[0], 0))
            elif state == 1:
                code[-1] = -1.0
                stack.append((node, 2))
                stack.append((node[1], 0))
            else:
                path.pop()
                code.pop()


class BinaryHierarchicalSoftmax(link.Link):
    """Hierarchical softmax layer over a binary tree (Morin & Bengio, 2005).

    Each word is a leaf; its probability is the product of
    ``sigmoid(code * W[node] . x)`` over the internal nodes on its path. The
    loss is the negative log-likelihood summed over the batch.

    Args:
        in_size: Dimension of the input vectors.
        tree: The tree as nested pairs ``((w0, w1), w2)`` whose leaves are
            the word ids (e.g. from :meth:`create_huffman_tree`).
        dtype: Dtype of ``W`` and of the codes.

    Attributes:
        W: One weight vector per internal node, shape ``(n_nodes, in_size)``,
            uniform in ``[-1, 1)`` at first.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(
        ...     {0: 8, 1: 5, 2: 2, 3: 1})
        >>> tree
        (0, ((3, 2), 1))
        >>> hsm = L.BinaryHierarchicalSoftmax(3, tree)
        >>> hsm.W.shape
        (3, 3)
        >>> hsm(np.ones((2, 3), np.float32), np.array([0, 3], np.int32)).shape
        ()
    """

    def __init__(self, in_size: int, tree: Any, dtype: Any = None) -> None:
        super().__init__()
        dtype = numpy.dtype(kusari.get_dtype(dtype))
        parser = TreeParser(dtype)
        parser.parse(tree)
        paths = parser.get_paths()
        codes = parser.get_codes()
        for leaf in paths:
            if not isinstance(leaf, (int, numpy.integer)) or leaf < 0:
                raise ValueError(
                    "BinaryHierarchicalSoftmax: leaves must be non-negative int "
                    f"word ids, got {leaf!r}"
                )
        n_vocab = max(paths) + 1
        begins = numpy.zeros((n_vocab + 1,), numpy.int32)
        for i in range(n_vocab):
            begins[i + 1] = begins[i] + (len(paths[i]) if i in paths else 0)
        # Flat layout: word i's nodes and codes are paths/codes[begins[i]:begins[i+1]].
        self.paths = numpy.concatenate([paths[i] for i in range(n_vocab) if i in paths])
        self.codes = numpy.concatenate([codes[i] for i in range(n_vocab) if i in codes])
        self.begins = begins
        self.n_vocab = n_vocab
        self.parser_size = parser.size()
        with self.init_scope():
            self.W = variable.Parameter(
                initializers.Uniform(1, dtype), (self.parser_size, in_size)
            )

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.W.shape[1]
        yield "n_vocab", self.n_vocab

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        for name in ("paths", "codes", "begins"):
            setattr(self, name, visitor.visit_array(getattr(self, name)))

    @staticmethod
    def create_huffman_tree(word_counts: Mapping[Any, Any]) -> Any:
        """Build a Huffman tree from ``{word: count}``.

        The two least frequent entries are merged repeatedly (ties broken by
        insertion order); the result is nested pairs usable as ``tree``.

        Raises:
            ValueError: If ``word_counts`` is empty.
        """
        if len(word_counts) == 0:
            raise ValueError("BinaryHierarchicalSoftmax: empty vocabulary")
        heap: list[tuple[Any, int, Any]] = [
            (count, uid, word) for uid, (word, count) in enumerate(word_counts.items())
        ]
        heapq.heapify(heap)
        while len(heap) >= 2:
            count1, id1, word1 = heapq.heappop(heap)
            count2, _, word2 = heapq.heappop(heap)
            heapq.heappush(heap, (count1 + count2, id1, (word1, word2)))
        return heap[0][2]

    def forward(self, x: Any, t: Any) -> Any:
        """Negative log-likelihood of the words ``t`` given ``x``, summed.

        Args:
            x: Input vectors, shape ``(N, in_size)``.
            t: Integer word ids, shape ``(N,)``.
        """
        t_arr = getattr(t, "array", t)
        if len(x.shape) != 2 or t_arr.ndim != 1 or t_arr.shape[0] != x.shape[0]:
            raise ValueError(
                "BinaryHierarchicalSoftmax: x must be (N, in_size) and t (N,), got "
                f"{tuple(x.shape)} and {tuple(t_arr.shape)}"
            )
        if t_arr.dtype.kind not in "iu":
            raise TypeError(
                f"BinaryHierarchicalSoftmax: t must be integer, got {t_arr.dtype}"
            )
        xp = backend.get_array_module(self.begins)
        t_arr = xp.asarray(t_arr)
        if t_arr.size and (int(t_arr.min()) < 0 or int(t_arr.max()) >= self.n_vocab):
            raise ValueError(
                f"BinaryHierarchicalSoftmax: word ids must be in [0, {self.n_vocab})"
            )
        n, d = x.shape
        begin = self.begins[t_arr]
        lengths = self.begins[t_arr + 1] - begin
        length = max(1, int(lengths.max())) if n else 1
        steps = xp.arange(length, dtype=numpy.int32)
        mask = steps[None, :] < lengths[:, None]
        flat = xp.where(mask, begin[:, None] + steps[None, :], 0)
        node_ids = self.paths[flat]
        codes = xp.where(mask, self.codes[flat], 0).astype(self.codes.dtype)
        w = embed_id_module.embed_id(node_ids, self.W)  # (N, L, D)
        x3 = reshape_module.reshape(x, (n, d, 1))
        wx = reshape_module.reshape(matmul_module.matmul(w, x3), (n, length))
        loss = softplus_module.softplus(wx * -codes) * mask.astype(codes.dtype)
        return sum_module.sum(loss)
