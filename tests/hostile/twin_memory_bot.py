"""A hostile launched bot that tries to carry what it saw in one game into the next.

Every card played is public: a bot that keeps who played what in game 1 of a duplicate pair knows
where almost every hidden card of game 2 lies. This bot records each card played and stores the
record, after every card, in every place a hostile author would try:

- files: ``/tmp``, ``$HOME``, its own folder, the working directory, ``/dev/shm``, ``/var/tmp``;
- a lingering daemon (double fork, ``setsid``) holding the record, reached over an abstract Unix
  socket and a loopback TCP port;
- the environment (``os.environ``, for a process started after it);
- the server: its ``Hello.version`` (kept by the server's bot registry), read back with the
  public ``ArenaService.ListBots``; and, in the twin, the finished tables' public events, watched
  as a spectator (``SpectatorService.WatchTable``), which show every card played.

Before its first action at a table it reads every place back, prints one ``TWIN found <place>:
<n>`` line per place that held a record (``TWIN none <place>`` otherwise, and ``TWIN refused
<place>: <code>`` for a server call refused), picks the remembered
game that fits its hand best, and prints its prediction of every hidden card as a ``TWIN predict
<json>`` line (card -> seat, -1 for the nest). Knowing nothing, it fills the places at random.
The arena keeps its stderr in the bot's log, where the test reads it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import sys
import threading
import time
from pathlib import Path

import grpc
from rookery.client import Bot
from rookery.engine import Action, Bid, Observation, Pass, PlayCard, card_points
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    bot_service_pb2_grpc,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
    table_pb2,
)
from rookery.wire import convert

NAME = "twin-memory.txt"
ABSTRACT = b"\0rookery-twin-memory"
TCP_PORT = int(os.environ.get("TWIN_PORT", "47653"))
#: The daemon's lifetime: bounded, so that an unconfined run leaves nothing running for long.
DAEMON_S = 90.0
FILES = {
    "tmp": Path("/tmp") / NAME,
    "home": Path(os.environ.get("HOME", "/nonexistent")) / f".{NAME}",
    "own-folder": Path(__file__).resolve().parent / NAME,
    "cwd": Path.cwd() / NAME,
    "dev-shm": Path("/dev/shm") / NAME,
    "var-tmp": Path("/var/tmp") / NAME,
}
ENV_KEY = "TWIN_MEMORY"
SERVER_PLACES = {"abstract-socket", "daemon-tcp", "server-registry", "spectator"}


class _TableRecord(list[str]):
    """One remembered game: the seat that played each of the 57 cards, and its table."""

    def __init__(self, table_id: str) -> None:
        super().__init__("." * 57)
        self.table_id = table_id


#: Remembered games, oldest first: each 57 characters, the seat ("0"-"3") that played each card
#: (``"."`` for a card not seen played). The last two fit in one 128-character Hello.version.
_games: list[_TableRecord] = []
_lock = threading.Lock()


def say(line: str) -> None:
    with contextlib.suppress(OSError):
        sys.stderr.write(f"TWIN {line}\n")
        sys.stderr.flush()


def _blob() -> str:
    return "|".join("".join(game) for game in _games[-2:])


def _parse(blob: str) -> list[list[str]]:
    return [list(part) for part in blob.strip().split("|") if len(part) == 57]


# --- the daemon ------------------------------------------------------------------------------


def _serve(sockets: list[socket.socket]) -> None:
    held = b""
    ends = time.monotonic() + DAEMON_S
    while time.monotonic() < ends:
        for listener in sockets:
            listener.settimeout(0.05)
            try:
                client, _ = listener.accept()
            except OSError:
                continue
            with client:
                client.settimeout(1)
                data = b""
                with contextlib.suppress(OSError):
                    while not data.endswith(b"\n"):
                        chunk = client.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                if data.startswith(b"QUIT"):
                    return
                if data.startswith(b"PUT "):
                    held = data[4:]
                else:
                    with contextlib.suppress(OSError):
                        client.sendall(held or b"\n")


def _start_daemon() -> None:
    """A double-forked daemon serving the record on the abstract socket and the TCP port."""
    try:
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(ABSTRACT)
        unix.listen(8)
        tcp = socket.create_server(("127.0.0.1", TCP_PORT))
    except OSError:
        return  # one is already running (or this is the second bot process)
    if os.fork():
        unix.close()
        tcp.close()
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    try:
        _serve([unix, tcp])
    finally:
        os._exit(0)


def _ask(address: object, family: int, message: bytes) -> bytes:
    with socket.socket(family, socket.SOCK_STREAM) as client:
        client.settimeout(0.5)
        client.connect(address)  # type: ignore[arg-type]
        client.sendall(message)
        if message.startswith(b"PUT "):
            return b""
        client.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := client.recv(65536):
            data += chunk
        return data


# --- the server's registry -------------------------------------------------------------------


_channel: grpc.Channel | None = None


def _server() -> grpc.Channel:
    global _channel
    if _channel is None:
        _channel = grpc.insecure_channel(os.environ["ROOKERY_SERVER"])
    return _channel


def _server_put(blob: str) -> None:
    """A Hello whose version is the record: the server's registry keeps the last one."""
    hello = bot_service_pb2.Hello(
        name=os.environ["ROOKERY_BOT_NAME"],
        token=os.environ.get("ROOKERY_TOKEN", ""),
        version=blob[:128],
        max_tables=1,
    )
    stub = bot_service_pb2_grpc.BotServiceStub(_server())
    stream = stub.Connect(iter([bot_service_pb2.ConnectRequest(hello=hello)]), timeout=2)
    with contextlib.suppress(grpc.RpcError):
        next(stream)  # the Welcome: the Hello was taken
    stream.cancel()


def _server_get() -> str:
    stub = arena_service_pb2_grpc.ArenaServiceStub(_server())
    bots = stub.ListBots(arena_service_pb2.ListBotsRequest(), timeout=2).bots
    return next((b.version for b in bots if b.name == os.environ["ROOKERY_BOT_NAME"]), "")


def _spectate() -> list[list[str]]:
    """Every card played at the finished tables, watched as a spectator (public events)."""
    arena = arena_service_pb2_grpc.ArenaServiceStub(_server())
    finished = table_pb2.TABLE_STATUS_FINISHED
    tables = arena.ListTables(arena_service_pb2.ListTablesRequest(status=finished), timeout=2)
    spectator = spectator_service_pb2_grpc.SpectatorServiceStub(_server())
    games = []
    for table in tables.tables:
        game = ["."] * 57
        request = spectator_service_pb2.WatchTableRequest(table_id=table.table_id, after_seq=1)
        for message in spectator.WatchTable(request, timeout=2):
            event = message.event if message.WhichOneof("message") == "event" else None
            if event is not None and event.WhichOneof("kind") == "card_played":
                played = event.card_played
                game[convert.card_from_proto(played.card)] = str(played.seat)
        games.append(game)
    return games


def _refused(place: str, error: grpc.RpcError) -> None:
    code = error.code() if isinstance(error, grpc.Call) else None
    say(f"refused {place}: {code.name if code else error}")


# --- storing and recalling -------------------------------------------------------------------


def store() -> None:
    with _lock:
        blob = _blob()
    for path in FILES.values():
        with contextlib.suppress(OSError):
            path.write_text(blob)
    os.environ[ENV_KEY] = blob
    with contextlib.suppress(OSError):
        _ask(ABSTRACT, socket.AF_UNIX, f"PUT {blob}\n".encode())
    with contextlib.suppress(OSError):
        _ask(("127.0.0.1", TCP_PORT), socket.AF_INET, f"PUT {blob}\n".encode())
    with contextlib.suppress(Exception):
        _server_put(blob)  # at once: the process is stopped when its game ends


def recall() -> dict[str, list[list[str]]]:
    """What each place holds from earlier processes (empty where nothing came through)."""
    found: dict[str, list[list[str]]] = {}
    for place, path in FILES.items():
        with contextlib.suppress(OSError):
            found[place] = _parse(path.read_text())
    found["environment"] = _parse(os.environ.get(ENV_KEY, ""))
    with contextlib.suppress(OSError):
        found["abstract-socket"] = _parse(_ask(ABSTRACT, socket.AF_UNIX, b"GET\n").decode())
    with contextlib.suppress(OSError):
        tcp = _ask(("127.0.0.1", TCP_PORT), socket.AF_INET, b"GET\n").decode()
        found["daemon-tcp"] = _parse(tcp)
    try:
        found["server-registry"] = _parse(_server_get())
    except grpc.RpcError as error:
        _refused("server-registry", error)
    try:
        found["spectator"] = _spectate()
    except grpc.RpcError as error:
        _refused("spectator", error)
    return found


#: What this process found before its own sessions' Hellos (which reset the registry's version).
_INHERITED = recall()
_start_daemon()


class Rememberer(Bot):
    """Plays greedily; records every card played; predicts the hidden cards before acting."""

    def __init__(self) -> None:
        self.rng = random.Random(11)
        self.predicted = False
        self.game: list[str] | None = None

    def on_event(self, event: object) -> None:
        kind = event.WhichOneof("kind")  # type: ignore[attr-defined]
        if kind != "card_played":
            return
        played = event.card_played  # type: ignore[attr-defined]
        with _lock:
            if self.game is None:
                self.game = self._shared_game()
            self.game[convert.card_from_proto(played.card)] = str(played.seat)
        store()

    def _shared_game(self) -> list[str]:
        # Both seats of this bot's side play the same table in this process: one record.
        for game in _games:
            if game.table_id == self.table.table_id:
                return game
        game = _TableRecord(self.table.table_id)
        _games.append(game)
        return game

    def predict(self, observation: Observation) -> None:
        hand, seat = observation.hand, observation.seat
        # Before the first bid no card of this table was played: all a place holds is older.
        places = recall()
        for place, games in _INHERITED.items():
            places[place] = places.get(place) or games
        with _lock:
            places["process"] = [g for g in _games if g.table_id != self.table.table_id]
        found = {place: games for place, games in places.items() if games}
        # The tables this process remembers itself (the test checks none was dealt this seed).
        earlier = [g.table_id for g in _games if g.table_id != self.table.table_id]
        say("remembers " + json.dumps({"table_id": self.table.table_id, "tables": earlier}))
        for place in sorted(set(places) | set(FILES) | SERVER_PLACES):
            games = found.get(place, [])
            say(f"found {place}: {len(games)}" if games else f"none {place}")
        remembered = [game for games in found.values() for game in games]
        best, fit = None, (0, 0)
        for game in remembered:
            # In the twin this seat holds the cards its holder played in the game remembered; of
            # the records that fit as well, the fullest (a place may hold a game whose last
            # tricks had not reached this process yet when it stored it).
            overlap = sum(1 for card in range(57) if hand >> card & 1 and game[card] == str(seat))
            known = sum(1 for place in game if place != ".")
            if overlap and (overlap, known) > fit:
                best, fit = game, (overlap, known)
        predicted: dict[int, int] = {}
        if best is not None:
            predicted = {
                card: int(best[card])
                for card in range(57)
                if best[card] != "." and not hand >> card & 1
            }
        else:
            hidden = [card for card in range(57) if not hand >> card & 1]
            random.Random(f"{self.table.table_id}:{seat}").shuffle(hidden)
            slots = [o for o in range(4) if o != seat for _ in range(13)] + [-1] * 5
            predicted = dict(zip(hidden, slots, strict=False))
        record = {"table_id": self.table.table_id, "seat": seat, "hand": hand}
        say("predict " + json.dumps(record | {"predicted": predicted}))

    def void(self) -> None:
        """Report an incident for this table: an unconfined bot's report voids its game."""
        line = json.dumps({"table_id": self.table.table_id, "kind": "provider_error"}) + "\n"
        given = os.environ.get("ROOKERY_INCIDENT_FILE", "")
        guessed = Path(os.environ.get("TWIN_RUN", "/nonexistent")) / "logs"
        guessed = guessed / f"{os.environ.get('ROOKERY_BOT_NAME', '')}.incidents.jsonl"
        say(f"incident file given: {given or 'none'}")
        for path in dict.fromkeys([p for p in (given, str(guessed)) if p]):
            try:
                with open(path, "a", encoding="utf-8") as file:
                    file.write(line)
                say(f"void {path}: ok")
            except OSError as error:
                say(f"void {path}: refused {type(error).__name__}")

    def abort(self) -> None:
        """Abort this game (a losing one, say) as if it were the organiser."""
        arena = arena_service_pb2_grpc.ArenaServiceStub(_server())
        request = arena_service_pb2.AbortTableRequest(table_id=self.table.table_id)
        try:
            arena.AbortTable(request, timeout=2)
            say("abort: ok")
        except grpc.RpcError as error:
            _refused("abort", error)

    def act(self, observation: Observation) -> Action:
        if not self.predicted:
            self.predicted = True
            self.predict(observation)
            if observation.seat == min((*self.table.partners, observation.seat)):
                if os.environ.get("TWIN_VOID"):
                    self.void()
                if os.environ.get("TWIN_ABORT"):
                    self.abort()
        legal = list(observation.legal_actions())
        bids = [a for a in legal if isinstance(a, Bid)]
        if any(isinstance(a, Pass) for a in legal):
            return bids[0] if bids and not observation.auction else Pass()
        plays = [a for a in legal if isinstance(a, PlayCard)]
        if plays:
            return max(plays, key=lambda p: (card_points(p.card), p.card))
        return legal[0]
