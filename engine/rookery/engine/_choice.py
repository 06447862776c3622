"""``Game`` as the engine hands it out: on the native core where it is built (``CoreGame``),
else the pure reference (``_game.Game``). ``ROOKERY_PURE_ENGINE=1`` forces the pure one. Both
have the same API and give the same values; nothing outside the engine knows which runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import on_core

__all__ = ["Game"]

if TYPE_CHECKING:  # the API, as the readable reference states it
    from ._game import Game
elif on_core:
    from ._core_game import CoreGame as Game
else:
    from ._game import Game
