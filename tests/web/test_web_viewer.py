"""The replay viewer as a bot author reads it: every card legible at every seat, the face-up
view of a finished game, the deal, legal moves and think time per move, the move list,
autoplay, keys after choosing a seat, the download and the duplicate twin, suits told apart
without colour, and a phone layout without sideways scrolling.

Every test reads the tournament's real replay files (the session's tournament) and compares the
page with what the engine says."""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize
from rookery.engine import Game, Phase, card_name, cards_of
from rookery.v1 import replay_pb2
from rookery.web.testing import Tournament
from rookery.wire.convert import action_from_proto, card_from_proto, ruleset_from_proto
from rookery.wire.replay import decode_replay, read_replay
from screenshots import save_screenshot

pytestmark = pytest.mark.slow

PHONE: ViewportSize = {"width": 390, "height": 844}


@dataclass
class Decision:
    """One applied action of a replay, with what the engine says about it."""

    hand: int
    seat: int
    text: str
    think_ms: int
    legal_play: list[str]
    held: dict[int, list[str]]
    """Every seat's cards just before the action (the engine's own hands)."""


def _decisions(replay: replay_pb2.Replay) -> list[Decision]:
    ruleset = ruleset_from_proto(replay.header.ruleset, "ruleset")
    game = Game(ruleset, replay.header.seed)
    out: list[Decision] = []
    for hand in replay.hands:
        for recorded in hand.actions:
            if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED or game.is_over:
                continue
            legal = game.legal_actions()
            plays = (
                [card_name(c) for c in cards_of(legal.play)] if legal.phase is Phase.PLAY else []
            )
            held = {
                seat: [card_name(c) for c in cards_of(mask)] for seat, mask in enumerate(game.hands)
            }
            action = action_from_proto(recorded.action)
            out.append(
                Decision(
                    hand.hand_number, recorded.seat, str(action), recorded.think_ms, plays, held
                )
            )
            game.apply(action)
    return out


def _game(tournament: Tournament) -> tuple[str, replay_pb2.Replay]:
    """The tournament's longest game (most hands)."""
    game = max(tournament.data.games, key=lambda g: (g.hands_played, g.index))
    return game.game_id, read_replay(tournament.run_dir / game.replay_path)


def _played_hand(replay: replay_pb2.Replay) -> int:
    """The hand number of the first hand played out to at least 6 tricks."""
    players = len(replay.header.seats)
    for hand in replay.hands:
        plays = [
            a
            for a in hand.actions
            if a.outcome != replay_pb2.ACTION_OUTCOME_REJECTED and a.action.HasField("play_card")
        ]
        if len(plays) >= 6 * players:
            return hand.hand_number
    raise AssertionError("no hand was played out")


def _hand_cards(page: Page, where: str) -> dict[int, list[str]]:
    rows = page.locator(where).evaluate_all(
        "rs => rs.map(r => [Number(r.dataset.seat),"
        " [...r.querySelectorAll('[data-card]')].map(c => c.dataset.card)])"
    )
    return {seat: cards for seat, cards in rows}


def test_every_card_at_every_seat_reads_as_its_code_and_is_not_covered(
    page: Page, tournament: Tournament
) -> None:
    game_id, replay = _game(tournament)
    h = _played_hand(replay)
    start = next(
        i for i, d in enumerate(_decisions(replay)) if d.hand == h and d.text.startswith("play")
    )
    dealt = {
        seat: [card_name(card_from_proto(c)) for c in hand.cards]
        for seat, hand in enumerate(next(x for x in replay.hands if x.hand_number == h).deal.hands)
    }
    # The first card of the hand is played at trick 1: before it, every seat holds its deal
    # (the bidder with the nest exchanged); face up, every card's corner reads its code.
    held = _decisions(replay)[start].held
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&step=0&seat=all")
    page.wait_for_selector("g.hand[data-seat='3'] [data-card]")
    for seat in range(4):
        faces = page.locator(f"g.hand[data-seat='{seat}'] g.card.face").evaluate_all(
            "gs => gs.map(g => [g.dataset.card, g.querySelector('.card-code').textContent])"
        )
        assert [code for code, _ in faces] == dealt[seat]
        assert all(code == text for code, text in faces), faces
    # Legible: no card's corner code is covered by the card drawn over it, at any seat.
    covered = page.evaluate(
        """() => [...document.querySelectorAll('g.hand')].flatMap(hand => {
            const cards = [...hand.querySelectorAll('g.card.face')];
            return cards.slice(0, -1).filter((card, i) => {
              const text = card.querySelector('.card-code').getBoundingClientRect();
              const next = cards[i + 1].querySelector('rect').getBoundingClientRect();
              return !(text.right <= next.left + 0.5 || text.bottom <= next.top + 0.5);
            }).map(card => hand.dataset.seat + ':' + card.dataset.card);
        })"""
    )
    assert covered == []
    # During the play, the face-up view holds what the engine says each seat holds.
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=1&seat=all")
    page.wait_for_selector("#trick [data-card]")
    page.keyboard.press("ArrowRight")  # the first card of trick 2 is about to be played
    shown = _hand_cards(page, "#hands .hand-row")
    trick2 = next(i for i, d in enumerate(_decisions(replay)) if i > start + 3 and d.hand == h)
    held = _decisions(replay)[trick2].held
    expected = {seat: sorted(cards) for seat, cards in held.items()}
    after = {seat: sorted(cards) for seat, cards in shown.items()}
    # The step shown is the first play of trick 2: its player holds one card fewer.
    mover = _decisions(replay)[trick2].seat
    played = _decisions(replay)[trick2].text.split()[1]
    expected[mover] = sorted(c for c in expected[mover] if c != played)
    assert after == expected


def test_the_deal_is_face_up_after_the_hand_and_hidden_before_in_the_spectator_view(
    page: Page, tournament: Tournament, artifacts: Path
) -> None:
    game_id, replay = _game(tournament)
    h = _played_hand(replay)
    hand = next(x for x in replay.hands if x.hand_number == h)
    played: set[str] = set()
    for d in _decisions(replay):
        if d.hand == h and d.text.startswith("play") and len(played) < 20:
            played.add(d.text.split()[1])
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=5")
    page.wait_for_selector("#trick [data-card]")
    # Spectator, mid-hand: no hand, no deal table, no legal moves; only the cards played.
    assert page.locator("#hands [data-card]").count() == 0
    assert page.locator("#deal").count() == 0 and page.locator("#legal").count() == 0
    named = set(
        page.locator(f"[data-hand='{h}'][data-card]").evaluate_all(
            "ns => ns.map(n => n.dataset.card)"
        )
    )
    assert named <= played
    # The hand's end: the deal, as a table of every seat's cards, the nest and the bury.
    page.keyboard.press("n")
    page.keyboard.press("ArrowLeft")
    assert "Hand scored" in page.inner_text("#step-text")
    rows = page.locator("#deal tbody tr").evaluate_all(
        "rs => rs.map(r => [r.querySelector('th').textContent,"
        " [...r.querySelectorAll('[data-card]')].map(c => c.dataset.card)])"
    )
    table = {label: sorted(cards) for label, cards in rows}
    for seat, dealt in enumerate(hand.deal.hands):
        label = next(k for k in table if k.startswith(f"seat {seat} "))
        assert table[label] == sorted(card_name(card_from_proto(c)) for c in dealt.cards)
    assert table["nest"] == sorted(card_name(card_from_proto(c)) for c in hand.deal.nest)
    assert table["buried"] == sorted(card_name(card_from_proto(c)) for c in hand.result.buried)
    save_screenshot(page, artifacts / "viewer-deal.png", full_page=True)


def test_each_move_shows_its_think_time_and_legal_actions(
    page: Page, tournament: Tournament
) -> None:
    game_id, replay = _game(tournament)
    h = _played_hand(replay)
    decisions = [d for d in _decisions(replay) if d.hand == h]
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&step=0&seat=all")
    page.wait_for_selector("#move-list li")
    steps = page.locator("#move-list li")
    # The move list: one entry per step; the decisions carry their think time, in order.
    timed = [t for t in steps.all_inner_texts() if t.endswith(" ms") or " ms · " in t]
    assert [int(t.rsplit(" · ", 2)[1 if "auto-played" in t else -1].split()[0]) for t in timed] == [
        d.think_ms for d in decisions
    ]
    # Clicking a play opens it: the step text, its think time and the legal cards it had.
    first_play = next(
        i for i, d in enumerate(decisions) if d.text.startswith("play") and len(d.legal_play) > 1
    )
    target = decisions[first_play]
    entry = steps.filter(has_text=f"plays {target.text.split()[1]}").first
    entry.click()
    assert f"plays {target.text.split()[1]}" in page.inner_text("#step-text")
    assert f"think {target.think_ms} ms" in page.inner_text("#move-info")
    legal = page.locator("#legal [data-card]").evaluate_all("ns => ns.map(n => n.dataset.card)")
    assert legal == target.legal_play
    # In the spectator view the same step names its think time, not the mover's other cards.
    page.select_option("#perspective", "-1")
    assert page.locator("#legal").count() == 0
    assert f"think {target.think_ms} ms" in page.inner_text("#move-info")


def test_arrow_keys_step_after_choosing_a_seat_and_autoplay_plays(
    page: Page, tournament: Tournament
) -> None:
    game_id, _ = _game(tournament)
    page.goto(f"{tournament.web.url}/replays/{game_id}")
    page.wait_for_selector("#counter")
    page.select_option("#perspective", "2")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#counter").startswith("hand 0 · step 3/")
    assert page.input_value("#perspective") == "2"
    assert "seat=2" in page.evaluate("location.hash")
    page.select_option("#speed", "350")
    page.click("#autoplay")
    page.wait_for_function(
        "() => /step (6|7|8|9|\\d\\d)\\//.test(document.getElementById('counter').textContent)"
    )
    page.click("#autoplay")
    stopped = page.inner_text("#counter")
    page.wait_for_timeout(800)
    assert page.inner_text("#counter") == stopped


def test_the_download_is_the_replay_file_and_the_twin_has_the_same_deals(
    page: Page, tournament: Tournament
) -> None:
    game_id, replay = _game(tournament)
    page.goto(f"{tournament.web.url}/replays/{game_id}")
    page.wait_for_selector("#download-link")
    href = page.get_attribute("#download-link", "href")
    assert href
    with urllib.request.urlopen(tournament.web.url + href, timeout=10) as response:
        downloaded = decode_replay(response.read())
    assert downloaded == replay
    page.click("#twin-link")
    page.wait_for_selector("#counter")
    twin_id = page.url.split("/replays/")[1].split("#")[0]
    twin = next(g for g in tournament.data.games if g.game_id == twin_id)
    game = next(g for g in tournament.data.games if g.game_id == game_id)
    assert twin_id != game_id and twin.seed == game.seed and twin.group == game.group
    assert twin.seat_bots[0] == game.seat_bots[1]


def test_suits_differ_by_more_than_colour_and_the_yellow_is_readable(
    page: Page, tournament: Tournament
) -> None:
    game_id, _ = _game(tournament)
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand=0&step=0&seat=all")
    page.wait_for_selector("#hands [data-card]")
    # Every card span's text is its code: suit letter and rank.
    spans = page.locator("span.c[data-card]").evaluate_all(
        "ns => ns.map(n => [n.dataset.card, n.textContent])"
    )
    assert spans and all(code == text for code, text in spans)
    ratio = page.evaluate(
        """() => {
          const probe = document.createElement('span');
          probe.className = 'c Y';
          document.body.append(probe);
          const rgb = getComputedStyle(probe).color.match(/\\d+/g).slice(0, 3).map(Number);
          const lin = v => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
          };
          const l = 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
          return 1.05 / (l + 0.05);
        }"""
    )
    assert ratio >= 4.5  # WCAG AA for text on white


def test_the_viewer_fits_a_phone(browser: Browser, tournament: Tournament, artifacts: Path) -> None:
    game_id, replay = _game(tournament)
    h = _played_hand(replay)
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        for url, drawn in (
            (f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=5&seat=all", "#deal"),
            (f"{tournament.web.url}/tournaments/{tournament.key}", "#games"),
            (f"{tournament.web.url}/", "#tournaments table"),
        ):
            page.goto(url)
            page.wait_for_selector(drawn)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], f"{url}: the page is {width} px wide"
        page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=5")
        page.wait_for_selector("#trick [data-card]")
        # The seats' names on the compact felt are drawn at a readable size.
        heights = page.locator("[data-seat-label]").evaluate_all(
            "ns => ns.map(n => n.getBoundingClientRect().height)"
        )
        assert len(heights) == 4 and min(heights) >= 12
        assert page.locator("#trick [data-card]").count() == 4
    finally:
        context.close()
