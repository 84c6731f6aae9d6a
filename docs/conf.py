"""Sphinx configuration of the fsel documentation site.

Build (from the repository root)::

    python3 -m venv .venv && .venv/bin/pip install -q -e ".[docs]" \
        && .venv/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

The build must pass with warnings as errors on an offline machine: intersphinx
inventories are used only when they can be had without a warning (see
``_intersphinx_mapping`` below).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import fsel

DOCS = Path(__file__).resolve().parent

project = "fsel"
author = "fsel developers"
copyright = "fsel developers, BSD-3-Clause"
release = fsel.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.codeobj.json",
]

# -- autodoc / autosummary / numpydoc -------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- MyST (the Markdown pages: reproductions, architecture, benchmarks) ----------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 4
suppress_warnings = ["myst.header"]  # the generated pages start deeper than H1 in places

# -- intersphinx ---------------------------------------------------------------------
# The links to numpy, scipy, scikit-learn and dask need their ``objects.inv``. A build
# on an offline machine must not warn, so a project is mapped only when its inventory
# is available without the network: a local copy ``docs/_intersphinx/<name>.inv``
# (download it once where the network is open), or the network itself when
# ``FSEL_DOCS_INTERSPHINX=1`` is set. Otherwise nothing is mapped and references to
# those projects render as plain text.
_INTERSPHINX_URLS = {
    "python": "https://docs.python.org/3",
    "numpy": "https://numpy.org/doc/stable",
    "scipy": "https://docs.scipy.org/doc/scipy",
    "sklearn": "https://scikit-learn.org/stable",
    "dask": "https://docs.dask.org/en/stable",
    "distributed": "https://distributed.dask.org/en/stable",
}


def _intersphinx_mapping() -> dict[str, tuple[str, str | None]]:
    online = os.environ.get("FSEL_DOCS_INTERSPHINX") == "1"
    mapping: dict[str, tuple[str, str | None]] = {}
    for name, url in _INTERSPHINX_URLS.items():
        local = DOCS / "_intersphinx" / f"{name}.inv"
        if local.is_file():
            mapping[name] = (url, str(local))
        elif online:
            mapping[name] = (url, None)
    return mapping


intersphinx_mapping = _intersphinx_mapping()
intersphinx_timeout = 10

# -- sphinx-gallery ------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("fsel",),
    "reference_url": {"fsel": None},
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "show_memory": False,
    "min_reported_time": 1,
}

# matplotlib without a display; quiet the Agg backend's "non-interactive" warning
os.environ.setdefault("MPLBACKEND", "agg")
warnings.filterwarnings("ignore", category=UserWarning, message="Matplotlib is currently using agg")

# -- HTML ----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"fsel {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_sidebars = {"index": [], "install": []}
html_show_sourcelink = True
