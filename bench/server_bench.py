"""Server benchmark: Rookery's bot path beside a bare grpc.aio echo, and memory per table.

Run alone with ``.venv/bin/python bench/server_bench.py``; prints ``name value unit`` lines:

(a) actions/s through the server with 64 concurrent tables, the bots (4 sessions of one bot name,
    batching offered) in a separate process, in four layouts: ``lean``, bots on the bare protocol
    like the echo's clients (observations-only, each request answered at once from its legal
    actions: what the server alone sustains); the SDK runner with a fast deterministic bot,
    observations-only (``Hello.observations_only``: it acts on each request's observation and gets
    no events) and with full event streams (every seat gets every event: the bot overrides
    ``on_event``); and the SDK observations-only without batching (one message per gRPC message);
(b) a bare grpc.aio bidirectional echo at 64 streams in the same layout (server here, clients in
    a separate process over 4 connections, a ~1 KiB request echoed), and the ratios (a)/(b);
(c) the move round trip p50/p99 (a bot's reply sent → the next ActionRequest of that table
    received: the move applied and the next seat asked) beside the echo's round trip;
(d) server memory per table with 2,000 tables open (RSS delta / 2,000, games in progress).

The load parts run one after the other, each for the same time, the echo first and again last
(its figures are over both runs' windows, so a drift of the machine's load between the parts
does not favour either side).

Throughputs are the median of several measurement windows after a warm-up. Rates and latencies
depend on what else the machine runs; the CPU time each process spends per operation (over the
same windows) does not, so it is printed too, with the ratio of the server's CPU per action to
the echo server's per round trip, and how many messages reach the bots per action (one request
plus every seat's copy of each event, against the echo's one). Every part is bounded in time.
The same script is the child process (``--role ROLE``, one per layout).

Against another checkout in the same run: ``--baseline TREE`` (a set-up tree of an older commit:
its generated stubs and any compiled modules in place, as ``bench/baseline_tree.py REF`` builds it
into ``build/baseline-<commit>/``; ``make bench`` passes d917ed0's) runs ``--layouts`` (default
``sdk_events``) from this tree and from TREE in turn, ``--rounds`` times each, every run a fresh
server process on the sources of its tree, and prints the medians of the server's and the bots'
CPU per action of each and their ratios (this tree's over TREE's), and each round's ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

HERE = Path(__file__).resolve()

TABLES = 64
"""Concurrent tables (and echo streams) for the throughput and latency parts."""
MEMORY_TABLES = 2000
"""Tables open at once for the memory part."""
SESSIONS = 4
"""Bot sessions (and echo connections): one per seat of a 4-player table."""
WARMUP_S = 2.0
"""Seconds of load before measuring."""
WINDOWS = 5
"""Measurement windows; the throughput reported is their median."""
WINDOW_S = 2.0
"""Seconds per measurement window."""
ECHO_PAYLOAD = b"r" * 1024
"""The echo request: about the size of an ActionRequest with its observation."""
ECHO_SERVICE = "rookery.bench.Echo"
MODES = {
    "lean": "lean-bots",
    "sdk_observations_only": "quiet-sdk-bots",
    "sdk_events": "sdk-bots",
    "sdk_observations_only_unbatched": "unbatched-quiet-sdk-bots",
}
"""The bot processes the server is measured with: mode name → child role."""
CHILD_TIMEOUT_S = 60.0
"""The most a child process may take before the benchmark gives up on it."""


@dataclass(frozen=True)
class Measured:
    """One load run: per-window rates, round-trip percentiles (s), and CPU spent per operation.

    CPU per operation does not depend on what else the machine runs, unlike rates and latencies.
    """

    rates: list[float]
    p50: float
    p99: float
    operations: int
    client_cpu_s: float
    messages: int = 0
    server_cpu_s: float = 0.0

    @property
    def rate(self) -> float:
        """The median window's rate."""
        return statistics.median(self.rates)

    def combined(self, other: Measured) -> Measured:
        """Two runs of the same load as one: every window, percentiles of the slower, CPU summed."""
        slower = self if self.p50 >= other.p50 else other
        return Measured(
            rates=self.rates + other.rates,
            p50=slower.p50,
            p99=slower.p99,
            operations=self.operations + other.operations,
            client_cpu_s=self.client_cpu_s + other.client_cpu_s,
            messages=self.messages + other.messages,
            server_cpu_s=self.server_cpu_s + other.server_cpu_s,
        )

    @property
    def client_cpu_us(self) -> float:
        return self.client_cpu_s / max(1, self.operations) * 1e6

    @property
    def server_cpu_us(self) -> float:
        return self.server_cpu_s / max(1, self.operations) * 1e6


def emit(name: str, value: float, unit: str) -> None:
    """One result line: ``name value unit``."""
    print(f"{name} {value:.6g} {unit}", flush=True)


def rss_bytes() -> int:
    """This process's resident set size now."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# Measuring inside a child ----------------------------------------------------------------------


async def measure(
    counter: Callable[[], int],
    samples: list[float],
    stop: asyncio.Event,
    measuring: asyncio.Event,
    messages: Callable[[], int] | None = None,
) -> None:
    """Warm up, then count ``counter`` over ``WINDOWS`` windows; report; set ``stop``.

    ``measuring`` is set from the end of the warm-up on (round trips are sampled only then). The
    child prints ``measuring`` when it starts and its report when it ends, so the parent can
    measure its own CPU time over the same span.
    """
    await asyncio.sleep(WARMUP_S)
    print("measuring", flush=True)
    measuring.set()
    messages = messages or counter
    first_count, first_messages, cpu = counter(), messages(), time.process_time()
    rates = []
    for _ in range(WINDOWS):
        start_count, start = counter(), time.perf_counter()
        await asyncio.sleep(WINDOW_S)
        rates.append((counter() - start_count) / (time.perf_counter() - start))
    report = {
        "rates": rates,
        "p50": percentile(samples, 0.50),
        "p99": percentile(samples, 0.99),
        "operations": counter() - first_count,
        "messages": messages() - first_messages,
        "client_cpu_s": time.process_time() - cpu,
    }
    print(json.dumps(report), flush=True)
    stop.set()


async def spawn_child(role: str, target: str, *extra: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE),
        "--role",
        role,
        "--target",
        target,
        *extra,
        stdout=subprocess.PIPE,
    )


async def child_result(process: asyncio.subprocess.Process) -> Measured:
    """Read a child's report (with this process's CPU time over its measurement); wait for it."""
    assert process.stdout is not None
    started = await asyncio.wait_for(process.stdout.readline(), CHILD_TIMEOUT_S)
    cpu = time.process_time()
    line = await asyncio.wait_for(process.stdout.readline(), CHILD_TIMEOUT_S)
    server_cpu_s = time.process_time() - cpu
    await asyncio.wait_for(process.wait(), 15.0)
    if started.strip() != b"measuring" or not line:
        raise RuntimeError(f"the benchmark child exited with {process.returncode} and no report")
    return Measured(server_cpu_s=server_cpu_s, **json.loads(line))


# (b) the bare echo -----------------------------------------------------------------------------


async def _echo_chat(request_iterator: Any, context: Any) -> Any:
    async for message in request_iterator:
        yield message


async def run_echo() -> Measured:
    """The echo server here, 64 echo streams in a child process."""
    server = grpc.aio.server()
    handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.stream_stream_rpc_method_handler(
        _echo_chat  # bytes in, bytes out
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(ECHO_SERVICE, {"Chat": handler}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        child = await spawn_child("echo-clients", f"127.0.0.1:{port}")
        return await child_result(child)
    finally:
        await server.stop(0)


async def echo_clients(target: str) -> None:
    """Child: 64 streams over 4 connections, each sending 1 KiB and awaiting its echo."""
    stop, measuring = asyncio.Event(), asyncio.Event()
    count = 0
    samples: list[float] = []

    async def stream(channel: grpc.aio.Channel) -> None:
        nonlocal count
        call: grpc.aio.StreamStreamCall[bytes, bytes] = channel.stream_stream(
            f"/{ECHO_SERVICE}/Chat"
        )()
        while not stop.is_set():
            sent = time.perf_counter()
            await call.write(ECHO_PAYLOAD)
            await call.read()
            if measuring.is_set():
                samples.append(time.perf_counter() - sent)
            count += 1
        await call.done_writing()

    channels = [grpc.aio.insecure_channel(target) for _ in range(SESSIONS)]
    streams = [asyncio.create_task(stream(channels[i % SESSIONS])) for i in range(TABLES)]
    await measure(lambda: count, samples, stop, measuring)
    await asyncio.wait(streams, timeout=5.0)
    for channel in channels:
        await channel.close()


# (a) and (c): actions through the Rookery server ---------------------------------------------


def bench_config(max_tables_per_session: int) -> Any:
    """A server config whose limits stay out of the way of a benchmark's load."""
    from rookery.server import ServerConfig

    return ServerConfig(
        address="127.0.0.1:0",
        log_level="error",
        max_tables_per_session=max_tables_per_session,
        action_rate=1e9,
        action_burst=1_000_000_000,
        send_queue_size=1_000_000,
        finished_tables_kept=100,
    )


async def run_rookery(role: str) -> Measured:
    """The server here, 64 tables kept going; the bots (4 sessions) in a child process of
    ``role``: lean protocol bots, or the SDK with every event or observations-only."""
    from rookery.engine import Ruleset
    from rookery.server import RookeryServer, TableSpec, TimeControl

    server = RookeryServer(bench_config(TABLES))
    await server.start()
    child = await spawn_child(role, server.target)
    stop = asyncio.Event()
    spec_args: dict[str, Any] = {
        "ruleset": Ruleset.preset("standard"),
        "seat_bots": ("fast",) * 4,
        "time_control": TimeControl(action_ms=60_000, grace_ms=60_000),
    }

    async def keep_a_table_going(worker: int) -> None:
        game = 0
        while not stop.is_set():
            game += 1
            table = await server.create_table(TableSpec(seed=worker * 100_000 + game, **spec_args))
            await table.wait_finished()

    try:
        await server.wait_for_bot("fast", sessions=SESSIONS, timeout=CHILD_TIMEOUT_S)
        workers = [asyncio.create_task(keep_a_table_going(i)) for i in range(TABLES)]
        try:
            return await child_result(child)
        finally:
            stop.set()
            for worker in workers:
                worker.cancel()
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
        await server.stop(grace_s=0)


async def bots_child(target: str, *, events: bool = True, batching: bool = True) -> None:
    """Child: the SDK runner with a fast deterministic bot on every seat of every table; with
    ``events`` the bot overrides ``on_event`` (full event streams), else it does not (the SDK then
    asks for observations only)."""
    from rookery.client import Bot, arun_bot, configure_logging
    from rookery.engine import Action, Bid, Observation, Phase

    configure_logging("error")
    stop, measuring = asyncio.Event(), asyncio.Event()
    count = received = 0
    samples: list[float] = []
    replied: dict[str, float] = {}
    """Per table, when its last reply left ``act`` (all four seats play in this process)."""

    class Fast(Bot):
        """Opens the auction at the minimum, passes after; otherwise the first legal action.

        Round trip: from a reply leaving ``act`` to the table's next request reaching ``act``.
        """

        def act(self, observation: Observation) -> Action:
            nonlocal count
            now = time.perf_counter()
            count += 1
            table_id = self.table.table_id
            sent = replied.get(table_id)
            if sent is not None and measuring.is_set():
                samples.append(now - sent)
            legal = observation.legal_actions()
            if observation.phase is Phase.BIDDING and observation.high_bid == 0 and legal.bids:
                action: Action = Bid(legal.bids[0])
            else:
                action = legal[0]
            replied[table_id] = time.perf_counter()
            return action

        def on_table_finished(self, result: Any) -> None:
            replied.pop(self.table.table_id, None)

    class Listening(Fast):
        """The same bot, reading every event (so its sessions get full event streams)."""

        def on_event(self, event: Any) -> None:
            nonlocal received
            received += 1

    bot = Listening if events else Fast
    runner = asyncio.create_task(
        arun_bot(
            bot,
            target,
            name="fast",
            sessions=SESSIONS,
            max_tables=TABLES,
            stop=stop,
            batching=batching,
        )
    )
    await measure(lambda: count, samples, stop, measuring, lambda: count + received)
    await asyncio.wait_for(runner, 10.0)


async def lean_bots_child(target: str) -> None:
    """Child: bots on the bare protocol, like the echo clients: 4 sessions offering batching and
    observations-only, each answering every request of its tables with ``simple_action`` (open
    the auction at the minimum, else pass; otherwise the first legal choice), the replies read
    together sent together."""
    from rookery.server.testing import simple_action
    from rookery.v1 import bot_service_pb2 as pb
    from rookery.v1 import bot_service_pb2_grpc

    stop, measuring = asyncio.Event(), asyncio.Event()
    count = 0
    samples: list[float] = []
    replied: dict[str, float] = {}

    async def session(channel: grpc.aio.Channel) -> None:
        nonlocal count
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        hello = pb.Hello(name="fast", max_tables=TABLES, observations_only=True, batching=True)
        await call.write(pb.ConnectRequest(hello=hello))
        welcome = await call.read()
        assert isinstance(welcome, pb.ConnectResponse) and welcome.welcome.batching, welcome
        while not stop.is_set():
            message = await call.read()
            if not isinstance(message, pb.ConnectResponse):
                return  # grpc.aio.EOF: the stream ended
            now = time.perf_counter()
            batch = message.batch.messages if message.HasField("batch") else (message,)
            replies = []
            for inner in batch:
                if not inner.HasField("action_request"):
                    continue
                request = inner.action_request
                sent = replied.get(request.table_id)
                if sent is not None and measuring.is_set():
                    samples.append(now - sent)
                replies.append(
                    pb.ActionReply(
                        table_id=request.table_id,
                        request_id=request.request_id,
                        action=simple_action(request),
                    )
                )
            if not replies:
                continue
            count += len(replies)
            sent_at = time.perf_counter()
            for reply in replies:
                replied[reply.table_id] = sent_at
            if len(replies) == 1:
                await call.write(pb.ConnectRequest(action_reply=replies[0]))
            else:
                await call.write(pb.ConnectRequest(batch=pb.ReplyBatch(replies=replies)))
        call.cancel()

    channels = [grpc.aio.insecure_channel(target) for _ in range(SESSIONS)]
    sessions = [asyncio.create_task(session(channel)) for channel in channels]
    await measure(lambda: count, samples, stop, measuring)
    await asyncio.wait(sessions, timeout=5.0)
    for channel in channels:
        await channel.close()


# (d) memory per table --------------------------------------------------------------------------


async def run_memory() -> float:
    """Server RSS growth per table with 2,000 games open, bots connected (in a child) and asked
    to act; the bots never answer within the measurement."""
    from rookery.engine import Ruleset
    from rookery.server import RookeryServer, TableSpec, TableStatus, TimeControl

    server = RookeryServer(bench_config(MEMORY_TABLES))
    await server.start()
    child = await spawn_child("holders", server.target)
    try:
        await server.wait_for_bot("holder", sessions=SESSIONS, timeout=CHILD_TIMEOUT_S)
        await asyncio.sleep(0.5)
        gc.collect()
        before = rss_bytes()
        clock = TimeControl(action_ms=600_000, grace_ms=600_000)
        tables = [
            await server.create_table(
                TableSpec(Ruleset.preset("standard"), ("holder",) * 4, seed=i, time_control=clock)
            )
            for i in range(MEMORY_TABLES)
        ]
        deadline = time.monotonic() + 20.0
        while any(t.status is not TableStatus.PLAYING for t in tables):
            if time.monotonic() > deadline:
                raise RuntimeError("the 2,000 tables did not all start within 20 s")
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # let the deals, events and first requests go out
        gc.collect()
        return (rss_bytes() - before) / MEMORY_TABLES
    finally:
        child.kill()
        await child.wait()
        await server.stop(grace_s=0)


async def holders_child(target: str) -> None:
    """Child: bots that sit at their tables and never answer in time."""
    from rookery.client import Bot, arun_bot, configure_logging
    from rookery.engine import Action, Observation

    configure_logging("error")

    class Holder(Bot):
        async def act(self, observation: Observation) -> Action:
            await asyncio.sleep(3600)
            return observation.legal_actions()[0]

    await arun_bot(Holder, target, name="holder", sessions=SESSIONS, max_tables=MEMORY_TABLES)


# Entry points ----------------------------------------------------------------------------------


async def orchestrate() -> int:
    from rookery.server import configure_logging, tune_gc

    configure_logging("error", json=False)
    tune_gc()  # as ``rookery serve`` does; the echo's server shares this process and setting
    per_table = await run_memory()
    before = await run_echo()
    modes = {mode: await run_rookery(role) for mode, role in MODES.items()}
    echo = before.combined(await run_echo())  # before and after: the machine's load drifts
    emit("echo_round_trips_per_s", echo.rate, "msgs/s")
    emit("echo_rtt_p50", echo.p50 * 1000, "ms")
    emit("echo_rtt_p99", echo.p99 * 1000, "ms")
    emit("echo_server_cpu_per_round_trip", echo.server_cpu_us, "us")
    emit("echo_client_cpu_per_round_trip", echo.client_cpu_us, "us")
    for mode, rookery in modes.items():
        emit(f"server_actions_per_s[{mode}]", rookery.rate, "actions/s")
        emit(f"server_vs_echo_throughput[{mode}]", rookery.rate / echo.rate, "x")
        emit(f"server_move_rtt_p50[{mode}]", rookery.p50 * 1000, "ms")
        emit(f"server_move_rtt_p99[{mode}]", rookery.p99 * 1000, "ms")
        emit(
            f"server_vs_echo_cpu_per_operation[{mode}]",
            echo.server_cpu_us / rookery.server_cpu_us,
            "x",
        )
        emit(f"server_cpu_per_action[{mode}]", rookery.server_cpu_us, "us")
        emit(f"bots_cpu_per_action[{mode}]", rookery.client_cpu_us, "us")
        emit(
            f"bot_messages_per_action[{mode}]",
            rookery.messages / max(1, rookery.operations),
            "msgs",
        )
    emit("server_memory_per_table", per_table / 1024, "KiB")
    return 0


PACKAGE_ROOTS = ("engine", "wire", "server", "clients/python", "arena", "cli", "web", "envs")
"""The folders of a checkout holding its ``rookery`` packages (what its install puts on path)."""


def tree_environment(tree: Path | None) -> dict[str, str]:
    """The environment that runs ``tree``'s packages (``None``: this tree, as installed)."""
    environment = dict(os.environ)
    if tree is not None:
        roots = [tree / root for root in (*PACKAGE_ROOTS, "gen/python")]
        found = [str(root) for root in roots if root.is_dir()]
        environment["PYTHONPATH"] = os.pathsep.join([*found, environment.get("PYTHONPATH", "")])
    return environment


async def one_layout(mode: str) -> None:
    """``--layout MODE``: one run of that layout's server here; its figures as one JSON line."""
    from rookery.server import configure_logging

    configure_logging("error", json=False)
    try:
        from rookery.server import tune_gc
    except ImportError:  # an older tree: its server did not tune the collector
        pass
    else:
        tune_gc()
    measured = await run_rookery(MODES[mode])
    figures = {
        "rate": measured.rate,
        "server_cpu_us": measured.server_cpu_us,
        "bots_cpu_us": measured.client_cpu_us,
        "messages": measured.messages / max(1, measured.operations),
    }
    print(json.dumps(figures), flush=True)


SIDES = ("this", "baseline")
"""The two trees a ``--baseline`` run compares: this one, and the baseline TREE."""


def alternate(
    commands: dict[str, list[str]], baseline: Path, rounds: int, timeout_s: float
) -> dict[tuple[str, str], list[dict[str, float]]]:
    """``rounds`` rounds of every command (its name: its arguments to ``python``), each run from
    this tree and then from ``baseline`` (a fresh process on its tree's packages), so that the
    machine's load weighs on both alike; each run's last line of output, decoded, is kept under
    ``(name, side)``."""
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    trees = {"this": None, "baseline": baseline.resolve()}
    for _ in range(rounds):
        for name, command in commands.items():
            for side, tree in trees.items():
                done = subprocess.run(
                    [sys.executable, *command],
                    env=tree_environment(tree),
                    capture_output=True,
                    text=True,
                    timeout=timeout_s,
                )
                if done.returncode != 0:
                    raise RuntimeError(f"the {side} run of {name} failed:\n{done.stderr}")
                runs.setdefault((name, side), []).append(json.loads(done.stdout.splitlines()[-1]))
    return runs


def emit_versus(
    metric: str, label: str, key: str, runs: dict[tuple[str, str], list[dict[str, float]]]
) -> None:
    """``metric_vs_baseline[label]``: the median of ``key`` over this tree's runs of ``label``
    over the baseline's, then each round's own ratio (to see the machine's drift)."""
    this, base = runs[label, "this"], runs[label, "baseline"]
    ratio = statistics.median(r[key] for r in this) / statistics.median(r[key] for r in base)
    emit(f"{metric}_vs_baseline[{label}]", ratio, "x")
    for number, (mine, theirs) in enumerate(zip(this, base, strict=True), 1):
        emit(f"{metric}_vs_baseline[{label},round{number}]", mine[key] / theirs[key], "x")


def compare(baseline: Path, layouts: list[str], rounds: int) -> int:
    """This tree's layouts against ``baseline``'s, alternating, ``rounds`` runs each."""
    commands = {mode: [str(HERE), "--layout", mode] for mode in layouts}
    runs = alternate(commands, baseline, rounds, CHILD_TIMEOUT_S * 3)
    for mode in layouts:
        for side in SIDES:
            figures = {
                key: statistics.median(run[key] for run in runs[mode, side])
                for key in ("rate", "server_cpu_us", "bots_cpu_us", "messages")
            }
            emit(f"server_actions_per_s[{mode},{side}]", figures["rate"], "actions/s")
            emit(f"server_cpu_per_action[{mode},{side}]", figures["server_cpu_us"], "us")
            emit(f"bots_cpu_per_action[{mode},{side}]", figures["bots_cpu_us"], "us")
            emit(f"bot_messages_per_action[{mode},{side}]", figures["messages"], "msgs")
        emit_versus("server_cpu_per_action", mode, "server_cpu_us", runs)
        emit_versus("bots_cpu_per_action", mode, "bots_cpu_us", runs)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    children: dict[str, Callable[[str], Coroutine[Any, Any, None]]] = {
        "echo-clients": echo_clients,
        "lean-bots": lean_bots_child,
        "sdk-bots": bots_child,
        "quiet-sdk-bots": functools.partial(bots_child, events=False),
        "unbatched-quiet-sdk-bots": functools.partial(bots_child, events=False, batching=False),
        "holders": holders_child,
    }
    parser.add_argument("--role", choices=tuple(children), default=None)
    parser.add_argument("--target", default="")
    parser.add_argument("--layout", choices=tuple(MODES), default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--baseline",
        metavar="TREE",
        type=Path,
        help="instead: the layouts from this tree and from the set-up checkout TREE in turn",
    )
    parser.add_argument(
        "--layouts",
        default="sdk_events",
        help="with --baseline: the layouts compared, comma-separated (default: sdk_events)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: runs of each")
    args = parser.parse_args()
    if args.role is not None:
        asyncio.run(children[args.role](args.target))
        return 0
    if args.layout is not None:
        asyncio.run(one_layout(args.layout))
        return 0
    if args.baseline is not None:
        layouts = args.layouts.split(",")
        unknown = sorted(set(layouts) - set(MODES))
        if unknown:
            parser.error(f"unknown layouts {unknown}; choose from {sorted(MODES)}")
        return compare(args.baseline, layouts, args.rounds)
    return asyncio.run(orchestrate())


if __name__ == "__main__":
    raise SystemExit(main())
