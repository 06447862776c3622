"""Helpers of the league tests: a real ``rookery league serve`` process (killed and restarted
like any server), its registry of bots, gRPC calls with tokens, bot folders of known strength."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc, league_pb2

HERE = Path(__file__).parent
ROOKERY = Path(sys.executable).with_name("rookery")
MIXBOT = HERE / "mixbot"
MIX_COMMAND = "rookery bot run mix_bot.py:MixBot"
ADMIN = "admin-secret-for-tests"


def mix_folder(root: Path, name: str, strength: float, extra: str = "") -> Path:
    """A copy of the mixture bot playing the heuristic move with probability ``strength``."""
    folder = root / name
    shutil.copytree(MIXBOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "strength.txt").write_text(f"{strength}\n")
    if extra:
        (folder / "extra.txt").write_text(extra)
    return folder


@dataclass
class LeagueProcess:
    """``rookery league serve`` as a child process, on loopback ports of its own."""

    root: Path
    args: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    port: int = 0
    web_port: int = 0
    #: ``--league`` as given (relative paths are taken from ``root``, the server's folder).
    league_path: str = "league/league.sqlite"
    #: Variables added to the server's environment (``ROOKERY_<OPTION>``).
    env: dict[str, str] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        for name in ("port", "web-port"):
            (self.root / name).unlink(missing_ok=True)
        log = (self.root / "server.log").open("ab")
        self.process = subprocess.Popen(
            [
                str(ROOKERY), "league", "serve",
                "--league", self.league_path,
                "--db", str(self.root / "bots.sqlite"),
                "--admin-token", ADMIN,
                "--address", "127.0.0.1:0",
                "--web-address", "127.0.0.1:0",
                "--port-file", str(self.root / "port"),
                "--web-port-file", str(self.root / "web-port"),
                *self.args,
            ],
            stdout=log,
            stderr=log,
            cwd=self.root,
            env={**os.environ, **self.env},
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not (self.root / "web-port").exists():
            if self.process.poll() is not None:
                raise AssertionError(
                    f"league serve exited: {(self.root / 'server.log').read_text()[-3000:]}"
                )
            assert time.monotonic() < deadline, "league serve did not start within 60 s"
            time.sleep(0.05)
        self.port = int((self.root / "port").read_text())
        self.web_port = int((self.root / "web-port").read_text())

    def kill(self) -> None:
        """SIGKILL: what a power cut does to the league (its bots die with it)."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
            with contextlib.suppress(ProcessLookupError):  # its bots, if any are left
                os.killpg(self.process.pid, signal.SIGKILL)

    def call(self, method: str, request: object, token: str = "") -> object:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        with grpc.insecure_channel(self.target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            return getattr(stub, method)(request, metadata=metadata, timeout=60)

    def add_bot(self, name: str) -> str:
        response = self.call("AddBot", arena_service_pb2.AddBotRequest(name=name), ADMIN)
        assert isinstance(response, arena_service_pb2.AddBotResponse)
        return response.token

    def board(self, all_versions: bool = True) -> league_pb2.GetLeagueBoardResponse:
        response = self.call(
            "GetLeagueBoard", league_pb2.GetLeagueBoardRequest(all_versions=all_versions)
        )
        assert isinstance(response, league_pb2.GetLeagueBoardResponse)
        return response

    def versions(self) -> list[league_pb2.BotVersion]:
        response = self.call("ListVersions", league_pb2.ListVersionsRequest())
        assert isinstance(response, league_pb2.ListVersionsResponse)
        return list(response.versions)


REPO = HERE.parents[1]
TS_KIT = REPO / "clients" / "typescript"
#: The kit's packages a bot's run does not need (code generators, formatters, the compiler).
TS_UNNEEDED = ("dprint-node", "ts-proto", "ts-poet", "ts-proto-descriptors", "case-anything")
NODE_BOT = """const { firstLegal, runMain } = require("rookery-bot-kit");

runMain(() => ({ act: (request) => firstLegal(request.legalActions) }), process.argv.slice(2), {
  version: "1.0.0",
}).then((code) => process.exit(code));
"""


def built_typescript_kit() -> None:
    """The TypeScript kit's own build.sh (cached by the script), under the kit tests' lock."""
    import fcntl

    with (TS_KIT / ".build.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        done = subprocess.run(
            ["nice", "-n", "10", str(TS_KIT / "build.sh")],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def node_folder(folder: Path) -> Path:
    """A JavaScript bot (``node bot.js``, the first legal move) with the TypeScript kit's build
    in its node_modules: a version in a second language that needs no build step."""
    kit = folder / "node_modules" / "rookery-bot-kit"
    kit.mkdir(parents=True)
    (folder / "bot.js").write_text(NODE_BOT)
    shutil.copy(TS_KIT / "package.json", kit / "package.json")
    shutil.copytree(TS_KIT / "dist" / "src", kit / "dist" / "src")
    skip = shutil.ignore_patterns(*TS_UNNEEDED, "typescript", "buf", "buf-*", ".bin")
    shutil.copytree(TS_KIT / "node_modules", kit / "node_modules", ignore=skip)
    return folder
