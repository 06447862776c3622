"""The web component's exceptions."""

from __future__ import annotations

__all__ = ["ReplayWithheldError", "UnknownTournamentError", "WebError"]


class WebError(Exception):
    """Base class of the web component's errors."""


class UnknownTournamentError(WebError, LookupError):
    """No tournament with that key in the configured run directories."""


class ReplayWithheldError(WebError):
    """The game is over, but its replay is not public yet (a game on its deals is still to be
    played, or the game belongs to a tournament this dashboard cannot see)."""
