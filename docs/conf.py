"""Sphinx configuration of the kusari documentation (``nox -s docs`` builds it).

Prose pages are MyST Markdown, API pages reStructuredText with autodoc and
napoleon (the sources use Google-style docstrings). The build runs offline:
no intersphinx, no remote images.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.directives.other import TocTree
from sphinx.roles import XRefRole
from sphinx.util import docname_join, logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import split_explicit_title

HERE = Path(__file__).parent
logger = logging.getLogger(__name__)

# kusari's own environment variables must not change what the examples print.
for _name in ("KUSARI_DTYPE", "KUSARI_DEBUG", "KUSARI_TYPE_CHECK"):
    os.environ.pop(_name, None)
os.environ.setdefault("MPLBACKEND", "Agg")

project = "kusari"
author = "The kusari developers"
copyright = "The kusari developers"
try:
    release = importlib.import_module("kusari").__version__
except ImportError:  # a prose-only build still works
    release = "0.1.0"
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
]
# No sphinx.ext.viewcode: its highlighted copy of every module doubled the build
# time, and under a parallel build its links to re-exported names can break.

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []

# `nox -s docs` runs the doctest builder on the doctrees of the HTML build, so
# the pages are parsed (and the packages imported) once.

# --- MyST ---------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3

# --- autodoc / napoleon -------------------------------------------------------
autodoc_default_options = {"show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
# Overrides of third-party methods (gymnasium's Env.step, ...) would otherwise
# inherit docstrings written for another documentation tool.
autodoc_inherit_docstrings = False
# The optional heavy dependencies of a few modules are not needed to document
# them; packages that are imported lazily inside functions need nothing here.
autodoc_mock_imports = ["cupy", "cupyx", "h5py", "onnxruntime", "matplotlib"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# "~kusari.Variable" in Args/Returns types becomes a link that reads "Variable".
napoleon_preprocess_types = True
napoleon_attr_annotations = True

# --- doctest ------------------------------------------------------------------
# Only the {doctest}/{testcode} blocks of the pages are run here: the >>> lines
# of docstrings run under pytest (`nox -s tests`), with their own option flags.
doctest_test_doctest_blocks = ""
doctest_default_flags = (
    doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.IGNORE_EXCEPTION_DETAIL
)
doctest_global_setup = """
import os
import numpy as np
np.random.seed(0)
"""

# --- HTML ---------------------------------------------------------------------
html_theme = "furo"
html_title = f"kusari {release}"
html_static_path: list[str] = []
html_theme_options = {
    "source_repository": "",
    "navigation_with_keys": True,
}
html_show_sourcelink = False

suppress_warnings: list[str] = []


def _names_of(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(module).items()
            if not n.startswith("_")
            and getattr(v, "__module__", "").startswith(module_name)
        ]
    return list(names)


class AutoNames(SphinxDirective):
    """Document the public names of a module under the namespace users import.

    ``.. kusari-autonames:: kusari.functions`` with ``:from:
    kusari.functions.activation._all`` documents each name in that module's
    ``__all__`` as ``kusari.functions.<name>`` (an ``autofunction``,
    ``autoclass`` with its members, or ``autodata``). ``:names:`` lists names
    explicitly instead; ``:exclude:`` drops some. Submodules are skipped.
    """

    required_arguments = 1
    option_spec = {
        "from": directives.unchanged,
        "names": directives.unchanged,
        "exclude": directives.unchanged,
        "no-members": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        namespace = self.arguments[0]
        source = self.options.get("from", namespace)
        if "names" in self.options:
            names = self.options["names"].split()
        else:
            names = _names_of(source)
        excluded = set(self.options.get("exclude", "").split())
        target = importlib.import_module(namespace)
        lines: list[str] = []
        for name in names:
            if name in excluded:
                continue
            obj = getattr(target, name, None)
            if obj is None or inspect.ismodule(obj):
                continue
            full = f"{namespace}.{name}"
            if inspect.isclass(obj):
                lines.append(f".. autoclass:: {full}")
                if "no-members" not in self.options:
                    lines.append("   :members:")
                    public_base = _first_public_base(obj)
                    if public_base is not None:
                        lines.append(f"   :inherited-members: {public_base}")
            elif callable(obj):
                lines.append(f".. autofunction:: {full}")
            else:
                lines.append(f".. autodata:: {full}")
                lines.append("   :annotation:")
            lines.append("")
        content = StringList(lines, source=f"<kusari-autonames {source}>")
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(content, self.content_offset, node)
        return node.children


def _documented_names(module: Any) -> list[str]:
    """What ``automodule :members:`` documents: ``__all__``, else the public
    names defined in the module itself."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__
    ]


class AutoModules(SphinxDirective):
    """``automodule :members:`` for a package and its submodules, one section each.

    ``.. kusari-automodules:: kusari_rl`` documents the package, then each
    submodule (``:modules:``, else the package's ``_SUBMODULES`` or its
    ``pkgutil`` listing). An object already documented under an earlier
    module is left out of later ones, so re-exports do not appear twice. A
    submodule listed by a package that does not exist yet is skipped with a
    message; any other import error is a warning (an error under ``-W``).
    """

    required_arguments = 1
    option_spec = {"modules": directives.unchanged, "exclude": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        import pkgutil

        from sphinx.util.nodes import nested_parse_with_titles

        package_name = self.arguments[0]
        try:
            package = importlib.import_module(package_name)
        except ModuleNotFoundError as e:
            if e.name != package_name:
                raise
            # `nox -s docs` installs every package it can and says which not.
            logger.info("%s is not installed; its API page says so", package_name)
            text = f"{package_name} was not installed when these pages were built."
            return [nodes.paragraph(text=text)]
        if "modules" in self.options:
            subs = self.options["modules"].split()
        elif hasattr(package, "_SUBMODULES"):
            subs = sorted(package._SUBMODULES)
        else:
            subs = sorted(
                m.name
                for m in pkgutil.iter_modules(package.__path__)
                if not m.name.startswith("_")
            )
        excluded = set(self.options.get("exclude", "").split())
        seen: set[int] = set()
        lines: list[str] = []
        for sub in [""] + subs:
            full = f"{package_name}.{sub}" if sub else package_name
            try:
                module = importlib.import_module(full)
            except ModuleNotFoundError as e:
                if e.name == full:
                    logger.info("%s is not written yet; left out of the API page", full)
                    continue
                logger.warning("cannot import %s: %s", full, e)
                continue
            except Exception as e:  # reported, and fatal under -W
                logger.warning("cannot import %s: %s: %s", full, type(e).__name__, e)
                continue
            skip = []
            for name in _documented_names(module):
                obj = getattr(module, name, None)
                if inspect.ismodule(obj):
                    continue
                home = getattr(obj, "__module__", None) or package_name
                foreign = home.partition(".")[0] != package_name.partition(".")[0]
                # Re-exports (of this package's own objects, or of kusari's,
                # documented on its pages) are listed once.
                if id(obj) in seen or foreign or f"{full}.{name}" in excluded:
                    skip.append(name)
                seen.add(id(obj))
            if sub:
                lines += [full, "-" * len(full), ""]
            lines += [f".. automodule:: {full}", "   :members:"]
            if skip:
                lines.append("   :exclude-members: " + ", ".join(skip))
            lines.append("")
        node = nodes.section()
        node.document = self.state.document
        content = StringList(lines, source=f"<kusari-automodules {package_name}>")
        nested_parse_with_titles(self.state, content, node, self.content_offset)
        return node.children


class ClickHelp(SphinxDirective):
    """The ``--help`` of a click command and of each of its subcommands.

    ``.. kusari-click-help:: kusari_ui.cli:main`` with ``:prog: kusari-ui``
    gives one section per command (``kusari-ui db create`` ...) holding
    exactly what ``--help`` prints. For reStructuredText pages (the sections
    are written in reST).
    """

    required_arguments = 1
    option_spec = {"prog": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        import click
        from sphinx.util.nodes import nested_parse_with_titles

        module_name, _, attr = self.arguments[0].partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        prog = self.options.get("prog", command.name)
        lines: list[str] = []

        def walk(cmd: Any, name: str, parent: Any) -> None:
            ctx = click.Context(
                cmd,
                info_name=name,
                parent=parent,
                terminal_width=80,
                max_content_width=80,
            )
            title = f"``{ctx.command_path}``"
            lines.extend([title, "-" * len(title), "", ".. code-block:: text", ""])
            lines.extend(f"   {line}" for line in cmd.get_help(ctx).splitlines())
            lines.append("")
            for sub_name in getattr(cmd, "commands", {}):
                walk(cmd.commands[sub_name], sub_name, ctx)

        walk(command, prog, None)
        node = nodes.section()
        node.document = self.state.document
        content = StringList(lines, source=f"<kusari-click-help {self.arguments[0]}>")
        nested_parse_with_titles(self.state, content, node, self.content_offset)
        return node.children


class OptionalDoc(XRefRole):
    """``{optional-doc}`../contributing``` links a page when it is in the
    source tree, and is plain text otherwise (like :class:`OptionalTocTree`)."""

    def __init__(self) -> None:
        super().__init__(warn_dangling=True, innernodeclass=nodes.inline)

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        explicit, title, target = split_explicit_title(self.text)
        if docname_join(self.env.docname, target) not in self.env.found_docs:
            text = title if explicit else target
            return [nodes.inline(self.rawtext, text)], []
        self.name = "std:doc"
        return super().run()


class OptionalTocTree(TocTree):
    """A toctree whose entries that are not in the source tree are dropped.

    Some pages (the ONNX and DLPack how-tos, the kusari-mn scaling notes) are
    written separately; the site builds with or without them.
    """

    def run(self) -> list[nodes.Node]:
        kept = []
        for entry in self.content:
            docname = entry.strip()
            if not docname:
                continue
            joined = os.path.normpath(
                os.path.join(os.path.dirname(self.env.docname), docname)
            ).replace(os.sep, "/")
            if joined in self.env.found_docs:
                kept.append(entry)
            else:
                logger.info("toctree: %s is not in the source tree; left out", joined)
        self.content = StringList(kept, source=self.content.source(0) if kept else "")
        return super().run()


def _is_private_mixin(cls: type) -> bool:
    """A base class kept in a private kusari module (``kusari._link_calling``)
    only to keep a public class's file short: its methods are the public
    class's own API."""
    module = cls.__module__
    return (
        cls.__name__.startswith("_")
        and module.startswith("kusari")
        and any(part.startswith("_") for part in module.split("."))
    )


def _first_public_base(cls: type) -> str | None:
    """Where a class's documented members stop (``:inherited-members:``), if
    its direct bases include private mixins; None otherwise."""
    if not any(_is_private_mixin(base) for base in cls.__bases__):
        return None
    for base in cls.__mro__[1:]:
        if not _is_private_mixin(base):
            return base.__name__
    return None


def _drop_private_bases(
    app: Sphinx, name: str, obj: Any, options: Any, bases: list[type]
) -> None:
    bases[:] = [base for base in bases if not _is_private_mixin(base)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-bases", _drop_private_bases)
    app.add_directive("kusari-autonames", AutoNames)
    app.add_directive("kusari-automodules", AutoModules)
    app.add_directive("kusari-click-help", ClickHelp)
    app.add_directive("optional-toctree", OptionalTocTree)
    app.add_role("optional-doc", OptionalDoc())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
