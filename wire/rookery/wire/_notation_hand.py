"""Reading one hand line of game notation into a ``ReplayHand``: its deal, its moves (card plays
grouped by trick, each move's marks and note), its score and comments.
"""

from __future__ import annotations

import base64
import re

from google.protobuf.message import DecodeError, Message
from rookery.engine import Bury, CallCard, EngineError, NameTrump, parse_action
from rookery.engine import parse_card as _parse_card
from rookery.v1 import replay_pb2

from ._notation_forms import APPLIED, unescape
from ._notation_game import NotationError, TextGame, number_of, numbers_of
from .convert import action_from_proto, action_to_proto, card_to_proto
from .errors import MalformedMessageError

__all__ = ["parse_hand"]


class _Quotes:
    """Where a left-to-right scan stands in ``"..."`` reasons (a backslash escapes the next
    character inside one): the one scanner of a hand line's parts and of a trick's plays."""

    __slots__ = ("escaped", "quoted")

    def __init__(self) -> None:
        self.quoted = False
        self.escaped = False

    def inside(self, char: str) -> bool:
        """Whether ``char``, the scan's next character, belongs to a quoted reason (its quotes
        included); the scan moves past it."""
        if self.quoted:
            if self.escaped:
                self.escaped = False
            elif char == "\\":
                self.escaped = True
            elif char == '"':
                self.quoted = False
            return True
        if char == '"':
            self.quoted = True
            return True
        return False


def _split(text: str, source: str, line: int, hand: int | None) -> tuple[list[str], list[str]]:
    """A hand line's ``;``-separated parts, and the ``{comment}`` ending each part ('' if none)."""
    parts: list[str] = []
    comments: list[str] = []
    current: list[str] = []
    comment: list[str] = []
    quotes = _Quotes()
    braced = False
    for char in text:
        if braced:
            if char == "}":
                braced = False
            else:
                comment.append(char)
        elif quotes.inside(char):
            current.append(char)
        elif char == "{":
            braced = True
            if comment:
                comment.append(" ")
        elif char == ";":
            parts.append("".join(current).strip())
            comments.append("".join(comment).strip())
            current, comment = [], []
        else:
            current.append(char)
    if braced:
        raise NotationError(source, line, "a comment opened with { is not closed on its line", hand)
    if quotes.quoted:
        raise NotationError(source, line, 'a quoted reason is not closed with "', hand)
    parts.append("".join(current).strip())
    comments.append("".join(comment).strip())
    return parts, comments


def _parse_cards(
    text: str, target: Message, name: str, source: str, line: int, hand: int, what: str
) -> None:
    cards = getattr(target, name)
    if text.strip() == "-":
        return
    for word in text.split():
        try:
            card = _parse_card(word)
        except EngineError as error:
            raise NotationError(source, line, f"{what}: {error}", hand) from None
        cards.append(card_to_proto(card))


_HAND = re.compile(r"hand\s+(\S+)\s+dealer\s+(\S+)")

_TRICK = re.compile(r"trick\s+(\S+):\s*(.*)")
_MOVE = re.compile(r"(-?[0-9]+)\s+(.+)")
_REJECTED = re.compile(r'(.*?)\s+\?rejected\s+"((?:[^"\\]|\\.)*)"')
_NOTE_VALUE = r'(?:"(?:[^"\\]|\\.)*"|[^\s="]+)=[^\s"]+'
_NOTE = re.compile(r'(.*?)\s+!note\s+"((?:[^"\\]|\\.)*)"((?:\s+' + _NOTE_VALUE + r")*)")
_FALLBACK = re.compile(r'(.*?)\s+!fallback\s+"((?:[^"\\]|\\.)*)"')
_SCORE = re.compile(
    r"score\s+bidder\s+(\S+)\s+bid\s+(\S+)\s+(made|set)\s+points\s+([-\d ]*?)\s*"
    r"deltas\s+([-\d ]*?)\s*scores\s+([-\d ]*?)(?:\s+partner\s+(\S+))?"
)


def _parse_move(
    text: str, hand: replay_pb2.ReplayHand, source: str, line: int, index: int, move: int
) -> None:
    where = f"action {move}"
    match = _MOVE.fullmatch(text)
    if match is None:
        raise NotationError(
            source,
            line,
            f"{where}: expected SEAT ACTION (such as '2 play R14'), got {text!r}",
            index,
        )
    recorded = hand.actions.add(
        seat=number_of(match.group(1), source, line, f"{where}: seat", index)
    )
    body = match.group(2).strip()
    noted = _NOTE.fullmatch(body)
    if noted is not None:
        body = noted.group(1)
        recorded.note.text = unescape(noted.group(2))
        for pair in re.findall(_NOTE_VALUE, noted.group(3)):
            name, _, value = pair.rpartition("=")
            if name.startswith('"'):
                name = unescape(name[1:-1])
            try:
                recorded.note.values[name] = float(value)
            except ValueError:
                raise NotationError(
                    source, line, f"{where}: note value {name}={value!r} is not a number", index
                ) from None
    fallback = _FALLBACK.fullmatch(body)
    if fallback is not None:
        body = fallback.group(1)
        recorded.fallback.reason = unescape(fallback.group(2))
    rejected = _REJECTED.fullmatch(body)
    if rejected is not None:
        body = rejected.group(1)
        recorded.outcome = replay_pb2.ACTION_OUTCOME_REJECTED
        recorded.rejection_reason = unescape(rejected.group(2))
    elif body.endswith(" !auto"):
        body = body.removesuffix(" !auto")
        recorded.outcome = replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    elif (outcome := re.fullmatch(r"(.*?)\s+!outcome\s+(\S+)", body)) is not None:
        body = outcome.group(1)
        number = number_of(outcome.group(2), source, line, f"{where}: outcome", index)
        recorded.outcome = number  # type: ignore[assignment]
    else:
        recorded.outcome = replay_pb2.ACTION_OUTCOME_ACCEPTED
    if body.startswith("#"):
        try:
            recorded.action.ParseFromString(base64.b64decode(body[1:], validate=True))
        except (ValueError, DecodeError) as error:  # binascii.Error is a ValueError
            raise NotationError(
                source, line, f"{where}: not a base64 Action message: {body!r} ({error})", index
            ) from None
        return
    try:
        recorded.action.CopyFrom(action_to_proto(parse_action(body)))
    except EngineError as error:
        raise NotationError(source, line, f"{where}: {error}", index) from None
    except ValueError:  # the engine's parser takes "1²" for digits; a bid beyond 32 bits
        raise NotationError(source, line, f"{where}: not an action: {body!r}", index) from None


def _parse_score(
    text: str, hand: replay_pb2.ReplayHand, source: str, line: int, index: int
) -> None:
    result = hand.result
    result.hand_number, result.dealer = hand.hand_number, hand.dealer
    if text == "score redeal":
        result.redeal = True
        return
    match = _SCORE.fullmatch(text)
    if match is None:
        raise NotationError(
            source,
            line,
            "expected 'score redeal' or 'score bidder S bid N made|set points … deltas … "
            f"scores … [partner S]', got {text!r}",
            index,
        )
    result.bidder = number_of(match.group(1), source, line, "score: bidder", index)
    result.bid = number_of(match.group(2), source, line, "score: bid", index)
    result.made = match.group(3) == "made"
    result.points.extend(numbers_of(match.group(4), source, line, "score: points", index))
    result.score_deltas.extend(numbers_of(match.group(5), source, line, "score: deltas", index))
    result.scores.extend(numbers_of(match.group(6), source, line, "score: scores", index))
    partner = match.group(7)
    result.partner = -1 if partner is None else number_of(partner, source, line, "partner", index)
    result.deal.CopyFrom(hand.deal)
    for recorded in hand.actions:  # what the moves named: trump, buried cards, called card
        if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
            continue
        try:
            action = action_from_proto(recorded.action)
        except MalformedMessageError:
            continue
        if isinstance(action, NameTrump):
            result.trump = recorded.action.name_trump.suit
        elif isinstance(action, Bury):
            del result.buried[:]
            result.buried.extend(recorded.action.bury.cards)
        elif isinstance(action, CallCard):
            result.called_card.CopyFrom(recorded.action.call_card.card)


def parse_hand(
    text: str, source: str, line: int, expected: int, game: TextGame
) -> replay_pb2.ReplayHand:
    """Hand ``expected`` of ``game`` from its line (``NotationError`` naming what is wrong); its
    comments are added to ``game``."""
    parts, comments = _split(text, source, line, expected)
    head = _HAND.fullmatch(parts[0])
    if head is None:
        raise NotationError(
            source,
            line,
            f"expected a hand line 'hand {expected} dealer D; deal …', got {parts[0][:40]!r}",
        )
    number = number_of(head.group(1), source, line, "hand number")
    if number != expected:
        missing = (
            f"hand {expected} is missing" if number > expected else f"hand {number} comes again"
        )
        raise NotationError(
            source, line, f"expected hand {expected}, got hand {number}: {missing}", expected
        )
    hand = replay_pb2.ReplayHand(hand_number=number)
    hand.dealer = number_of(head.group(2), source, line, "dealer", number)
    if len(parts) < 3 or not parts[1].startswith("deal ") or not parts[2].startswith("nest"):
        raise NotationError(
            source,
            line,
            "expected 'deal CARDS / CARDS …; nest CARDS' after the hand number",
            number,
        )
    for seat, cards in enumerate(parts[1].removeprefix("deal ").split("/")):
        target = hand.deal.hands.add()
        _parse_cards(cards, target, "cards", source, line, number, f"deal of seat {seat}")
    _parse_cards(parts[2].removeprefix("nest"), hand.deal, "nest", source, line, number, "nest")
    rest = 3
    if len(parts) > 3 and parts[3].startswith("dead"):
        _parse_cards(parts[3].removeprefix("dead"), hand.deal, "dead", source, line, number, "dead")
        rest = 4
    for comment in comments[:rest]:
        if comment:
            game.comments.append((number, -1, comment))
    moves = parts[rest:]
    score = moves.pop() if moves and moves[-1].startswith("score") else None
    players = game.replay.header.ruleset.players
    applied = 0  # card plays applied so far, for the trick labels
    for move, comment in zip(moves, comments[rest:], strict=False):
        trick = _TRICK.fullmatch(move)
        if trick is None:
            _parse_move(move, hand, source, line, number, len(hand.actions))
            recorded = hand.actions[-1]
            if recorded.action.HasField("play_card") and recorded.outcome in APPLIED:
                applied += 1
        else:
            label = number_of(trick.group(1), source, line, "trick number", number)
            expected = applied // players + 1 if players > 0 else 0
            if label != expected:
                raise NotationError(
                    source,
                    line,
                    f"action {len(hand.actions)}: expected trick {expected} ({applied} cards "
                    f"played before it), got trick {label}",
                    number,
                )
            for entry in _entries(trick.group(2), source, line, number):
                play = _MOVE.fullmatch(entry)
                text = f"{play.group(1)} play {play.group(2)}" if play is not None else entry
                _parse_move(text, hand, source, line, number, len(hand.actions))
                if hand.actions[-1].outcome in APPLIED:
                    applied += 1
        if comment:
            game.comments.append((number, len(hand.actions) - 1, comment))
    if score is not None:
        _parse_score(score, hand, source, line, number)
    if score is not None and comments[-1]:
        game.comments.append((number, len(hand.actions) - 1, comments[-1]))
    return hand


def _entries(text: str, source: str, line: int, hand: int) -> list[str]:
    """The ``,``-separated card plays of a trick (a ``,`` in a quoted reason does not count)."""
    entries: list[str] = []
    current: list[str] = []
    quotes = _Quotes()
    for char in text:
        if not quotes.inside(char) and char == ",":
            entries.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    entries.append("".join(current).strip())
    return entries
