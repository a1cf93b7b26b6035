import re
import shutil
import subprocess

import numpy
import pytest

from kusari import computational_graph as cg
from kusari.function_node import FunctionNode
from kusari.variable import Variable

_NODE = re.compile(r'(\d+) \[((?:\w+="(?:[^"\\]|\\.)*",?)*)\];')
_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
_EDGE = re.compile(r"(\d+) -> (\d+);")


def parse(dot):
    """Returns ({id: {attr: value}}, [(head, tail)], rankdir) of a dump."""
    match = re.fullmatch(r"digraph graphname\{rankdir=(\w+);(.*)\}", dot)
    assert match, dot
    body = match.group(2)
    nodes = {int(i): dict(_ATTR.findall(attrs)) for i, attrs in _NODE.findall(body)}
    edges = [(int(h), int(t)) for h, t in _EDGE.findall(body)]
    rest = _EDGE.sub("", _NODE.sub("", body))
    assert rest == "", f"unparsed dot text: {rest!r}"
    return nodes, edges, match.group(1)


def var(values, name=None):
    return Variable(numpy.asarray(values, dtype=numpy.float32), name=name)


@pytest.fixture
def graph():
    """y = (x * w) + x: x feeds two functions."""
    x, w = var([1.0, 2.0], "x"), var([3.0, 4.0], "w")
    h = x * w
    y = h + x
    y.name = "y"
    return {"x": x, "w": w, "h": h, "y": y}


def by_label(nodes, label):
    return [i for i, attrs in nodes.items() if attrs["label"] == label]


def test_structure(graph):
    g = cg.build_computational_graph([graph["y"]])
    x, w, h, y = (graph[k].node for k in "xwhy")
    mul, add = h.creator_node, y.creator_node
    assert {id(n) for n in g.nodes} == {id(n) for n in (x, w, h, y, mul, add)}
    edges = {(id(a), id(b)) for a, b in g.edges}
    assert edges == {
        (id(x), id(mul)),
        (id(w), id(mul)),
        (id(mul), id(h)),
        (id(h), id(add)),
        (id(x), id(add)),
        (id(add), id(y)),
    }


def test_dot_output(graph):
    nodes, edges, rankdir = parse(cg.build_computational_graph(graph["y"]).dump())
    assert rankdir == "TB"
    assert len(nodes) == 6 and len(edges) == 6
    x_id = by_label(nodes, "x: (2), float32")
    assert x_id == [id(graph["x"].node)]
    assert by_label(nodes, "y: (2), float32") == [id(graph["y"].node)]
    assert nodes[x_id[0]]["shape"] == "octagon"
    assert nodes[x_id[0]]["fillcolor"] == "#E0E0E0"
    func_ids = [i for i, a in nodes.items() if a["shape"] == "record"]
    assert len(func_ids) == 2
    assert all(nodes[i]["fillcolor"] == "#6495ED" for i in func_ids)
    # Every edge joins a variable and a function.
    for head, tail in edges:
        assert (head in func_ids) != (tail in func_ids)
    assert len(set(edges)) == len(edges)


def test_show_name_false(graph):
    nodes, _, _ = parse(
        cg.build_computational_graph(graph["y"], show_name=False).dump()
    )
    assert len(by_label(nodes, "(2), float32")) == 4


@pytest.mark.parametrize("rankdir", ["TB", "BT", "LR", "RL"])
def test_rankdir(graph, rankdir):
    dot = cg.build_computational_graph(graph["y"], rankdir=rankdir).dump()
    assert parse(dot)[2] == rankdir


def test_bad_rankdir(graph):
    with pytest.raises(ValueError, match="rankdir must be one of TB, BT, LR, RL"):
        cg.build_computational_graph(graph["y"], rankdir="XY")


def test_custom_and_no_styles(graph):
    dot = cg.build_computational_graph(
        graph["y"], variable_style={"shape": "box", "color": "red"}, function_style=None
    ).dump()
    nodes, _, _ = parse(dot)
    variables = [a for a in nodes.values() if "float32" in a["label"]]
    functions = [a for a in nodes.values() if "float32" not in a["label"]]
    assert all(a["shape"] == "box" and a["color"] == "red" for a in variables)
    # Without a style a function keeps the plain DotNode defaults.
    assert all(set(a) == {"label", "shape"} and a["shape"] == "box" for a in functions)


def test_bad_style(graph):
    with pytest.raises(ValueError, match="a style must be a dict, None or 'default'"):
        cg.build_computational_graph(graph["y"], variable_style="fancy")


def test_remove_variable(graph):
    g = cg.build_computational_graph(graph["y"], remove_variable=True)
    nodes, edges, _ = parse(g.dump())
    mul, add = graph["h"].creator_node, graph["y"].creator_node
    assert set(nodes) == {id(mul), id(add)}
    assert edges == [(id(mul), id(add))]


def test_accepts_single_variable_node_and_function_node(graph):
    from_var = cg.build_computational_graph(graph["y"])
    from_node = cg.build_computational_graph(graph["y"].node)
    from_func = cg.build_computational_graph(graph["y"].creator_node)
    assert len(from_var.nodes) == len(from_node.nodes) == 6
    assert len(from_func.nodes) == 5  # y itself is not reached


def test_leaf_output_is_a_single_node():
    x = var([1.0], "x")
    nodes, edges, _ = parse(cg.build_computational_graph([x]).dump())
    assert list(nodes) == [id(x.node)] and edges == []


def test_deep_chain_visits_each_function_once():
    x = var([1.0])
    y = x
    for _ in range(50):
        y = y * 2 + y
    g = cg.build_computational_graph([y])
    functions = [n for n in g.nodes if isinstance(n, FunctionNode)]
    assert len(functions) == 100
    assert len(g.edges) == len({(id(a), id(b)) for a, b in g.edges})


def test_multiple_outputs_share_graph(graph):
    g = cg.build_computational_graph([graph["y"], graph["h"]])
    assert len(g.nodes) == 6


def test_errors(graph):
    with pytest.raises(ValueError, match="remove_split=False is not supported"):
        cg.build_computational_graph(graph["y"], remove_split=False)
    with pytest.raises(TypeError, match="got ndarray"):
        cg.build_computational_graph([graph["y"], numpy.zeros(1)])
    with pytest.raises(NotImplementedError, match="only dot format is supported"):
        cg.build_computational_graph(graph["y"]).dump(format="png")
    with pytest.raises(TypeError, match="needs a VariableNode or a FunctionNode"):
        cg.DotNode(graph["y"])


def test_edge_between_two_variables_rejected(graph):
    x, w = graph["x"].node, graph["w"].node
    g = cg.ComputationalGraph([x, w], [(x, w)])
    with pytest.raises(TypeError, match="must join a VariableNode and a FunctionNode"):
        g.dump()


def test_dot_node_label_escapes_quotes():
    v = var([1.0], 'a "quoted" name')
    label = cg.DotNode(v.node).label
    assert label.startswith(f"{id(v.node)} [")
    assert '\\"quoted\\"' in label
    nodes, _, _ = parse(f"digraph graphname{{rankdir=TB;{label}}}")
    assert nodes[id(v.node)]["label"] == 'a \\"quoted\\" name: (1), float32'


def test_repr(graph):
    g = cg.build_computational_graph(graph["y"])
    assert repr(g) == "ComputationalGraph(nodes=6, edges=6, rankdir='TB')"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_renders_with_graphviz(graph, tmp_path):
    source = tmp_path / "g.dot"
    source.write_text(cg.build_computational_graph(graph["y"]).dump())
    out = tmp_path / "g.svg"
    subprocess.run(["dot", "-Tsvg", str(source), "-o", str(out)], check=True)
    assert out.read_text().lstrip().startswith("<?xml")
