"""A table's late policy: what a seat that missed its deadline, or is gone, gets (a fallback
move and a strike, or a forfeit), and the forfeit that ended the game."""

from __future__ import annotations

from rookery.engine import Forfeit, ForfeitKind, Game
from rookery.wire.replay import ActionOutcome, ReplayBuilder
from structlog.typing import FilteringBoundLogger

from ._ports import TableHooks
from ._seats import SeatState
from ._table_values import fallback_action
from ._time_control import LatePolicy, TimeControl

__all__ = ["LateSeats"]


class LateSeats:
    """The late policy of one table's game; ``forfeit`` and ``detail`` once a seat forfeited."""

    def __init__(
        self,
        game: Game,
        time_control: TimeControl,
        replay: ReplayBuilder,
        hooks: TableHooks,
        log: FilteringBoundLogger,
    ) -> None:
        self._game = game
        self._time_control = time_control
        self._replay = replay
        self._hooks = hooks
        self._log = log
        self.forfeit: Forfeit | None = None
        self.detail = ""

    def missed(self, seat: SeatState, *, gone: bool) -> None:
        """The seat missed its deadline (or is gone): the late policy decides. A seat away
        (disconnected, its clock running) that forfeits forfeits by disconnection."""
        tc = self._time_control
        if not gone:
            seat.timeouts += 1
            self._hooks.timeout()
        away = gone or not seat.is_connected
        if tc.late_policy is LatePolicy.FORFEIT:
            kind = ForfeitKind.DISCONNECT if away else ForfeitKind.TIMEOUT
            why = "did not resume within the grace period" if gone else "missed its deadline"
            if away and not gone:
                why += " while disconnected"
            self._forfeit_seat(seat, kind, f"seat {seat.index} ({seat.bot}) {why}")
            return
        seat.strikes += 1
        if tc.strike_limit and seat.strikes > tc.strike_limit:
            kind = ForfeitKind.DISCONNECT if away else ForfeitKind.STRIKES
            self._forfeit_seat(
                seat,
                kind,
                f"seat {seat.index} ({seat.bot}) exceeded the strike limit of {tc.strike_limit}"
                + (" after disconnecting" if away else ""),
            )
            return
        action = fallback_action(self._game.legal_actions())
        self._game.apply(action)
        seat.auto_plays += 1
        self._replay.record_action(seat.index, action, 0, ActionOutcome.AUTO_PLAYED)
        self._hooks.action_done("auto_played", None)
        self._log.info(
            "auto-played", seat=seat.index, bot=seat.bot, action=str(action), strikes=seat.strikes
        )

    def _forfeit_seat(self, seat: SeatState, kind: ForfeitKind, detail: str) -> None:
        self.forfeit = Forfeit(seat.index, kind, detail)
        self.detail = detail
        self._log.info("forfeit", seat=seat.index, bot=seat.bot, reason=kind.value, detail=detail)
        self._game.forfeit(seat.index, kind.value)
