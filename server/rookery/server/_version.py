"""The version the server reports, from the one source: ``rookery.wire.version``."""

from __future__ import annotations

from rookery.wire.version import rookery_version

__all__ = ["SERVER_VERSION"]

SERVER_VERSION = rookery_version()
"""The version the server reports in Welcome and replays."""
