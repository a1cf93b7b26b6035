"""Export of the computational graph behind some outputs as Graphviz dot.

Example:
    >>> import numpy, kusari
    >>> x = kusari.Variable(numpy.ones(3, dtype='f'), name='x')
    >>> y = x * 2 + 1
    >>> dot = build_computational_graph([y]).dump()
    >>> dot.startswith('digraph graphname{rankdir=TB;')
    True
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from kusari.function_node import FunctionNode
from kusari.variable import Variable, VariableNode

Node = VariableNode | FunctionNode
Style = Mapping[str, Any] | None

_DEFAULT_VARIABLE_STYLE = {
    "shape": "octagon",
    "fillcolor": "#E0E0E0",
    "style": "filled",
}
_DEFAULT_FUNCTION_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}
_RANKDIRS = ("TB", "BT", "LR", "RL")


def _quote(value: Any) -> str:
    # Labels hold user names and shapes; escape what would end the dot string.
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


class DotNode:
    """One node of the dot output: an id and its attributes.

    Args:
        node: The variable node or function node to draw.
        attribute: Extra dot attributes (they override the defaults).
        show_name: Prefix the label of a named variable with its name.

    Example:
        >>> import numpy, kusari
        >>> v = kusari.Variable(numpy.zeros(2, dtype='f'), name='v')
        >>> DotNode(v.node).attribute['label']
        'v: (2), float32'
    """

    node: Node
    id_: int
    attribute: dict[str, Any]

    def __init__(
        self, node: Node, attribute: Style = None, show_name: bool = True
    ) -> None:
        if not isinstance(node, (VariableNode, FunctionNode)):
            raise TypeError(
                "DotNode needs a VariableNode or a FunctionNode, got "
                f"{type(node).__name__}"
            )
        self.node = node
        self.id_ = id(node)
        self.attribute = {"label": node.label}
        if isinstance(node, VariableNode):
            if show_name and node.name is not None:
                self.attribute["label"] = f"{node.name}: {node.label}"
            self.attribute["shape"] = "oval"
        else:
            self.attribute["shape"] = "box"
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The dot statement declaring this node, e.g. ``123 [label="..."];``."""
        attributes = ",".join(
            f"{key}={_quote(value)}" for key, value in sorted(self.attribute.items())
        )
        return f"{self.id_} [{attributes}];"


class ComputationalGraph:
    """Nodes and edges of a graph, printable as dot by :meth:`dump`.

    Usually made by :func:`build_computational_graph`.

    Args:
        nodes: Variable and function nodes.
        edges: ``(head, tail)`` pairs, each joining a variable node and a
            function node (in data-flow direction).
        variable_style: Dot attributes of variables; ``'default'`` for
            grey octagons, ``None`` for none.
        function_style: Dot attributes of functions; ``'default'`` for blue
            records, ``None`` for none.
        rankdir: Graph direction: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Draw functions only, joined directly.
        show_name: Prefix labels of named variables with the name.

    Raises:
        ValueError: For an unknown ``rankdir``.
    """

    def __init__(
        self,
        nodes: list[Node],
        edges: list[tuple[Node, Node]],
        variable_style: Style | str = "default",
        function_style: Style | str = "default",
        rankdir: str = "TB",
        remove_variable: bool = False,
        show_name: bool = True,
    ) -> None:
        if rankdir not in _RANKDIRS:
            raise ValueError(
                f"rankdir must be one of {', '.join(_RANKDIRS)}, got {rankdir!r}"
            )
        self.nodes = nodes
        self.edges = edges
        self.variable_style = _resolve_style(variable_style, _DEFAULT_VARIABLE_STYLE)
        self.function_style = _resolve_style(function_style, _DEFAULT_FUNCTION_STYLE)
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _to_dot(self) -> str:
        parts = [f"digraph graphname{{rankdir={self.rankdir};"]
        edges = self.edges
        if self.remove_variable:
            edges = _function_edges(self.edges)
        for node in self.nodes:
            if isinstance(node, VariableNode):
                if not self.remove_variable:
                    parts.append(
                        DotNode(node, self.variable_style, self.show_name).label
                    )
            else:
                parts.append(DotNode(node, self.function_style, self.show_name).label)
        drawn: set[tuple[int, int]] = set()
        for head, tail in edges:
            if not self.remove_variable and (
                isinstance(head, VariableNode) == isinstance(tail, VariableNode)
            ):
                raise TypeError(
                    "an edge must join a VariableNode and a FunctionNode, got "
                    f"{type(head).__name__} -> {type(tail).__name__}"
                )
            edge = (id(head), id(tail))
            if edge not in drawn:
                drawn.add(edge)
                parts.append(f"{edge[0]} -> {edge[1]};")
        parts.append("}")
        return "".join(parts)

    def dump(self, format: str = "dot") -> str:
        """The graph as text in ``format`` (only ``'dot'`` is supported).

        Raises:
            NotImplementedError: For any other format.
        """
        if format == "dot":
            return self._to_dot()
        raise NotImplementedError(
            f"Currently, only dot format is supported, got {format!r}"
        )

    def __repr__(self) -> str:
        return (
            f"ComputationalGraph(nodes={len(self.nodes)}, edges={len(self.edges)}, "
            f"rankdir={self.rankdir!r})"
        )


def _resolve_style(style: Style | str, default: dict[str, Any]) -> Style:
    if isinstance(style, str):
        if style != "default":
            raise ValueError(
                f"a style must be a dict, None or 'default', got {style!r}"
            )
        return dict(default)
    return style


def _function_edges(edges: list[tuple[Node, Node]]) -> list[tuple[Node, Node]]:
    """Function-to-function edges: each variable between two is bypassed."""
    result: list[tuple[Node, Node]] = []
    for head, tail in edges:
        if isinstance(head, VariableNode) and isinstance(tail, FunctionNode):
            creator = head.creator_node
            if creator is not None:
                result.append((creator, tail))
    return result


def build_computational_graph(
    outputs: Variable | VariableNode | FunctionNode | Iterable[Any],
    remove_split: bool = True,
    variable_style: Style | str = "default",
    function_style: Style | str = "default",
    rankdir: str = "TB",
    remove_variable: bool = False,
    show_name: bool = True,
) -> ComputationalGraph:
    """Collects the graph that produced ``outputs``, walking back to inputs.

    Nodes are visited from the highest rank down, so every function is
    reached once, with all its inputs.

    Args:
        outputs: Variables, variable nodes or function nodes (or one of them)
            to start from.
        remove_split: Must be True (kept for compatibility).
        variable_style: Dot attributes of variables (see
            :class:`ComputationalGraph`).
        function_style: Dot attributes of functions.
        rankdir: Graph direction: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Draw functions only.
        show_name: Prefix labels of named variables with the name.

    Returns:
        The :class:`ComputationalGraph`.

    Raises:
        ValueError: If ``remove_split`` is False.
        TypeError: If an output is not a Variable, VariableNode or FunctionNode.

    Example:
        >>> import numpy, kusari
        >>> x = kusari.Variable(numpy.ones(2, dtype='f'))
        >>> g = build_computational_graph(x * x)  # x feeds `*` twice: one edge
        >>> len(g.nodes), len(g.edges)
        (3, 2)
    """
    if not remove_split:
        raise ValueError("remove_split=False is not supported anymore")
    output_types = (Variable, VariableNode, FunctionNode)
    starts = [outputs] if isinstance(outputs, output_types) else list(outputs)
    for output in starts:
        if not isinstance(output, output_types):
            raise TypeError(
                "element of outputs must be either Variable, VariableNode, or "
                f"FunctionNode, got {type(output).__name__}"
            )

    counter = itertools.count()
    queue: list[tuple[int, int, Node]] = []
    nodes: dict[int, Node] = {}  # by id, in discovery order
    seen_edges: set[tuple[int, int]] = set()
    edges: list[tuple[Node, Node]] = []

    def push(node: Node) -> None:
        # Highest rank first; the counter breaks ties without comparing nodes.
        heapq.heappush(queue, (-node.rank, next(counter), node))

    def add_edge(head: Node, tail: Node) -> bool:
        key = (id(head), id(tail))
        if key in seen_edges:
            return False
        seen_edges.add(key)
        edges.append((head, tail))
        nodes.setdefault(id(head), head)
        nodes.setdefault(id(tail), tail)
        return True

    for output in starts:
        node = output.node if isinstance(output, Variable) else output
        nodes.setdefault(id(node), node)
        push(node)

    while queue:
        _, _, node = heapq.heappop(queue)
        if isinstance(node, VariableNode):
            creator = node.creator_node
            if creator is not None and add_edge(creator, node):
                push(creator)
        else:
            for input_node in node.inputs or ():
                if add_edge(input_node, node):
                    push(input_node)

    return ComputationalGraph(
        list(nodes.values()),
        edges,
        variable_style,
        function_style,
        rankdir,
        remove_variable,
        show_name,
    )
