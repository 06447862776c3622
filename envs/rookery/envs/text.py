"""A text seat for language-model agents: the seat's view as a prompt, the reply parsed.

The prompt gives a summary of the rules once (the system message), then for every decision the
seat's view and its legal moves. The reply may reason freely but must end with one line
``MOVE: <move>`` (:data:`ANSWER_FORMAT`); :func:`parse_reply` accepts that line alone, or says
precisely what is wrong, and :class:`TextSeat` asks again, at most ``retries`` times.
A provider's transient failure (HTTP 429 or 5xx, a timeout, a refused connection) is retried at
most ``provider_retries`` times, after a short back-off. It never substitutes a move of its own:
an agent that fails its retries, or whose provider keeps failing, gets no answer sent
(:class:`Decision` says why), so the table's late policy applies to that seat alone.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from rookery.engine import (
    Action,
    AllPass,
    BothOver,
    Bury,
    FirstLead,
    LegalActions,
    MalformedActionError,
    Observation,
    Partnership,
    Phase,
    Ruleset,
    card_name,
    cards_of,
    format_cards,
    parse_action,
)

if TYPE_CHECKING:
    from ._core import RookTable

__all__ = [
    "ANSWER_FORMAT",
    "ChatAgent",
    "Completion",
    "Decision",
    "DecisionTally",
    "Message",
    "ProviderError",
    "ReplyError",
    "RetrySettings",
    "TextSeat",
    "ToolCall",
    "legal_moves",
    "parse_move",
    "parse_reply",
    "preset_prompts",
    "render_table",
    "render_view",
    "retry_pause",
    "rules_summary",
    "stated_reason",
]

Message = dict[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""


@dataclass(frozen=True)
class ToolCall:
    """A tool the reply called: the provider's call id, the tool's name, its JSON arguments."""

    id: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True)
class Completion:
    """One reply of an agent: its text and the tokens its provider counted (0 when unknown)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools the reply called (a text seat offers none: an invalid reply)."""


ChatAgent = Callable[[list[Message]], Awaitable[str | Completion]]
"""An agent: the conversation so far in, its reply out (text or a :class:`Completion`).

It raises :class:`ProviderError` when its provider failed."""


class ReplyError(ValueError):
    """The reply holds no legal move; the message says what was wrong and what to send."""


class ProviderError(Exception):
    """The agent's provider failed (HTTP error, timeout, unreadable response); ``kind`` is a
    short code (``"http_500"``, ``"timeout"``, …). ``transient`` errors are worth retrying,
    ``retry_after_s`` is the provider's own hint (HTTP ``Retry-After``), if any."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        transient: bool = False,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.transient = transient
        self.retry_after_s = retry_after_s


# Rendering ------------------------------------------------------------------------------------

_SUIT_NAMES = {"B": "Black", "R": "Red", "Y": "Yellow", "G": "Green"}


def rules_summary(ruleset: Ruleset) -> str:
    """The complete rules of ``ruleset`` in plain words, for the system message (sent once a
    table): every parameter of RULES.md that changes what a player may do or how a hand scores."""
    r = ruleset
    if r.partnership is Partnership.FIXED:
        teams = (
            f"{r.players} players in {r.num_sides} fixed teams (seat s partners the seats with the "
            f"same s mod {r.num_sides}); a team scores together"
        )
    elif r.partnership is Partnership.CALLED:
        teams = (
            f"{r.players} players, each scoring alone, except that in each hand the bidder calls "
            "a card and whoever holds it is the bidder's secret partner for that hand"
        )
    else:
        teams = f"{r.players} players, each for themself"
    rook = "one Rook card (ROOK)" if r.rook_cards == 1 else "two Rook cards (ROOK, ROOK2)"
    trump_order = "ROOK" if r.rook_cards == 1 else "ROOK, then ROOK2"
    deal = f"Each hand, every player gets {r.hand_size} cards"
    deal += f" and {r.nest_size} go face down to the nest" if r.nest_size else " (no nest)"
    if r.dead_count:
        deal += (
            f"; the {r.dead_count} card(s) left over ({r.deck_size} - {r.nest_size} does not "
            f"divide by {r.players}) are dead: out of play for the whole hand, seen by nobody, "
            "their points counted for nobody"
        )
    deal += ". The dealer moves one seat left after every hand played out."
    if r.all_pass is AllPass.REDEAL:
        all_pass = "If everyone passes, the same dealer deals a new hand."
    else:
        all_pass = f"If everyone passes, the dealer becomes the bidder at {r.min_bid}."
    bury = f"bury exactly {r.nest_size} cards (any cards, point cards and the Rook included)"
    if r.nest_size:
        order = f"name trump, then {bury}" if r.trump_first else f"{bury}, then name trump"
        contract = (
            f"The last bidder left is the bidder: they add the nest to their hand, {order}; only "
            "the bidder sees the nest and the buried cards, and the buried points count for the "
            "bidder's side."
        )
    else:
        contract = "The last bidder left is the bidder and names trump."
    lead = (
        "The bidder leads"
        if r.first_lead is FirstLead.BIDDER
        else "The seat left of the bidder leads"
    )
    bonus = (
        f" The side that wins the last trick scores {r.last_trick_bonus} more."
        if r.last_trick_bonus
        else ""
    )
    if r.is_per_player:
        score = (
            f"Points: each 5 is worth 5, each 10 and 14 is worth 10, each Rook 20 (deck total "
            f"{r.deck_points}).{bonus} "
            + (
                "If the bidder and partner take at least the bid between them (the bidder's "
                "buried cards included), each of them scores all the two took, else each loses "
                "the bid"
                if r.partnership is Partnership.CALLED
                else "If the bidder takes at least the bid (the buried cards included), they "
                "score all they took, else they lose the bid"
            )
            + "; every other player scores the points in the tricks they won. Scores may go "
            "negative."
        )
    else:
        score = (
            f"Points: each 5 is worth 5, each 10 and 14 is worth 10, each Rook 20 (deck total "
            f"{r.deck_points}).{bonus} If the bidding side takes at least its bid it scores all "
            "it took, else it loses the bid; the other sides score what they took. Scores may "
            "go negative."
        )
    if r.both_over is BothOver.HIGHER_TOTAL:
        both = "if several reach it, the higher total wins (an exact tie plays another hand)"
    else:
        both = (
            "if several reach it, the bidding side wins if it is among them, else the higher "
            "total (an exact tie plays another hand)"
        )
    lines = [
        f"You play Rook (rules '{r.name}'): {teams}.",
        f"Deck: four suits B (Black), R (Red), Y (Yellow), G (Green), ranks {r.lowest_rank}-14 "
        f"(14 high, {r.lowest_rank} low), and {rook}. Cards are written like R14, B5, ROOK.",
        deal,
        "Bidding starts left of the dealer and goes clockwise: bid a multiple of "
        f"{r.bid_step}, at least {r.min_bid} and above the high bid, at most "
        f"{r.effective_max_bid}, or pass (a pass is final for the hand). {all_pass}",
        contract,
    ]
    if r.partnership is Partnership.CALLED:
        lines.append(
            "Then the bidder calls a card that is neither in their hand nor buried (a Rook "
            "card may be called): its holder is the bidder's secret partner, known to all when "
            "the card is played"
            + ("; if the called card is dead, the bidder plays alone." if r.dead_count else ".")
        )
    lines += [
        f"{lead} the first trick; the winner of a trick leads the next; {r.hand_size} tricks "
        "are played. The Rook is a trump: it belongs to the trump suit whenever it is played. "
        "Follow the suit led if you can (a trump lead is followed by any trump, the Rook "
        "included); otherwise play any card."
        + (
            " You may also play the Rook on any trick, even when you could follow suit."
            if r.rook_free_play
            else ""
        ),
        f"If any trump was played the highest trump wins the trick ({trump_order}, then trump "
        "14 down); otherwise the highest card of the suit led wins.",
        score,
        f"The game goes to {r.target}: after a hand, a side that has reached it wins; {both}. "
        f"After {r.max_hands} hands the higher total wins (a tie is a draw).",
        "Answer with your reasoning if you like, then end your reply with one line "
        f"'{ANSWER_FORMAT}', the move written exactly as listed (like 'MOVE: play R14'). Only "
        "that last line counts; a reply without it is invalid.",
    ]
    return "\n".join(lines)


def _seat_name(obs: Observation, seat: int) -> str:
    if seat == obs.seat:
        return f"seat {seat} (you)"
    return f"seat {seat}"


def render_view(obs: Observation, pending: int = 0) -> str:
    """What ``obs.seat`` knows now, in plain words."""
    r = obs.ruleset
    lines = [
        f"You are seat {obs.seat} of {r.players}. Hand {obs.hand_number + 1}, "
        f"dealer seat {obs.dealer}."
    ]
    if r.partnership is Partnership.FIXED:
        mates = [
            s for s in range(r.players) if obs.sides[s] == obs.sides[obs.seat] and s != obs.seat
        ]
        lines.append(f"Your partner(s): {', '.join(f'seat {s}' for s in mates)}.")
    scores = ", ".join(f"side {side}: {score}" for side, score in enumerate(obs.scores))
    lines.append(f"Scores so far: {scores} (your side: {obs.sides[obs.seat]}).")
    lines.append(f"Your hand: {format_cards(obs.hand) or '(empty)'}.")
    if obs.auction:
        calls = "; ".join(
            f"seat {seat} {'bid ' + str(amount) if amount else 'passed'}"
            for seat, amount in obs.auction
        )
        lines.append(f"Auction so far: {calls}.")
    if obs.bidder >= 0:
        lines.append(f"{_seat_name(obs, obs.bidder).capitalize()} won the auction at {obs.bid}.")
    if obs.nest:
        lines.append(f"The nest you picked up: {format_cards(obs.nest)}.")
    if obs.trump is not None:
        lines.append(f"Trump: {_SUIT_NAMES[obs.trump.letter]} ({obs.trump.letter}).")
    if obs.buried:
        lines.append(f"You buried: {format_cards(obs.buried)}.")
    if pending:
        lines.append(f"Chosen to bury so far: {format_cards(pending)}.")
    if obs.called_card >= 0:
        partner = f"; the partner is seat {obs.partner}" if obs.partner >= 0 else ""
        lines.append(f"Called card: {card_name(obs.called_card)}{partner}.")
    for index, trick in enumerate(obs.completed_tricks):
        cards = ", ".join(f"seat {seat} {card_name(card)}" for seat, card in trick.cards)
        lines.append(
            f"Trick {index + 1}: {cards}; won by seat {trick.winner} ({trick.points} points)."
        )
    if obs.phase is Phase.PLAY:
        trick = obs.current_trick
        if trick.cards:
            cards = ", ".join(f"seat {seat} {card_name(card)}" for seat, card in trick.cards)
            lines.append(f"Current trick (led by seat {trick.leader}): {cards}.")
        else:
            lines.append(f"Current trick: seat {trick.leader} leads.")
    points = ", ".join(f"side {side}: {p}" for side, p in enumerate(obs.points_captured))
    if obs.phase is Phase.PLAY:
        lines.append(f"Points taken in tricks this hand: {points}.")
    return "\n".join(lines)


def legal_moves(legal: LegalActions) -> list[str]:
    """The legal moves as text (a bury as one line naming how many cards, from which)."""
    if legal.phase is Phase.BURY:
        example = Bury(sum(1 << c for c in cards_of(legal.bury_from)[: legal.bury_count]))
        return [
            f"bury <{legal.bury_count} cards of: {format_cards(legal.bury_from)}>"
            f" (for example: {example})"
        ]
    return [str(action) for action in legal]


_PHASE_WORDS = {
    Phase.BIDDING: "Bid or pass.",
    Phase.NAME_TRUMP: "Name trump.",
    Phase.BURY: "Bury cards.",
    Phase.CALL: "Call a card: its holder becomes your partner.",
    Phase.PLAY: "Play a card.",
}


def decision_prompt(obs: Observation, legal: LegalActions) -> str:
    """The user message of one decision: the view, the moves, the answer's form."""
    moves = legal_moves(legal)
    return (
        f"{render_view(obs)}\n\n{_PHASE_WORDS.get(obs.phase, '')} Your legal moves: "
        f"{', '.join(moves)}.\nEnd your reply with one line: {ANSWER_FORMAT}"
    )


def render_table(table: RookTable) -> str:
    """The view of the seat to act (the PettingZoo env's ``ansi`` render)."""
    seat = table.current_player
    if seat is None:
        result = table.game.result
        return f"Game over: {result}"
    return render_view(table.observation(seat), table.pending_for(seat))


def _example_move(legal: LegalActions, step: int) -> Action:
    """A move chosen without a random generator (every engine build picks the same)."""
    if legal.phase is Phase.BURY:
        return Bury(sum(1 << c for c in cards_of(legal.bury_from)[: legal.bury_count]))
    moves = list(legal)
    return moves[(step * 7) % len(moves)]


def preset_prompts(seed: int = 3) -> str:
    """For every preset, the system message and one decision's prompt (the second trick, the
    seat to act), as the markdown page ``docs/ai-prompts.md`` shows them."""
    from rookery.engine import PRESETS, Game

    parts = [
        "# What a language model is sent: one position of each preset",
        "",
        "Generated by `rookery.envs.text.preset_prompts()`; `tests/envs/test_text_prompts.py` "
        "checks this page against it. The system message is sent once a table, the decision "
        "prompt at every request (after an invalid reply, the reason and the legal moves "
        "again).",
    ]
    for name in PRESETS:
        game = Game(Ruleset.preset(name), seed, events=False)
        step = 0
        while game.phase is not Phase.PLAY or not game.observation_for(0).completed_tricks:
            game.apply(_example_move(game.legal_actions(), step))
            step += 1
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        parts += [
            "",
            f"## `{name}`",
            "",
            "System message:",
            "",
            "```text",
            rules_summary(obs.ruleset),
            "```",
            "",
            f"Decision prompt (seat {seat}, game seed {seed}):",
            "",
            "```text",
            decision_prompt(obs, obs.legal_actions()),
            "```",
        ]
    return "\n".join(parts) + "\n"


# Parsing --------------------------------------------------------------------------------------

ANSWER_FORMAT = "MOVE: <move>"
"""The one answer the seat accepts: the reply's last line, the move written exactly as listed."""

_MOVE_LINE = re.compile(r"^MOVE\s*:(.*)$", re.IGNORECASE)
_EMPHASIS = re.compile(r"[*`]")


def _answer_lines(reply: str) -> list[str]:
    """The reply's lines without markdown emphasis (``**``, backquotes), stripped, non-empty."""
    lines = (_EMPHASIS.sub("", line).strip() for line in reply.splitlines())
    return [line for line in lines if line]


def stated_reason(reply: str) -> str:
    """What the reply says before its ``MOVE:`` line (the model's reason; ``""`` if none)."""
    lines = [line.strip() for line in reply.strip().splitlines()]
    while lines and _MOVE_LINE.match(_EMPHASIS.sub("", lines[-1]).strip()):
        lines.pop()
    return "\n".join(lines).strip()


def parse_reply(reply: str, legal: LegalActions) -> Action:
    """The move of ``reply``'s last line, ``MOVE: <move>``, if it is one legal move.

    Nothing else commits: a move named in the reasoning, a question, a negation, two ``MOVE:``
    lines, or a last line that is not ``MOVE:`` followed by exactly one move raises
    :class:`ReplyError`, whose message says what was wrong and what to send.

    >>> from rookery.engine import Game, Ruleset
    >>> legal = Game(Ruleset.preset("standard"), 1).legal_actions()
    >>> str(parse_reply("Seventy is cheap.\\nMOVE: bid 70", legal))
    'bid 70'
    >>> parse_reply("Should I bid 70?", legal)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rookery.envs.text.ReplyError: your reply does not end with a line 'MOVE: <move>' ...
    """
    moves = ", ".join(legal_moves(legal))
    example = legal_moves(legal)[0] if legal.phase is not Phase.BURY else "bury B5 R10 ..."
    lines = _answer_lines(reply)
    marked = [line for line in lines if _MOVE_LINE.match(line)]
    if not lines or not _MOVE_LINE.match(lines[-1]):
        shown = (lines[-1] if lines else "(empty)")[:80]
        raise ReplyError(
            f"your reply does not end with a line 'MOVE: <move>' (its last line: {shown!r}); "
            f"end it with one line like 'MOVE: {example}'. Legal moves: {moves}"
        )
    if len(marked) > 1:
        raise ReplyError(
            f"your reply has {len(marked)} lines starting with 'MOVE:'; give exactly one, "
            "as the last line"
        )
    match = _MOVE_LINE.match(lines[-1])
    assert match is not None
    return parse_move(match.group(1), legal, where=" after 'MOVE:'")


def parse_move(text: str, legal: LegalActions, *, where: str = "") -> Action:
    """``text`` as exactly one legal move, written as listed (a final period and commas between
    a bury's cards allowed); :class:`ReplyError` saying why and listing the legal moves."""
    moves = ", ".join(legal_moves(legal))
    example = legal_moves(legal)[0] if legal.phase is not Phase.BURY else "bury B5 R10 ..."
    text = text.strip()
    text = text[:-1].rstrip() if text.endswith(".") else text
    try:
        action = parse_action(text.replace(",", " "))
    except MalformedActionError:
        raise ReplyError(
            f"'{text[:80]}'{where} is not one move written as listed (like '{example}'). "
            f"Legal moves: {moves}"
        ) from None
    if action not in legal:
        raise ReplyError(f"'{action}' is not legal now. Legal moves: {moves}")
    return action


# The seat -------------------------------------------------------------------------------------

Outcome = Literal["answered", "gave_up", "provider_error"]


@dataclass(frozen=True)
class Decision:
    """One request answered (or not) by the agent.

    ``outcome``: ``answered`` (``action`` is legal), ``gave_up`` (every re-prompt got an invalid
    reply) or ``provider_error`` (the provider kept failing, or failed for good); in both last
    cases no move is sent and the table's late policy applies to the seat. ``attempts`` counts
    the requests made, ``invalid_replies`` the replies refused, ``provider_errors`` the requests
    that failed; ``reason`` is what the accepted reply said before its move line.
    """

    outcome: Outcome
    action: Action | None
    attempts: int
    errors: tuple[str, ...]
    seconds: float
    transcript: tuple[Message, ...] = field(repr=False)
    invalid_replies: int = 0
    provider_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reason: str = field(default="", repr=False)


@dataclass
class DecisionTally:
    """What one decision has counted so far (requests, refusals, failures, tokens, errors),
    until :meth:`decision` makes it a :class:`Decision`: the one bookkeeping of both seats."""

    started: float = field(default_factory=time.monotonic)
    attempts: int = 0
    invalid: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)

    def count_tokens(self, got: Completion) -> None:
        """Adds the tokens the provider counted for ``got``."""
        self.prompt_tokens += got.prompt_tokens
        self.completion_tokens += got.completion_tokens

    def provider_failed(self, error: ProviderError) -> None:
        """Counts a request the provider failed, and its error."""
        self.failures += 1
        self.errors.append(f"{error.kind}: {error}")

    def decision(
        self,
        outcome: Outcome,
        action: Action | None,
        transcript: tuple[Message, ...],
        reason: str,
    ) -> Decision:
        """The decision these counts end in (its seconds from ``started`` to now)."""
        return Decision(
            outcome,
            action,
            self.attempts,
            tuple(self.errors),
            time.monotonic() - self.started,
            transcript,
            invalid_replies=self.invalid,
            provider_errors=self.failures,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            reason=reason,
        )


class RetrySettings(Protocol):
    """A seat's bounds on a provider's transient errors (see :class:`TextSeat`)."""

    @property
    def provider_retries(self) -> int: ...
    @property
    def backoff_s(self) -> float: ...
    @property
    def max_backoff_s(self) -> float: ...
    @property
    def time_left(self) -> TimeLeft: ...


def retry_pause(seat: RetrySettings, error: ProviderError, failures: int) -> float | None:
    """How long ``seat`` waits before retrying ``error`` (its ``failures``-th in a decision), or
    ``None`` when it must not retry: not transient, retries spent, or no time left for it."""
    if not error.transient or failures > seat.provider_retries:
        return None
    delay = error.retry_after_s
    if delay is None:
        delay = seat.backoff_s * 2 ** (failures - 1)
    delay = min(delay, seat.max_backoff_s)
    return delay if delay < seat.time_left() else None


TimeLeft = Callable[[], float]
"""Seconds the seat may still spend on the current decision (``math.inf``: no limit)."""


def _no_limit() -> float:
    return math.inf


@dataclass
class TextSeat:
    """Asks ``agent`` for a move and never invents one.

    An invalid reply is re-prompted with why, at most ``retries`` times; a transient provider
    error is retried at most ``provider_retries`` times, after ``backoff_s`` doubling each time
    (or the provider's ``Retry-After``, at most ``max_backoff_s``), never past ``time_left()``.
    """

    agent: ChatAgent
    retries: int = 2
    provider_retries: int = 2
    backoff_s: float = 0.5
    max_backoff_s: float = 4.0
    time_left: TimeLeft = _no_limit
    decisions: list[Decision] = field(default_factory=list)
    _system: dict[str, Message] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise ValueError(f"retries must be ≥ 0, got {self.retries}")
        if self.provider_retries < 0:
            raise ValueError(f"provider_retries must be ≥ 0, got {self.provider_retries}")
        if not 0 <= self.backoff_s <= self.max_backoff_s:
            raise ValueError(
                f"need 0 ≤ backoff_s ≤ max_backoff_s, got {self.backoff_s} and {self.max_backoff_s}"
            )

    def system_message(self, ruleset: Ruleset) -> Message:
        """The rules summary of ``ruleset`` (built once)."""
        if ruleset.name not in self._system:
            self._system[ruleset.name] = {"role": "system", "content": rules_summary(ruleset)}
        return self._system[ruleset.name]

    def _pause(self, error: ProviderError, failures: int) -> float | None:
        """How long to wait before retrying ``error`` (the ``failures``-th), or ``None``."""
        return retry_pause(self, error, failures)

    async def decide(self, obs: Observation, legal: LegalActions | None = None) -> Decision:
        """Ask for ``obs``'s move; the decision is also appended to ``decisions``."""
        legal = legal if legal is not None else obs.legal_actions()
        tally = DecisionTally()
        messages: list[Message] = [
            self.system_message(obs.ruleset),
            {"role": "user", "content": decision_prompt(obs, legal)},
        ]
        outcome: Outcome = "gave_up"
        action: Action | None = None
        reason = ""
        while True:
            tally.attempts += 1
            try:
                got = await self.agent(list(messages))
                got = got if isinstance(got, Completion) else Completion(got)
                reply = got.text
                tally.count_tokens(got)
                messages.append({"role": "assistant", "content": reply})
                if got.tool_calls and not reply.strip():
                    raise ReplyError(
                        f"your reply was a tool call "
                        f"({', '.join(c.name for c in got.tool_calls)[:80]}), with no "
                        f"text: this seat offers no tools; answer in text, ending with one line "
                        f"'{ANSWER_FORMAT}'"
                    )
                action = parse_reply(reply, legal)
            except ProviderError as error:
                tally.provider_failed(error)
                pause = self._pause(error, tally.failures)
                if pause is None:
                    outcome = "provider_error"
                    break
                await asyncio.sleep(pause)
                continue
            except ReplyError as error:
                tally.invalid += 1
                tally.errors.append(str(error))
                messages.append({"role": "user", "content": f"{error}. Try again."})
                if tally.invalid > self.retries:
                    break
                continue
            outcome = "answered"
            reason = stated_reason(reply)
            break
        decision = tally.decision(outcome, action, tuple(messages), reason)
        self.decisions.append(decision)
        return decision


def scripted_agent(replies: Sequence[str]) -> ChatAgent:
    """An agent that answers with ``replies`` in turn (for tests and examples)."""
    queue = list(replies)

    async def agent(messages: list[Message]) -> str | Completion:
        if not queue:
            raise ProviderError("exhausted", "the scripted agent has no replies left")
        return queue.pop(0)

    return agent
