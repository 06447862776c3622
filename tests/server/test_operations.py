"""Running the server: health and graceful shutdown, metrics, logs, `rookery serve`, buf curl."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rookery.cli.main import main as cli
from rookery.engine import Ruleset
from rookery.server import (
    LatePolicy,
    RookeryServer,
    ServerConfig,
    ServerConfigError,
    TableSpec,
    TimeControl,
    configure_logging,
)
from rookery.server.testing import (
    RawBot,
    ServeProcess,
    bot_names,
    running_server,
    seat_raw_bots,
    serve_process,
)
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    bot_service_pb2_grpc,
    results_pb2,
)

REPO = Path(__file__).resolve().parents[2]
Health = health_pb2.HealthCheckResponse


async def health(target: str, service: str = "") -> int:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        response = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        return int(response.status)


async def test_health_reports_serving_for_the_server_and_each_service(
    server: RookeryServer,
) -> None:
    assert await health(server.target) == Health.SERVING
    assert await health(server.target, "rookery.v1.BotService") == Health.SERVING
    assert await health(server.target, "rookery.v1.ArenaService") == Health.SERVING


async def test_stopping_reports_not_serving_then_aborts_what_is_still_running(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=60_000)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    stopping = asyncio.ensure_future(server.stop(grace_s=1.0))
    await asyncio.sleep(0.2)
    assert await health(server.target) == Health.NOT_SERVING
    outcome = await asyncio.wait_for(table.wait_finished(), 5)
    await asyncio.wait_for(stopping, 10)
    assert outcome.termination == results_pb2.TERMINATION_REASON_ABORTED
    assert "shutting down" in outcome.detail
    finished = await players[0].read_kind("table_finished")
    assert finished.result.reason == results_pb2.TERMINATION_REASON_ABORTED


async def test_stopping_lets_running_games_finish_within_the_grace_period(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4), seed=8)
    playing = [asyncio.ensure_future(bot.play()) for bot in players]
    await server.stop(grace_s=30.0)
    outcome = await table.wait_finished()
    assert outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED
    await asyncio.wait_for(asyncio.gather(*playing), 5)


async def test_no_table_is_created_once_stopping(server: RookeryServer) -> None:
    await server.stop(grace_s=0)
    with pytest.raises(Exception, match="shutting down"):
        await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4)))


async def test_every_stream_has_ended_when_stop_returns_even_one_stuck_writing(
    bots: Callable[..., RawBot],
) -> None:
    # Two bots read; two never do, with a window of 1 KiB, so that the server's writes to them
    # wait on flow control when it stops. "server stopped" is the server's last log line: every
    # stream's handler must have run its end (the session detached, "stream ended") by then.
    # Before the fix a stuck stream's handler was left suspended for the garbage collector.
    server = RookeryServer(ServerConfig(log_level="warning", address="127.0.0.1:0"))
    await server.start()
    try:
        for name in ("reads0", "reads1"):
            await bots(server.target, name).connect()
        options = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]
        deaf = [grpc.aio.insecure_channel(server.target, options=options) for _ in range(2)]
        calls = [bot_service_pb2_grpc.BotServiceStub(channel).Connect() for channel in deaf]
        for number, call in enumerate(calls):
            await call.write(
                bot_service_pb2.ConnectRequest(hello=bot_service_pb2.Hello(name=f"deaf{number}"))
            )
        for nonce in range(600):  # about 12 KiB of pongs each, far more than the window
            for call in calls:
                await call.write(
                    bot_service_pb2.ConnectRequest(ping=bot_service_pb2.Ping(nonce=nonce))
                )
        sessions = [s for listed in server.sessions.values() for s in listed]
        assert len(sessions) == 4 and all(s.is_attached for s in sessions)
        stuck = [s for s in sessions if s.bot.startswith("deaf")]
        deadline = asyncio.get_running_loop().time() + 10
        while not all(s.queued > 0 for s in stuck):  # their writers wait on the window now
            assert asyncio.get_running_loop().time() < deadline, "the pongs never backed up"
            await asyncio.sleep(0.05)
    finally:
        await server.stop(grace_s=0.2)
    assert [s.bot for s in sessions if s.is_attached] == []
    for channel in deaf:
        await channel.close()


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        return str(response.read().decode())


async def test_metrics_carry_the_grpc_prometheus_names_and_the_tables_own(
    bots: Callable[..., RawBot],
) -> None:
    config = ServerConfig(metrics_address="127.0.0.1:0", log_level="warning")
    async with running_server(config) as server:
        clock = TimeControl(action_ms=50, late_policy=LatePolicy.FORFEIT)
        late, _ = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
        await late.wait_finished()
        quick = [bots(server.target, f"q{seat}") for seat in range(4)]
        for bot in quick:
            await bot.connect()
        await quick[0].send(_bad_reply())
        await quick[0].read_kind("action_rejected")
        table = await server.create_table(
            TableSpec(Ruleset.preset("standard"), tuple(f"q{s}" for s in range(4)), seed=4)
        )
        await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in quick)), 60)
        await table.wait_finished()
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError):
                await stub.GetTable(arena_service_pb2.GetTableRequest(table_id="t-none"))
        text = await asyncio.to_thread(scrape, server.metrics_port)
    for expected in (
        'grpc_server_started_total{grpc_method="Connect",grpc_service="rookery.v1.BotService",'
        'grpc_type="bidi_stream"}',
        'grpc_server_handled_total{grpc_code="NOT_FOUND",grpc_method="GetTable",'
        'grpc_service="rookery.v1.ArenaService",grpc_type="unary"} 1.0',
        'grpc_server_msg_received_total{grpc_method="Connect"',
        'grpc_server_msg_sent_total{grpc_method="Connect"',
        "grpc_server_handling_seconds_bucket{",
        "rookery_active_tables 0.0",
        "rookery_active_sessions 8.0",
        'rookery_actions_total{outcome="accepted"}',
        "rookery_action_latency_seconds_count",
        "rookery_timeouts_total 1.0",
        'rookery_rejections_total{reason="REJECTION_REASON_UNKNOWN_TABLE"} 1.0',
        'rookery_games_finished_total{reason="TERMINATION_REASON_FORFEIT_TIMEOUT"} 1.0',
    ):
        assert expected in text, expected


def _bad_reply() -> bot_service_pb2.ConnectRequest:
    return bot_service_pb2.ConnectRequest(
        action_reply=bot_service_pb2.ActionReply(table_id="t-none", request_id=1)
    )


@pytest.fixture
def captured_logs() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    configure_logging("info", json=True, stream=stream)
    yield stream
    structlog.reset_defaults()


async def test_log_lines_are_json_with_table_seat_and_bot_bound(
    captured_logs: io.StringIO, bots: Callable[..., RawBot]
) -> None:
    async with running_server(ServerConfig()) as server:
        clock = TimeControl(action_ms=50, late_policy=LatePolicy.FORFEIT)
        table, _ = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
        await table.wait_finished()
    lines = [json.loads(line) for line in captured_logs.getvalue().splitlines()]
    forfeit = next(line for line in lines if line["event"] == "forfeit")
    assert {forfeit["table"], forfeit["seat"], forfeit["bot"]} >= {table.id}
    assert forfeit["bot"] == f"bot{forfeit['seat']}"
    table_lines = [line for line in lines if line["event"].startswith("table ")]
    assert table_lines and all(line["table"] == table.id for line in table_lines)
    session_lines = [line for line in lines if line["event"] == "session opened"]
    assert all("bot" in line and "session" in line for line in session_lines)


# The configuration ------------------------------------------------------------------------------


def test_options_come_from_file_then_environment_then_flags(tmp_path: Path) -> None:
    path = tmp_path / "rookery.toml"
    path.write_text(
        'address = "0.0.0.0:7000"\nmax_sessions = 5\nidle_timeout_s = 30\n'
        '[time_control]\naction_ms = 1500\nlate_policy = "forfeit"\n'
    )
    environ = {"ROOKERY_MAX_SESSIONS": "6", "ROOKERY_TIME_CONTROL_BANK_MS": "2000"}
    config = ServerConfig.load(path, environ=environ, overrides={"idle_timeout_s": 45})
    assert config.address == "0.0.0.0:7000"
    assert config.max_sessions == 6
    assert config.idle_timeout_s == 45
    assert config.time_control == TimeControl(
        action_ms=1500, bank_ms=2000, late_policy=LatePolicy.FORFEIT
    )


def test_a_bot_database_means_token_mode_unless_open_is_asked_for() -> None:
    assert ServerConfig.load(environ={}, overrides={"db": "x.db"}).auth == "token"
    assert ServerConfig.load(environ={}, overrides={"db": "x.db", "auth": "open"}).auth == "open"
    assert ServerConfig.load(environ={}).auth == "open"


def test_an_unknown_option_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "rookery.toml"
    path.write_text("max_sesions = 5\n")
    with pytest.raises(ServerConfigError, match="max_sesions"):
        ServerConfig.load(path, environ={})


def test_a_bad_value_is_refused_with_the_option_and_the_reason() -> None:
    with pytest.raises(ServerConfigError, match=r"max_tables_per_session.*number"):
        ServerConfig.load(environ={"ROOKERY_MAX_TABLES_PER_SESSION": "many"})
    with pytest.raises(ServerConfigError, match="tls_cert"):
        ServerConfig(tls_cert="cert.pem")


# `rookery serve` as a process, and buf curl through reflection ----------------------------------


@pytest.fixture(scope="module")
def served() -> Iterator[ServeProcess]:
    with serve_process("--admin-token", "secret", "--log-level", "warning") as process:
        yield process


def buf_curl(*args: str) -> str:
    buf = REPO / "node_modules" / ".bin" / "buf"
    assert buf.exists(), "buf is missing: run `make setup` (npm ci)"
    result = subprocess.run(
        ["npx", "--no-install", "buf", "curl", "--protocol", "grpc", "--http2-prior-knowledge",
         *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_buf_curl_lists_every_service_through_reflection(served: ServeProcess) -> None:
    methods = buf_curl("--list-methods", f"http://{served.target}").split()
    for method in (
        "rookery.v1.BotService/Connect",
        "rookery.v1.ArenaService/ListTables",
        "rookery.v1.SpectatorService/WatchTable",
        "grpc.health.v1.Health/Check",
    ):
        assert method in methods


def test_buf_curl_calls_the_arena_service(served: ServeProcess) -> None:
    output = buf_curl("--data", "{}", f"http://{served.target}/rookery.v1.ArenaService/ListTables")
    assert json.loads(output) == {}


def test_buf_curl_calls_the_health_service(served: ServeProcess) -> None:
    output = buf_curl(f"http://{served.target}/grpc.health.v1.Health/Check")
    assert json.loads(output) == {"status": "SERVING"}


def test_serve_stops_cleanly_on_sigterm() -> None:
    with serve_process("--log-level", "info") as process:
        code = process.stop()
        assert code == 0
        assert '"event": "server stopped"' in process.log()


def test_serve_refuses_a_bad_configuration_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("no_such_option = 1\n")
    assert cli(["serve", "--config", str(path)]) == 2
    assert "no_such_option" in capsys.readouterr().err


def test_bots_add_prints_a_token_once_and_stores_its_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bots.db")
    assert cli(["bots", "add", "alpha", "--db", db]) == 0
    token = capsys.readouterr().out.strip()
    assert token.startswith("rk_")
    assert cli(["bots", "list", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("alpha\tactive")
    assert token not in listed
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in stored


def test_bots_add_refuses_a_name_that_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "bots.db")
    assert cli(["bots", "add", "alpha", "--db", db]) == 0
    assert cli(["bots", "add", "alpha", "--db", db]) == 1
    assert "already registered" in capsys.readouterr().err
