"""A table's clock: per-action deadline, time bank, late policy, strikes and resume grace."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from rookery.v1 import table_pb2

from ._errors import TableSpecError

__all__ = ["LatePolicy", "TimeControl"]


class LatePolicy(Enum):
    """What the table does when a bot misses its deadline (or does not resume in time)."""

    AUTO_PLAY = table_pb2.LATE_POLICY_AUTO_PLAY
    """Play the fallback legal action for the seat and count a strike; at the strike limit the
    seat forfeits."""
    FORFEIT = table_pb2.LATE_POLICY_FORFEIT
    """The late seat's side loses the game at once."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The clock of a table.

    ``action_ms`` is the time allowed for each action; ``bank_ms`` an extra bank per seat drawn on
    when an action takes longer; ``strike_limit`` (AUTO_PLAY only) the number of strikes at which
    the seat forfeits, 0 for no limit; ``grace_ms`` how long a dropped bot may take to resume.
    """

    action_ms: int = 5000
    bank_ms: int = 0
    late_policy: LatePolicy = LatePolicy.AUTO_PLAY
    strike_limit: int = 3
    grace_ms: int = 10000

    def __post_init__(self) -> None:
        if self.action_ms < 1:
            raise TableSpecError(f"time control: action_ms must be ≥ 1, got {self.action_ms}")
        for name in ("bank_ms", "strike_limit", "grace_ms"):
            value = getattr(self, name)
            if value < 0:
                raise TableSpecError(f"time control: {name} must be ≥ 0, got {value}")

    def to_proto(self) -> table_pb2.TimeControl:
        """This clock as the wire message."""
        return table_pb2.TimeControl(
            action_ms=self.action_ms,
            bank_ms=self.bank_ms,
            late_policy=self.late_policy.value,
            strike_limit=self.strike_limit,
            grace_ms=self.grace_ms,
        )

    def merged_with(self, message: table_pb2.TimeControl) -> TimeControl:
        """This clock with every field the message sets (non-zero) taken from the message.

        An unset ``late_policy`` keeps this clock's; a zero field keeps this clock's value.
        """
        changes: dict[str, object] = {}
        for name in ("action_ms", "bank_ms", "strike_limit", "grace_ms"):
            value = getattr(message, name)
            if value:
                changes[name] = value
        if message.late_policy != table_pb2.LATE_POLICY_UNSPECIFIED:
            try:
                changes["late_policy"] = LatePolicy(message.late_policy)
            except ValueError:
                raise TableSpecError(
                    f"time control: unknown late_policy {message.late_policy}"
                ) from None
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_proto(cls, message: table_pb2.TimeControl) -> TimeControl:
        """The clock a wire message describes, unset fields at their defaults."""
        return cls().merged_with(message)
