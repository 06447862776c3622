"""The `rookery` command line: one entry point, one module per command group."""

from __future__ import annotations

__all__: list[str] = []
"""Nothing at the package root: ``rookery.cli.main`` is the console script, and each command
group module has ``register(subparsers)``."""
