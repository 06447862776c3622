"""Engine ↔ proto conversion: the one place where ``rookery.engine`` values meet ``rookery.v1``.

This module is the face of the conversion; each family is one private module: cards, card sets,
suits and phases (``_convert_cards``), the ruleset (``_convert_ruleset``), actions, legal
actions, tricks and observations (``_convert_play``), deals, results and seats
(``_convert_results``), events (``_convert_events``).

Every function is a pure mapping. ``*_to_proto`` builds a new message from an engine value;
``*_from_proto`` reads a message into an engine value and raises ``MalformedMessageError`` naming
the offending field when the message cannot describe one (an action with no kind, a card with an
impossible suit/rank/rook combination, a bury naming a card twice, an unknown enum value, a
ruleset the engine refuses). Whether an action is *legal* is the engine's business, not this
module's.

Proto ``0`` / ``UNSPECIFIED`` values read as the defaults the proto comments document:
``PARTNERSHIP_UNSPECIFIED`` → ``FIXED``, ``FIRST_LEAD_UNSPECIFIED`` → ``BIDDER``,
``ALL_PASS_UNSPECIFIED`` → ``REDEAL``, ``BOTH_OVER_UNSPECIFIED`` → ``HIGHER_TOTAL``,
``max_bid = 0`` → the deck's point total, an empty ruleset name → ``"custom"``.

>>> from rookery.engine import parse_action, parse_card
>>> card_from_proto(card_to_proto(parse_card("R14"))) == parse_card("R14")
True
>>> str(action_from_proto(action_to_proto(parse_action("bury B5 ROOK"))))
'bury B5 ROOK'
"""

from __future__ import annotations

from rookery.engine import Forfeit, ForfeitKind, SeatAssignment

from ._convert_cards import (
    card_from_proto,
    card_masks_to_proto,
    card_to_proto,
    cards_to_proto,
    mask_from_bits,
    mask_from_proto,
    phase_from_proto,
    phase_to_proto,
    suit_from_proto,
    suit_to_proto,
)
from ._convert_events import event_to_proto
from ._convert_play import (
    action_from_proto,
    action_to_proto,
    is_partner_revealed,
    legal_actions_from_proto,
    legal_actions_to_proto,
    observation_from_proto,
    observation_to_proto,
    trick_from_proto,
    trick_to_proto,
)
from ._convert_results import (
    deal_from_proto,
    deal_to_proto,
    forfeit_from_proto,
    game_result_from_proto,
    game_result_to_proto,
    hand_result_from_proto,
    hand_result_to_proto,
    seat_info_from_proto,
    seat_info_to_proto,
    termination_from_proto,
    termination_name,
    termination_to_proto,
)
from ._convert_ruleset import ruleset_from_proto, ruleset_to_proto

__all__ = [
    # Compatibility only: these three are defined in (and exported by) ``rookery.engine``, where
    # new code imports them; they stay here by name for code written before they moved.
    "Forfeit",
    "ForfeitKind",
    "SeatAssignment",
    "action_from_proto",
    "action_to_proto",
    "card_from_proto",
    "card_masks_to_proto",
    "card_to_proto",
    "cards_to_proto",
    "deal_from_proto",
    "deal_to_proto",
    "event_to_proto",
    "forfeit_from_proto",
    "game_result_from_proto",
    "game_result_to_proto",
    "hand_result_from_proto",
    "hand_result_to_proto",
    "is_partner_revealed",
    "legal_actions_from_proto",
    "legal_actions_to_proto",
    "mask_from_bits",
    "mask_from_proto",
    "observation_from_proto",
    "observation_to_proto",
    "phase_from_proto",
    "phase_to_proto",
    "ruleset_from_proto",
    "ruleset_to_proto",
    "seat_info_from_proto",
    "seat_info_to_proto",
    "suit_from_proto",
    "suit_to_proto",
    "termination_from_proto",
    "termination_name",
    "termination_to_proto",
    "trick_from_proto",
    "trick_to_proto",
]

__test__ = {"termination_name": termination_name}
"""The examples of the functions defined in the private modules, run as this module's
(``doctest.testmod(convert)``)."""
