"""Rookery's rules engine: Rook exactly as RULES.md says, deterministic and fast.

A game is a ruleset, a seed and a sequence of actions; every deal, observation and score is
derived from them. Cards are ``int`` indices and card sets ``int`` bit masks. The engine imports
only the standard library.

>>> from rookery.engine import Game, Ruleset
>>> game = Game(Ruleset.preset("standard"), seed=1)
>>> legal = game.legal_actions()
>>> str(legal[0]), len(legal)
('pass', 12)

``Game`` runs on the native core (``rookery_core``, built by ``make setup`` where a Rust toolchain
is found) or, without it, in pure Python: the same API and values either way. ``build_info()``
says which; ``ROOKERY_PURE_ENGINE=1`` forces the pure engine.
"""

from ._actions import (
    PASS,
    PLAY,
    TRUMP,
    Action,
    Bid,
    Bury,
    CallCard,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
    bid_action,
    parse_action,
)
from ._build import BuildInfo, build_info
from ._cards import (
    ALL_CARDS_MASK,
    CARD_POINTS,
    NUM_CARDS,
    ROOK,
    ROOK2,
    ROOK_MASK,
    SUIT_MASKS,
    Suit,
    card_name,
    card_points,
    card_rank,
    card_suit,
    cards_of,
    format_cards,
    make_card,
    mask_of,
    mask_points,
    parse_card,
    parse_cards,
    popcount,
)
from ._choice import Game
from ._deal import Deal, deal_for_hand
from ._double_dummy import DoubleDummy
from ._errors import (
    CardParseError,
    EngineError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    RecordFormatError,
    ReplayMismatchError,
    RulesetError,
)
from ._events import (
    AuctionWon,
    BidMade,
    CardCalled,
    CardPlayed,
    CardsBuried,
    Event,
    EventBase,
    GameOver,
    HandDealt,
    HandRedealt,
    HandScored,
    NestTaken,
    PartnerRevealed,
    Passed,
    TrickWon,
    TrumpNamed,
)
from ._heuristic_playouts import HeuristicPlayouts
from ._legal import LegalActions
from ._observation import Observation, Trick, new_observation, new_trick
from ._playout import random_playout
from ._record import RECORD_FORMAT, GameRecord
from ._results import GameResult, HandResult, HandScore, Termination
from ._rulebook import (
    FOLLOW_MASKS,
    TRICK_KEYS,
    TRUMP_MASKS,
    bidding_seats,
    legal_play_mask,
    playable,
    redeal_result,
    score_hand,
    trick_winner,
)
from ._ruleset import PRESETS, AllPass, BothOver, FirstLead, HandSeeds, Partnership, Ruleset
from ._sampling import sample_deal, sample_deals
from ._seats import Forfeit, ForfeitKind, SeatAssignment
from ._table_batch import TableBatch
from ._table_view import TableView, table_view
from ._text import format_replay_text

__all__ = [
    "ALL_CARDS_MASK",
    "CARD_POINTS",
    "FOLLOW_MASKS",
    "NUM_CARDS",
    "PASS",
    "PLAY",
    "PRESETS",
    "RECORD_FORMAT",
    "ROOK",
    "ROOK2",
    "ROOK_MASK",
    "SUIT_MASKS",
    "TRICK_KEYS",
    "TRUMP",
    "TRUMP_MASKS",
    "Action",
    "AllPass",
    "AuctionWon",
    "Bid",
    "BidMade",
    "BothOver",
    "BuildInfo",
    "Bury",
    "CallCard",
    "CardCalled",
    "CardParseError",
    "CardPlayed",
    "CardsBuried",
    "Deal",
    "DoubleDummy",
    "EngineError",
    "Event",
    "EventBase",
    "FirstLead",
    "Forfeit",
    "ForfeitKind",
    "Game",
    "GameOver",
    "GameOverError",
    "GameRecord",
    "GameResult",
    "HandDealt",
    "HandRedealt",
    "HandResult",
    "HandScore",
    "HandScored",
    "HandSeeds",
    "HeuristicPlayouts",
    "IllegalActionError",
    "LegalActions",
    "MalformedActionError",
    "NameTrump",
    "NestTaken",
    "Observation",
    "PartnerRevealed",
    "Partnership",
    "Pass",
    "Passed",
    "Phase",
    "PlayCard",
    "RecordFormatError",
    "ReplayMismatchError",
    "Ruleset",
    "RulesetError",
    "SeatAssignment",
    "Suit",
    "TableBatch",
    "TableView",
    "Termination",
    "Trick",
    "TrickWon",
    "TrumpNamed",
    "bid_action",
    "bidding_seats",
    "build_info",
    "card_name",
    "card_points",
    "card_rank",
    "card_suit",
    "cards_of",
    "deal_for_hand",
    "format_cards",
    "format_replay_text",
    "legal_play_mask",
    "make_card",
    "mask_of",
    "mask_points",
    "new_observation",
    "new_trick",
    "parse_action",
    "parse_card",
    "parse_cards",
    "playable",
    "popcount",
    "random_playout",
    "redeal_result",
    "sample_deal",
    "sample_deals",
    "score_hand",
    "table_view",
    "trick_winner",
]
