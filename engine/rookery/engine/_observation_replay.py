"""A game at an observation's point: the observation's public history replayed on a full deal,
for search. The one body of ``Game.from_observation`` and ``CoreGame.from_observation``.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from ._actions import PASS, PLAY, Action, Bury, CallCard, NameTrump, Phase, bid_action
from ._deal import Deal
from ._errors import EngineError
from ._observation import Observation
from ._ruleset import Ruleset

__all__ = ["replay_observation"]


class _Replayable(Protocol):
    """What the replay reads and calls of a game (the pure ``Game`` and ``CoreGame`` alike)."""

    @property
    def phase(self) -> Phase: ...

    @property
    def current_player(self) -> int | None: ...

    @property
    def hands(self) -> tuple[int, ...]: ...

    def apply(self, action: Action) -> None: ...


G = TypeVar("G", bound=_Replayable)
G_co = TypeVar("G_co", bound=_Replayable, covariant=True)


class _FromDeal(Protocol[G_co]):
    """A game class's ``from_deal`` (bound to the class)."""

    def __call__(
        self,
        ruleset: Ruleset,
        deal: Deal,
        *,
        seed: int = ...,
        dealer: int | None = ...,
        hand_number: int = ...,
        scores: tuple[int, ...] | None = ...,
        events: bool = ...,
    ) -> G_co: ...


_EXCHANGE: tuple[Phase, ...] = (Phase.NAME_TRUMP, Phase.BURY, Phase.CALL)


def replay_observation(
    from_deal: _FromDeal[G], observation: Observation, deal: Deal, *, seed: int
) -> G:
    """A game (events off) made by ``from_deal`` at ``observation``'s point on ``deal``.

    The observation's auction, trump, bury, call and tricks are replayed on ``deal``; the scores,
    dealer and hand number are the observation's; later hands are dealt from ``seed``.
    ``ValueError`` when the game is over or the deal does not fit the observation.
    """
    if observation.phase is Phase.GAME_OVER:
        raise ValueError("the game of this observation is over: nothing to search")
    game = from_deal(
        observation.ruleset,
        deal,
        seed=seed,
        dealer=observation.dealer,
        hand_number=observation.hand_number,
        scores=observation.scores,
        events=False,
    )
    script: list[Action] = [
        bid_action(amount) if amount else PASS for _, amount in observation.auction
    ]
    try:
        for action in script:
            game.apply(action)
        while (phase := game.phase) in _EXCHANGE:
            if phase is Phase.NAME_TRUMP and observation.trump is not None:
                game.apply(NameTrump(observation.trump))
            elif phase is Phase.BURY and observation.buried_count:
                game.apply(Bury(deal.nest))
            elif phase is Phase.CALL and observation.called_card >= 0:
                game.apply(CallCard(observation.called_card))
            else:
                break
        for trick in (*observation.completed_tricks, observation.current_trick):
            for _, card in trick.cards:
                game.apply(PLAY[card])
    except EngineError as error:
        raise ValueError(f"the deal does not fit the observation: {error}") from None
    if game.phase is not observation.phase or game.current_player != (
        None if observation.current_player < 0 else observation.current_player
    ):
        raise ValueError("the deal does not fit the observation: the replay ends elsewhere")
    if observation.seat >= 0 and game.hands[observation.seat] != observation.hand:
        raise ValueError("the deal does not fit the observation: the observer's hand differs")
    return game
