"""``LegalActions``: a compact immutable sequence of every legal action."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from math import comb

from rookery.engine import (
    PASS,
    PRESETS,
    Bid,
    Bury,
    Game,
    LegalActions,
    Phase,
    PlayCard,
    Suit,
    parse_cards,
)
from rookery.engine.testing import act


def test_bidding_actions_are_pass_then_bids() -> None:
    legal = Game(PRESETS["standard"], 1).legal_actions()
    assert isinstance(legal, Sequence)
    assert legal.phase is Phase.BIDDING and legal.player == 1
    assert legal[0] == PASS and legal[1] == Bid(70) and legal[-1] == Bid(120)
    assert len(list(legal)) == len(legal) == 12
    assert Bid(75) in legal and Bid(72) not in legal and PlayCard(0) not in legal


def test_trump_actions_are_the_four_suits() -> None:
    game = Game(PRESETS["standard"], 1)
    act(game, "bid 70", "pass", "pass", "pass")
    legal = game.legal_actions()
    assert legal.suits == tuple(Suit) and [str(a) for a in legal] == [
        "trump B",
        "trump R",
        "trump Y",
        "trump G",
    ]


def test_bury_combinations_are_unranked_in_a_fixed_order() -> None:
    legal = LegalActions(Phase.BURY, 0, bury_from=parse_cards("B1 B2 B3 B4 B5"), bury_count=2)
    actions = list(legal)
    assert len(actions) == comb(5, 2) == len(set(actions))
    assert actions[0] == Bury(parse_cards("B1 B2"))
    assert Bury(parse_cards("B1 B5")) in legal and Bury(parse_cards("B1")) not in legal
    assert legal[2:4] == tuple(actions[2:4])


def test_play_actions_enumerate_the_mask() -> None:
    legal = LegalActions(Phase.PLAY, 2, play=parse_cards("R3 B1 ROOK"))
    assert [str(action) for action in legal] == ["play B1", "play R3", "play ROOK"]
    assert legal[-1] == legal[2] and PlayCard(parse_cards("R3").bit_length() - 1) in legal


def test_sample_is_uniform() -> None:
    legal = LegalActions(Phase.PLAY, 0, play=parse_cards("B1 B2 B3 B4"))
    rng = random.Random(7)
    counts = Counter(legal.sample(rng) for _ in range(4000))
    assert len(counts) == 4 and min(counts.values()) > 850


class _Replayed(random.Random):
    """A generator whose ``random`` is its own: a fixed sequence of draws."""

    def __init__(self, draws: list[float]) -> None:
        super().__init__(0)
        self.draws = draws

    def random(self) -> float:
        return self.draws.pop(0)


def test_sample_draws_from_a_plain_random_as_from_its_subclass() -> None:
    # A plain ``random.Random`` is drawn from through its C method directly; the same seed in a
    # subclass goes through ``rng.random()``: the same actions, in every phase with a draw.
    class Plain(random.Random):
        pass

    game = Game(PRESETS["standard"], 5)
    fast, slow = random.Random(11), Plain(11)
    while not game.is_over and game.hand_number < 2:
        legal = game.legal_actions()
        action = legal.sample(fast)
        assert legal.sample(slow) == action
        game.apply(action)
    assert fast.random() == slow.random()


def test_sample_honours_a_subclass_random() -> None:
    legal = LegalActions(Phase.PLAY, 0, play=parse_cards("B1 B2 B3 B4"))
    assert legal.sample(_Replayed([0.0])) == PlayCard(0)
    assert [str(legal.sample(_Replayed([x]))) for x in (0.3, 0.6, 0.99)] == [
        "play B2",
        "play B3",
        "play B4",
    ]
    bidding = Game(PRESETS["standard"], 1).legal_actions()
    assert bidding.sample(_Replayed([0.0])) == PASS
    assert bidding.sample(_Replayed([0.99])) == Bid(120)


def test_legal_actions_compare_by_value() -> None:
    one = LegalActions(Phase.PLAY, 0, play=5)
    assert one == LegalActions(Phase.PLAY, 0, play=5) and hash(one) == hash(
        LegalActions(Phase.PLAY, 0, play=5)
    )
    assert one != LegalActions(Phase.PLAY, 1, play=5)
    game = Game(PRESETS["standard"], 1)
    assert game.legal_actions() == game.legal_actions()
