"""Rookery's native Rook core (Rust): the game of every preset, played exactly as rookery.engine."""

from typing import Any, Self

__version__: str

class RefusedError(ValueError):
    """A refused action; ``args`` are ``(kind, reason, message)``, ``kind`` one of
    ``"malformed"``, ``"illegal"``, ``"game_over"``."""

class Rules:
    @staticmethod
    def from_dict(data: dict[str, Any]) -> Rules: ...
    @property
    def players(self) -> int: ...
    @property
    def num_sides(self) -> int: ...
    @property
    def deck_mask(self) -> int: ...
    @property
    def hand_size(self) -> int: ...
    def deal(self, seed: int, hand_number: int, redeals: int = 0) -> tuple[list[int], int, int]: ...

class Batch:
    def __init__(self, rules: Rules, n: int, seed: int, zero_sum: bool = True) -> None: ...
    @property
    def n(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def episodes(self) -> int: ...
    def write(self, obs: Any, masks: Any, seats: Any) -> None: ...
    def step(
        self, actions: Any, obs: Any, masks: Any, seats: Any, rewards: Any, done: Any
    ) -> None: ...
    def table(self, index: int) -> EngineGame: ...

class EngineGame:
    """``rookery.engine.Game``'s hot calls on the core, handing out the engine's values (bound
    once by ``bind_engine``); ``rookery.engine``'s ``CoreGame`` subclasses it."""

    def __new__(
        cls, rules: Rules, seed: int, events: bool = True, source: EngineGame | None = None
    ) -> Self: ...
    @staticmethod
    def _from_deal(
        rules: Rules,
        hands: list[int],
        nest: int,
        dead: int,
        *,
        seed: int = 0,
        dealer: int | None = None,
        hand_number: int = 0,
        scores: list[int] | None = None,
        events: bool = True,
    ) -> EngineGame: ...
    def random_playout(self, rng_seed: int) -> int: ...
    @property
    def phase(self) -> Any: ...
    @property
    def current_player(self) -> int | None: ...
    @property
    def seed(self) -> int: ...
    @property
    def hand_number(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def bidder(self) -> int: ...
    @property
    def trump(self) -> Any: ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def hands(self) -> tuple[int, ...]: ...
    @property
    def last_seq(self) -> int: ...
    @property
    def forfeited(self) -> tuple[int, str] | None: ...
    @property
    def is_aborted(self) -> bool: ...
    @property
    def actions(self) -> list[tuple[int, Any]]: ...
    def legal_actions(self) -> Any: ...
    def apply(self, action: Any) -> None: ...
    def _has_ended(self) -> bool: ...
    def _events_enabled(self) -> bool: ...
    def _forfeit(self, seat: int, reason: str) -> None: ...
    def _abort(self) -> None: ...
    def _result_plain(self) -> dict[str, Any] | None: ...
    def _hand_results_plain(self, start: int) -> list[dict[str, Any]]: ...
    def _deal_plain(self) -> tuple[list[int], int, int]: ...
    def _events_plain(self, seq: int) -> list[tuple[Any, ...]]: ...
    def _observation_fields(self, seat: int, since: int) -> tuple[Any, ...]: ...

class TableView:
    """One ``EngineGame`` by action ids: observation tensors and legal masks written into
    caller-owned arrays, and steps (``rookery.engine.table_view``)."""

    def __new__(cls, game: EngineGame) -> Self: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    def write(self, seat: int, pending: int, obs: Any, mask: Any = None) -> None: ...
    @property
    def info_size(self) -> int: ...
    def write_info(
        self, seat: int, pending: int, picked_up: int, bury_order: list[int], out: Any
    ) -> None: ...
    def write_mask(self, pending: int, mask: Any) -> None: ...
    def legal_ids(self, pending: int) -> list[int]: ...
    def step(self, id: int, pending: int) -> int: ...

class LegalActions:
    """The legal actions of the auction or the play, as ``rookery.engine.LegalActions`` (a
    virtual subclass of it)."""

def bind_engine(values: dict[str, Any]) -> None: ...

class RequestReader:
    """A bot's reader of the server's messages (``rookery.wire.fastpath`` makes one): each card's
    ``Card`` message, the engine's phases and suits by their enum numbers."""

    def __new__(cls, cards: list[bytes], phases: dict[int, Any], suits: dict[int, Any]) -> Self: ...
    @staticmethod
    def split(data: bytes) -> tuple[bool, list[tuple[int, bytes]]] | None: ...
    def read(
        self, message: bytes, known: dict[str, tuple[int, tuple[Any, ...]]] | None = None
    ) -> tuple[Any, ...] | None: ...

class RequestWriter:
    """One table's ``ActionRequest`` writer (``rookery.wire.fastpath.RequestEncoder`` makes it):
    the ``Observation.ruleset`` field encoded, each card's ``Card`` message, the ``Phase`` number
    of each phase and the ``Suit`` number of each suit then of none."""

    def __new__(
        cls, ruleset: bytes, cards: list[bytes], phases: list[int], suits: list[int]
    ) -> Self: ...
    def write(
        self,
        game: EngineGame,
        table_id: bytes,
        request_id: int,
        seat: int,
        deadline_ms: int,
        bank_ms: int,
        last_seq: int,
        masks: bool,
    ) -> bytes: ...

class DoubleDummy:
    """One deal's double-dummy solver: the points the seats of ``side`` (a bit mask) take from a
    position of the play to the end of the hand under perfect play by both sides."""

    def __init__(
        self,
        players: int,
        trump: int,
        side: int,
        rook_free_play: bool = False,
        last_trick_bonus: int = 0,
        node_limit: int = 0,
        table_limit: int = 1 << 20,
    ) -> None: ...
    def solve(
        self,
        hands: list[int],
        leader: int,
        trick: list[int] = ...,
        at_least: int | None = None,
        at_most: int | None = None,
    ) -> int: ...
    def bounds(
        self,
        hands: list[int],
        leader: int,
        trick: list[int] = ...,
        at_least: int | None = None,
        at_most: int | None = None,
        test_first: int | None = None,
        only_above: int | None = None,
    ) -> tuple[int, int]: ...
    def card_values(
        self, hands: list[int], leader: int, trick: list[int] = ...
    ) -> list[tuple[int, int]]: ...
    def clear(self) -> None: ...
    @property
    def nodes(self) -> int: ...
    @property
    def table_size(self) -> int: ...

def dd_exhaustive(
    players: int,
    trump: int,
    side: int,
    hands: list[int],
    leader: int,
    trick: list[int] = ...,
    rook_free_play: bool = False,
    last_trick_bonus: int = 0,
) -> int: ...
def sample_deals(
    unknown: int,
    places: list[tuple[int, int, int, int]],
    hands: list[int],
    played: list[int],
    nest: int,
    buried: int,
    bidder: int,
    nest_size: int,
    buried_done: bool,
    seed: int,
    n: int,
) -> list[tuple[list[int], int, int]]:
    """``n`` deals spread over the hidden ``places`` ``(kind, seat, capacity, forbidden)``
    (kind 0 a hand, 1 the nest, 2 the bury, 3 the dead pile), as ``rookery.engine.sample_deal``."""

class HeuristicPlayouts:
    """One position of a hand's play, played out per sample by the bots' heuristic."""

    def __init__(
        self,
        players: int,
        deck_mask: int,
        rook_free_play: bool,
        last_trick_bonus: int,
        fixed_friends: list[int] | None,
        trump: int,
        bidder: int,
        called: int,
        partner_shown: bool,
        played: int,
        trick: list[tuple[int, int]],
        voids: list[int],
        won: list[int],
        leader: int,
        tricks_left: int,
        history: list[tuple[int, int]],
        hand_size: int,
    ) -> None: ...
    def play_out(
        self, hands: list[int], partner: int, bidding_mask: int, candidates: list[int]
    ) -> list[list[int]]: ...
    def likelihood(
        self, hands: list[int], partner: int, bidding_mask: int, friends: int, miss: float
    ) -> float: ...
    def likeliest(
        self,
        unknown: int,
        places: list[tuple[int, int, int, int]],
        hands: list[int],
        played: list[int],
        nest: int,
        buried: int,
        bidder: int,
        nest_size: int,
        buried_done: bool,
        seed: int,
        tries: int,
        seat: int,
        hand: int,
        partner: int,
        friends: int,
        miss: float,
    ) -> tuple[list[int], int, int]: ...
