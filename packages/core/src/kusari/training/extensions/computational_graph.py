"""DumpGraph: write the computational graph of a reported variable once."""

from __future__ import annotations

import os
import subprocess
from typing import Any

from kusari import computational_graph
from kusari.configuration import config
from kusari.training import extension
from kusari.utils.atomic import atomic_write
from kusari.variable import Variable


def is_graphviz_available() -> bool:
    """Whether Graphviz's ``dot`` command runs (``dot -V`` exits with 0).

    When it does, :class:`DumpGraph` also renders the dumped graph as a PNG
    next to the dot file, as Chainer does.
    """
    try:
        result = subprocess.run(
            ["dot", "-V"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


_var_style = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_func_style = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}


class DumpGraph(extension.Extension):
    """Dump the graph leading to ``observation[root_name]`` as a dot file at
    the first iteration (it turns ``keep_graph_on_report`` on until then),
    and as a PNG of the same name when :func:`is_graphviz_available`.

    Args:
        root_name: Observation key of the root variable (e.g. ``'main/loss'``).
        filename: Output file under ``trainer.out`` (``'cg.dot'``).
        variable_style: Dot attributes of variable nodes.
        function_style: Dot attributes of function nodes.
        out_name: Deprecated alias of ``filename``.
    """

    default_name = "dump_graph"
    priority = extension.PRIORITY_READER

    def __init__(
        self,
        root_name: str,
        filename: str | None = None,
        variable_style: dict[str, Any] | None = None,
        function_style: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        out_name = kwargs.pop("out_name", "cg.dot")
        if kwargs:
            raise TypeError(f"DumpGraph: unexpected arguments {sorted(kwargs)}")
        self._root_name = root_name
        self._filename = out_name if filename is None else filename
        self._variable_style = _var_style if variable_style is None else variable_style
        self._function_style = _func_style if function_style is None else function_style
        self._original_flag: bool | None = None
        self._flag_called = False

    def initialize(self, trainer: Any) -> None:
        if not self._flag_called:
            self._original_flag = bool(getattr(config, "keep_graph_on_report", False))
            config.keep_graph_on_report = True

    def trigger(self, trainer: Any) -> bool:
        return not self._flag_called

    def __call__(self, trainer: Any) -> None:
        if self._flag_called:
            return
        try:
            var = trainer.observation[self._root_name]
            if not isinstance(var, Variable):
                raise TypeError(
                    f"DumpGraph: observation[{self._root_name!r}] is a "
                    f"{type(var).__name__}, not a Variable"
                )
            graph = computational_graph.build_computational_graph(
                [var],
                variable_style=self._variable_style,
                function_style=self._function_style,
            ).dump()
            dot_path = os.path.join(trainer.out, self._filename)
            with atomic_write(dot_path, "w") as f:
                f.write(graph)
            if is_graphviz_available():
                image_path = os.path.splitext(dot_path)[0] + ".png"
                # Rendered beside the target and renamed over it: an
                # interrupted dot leaves no half-written image.
                partial = image_path + ".partial"
                try:
                    subprocess.run(
                        ["dot", "-Tpng", dot_path, "-o", partial],
                        check=True,
                        stdout=subprocess.DEVNULL,
                        timeout=300,
                    )
                    os.replace(partial, image_path)
                finally:
                    if os.path.exists(partial):
                        os.remove(partial)
        finally:
            config.keep_graph_on_report = bool(self._original_flag)
            self._flag_called = True

    def serialize(self, serializer: Any) -> None:
        self._original_flag = serializer("_original_flag", self._original_flag)
        self._flag_called = serializer("_flag_called", self._flag_called)


dump_graph = DumpGraph
