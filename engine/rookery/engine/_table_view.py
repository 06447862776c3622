"""One game seen by action ids on the native core, for the learning environments: a seat's
observation tensor (``rookery.envs``' ``ObservationEncoder`` layout) and the legal mask
(``ActionCodec``'s ids) written into caller-owned arrays, and a step by action id, each one call
into the core. Only for a ``Game`` that runs on the core; elsewhere ``table_view`` gives
``None`` and the environments encode in Python (the reference)."""

from __future__ import annotations

from typing import ClassVar, Protocol

from ._choice import Game
from ._core import native, on_core

__all__ = ["TableView", "table_view"]


class TableView(Protocol):
    """One game on the native core seen by action ids (what ``table_view`` gives).

    Arrays are any writable C-contiguous buffers (numpy arrays) of the right item type and
    length; ``pending`` is the bury chosen so far (a card mask)."""

    APPLIED: ClassVar[int] = -1
    """``step``'s answer when the id applied an action and no score changed."""
    SCORED: ClassVar[int] = -2
    """``step``'s answer when the id applied an action that changed the scores (a hand ended)."""
    ILLEGAL: ClassVar[int] = -3
    """``step``'s answer when the id is not legal now (and nothing changed)."""

    @property
    def observation_size(self) -> int:
        """The length of an observation tensor."""
        ...

    @property
    def num_actions(self) -> int:
        """The number of action ids."""
        ...

    def write(self, seat: int, pending: int, obs: object, mask: object = None) -> None:
        """``seat``'s observation tensor into ``obs`` (float32) and, when given, the legal mask
        of the seat to act into ``mask`` (int8)."""
        ...

    @property
    def info_size(self) -> int:
        """The length of an information-state tensor."""
        ...

    def write_info(
        self, seat: int, pending: int, picked_up: int, bury_order: list[int], out: object
    ) -> None:
        """``seat``'s information-state tensor into ``out`` (float32): the observation, the
        auction and the play in order, ``picked_up`` (the nest the bidder took, a card mask)
        and ``bury_order`` (the cards it chose to bury, in the order chosen)."""
        ...

    def write_mask(self, pending: int, mask: object) -> None:
        """The legal mask of the seat to act into ``mask`` (int8; all zeros once over)."""
        ...

    def legal_ids(self, pending: int) -> list[int]:
        """The legal ids of the seat to act, ascending."""
        ...

    def step(self, action_id: int, pending: int) -> int:
        """Take ``action_id``: the bury chosen so far (> 0) for a bury step that does not
        complete the bury, else ``APPLIED``, ``SCORED`` or ``ILLEGAL``."""
        ...


def table_view(game: Game) -> TableView | None:
    """The core's view of ``game``, or ``None`` when ``game`` runs on the pure engine."""
    if not on_core or native is None or not hasattr(native, "TableView"):
        return None
    if not isinstance(game, native.EngineGame):
        return None
    view: TableView = native.TableView(game)
    return view
