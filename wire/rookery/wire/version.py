"""Rookery's version, read once from the installed distribution's metadata.

The distribution is ``rookery-arena`` (the name ``rookery`` on the public Python index belongs to
an unrelated project); the import namespace and the command stay ``rookery``.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

__all__ = ["DISTRIBUTION", "rookery_version"]

#: The name to ``pip install`` (``pip install 'rookery-arena[ray]'`` for the Ray extra).
DISTRIBUTION = "rookery-arena"

#: What a source tree that was never installed reports.
SOURCE_VERSION = "0+source"


@cache
def rookery_version() -> str:
    """The installed distribution's version (``0+source`` in a source tree never installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return SOURCE_VERSION
