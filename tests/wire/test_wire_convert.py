"""Engine ↔ proto conversion: round trips, documented defaults, and precise malformed errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rookery.engine import (
    NUM_CARDS,
    PASS,
    PRESETS,
    ROOK,
    ROOK2,
    AllPass,
    BothOver,
    Bury,
    CallCard,
    CardsBuried,
    FirstLead,
    Forfeit,
    ForfeitKind,
    Game,
    GameOver,
    HandDealt,
    HandSeeds,
    NestTaken,
    Partnership,
    Phase,
    Ruleset,
    SeatAssignment,
    Suit,
    Termination,
    bid_action,
    cards_of,
    parse_action,
    parse_card,
    parse_cards,
)
from rookery.engine import PLAY as ENGINE_PLAY
from rookery.engine import TRUMP as ENGINE_TRUMP
from rookery.v1 import actions_pb2, cards_pb2, results_pb2, ruleset_pb2, table_pb2
from rookery.wire import _convert_play, convert
from rookery.wire.convert import (
    action_from_proto,
    action_to_proto,
    card_from_proto,
    card_to_proto,
    cards_to_proto,
    deal_from_proto,
    deal_to_proto,
    event_to_proto,
    forfeit_from_proto,
    game_result_from_proto,
    game_result_to_proto,
    hand_result_from_proto,
    hand_result_to_proto,
    legal_actions_from_proto,
    legal_actions_to_proto,
    mask_from_proto,
    observation_from_proto,
    observation_to_proto,
    phase_from_proto,
    ruleset_from_proto,
    ruleset_to_proto,
    seat_info_from_proto,
    seat_info_to_proto,
    suit_from_proto,
    suit_to_proto,
    termination_from_proto,
)
from rookery.wire.errors import MalformedMessageError

GameStates = Callable[[str, int, int], Iterator[Game]]
masks = st.integers(min_value=0, max_value=(1 << NUM_CARDS) - 1)
cards = st.integers(min_value=0, max_value=NUM_CARDS - 1)


# Cards ------------------------------------------------------------------------------------------


def test_every_card_round_trips() -> None:
    assert [card_from_proto(card_to_proto(card)) for card in range(NUM_CARDS)] == list(
        range(NUM_CARDS)
    )


def test_cards_use_the_proto_suit_numbers_and_rook_flags() -> None:
    assert card_to_proto(parse_card("B1")) == cards_pb2.Card(suit=cards_pb2.SUIT_BLACK, rank=1)
    assert card_to_proto(parse_card("G14")) == cards_pb2.Card(suit=cards_pb2.SUIT_GREEN, rank=14)
    assert card_to_proto(ROOK) == cards_pb2.Card(rook=1)
    assert card_to_proto(ROOK2) == cards_pb2.Card(rook=2)


@given(masks)
def test_card_masks_round_trip(mask: int) -> None:
    assert mask_from_proto(cards_to_proto(mask)) == mask


@pytest.mark.parametrize(
    ("card", "field", "words"),
    [
        (cards_pb2.Card(rook=3), "card.rook", "must be 0, 1 (ROOK) or 2 (ROOK2), got 3"),
        (cards_pb2.Card(rook=1, suit=cards_pb2.SUIT_RED), "card", "has suit SUIT_UNSPECIFIED"),
        (cards_pb2.Card(rook=2, rank=5), "card", "got suit SUIT_UNSPECIFIED and rank 5"),
        (cards_pb2.Card(rank=5), "card.suit", "needs a suit"),
        (cards_pb2.Card(suit=cards_pb2.SUIT_RED), "card.rank", "must be 1 to 14, got 0"),
        (cards_pb2.Card(suit=cards_pb2.SUIT_RED, rank=15), "card.rank", "got 15"),
        (cards_pb2.Card(suit=cards_pb2.Suit.ValueType(9), rank=3), "card.suit", "unknown Suit"),
    ],
)
def test_an_impossible_card_is_malformed_and_names_its_field(
    card: cards_pb2.Card, field: str, words: str
) -> None:
    with pytest.raises(MalformedMessageError) as raised:
        card_from_proto(card)
    assert raised.value.field == field
    assert words in str(raised.value)


def test_a_card_given_twice_is_malformed_at_its_index() -> None:
    listed = cards_to_proto(parse_cards("B5 R10")) + [card_to_proto(parse_card("B5"))]
    with pytest.raises(MalformedMessageError, match=r"hand\[2\]: B5 is given twice"):
        mask_from_proto(listed, "hand")


def test_suits_map_to_the_proto_numbers_and_unspecified_is_no_suit() -> None:
    assert [suit_to_proto(suit) for suit in Suit] == [1, 2, 3, 4]
    assert suit_to_proto(None) == cards_pb2.SUIT_UNSPECIFIED
    assert [suit_from_proto(value) for value in (1, 2, 3, 4)] == list(Suit)
    with pytest.raises(MalformedMessageError, match="SUIT_UNSPECIFIED is not a suit"):
        suit_from_proto(0)


def test_every_phase_round_trips_and_unspecified_is_malformed() -> None:
    from rookery.wire.convert import phase_to_proto

    assert [phase_from_proto(phase_to_proto(phase)) for phase in Phase] == list(Phase)
    with pytest.raises(MalformedMessageError, match=r"observation\.phase: PHASE_UNSPECIFIED"):
        phase_from_proto(0, "observation.phase")


# Rulesets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips(name: str) -> None:
    assert ruleset_from_proto(ruleset_to_proto(PRESETS[name])) == PRESETS[name]


def test_every_parameter_round_trips() -> None:
    ruleset = Ruleset(
        name="odd",
        players=5,
        partnership=Partnership.NONE,
        lowest_rank=3,
        rook_cards=2,
        nest_size=2,
        min_bid=60,
        bid_step=10,
        max_bid=100,
        first_lead=FirstLead.LEFT_OF_BIDDER,
        all_pass=AllPass.DEALER_FORCED,
        trump_first=False,
        rook_free_play=True,
        both_over=BothOver.BIDDER_WINS,
        target=250,
        max_hands=9,
        last_trick_bonus=20,
        first_dealer=3,
        hand_seeds=HandSeeds.PLAYED,
    )
    assert ruleset_from_proto(ruleset_to_proto(ruleset)) == ruleset


@pytest.mark.parametrize("hand_seeds", list(HandSeeds))
def test_hand_seeds_round_trips_and_an_unset_one_reads_as_dealt(hand_seeds: HandSeeds) -> None:
    ruleset = PRESETS["standard"].replace(hand_seeds=hand_seeds)
    message = ruleset_to_proto(ruleset)
    assert (
        message.hand_seeds
        == {
            HandSeeds.DEALT: ruleset_pb2.HAND_SEEDS_DEALT,
            HandSeeds.PLAYED: ruleset_pb2.HAND_SEEDS_PLAYED,
        }[hand_seeds]
    )
    assert (
        ruleset_from_proto(ruleset_pb2.Ruleset.FromString(message.SerializeToString())) == ruleset
    )
    message.ClearField("hand_seeds")  # a ruleset sent before the field existed
    assert ruleset_from_proto(message).hand_seeds is HandSeeds.DEALT
    message.hand_seeds = ruleset_pb2.HandSeeds.ValueType(9)
    with pytest.raises(MalformedMessageError, match="unknown HandSeeds value 9"):
        ruleset_from_proto(message)


def test_unspecified_enums_max_bid_zero_and_no_name_read_as_documented_defaults() -> None:
    message = ruleset_to_proto(PRESETS["standard"])
    for field in (
        "partnership",
        "first_lead",
        "all_pass",
        "both_over",
        "max_bid",
        "name",
        "hand_seeds",
    ):
        message.ClearField(field)
    ruleset = ruleset_from_proto(message)
    assert ruleset == PRESETS["standard"].replace(name="custom")
    assert ruleset.max_bid is None


def test_an_unknown_enum_value_is_malformed_and_named() -> None:
    message = ruleset_to_proto(PRESETS["standard"])
    message.both_over = ruleset_pb2.BothOver.ValueType(7)
    with pytest.raises(MalformedMessageError) as raised:
        ruleset_from_proto(message)
    assert raised.value.field == "ruleset.both_over"
    assert "unknown BothOver value 7" in str(raised.value)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("players", 7, "must be 3 to 6, got 7"),
        ("rook_cards", 3, "must be 1 or 2"),
        ("min_bid", 72, "multiple of bid_step"),
        ("target", -5, "must be positive"),
    ],
)
def test_a_ruleset_the_engine_refuses_names_the_parameter(
    field: str, value: int, words: str
) -> None:
    message = ruleset_to_proto(PRESETS["standard"])
    setattr(message, field, value)
    with pytest.raises(MalformedMessageError) as raised:
        ruleset_from_proto(message, "table.ruleset")
    assert raised.value.field == f"table.ruleset.{field}"
    assert words in str(raised.value)


# Actions ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["pass", "bid 70", "bid 120", "trump B", "trump G", "call ROOK2", "play R14", "play ROOK"],
)
def test_each_action_kind_round_trips(text: str) -> None:
    action = parse_action(text)
    assert action_from_proto(action_to_proto(action)) == action


@given(masks)
def test_buries_round_trip(mask: int) -> None:
    assert action_from_proto(action_to_proto(Bury(mask))) == Bury(mask)


@given(cards)
def test_plays_and_calls_round_trip_to_the_engine_singletons(card: int) -> None:
    assert action_from_proto(action_to_proto(ENGINE_PLAY[card])) is ENGINE_PLAY[card]
    assert action_from_proto(action_to_proto(CallCard(card))) == CallCard(card)


def test_actions_use_the_proto_oneof() -> None:
    assert action_to_proto(PASS).WhichOneof("kind") == "pass"
    assert action_to_proto(bid_action(85)).bid.amount == 85
    assert action_to_proto(ENGINE_TRUMP[Suit.YELLOW]).name_trump.suit == cards_pb2.SUIT_YELLOW


def test_an_action_with_no_kind_is_malformed() -> None:
    with pytest.raises(MalformedMessageError, match="action: no action kind is set"):
        action_from_proto(actions_pb2.Action())


def test_a_bury_with_a_duplicate_card_is_malformed() -> None:
    message = action_to_proto(Bury(parse_cards("B5 R10 ROOK")))
    message.bury.cards.add().CopyFrom(card_to_proto(parse_card("R10")))
    with pytest.raises(MalformedMessageError) as raised:
        action_from_proto(message, "reply.action")
    assert raised.value.field == "reply.action.bury.cards[3]"
    assert "R10 is given twice" in str(raised.value)


def test_a_play_with_an_impossible_card_is_malformed() -> None:
    message = actions_pb2.Action()
    message.play_card.card.rank = 15
    message.play_card.card.suit = cards_pb2.SUIT_RED
    with pytest.raises(MalformedMessageError, match=r"action.play_card.card.rank: must be 1 to 14"):
        action_from_proto(message)


def test_a_play_or_call_without_its_card_is_malformed() -> None:
    play = actions_pb2.Action(play_card=actions_pb2.PlayCard())
    call = actions_pb2.Action(call_card=actions_pb2.CallCard())
    with pytest.raises(MalformedMessageError, match=r"action\.play_card\.card: is not set"):
        action_from_proto(play)
    with pytest.raises(MalformedMessageError, match=r"action\.call_card\.card: is not set"):
        action_from_proto(call)


def test_naming_no_suit_trump_is_malformed() -> None:
    message = actions_pb2.Action(name_trump=actions_pb2.NameTrump())
    with pytest.raises(MalformedMessageError, match=r"action\.name_trump\.suit"):
        action_from_proto(message)


def test_a_bid_of_any_amount_is_left_to_the_engine() -> None:
    assert action_from_proto(actions_pb2.Action(bid=actions_pb2.Bid(amount=-3))) == bid_action(-3)


# Legal actions and observations ----------------------------------------------------------------


@pytest.mark.parametrize("preset", ["standard", "traditional", "called-partner", "cutthroat"])
def test_legal_actions_round_trip_in_every_phase(preset: str, game_states: GameStates) -> None:
    phases = set()
    for game in game_states(preset, 3, 200):
        legal = game.legal_actions()
        phases.add(legal.phase)
        assert legal_actions_from_proto(legal_actions_to_proto(legal)) == legal
    assert {Phase.BIDDING, Phase.NAME_TRUMP, Phase.BURY, Phase.PLAY} <= phases


def test_bury_legal_actions_are_sent_as_candidates_and_a_count() -> None:
    game = Game(PRESETS["standard"], 1)
    game.apply(bid_action(70))
    for _ in range(3):
        game.apply(PASS)
    game.apply(ENGINE_TRUMP[Suit.RED])
    message = legal_actions_to_proto(game.legal_actions())
    assert message.phase == actions_pb2.PHASE_BURY
    assert (len(message.bury_candidates), message.bury_count) == (18, 5)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_observations_round_trip_for_every_seat_and_spectators(
    preset: str, game_states: GameStates
) -> None:
    for game in game_states(preset, 11, 120):
        for seat in range(-1, game.ruleset.players):
            observation = game.observation_for(seat)
            assert observation_from_proto(observation_to_proto(observation)) == observation


def test_partner_revealed_is_set_once_the_called_card_is_played(game_states: GameStates) -> None:
    seen = []
    for game in game_states("called-partner", 2, 60):
        observation = game.observation_for(0)
        message = observation_to_proto(observation)
        played = {card for trick in observation.completed_tricks for _, card in trick.cards}
        played |= {card for _, card in observation.current_trick.cards}
        assert message.partner_revealed == (observation.called_card in played)
        seen.append(message.partner_revealed)
    assert True in seen and False in seen


def test_an_observation_without_a_ruleset_is_malformed() -> None:
    with pytest.raises(MalformedMessageError, match=r"observation\.ruleset: is not set"):
        observation_from_proto(actions_pb2.Observation())


# Events -----------------------------------------------------------------------------------------


def _after_auction(preset: str = "standard") -> Game:
    game = Game(PRESETS[preset], 1)
    game.apply(bid_action(70))
    for _ in range(game.ruleset.players - 1):
        game.apply(PASS)
    return game


def test_a_dealt_hand_shows_each_receiver_only_its_own_cards() -> None:
    game = Game(PRESETS["standard"], 4)
    dealt = game.events[0]
    assert isinstance(dealt, HandDealt)
    for seat in range(4):
        message = event_to_proto(dealt, game.ruleset, seat).hand_dealt
        assert mask_from_proto(message.your_cards) == dealt.hands[seat]
        assert (message.hand_size, message.nest_size, message.dealer) == (13, 5, 0)
    assert not event_to_proto(dealt, game.ruleset, None).hand_dealt.your_cards


def test_the_nest_and_the_buried_cards_reach_only_the_bidder() -> None:
    game = _after_auction()
    game.apply(ENGINE_TRUMP[Suit.RED])
    game.apply(game.legal_actions()[0])
    nest = next(e for e in game.events if isinstance(e, NestTaken))
    buried = next(e for e in game.events if isinstance(e, CardsBuried))
    bidder = nest.seat
    for seat in (None, -1, 0, 1, 2, 3):
        taken = event_to_proto(nest, game.ruleset, seat).nest_taken
        bury = event_to_proto(buried, game.ruleset, seat).cards_buried
        assert (taken.count, bury.count) == (5, 5)
        assert bool(taken.cards) == bool(bury.cards) == (seat == bidder)


def test_every_event_keeps_its_sequence_number_and_hand(game_states: GameStates) -> None:
    game = next(g for g in game_states("called-partner", 5, 400) if g.hand_number == 1)
    kinds = set()
    for event in game.events:
        message = event_to_proto(event, game.ruleset, 2)
        assert (message.seq, message.hand_number) == (event.seq, event.hand_number)
        kinds.add(message.WhichOneof("kind"))
    assert {"hand_dealt", "bid_made", "passed", "auction_won", "nest_taken", "trump_named"} <= kinds
    assert {"cards_buried", "card_called", "card_played", "trick_won", "hand_scored"} <= kinds


def test_an_all_pass_redeal_becomes_a_hand_scored_with_redeal_set() -> None:
    game = Game(PRESETS["standard"], 1)
    for _ in range(4):
        game.apply(PASS)
    message = event_to_proto(game.events[-2], game.ruleset, 1)
    assert message.WhichOneof("kind") == "hand_scored"
    assert message.hand_scored.result == results_pb2.HandResult(hand_number=0, redeal=True)
    assert game.hand_number == 1


def test_a_forfeit_game_over_carries_the_seat_and_reason() -> None:
    game = _after_auction()
    game.forfeit(2, "late")
    over = game.events[-1]
    assert isinstance(over, GameOver)
    forfeit = Forfeit(2, ForfeitKind.TIMEOUT, "missed the 1000 ms deadline")
    message = event_to_proto(over, game.ruleset, None, forfeit=forfeit).game_over.result
    assert message.reason == results_pb2.TERMINATION_REASON_FORFEIT_TIMEOUT
    assert (message.forfeit_seat, message.detail) == (2, "missed the 1000 ms deadline")
    assert list(message.winners) == [1]


# Deals and results ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_hand_results_and_deals_round_trip(preset: str, game_states: GameStates) -> None:
    game = next(g for g in game_states(preset, 8, 2000) if g.hand_results)
    result = game.hand_results[0]
    message = hand_result_to_proto(result)
    back = hand_result_from_proto(message, game.ruleset, forced=result.forced)
    assert back == result
    assert deal_from_proto(deal_to_proto(result.deal)) == result.deal
    assert sum(len(hand.cards) for hand in message.deal.hands) == (
        game.ruleset.players * game.ruleset.hand_size
    )


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_deal_encodes_as_protobuf_builds_it(preset: str) -> None:
    deal = Game(PRESETS[preset], 5).deal
    expected = results_pb2.Deal()
    for hand in deal.hands:
        expected.hands.add().cards.extend(cards_to_proto(hand))
    expected.nest.extend(cards_to_proto(deal.nest))
    expected.dead.extend(cards_to_proto(deal.dead))
    assert deal_to_proto(deal) == expected
    empty = type(deal)(hands=(0,) * len(deal.hands), nest=0, dead=0)
    assert deal_to_proto(empty) == results_pb2.Deal(
        hands=[results_pb2.CardList()] * len(deal.hands)
    )


def test_a_card_dealt_to_two_places_is_malformed() -> None:
    message = deal_to_proto(Game(PRESETS["standard"], 1).deal)
    message.nest.add().CopyFrom(message.hands[0].cards[0])
    with pytest.raises(MalformedMessageError, match=r"deal.nest: \S+ is dealt to two places"):
        deal_from_proto(message)


def test_a_redeal_result_carries_only_its_hand_number_dealer_and_flag() -> None:
    game = Game(PRESETS["standard"], 1)
    for _ in range(4):
        game.apply(PASS)
    assert hand_result_to_proto(game.hand_results[0]) == results_pb2.HandResult(redeal=True)


@pytest.mark.parametrize(
    ("reason", "proto"),
    [
        (Termination.TARGET_REACHED, results_pb2.TERMINATION_REASON_TARGET_REACHED),
        (Termination.MAX_HANDS, results_pb2.TERMINATION_REASON_MAX_HANDS),
        (Termination.ABORTED, results_pb2.TERMINATION_REASON_ABORTED),
    ],
)
def test_termination_reasons_map_both_ways(reason: Termination, proto: int) -> None:
    from rookery.engine import GameResult

    result = GameResult((0,), (310, 120), 5, reason)
    message = game_result_to_proto(result, detail="why")
    assert (message.reason, message.forfeit_seat, message.detail) == (proto, -1, "why")
    assert game_result_from_proto(message) == result
    assert forfeit_from_proto(message) is None


@pytest.mark.parametrize("kind", list(ForfeitKind))
def test_each_forfeit_kind_maps_to_its_reason_and_back(kind: ForfeitKind) -> None:
    from rookery.engine import GameResult

    result = GameResult((1,), (0, 0), 1, Termination.FORFEIT)
    message = game_result_to_proto(result, forfeit=Forfeit(0, kind, "gone"))
    assert game_result_from_proto(message) == result
    assert forfeit_from_proto(message) == Forfeit(0, kind, "gone")
    assert termination_from_proto(message.reason) is Termination.FORFEIT


def test_a_forfeit_result_without_its_kind_is_refused() -> None:
    from rookery.engine import GameResult

    with pytest.raises(ValueError, match="needs the Forfeit"):
        game_result_to_proto(GameResult((1,), (0, 0), 1, Termination.FORFEIT))


def test_an_unset_termination_reason_is_malformed() -> None:
    with pytest.raises(MalformedMessageError, match="TERMINATION_REASON_UNSPECIFIED") as raised:
        game_result_from_proto(results_pb2.GameResult())
    assert raised.value.field == "result.reason"


# Seats ------------------------------------------------------------------------------------------


def test_seat_assignments_carry_sides_and_round_trip() -> None:
    bots: list[str | tuple[str, str]] = ["a", ("b", "2.0"), "c", "d", "e", "f"]
    seats = SeatAssignment.for_ruleset(PRESETS["six-handed"], bots)
    assert [seat.side for seat in seats] == [0, 1, 2, 0, 1, 2]
    assert seats[1] == SeatAssignment(1, 1, "b", "2.0")
    assert [seat_info_from_proto(seat_info_to_proto(seat)) for seat in seats] == list(seats)


def test_a_negative_seat_is_malformed() -> None:
    with pytest.raises(MalformedMessageError, match=r"seats\[1\].seat: not a seat: -2"):
        seat_info_from_proto(table_pb2.SeatInfo(seat=-2), "seats[1]")


def test_cards_of_helper_agrees_with_proto_order() -> None:
    mask = parse_cards("G14 B1 ROOK R5")
    assert [card_from_proto(card) for card in cards_to_proto(mask)] == cards_of(mask)


def test_remembered_actions_stay_checked_and_bounded() -> None:
    # A malformed action is never remembered: the second reading refuses it again.
    message = actions_pb2.Action()
    message.play_card.card.rank = 15
    message.play_card.card.suit = cards_pb2.SUIT_RED
    for _ in range(2):
        with pytest.raises(MalformedMessageError):
            action_from_proto(message)
    # A well-formed action padded with unknown fields reads as the action, and is not kept.
    padded = actions_pb2.Action.FromString(
        action_to_proto(ENGINE_PLAY[3]).SerializeToString() + b"\xfa\x3f\x90\x4e" + b"x" * 10_000
    )
    assert padded.ByteSize() > 10_000
    assert action_from_proto(padded) is ENGINE_PLAY[3]
    assert all(len(key) <= 128 for key in _convert_play._ACTIONS_READ)


def test_the_table_facts_moved_to_the_engine_keep_their_old_names_in_convert() -> None:
    # Compatibility: code written before the move still finds the same classes.
    assert convert.Forfeit is Forfeit
    assert convert.ForfeitKind is ForfeitKind
    assert convert.SeatAssignment is SeatAssignment
