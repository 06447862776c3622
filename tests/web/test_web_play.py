"""A person's seat in the browser: whole games through `/play`, on a real server with launched
reference bots, clicking only what the page offers; a reload mid-hand; a bury; the late policy;
and no card in the page, its API answers or its event stream that the seat may not know."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Response
from rookery.client import arun_bot, load_bot
from rookery.engine import card_name
from rookery.server import RookeryServer, ServerConfig
from rookery.v1 import replay_pb2, results_pb2
from rookery.web import WebServer
from rookery.web.testing import LoopThread
from rookery.wire.convert import action_from_proto, card_from_proto
from rookery.wire.replay import verify_replay
from screenshots import save_screenshot

pytestmark = pytest.mark.slow

CARD = re.compile(r"\b(ROOK2?|[BRYG](?:1[0-4]|[1-9]))\b")


@dataclass
class Site:
    server: RookeryServer
    web: WebServer
    loop: LoopThread


@pytest.fixture(scope="module")
def site(loop_thread: LoopThread) -> Iterator[Site]:
    """A real game server (open mode) with the dashboard, and so the human seats, on it."""

    async def start() -> Site:
        server = RookeryServer(ServerConfig(address="127.0.0.1:0", log_level="warning"))
        await server.start()
        web = WebServer("127.0.0.1:0", server=server)
        await web.start()
        return Site(server, web, loop_thread)

    site = loop_thread.run(start(), 30.0)
    yield site

    async def stop() -> None:
        await site.web.stop()
        await site.server.stop(grace_s=0.5)

    loop_thread.run(stop(), 30.0)


@dataclass
class Played:
    """What one game through the page did and saw."""

    seat_id: str
    secret: str
    seat: int
    phases: dict[str, int] = field(default_factory=dict)
    reloads: int = 0
    timeouts: int = 0
    bank_seen: int = 0
    dom: list[tuple[int, int, bool, list[str], str]] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    stream: list[Any] = field(default_factory=list)


def _start(page: Page, site: Site, preset: str, bots: list[str], **fields: str) -> None:
    page.goto(site.web.url + "/play")
    page.select_option("#preset", preset)
    for seat, bot in enumerate(bots):
        page.select_option(f"#bot-{seat}", bot)
    for name, value in fields.items():
        page.fill(f"#{name}", value)
    page.click("#start")
    page.wait_for_url("**/play/*", timeout=30000)


def _snapshot(page: Page, played: Played) -> None:
    """The cards the page shows now (outside the previous hand's reveal and last trick: that hand
    is over), with its hand: read in
    one script, so that no update of the page falls between the hand and its cards."""
    hand, plays, over, cards, text = page.evaluate(
        """() => {
          const status = document.getElementById('status');
          const cards = [...document.querySelectorAll('#play [data-card]')]
            .filter(n => !n.closest('#previous, #result, .previous-hand')).map(n => n.dataset.card);
          const copy = document.getElementById('play').cloneNode(true);
          copy.querySelectorAll('#previous, #result, .previous-hand, #actions, script')
            .forEach(n => n.remove());
          return [Number(status.dataset.hand), Number(status.dataset.plays),
                  status.dataset.over === '1', cards, copy.textContent];
        }"""
    )
    played.dom.append((hand, plays, over, cards, text))


def _follow_stream(site: Site, played: Played, stop: threading.Event) -> threading.Thread:
    """Read the seat's event stream as the page does, keeping every state it sends."""
    url = f"{site.web.url}/api/play/{played.seat_id}/events?key={played.secret}"

    def read() -> None:
        with urllib.request.urlopen(url, timeout=120) as response:
            for raw in response:
                line = raw.decode()
                if line.startswith("data: ") and line.strip() != "data: {}":
                    played.stream.append(json.loads(line[6:]))
                if stop.is_set() or line.startswith("event: end"):
                    return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def play(
    page: Page,
    site: Site,
    *,
    bid_up_to: int = 100,
    win_first_auction: bool = False,
    screenshot: Path | None = None,
    reload_at: int | None = None,
    time_out_at: int | None = None,
    max_actions: int = 400,
) -> Played:
    """Play the open seat to the end of its game, clicking only offered actions: bid the lowest
    bid up to ``bid_up_to`` (else pass), the first trump, the first cards of a bury, the offered
    call, the first legal card. ``reload_at``: reload the page at that request; ``time_out_at``:
    leave that request unanswered until the server's clock plays for the seat;
    ``win_first_auction``: bid the highest bid until the seat has won an auction once;
    ``screenshot``: where to save the page with a bury picked and ready to confirm."""
    seat_id = page.url.rsplit("/", 1)[1]
    secret = page.evaluate(f"localStorage.getItem('rookery-seat-{seat_id}')")
    page.wait_for_selector("#status[data-hand]")
    played = Played(seat_id, secret, -1)
    page.on("response", lambda response: _keep(response, played))
    stop = threading.Event()
    reader = _follow_stream(site, played, stop)
    last = ""
    for index in range(max_actions):
        page.wait_for_selector(
            f"#result, #failure, #actions[data-request]:not([data-request='{last}'])",
            timeout=60000,
        )
        _snapshot(page, played)
        if page.query_selector("#result") or page.query_selector("#failure"):
            break
        actions = page.locator("#actions")
        last = actions.get_attribute("data-request") or ""
        phase = actions.get_attribute("data-phase") or ""
        played.phases[phase] = played.phases.get(phase, 0) + 1
        if index == reload_at:
            page.reload()
            page.wait_for_selector(f"#actions[data-request='{last}']", timeout=20000)
            played.reloads += 1
        if index == time_out_at:
            # Walk away: the clock runs into the bank, which runs down too (it once froze at
            # "0 s"); then the server's late policy (auto-play) answers for the seat.
            page.wait_for_function(
                "() => /bank \\d+ s$/.test(document.getElementById('clock').textContent.trim())"
                " && !/\\+/.test(document.getElementById('clock').textContent)",
                timeout=30000,
            )
            first = page.inner_text("#clock")
            page.wait_for_timeout(1200)
            if page.query_selector(f"#actions[data-request='{last}']"):
                later = page.inner_text("#clock")
                assert int(later.split()[-2]) < int(first.split()[-2]), (first, later)
                played.bank_seen += 1
            page.wait_for_selector(f"#actions:not([data-request='{last}'])", timeout=30000)
            page.wait_for_function(  # said out loud, and marked in the log
                "() => document.getElementById('announce').textContent.includes('out of time')"
                " && document.querySelector('#log .auto-step')",
                timeout=10000,
            )
            played.timeouts += 1
            continue
        if phase == "BIDDING":
            option = page.query_selector("#bid-amount option")
            amount = option.get_attribute("value") if option is not None else None
            taken = played.phases.get("BURY", 0) or played.phases.get("NAME_TRUMP", 0)
            if amount is not None and win_first_auction and not taken:
                highest = page.locator("#bid-amount option").last.get_attribute("value")
                page.select_option("#bid-amount", highest)  # nobody can bid over it
                page.keyboard.press("b")  # the bid key
            elif amount is not None and int(amount) <= bid_up_to:
                page.click("#bid")
            else:
                page.keyboard.press("p")  # the pass key
        elif phase == "NAME_TRUMP":
            page.click("#actions button[data-suit]")
        elif phase == "BURY":
            count = int(page.inner_text("#bury-count").split()[1])
            for _ in range(count):
                page.click(".card.legal:not(.picked)")
            assert page.is_enabled("#bury-confirm")
            if screenshot is not None:
                save_screenshot(page, screenshot, full_page=True)
            page.click("#bury-confirm")
        elif phase == "CALL":
            page.click("#call")
        elif phase == "PLAY":
            if index % 2:
                page.click(".card.legal")
            else:
                page.keyboard.press("Enter")  # the focused (first) legal card
    else:
        raise AssertionError(f"no end after {max_actions} actions")
    assert page.query_selector("#failure") is None, page.inner_text("#failure")
    stop.set()
    reader.join(20)
    played.seat = int(json.loads(_get_state(site, played))["seat"])
    return played


def _keep(response: Response, played: Played) -> None:
    if f"/api/play/{played.seat_id}" in response.url and "/events" not in response.url:
        assert response.headers["content-type"] == "application/json"
        played.responses.append(response.json())


def _get_state(site: Site, played: Played) -> str:
    request = urllib.request.Request(
        f"{site.web.url}/api/play/{played.seat_id}", headers={"X-Rookery-Seat": played.secret}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(response.read().decode())


def _replay(site: Site, played: Played) -> replay_pb2.Replay:
    async def get() -> replay_pb2.Replay:
        return site.server.replay(f"play-{played.seat_id}")

    return site.loop.run(get(), 10.0)


def _names(mask_cards: Any) -> set[str]:
    return {card_name(card_from_proto(card)) for card in mask_cards}


def allowed_cards(
    replay: replay_pb2.Replay, seat: int, hand: int, plays: int, took_nest: bool
) -> set[str]:
    """What ``seat`` may know of hand ``hand`` after its first ``plays`` cards: its own cards,
    the nest if it took it, the cards played so far and a called card."""
    record = replay.hands[hand]
    allowed = _names(record.deal.hands[seat].cards)
    if took_nest:
        allowed |= _names(record.deal.nest)
    seen = 0
    for recorded in record.actions:
        if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
            continue
        action = recorded.action
        if action.HasField("call_card"):
            allowed.add(card_name(card_from_proto(action.call_card.card)))
        if action.HasField("play_card") and seen < plays:
            allowed.add(str(action_from_proto(action)).split()[1])
            seen += 1
    return allowed


def _state_cards(state: dict[str, Any]) -> list[str]:
    """Every card a state names about its current hand: all of it but the previous hand and the
    result (over and public), and a call's offer (every card the seat does not hold: it says
    nothing of where they are)."""
    named = {k: v for k, v in state.items() if k not in ("previous", "result")}
    request = named.get("request")
    if request and request["offer"]["phase"] == "CALL":
        named["request"] = {k: v for k, v in request.items() if k != "offer"}
    return CARD.findall(json.dumps(named))


def check_no_leak(replay: replay_pb2.Replay, played: Played) -> int:
    """Every state and DOM snapshot against the true deal; the number of checks made."""
    checks = 0
    states = [s for s in played.responses + played.stream if isinstance(s, dict) and "steps" in s]
    for state in states:
        hand = state["hand_number"]
        steps = state["steps"]
        if hand < 0 or any(s["type"] in ("scored", "game_over") for s in steps):
            continue
        plays = sum(1 for s in steps if s["type"] == "play")
        took = any(s["type"] == "nest_taken" and s["seat"] == played.seat for s in steps)
        allowed = allowed_cards(replay, played.seat, hand, plays, took)
        for card in _state_cards(state):
            assert card in allowed, f"hand {hand}: the seat's data names {card}"
        checks += 1
    for hand, plays, over, cards, text in played.dom:
        if hand < 0 or over:
            continue
        record = replay.hands[hand]
        bidder = record.result.bidder if record.HasField("result") else -1
        allowed = allowed_cards(replay, played.seat, hand, plays, bidder == played.seat)
        for card in cards + CARD.findall(text):
            assert card in allowed, f"hand {hand}: the page shows {card}"
        checks += 1
    return checks


def _verify(site: Site, played: Played) -> replay_pb2.Replay:
    replay = _replay(site, played)
    assert verify_replay(replay) == []
    assert replay.header.seats[played.seat].bot_name.startswith("human-")
    return replay


def test_a_whole_game_of_standard_with_a_reload_and_a_bury(
    page: Page, site: Site, artifacts: Path
) -> None:
    _start(page, site, "standard", ["", "heuristic", "random", "heuristic"], target="100",
           seed="11")  # fmt: skip
    shot = artifacts / "play-bury.png"
    played = play(page, site, win_first_auction=True, reload_at=6, screenshot=shot)
    save_screenshot(page, artifacts / "play-standard-end.png", full_page=True)
    assert played.reloads == 1
    assert played.phases.get("BURY", 0) >= 1, played.phases
    replay = _verify(site, played)
    assert replay.result.reason == results_pb2.TERMINATION_REASON_TARGET_REACHED
    link = f"/replays/play-{played.seat_id}#seat={played.seat}"
    assert page.get_attribute("#replay-link", "href") == link
    # The person's own replay opens following their seat: their cards face up from the start.
    page.click("#replay-link")
    page.wait_for_selector("[data-card]")
    first = replay.hands[0].deal.hands[played.seat].cards
    shown = set(
        page.eval_on_selector_all("[data-card][data-hand='0']", "ns => ns.map(n => n.dataset.card)")
    )
    assert _names(first) <= shown
    assert check_no_leak(replay, played) > 20


def test_a_whole_game_of_called_partner(page: Page, site: Site) -> None:
    _start(page, site, "called-partner", ["heuristic", "", "heuristic", "heuristic"],
           target="100", seed="5")  # fmt: skip
    played = play(page, site, win_first_auction=True)
    assert played.phases.get("CALL", 0) >= 1, played.phases
    replay = _verify(site, played)
    assert check_no_leak(replay, played) > 10


def test_a_whole_game_of_cutthroat(page: Page, site: Site) -> None:
    _start(page, site, "cutthroat", ["heuristic", "random", ""], target="100", seed="3")
    played = play(page, site, bid_up_to=100)
    replay = _verify(site, played)
    assert check_no_leak(replay, played) > 10


def test_a_seat_that_walks_away_gets_the_late_policy(page: Page, site: Site) -> None:
    _start(page, site, "standard", ["", "heuristic", "heuristic", "heuristic"], target="100",
           action_s="2", seed="8")  # fmt: skip
    played = play(page, site, time_out_at=3)
    assert played.timeouts == 1 and played.bank_seen == 1
    replay = _verify(site, played)
    auto = [
        a
        for hand in replay.hands
        for a in hand.actions
        if a.seat == played.seat and a.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    ]
    assert len(auto) >= 1
    # The page says which moves were the server's, never as the person's own.
    marked = {
        (step["hand"], step["seq"])
        for state in played.stream + played.responses
        if isinstance(state, dict)
        for step in state.get("steps", [])
        if step.get("auto")
    }
    assert len(marked) >= 1, "no move was marked as played by the server"


def test_another_tab_without_the_seats_key_sees_nothing(page: Page, site: Site) -> None:
    _start(page, site, "standard", ["", "heuristic", "random", "heuristic"], target="100")
    seat_id = page.url.rsplit("/", 1)[1]
    other = page.context.browser.new_page()  # type: ignore[union-attr]
    try:
        other.goto(page.url)
        other.wait_for_selector(".error")
        assert "not yours" in other.inner_text("#play")
        assert not other.query_selector("[data-card]")
    finally:
        other.close()
    for key in ("", "wrong"):
        request = urllib.request.Request(
            f"{site.web.url}/api/play/{seat_id}", headers={"X-Rookery-Seat": key}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 404
    play(page, site)  # finish it, so that its bots exit


# Token mode: "play the boss" ------------------------------------------------------------------


@dataclass
class Contest:
    site: Site
    token: str
    stop: asyncio.Event


@pytest.fixture(scope="module")
def contest(loop_thread: LoopThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contest]:
    """A token-mode server: the registered bot ``boss`` connected with three sessions, and a
    registered person ``alice`` with her token."""
    db = tmp_path_factory.mktemp("contest") / "bots.db"

    async def start() -> Contest:
        config = ServerConfig(address="127.0.0.1:0", log_level="warning", auth="token", db=str(db))
        server = RookeryServer(config)
        await server.start()
        _, boss_token = server.bots.add("boss")
        _, alice_token = server.bots.add("alice")
        stop = asyncio.Event()
        boss = load_bot("rookery.client.bots:HeuristicBot")
        asyncio.get_running_loop().create_task(
            arun_bot(boss, server.target, token=boss_token, name="boss", sessions=3, stop=stop)
        )
        await server.wait_for_bot("boss", sessions=3, timeout=20.0)
        web = WebServer("127.0.0.1:0", server=server)
        await web.start()
        return Contest(Site(server, web, loop_thread), alice_token, stop)

    contest = loop_thread.run(start(), 60.0)
    yield contest

    async def stop() -> None:
        contest.stop.set()
        await contest.site.web.stop()
        await contest.site.server.stop(grace_s=0.5)

    loop_thread.run(stop(), 30.0)


def test_in_token_mode_a_wrong_token_is_refused_by_the_server(page: Page, contest: Contest) -> None:
    _start_contest(page, contest, "not-the-token")
    page.wait_for_selector("#setup-error:has-text('UNAUTHENTICATED')")
    assert "/play/" not in page.url


def test_in_token_mode_a_person_with_a_token_plays_the_boss(page: Page, contest: Contest) -> None:
    _start_contest(page, contest, contest.token)
    page.wait_for_url("**/play/*", timeout=30000)
    played = play(page, contest.site)
    replay = _replay(contest.site, played)
    assert verify_replay(replay) == []
    assert [seat.bot_name for seat in replay.header.seats] == ["alice", "boss", "boss", "boss"]
    assert check_no_leak(replay, played) > 10


def _start_contest(page: Page, contest: Contest, token: str) -> None:
    page.goto(contest.site.web.url + "/play")
    # The form is drawn once the page has fetched the choices: wait for its seats.
    page.wait_for_selector("#bot-1 option >> nth=1", state="attached")
    assert page.query_selector("#seed") is None  # the seed stays the server's secret
    assert page.locator("#bot-1 option").all_inner_texts() == ["you", "boss"]
    page.select_option("#preset", "standard")
    for seat in (1, 2, 3):
        page.select_option(f"#bot-{seat}", "boss")
    page.fill("#name", "alice")
    page.fill("#token", token)
    page.fill("#target", "100")
    page.click("#start")


def _post(site: Site, path: str, body: bytes, **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(site.web.url + path, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize(
    ("body", "headers", "status", "message"),
    [
        (b'{"preset": "nope", "bots": []}', {}, 400, "no preset 'nope'"),
        (b'{"preset": "standard", "bots": ["you", "random"]}', {}, 400, "name a bot for each"),
        (b'{"preset": "standard", "bots": ["you", "x", "y", "z"]}', {}, 400, "is not a connected"),
        (b"{", {}, 400, "not JSON"),
        (b"{}", {"Content-Type": "text/plain"}, 415, "application/json"),
        (b"{}", {"Origin": "http://evil.example"}, 403, "cross-origin"),
    ],
)
def test_a_bad_seat_request_is_refused_with_its_reason(
    site: Site, body: bytes, headers: dict[str, str], status: int, message: str
) -> None:
    sent = {"Content-Type": "application/json", **headers}
    code, answer = _post(site, "/api/play", body, **sent)
    assert code == status and message in answer["error"], answer


def test_after_the_game_a_bot_plays_the_same_deals_in_the_seat(page: Page, site: Site) -> None:
    _start(page, site, "cutthroat", ["heuristic", "", "heuristic"], target="100", seed="21")
    played = play(page, site)
    mine = _verify(site, played)
    page.select_option("#compare-bot", "heuristic")
    page.click("#compare-start")
    link = page.wait_for_selector("#compare-link-0")
    table_id = link.get_attribute("href").rsplit("/", 1)[1]  # type: ignore[union-attr]

    async def finished() -> replay_pb2.Replay:
        await site.server.get_table(table_id).wait_finished()
        return site.server.replay(table_id)

    theirs = site.loop.run(finished(), 120.0)
    assert verify_replay(theirs) == []
    assert theirs.header.seed == mine.header.seed
    assert theirs.header.seats[played.seat].bot_name.startswith("heuristic-")
    hands = min(len(theirs.hands), len(mine.hands))
    assert hands >= 1
    for number in range(hands):
        assert theirs.hands[number].deal == mine.hands[number].deal
