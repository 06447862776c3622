"""Soak: many games through a `rookery serve` process, with throughput and memory over time.

``make soak`` runs the full size (2,000 games, at most ten minutes); ``tests/hostile`` runs a
small one. The server is a subprocess (its RSS read from ``/proc``); the bots are raw protocol
sessions in this process, each playing many tables at once. Every ``--interval`` seconds one line:
elapsed, games finished, actions/s in the interval, server RSS. At the end: totals, throughput,
RSS first vs last, and a non-zero exit if any game ended abnormally, the memory grew past
``--max-growth-mib`` after the first report, the server died, or no game finished at all (the
time limit bounds the run: games not played by then are reported, not failed).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

import grpc
from rookery.server.testing import serve_process, simple_action
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    bot_service_pb2_grpc,
    results_pb2,
)

pb = bot_service_pb2
NORMAL = {results_pb2.TERMINATION_REASON_TARGET_REACHED, results_pb2.TERMINATION_REASON_MAX_HANDS}


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Tally:
    def __init__(self) -> None:
        self.actions = 0
        self.finished = 0
        self.abnormal: list[str] = []


async def seat_session(
    target: str, name: str, tables: int, tally: Tally, stop: asyncio.Event
) -> None:
    """One bot session answering every request at once (simple_action) until stopped."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        await call.write(pb.ConnectRequest(hello=pb.Hello(name=name, max_tables=tables)))
        while not stop.is_set():
            try:
                message = await asyncio.wait_for(call.read(), 1.0)
            except TimeoutError:
                continue
            if not isinstance(message, pb.ConnectResponse):
                return  # grpc.aio.EOF: the stream ended
            kind = message.WhichOneof("message")
            if kind == "action_request":
                request = message.action_request
                reply = pb.ActionReply(
                    table_id=request.table_id,
                    request_id=request.request_id,
                    action=simple_action(request),
                )
                await call.write(pb.ConnectRequest(action_reply=reply))
                tally.actions += 1
            elif kind == "table_finished" and name.endswith("0"):
                result = message.table_finished.result
                tally.finished += 1
                if result.reason not in NORMAL:
                    tally.abnormal.append(f"{message.table_finished.table_id}: {result.detail}")
        call.cancel()


async def soak(args: argparse.Namespace) -> int:
    # Finished tables (and their replays) are kept up to a bound: a small one, so that the
    # memory plateau is reached early and growth after it means a leak.
    env = {"ROOKERY_FINISHED_TABLES_KEPT": "100"}
    with serve_process(
        "--open", "--log-level", "warning", "--max-tables-per-session", "64", env=env
    ) as serve:
        pid = serve.process.pid
        tally = Tally()
        stop = asyncio.Event()
        names = [f"soak{seat}" for seat in range(4)]
        per_session = 64
        groups = max(1, -(-args.concurrency // per_session))
        sessions = [
            asyncio.create_task(seat_session(serve.target, name, per_session, tally, stop))
            for _ in range(groups)
            for name in names
        ]
        async with grpc.aio.insecure_channel(serve.target) as channel:
            arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
            created = 0
            started = last_report = time.monotonic()
            last_actions = 0
            first_rss: float | None = None
            rss = rss_mib(pid)
            rng = random.Random(args.seed)
            print("elapsed_s games actions_per_s server_rss_mib", flush=True)
            while tally.finished < args.games:
                now = time.monotonic()
                if now - started > args.duration:
                    break
                in_flight = created - tally.finished
                while in_flight < args.concurrency and created < args.games:
                    await arena.CreateTable(
                        arena_service_pb2.CreateTableRequest(
                            preset="standard", seat_bots=names, seed=rng.randrange(1, 2**63)
                        ),
                        timeout=10,
                    )
                    created += 1
                    in_flight += 1
                if now - last_report >= args.interval:
                    rss = rss_mib(pid)
                    first_rss = rss if first_rss is None else first_rss
                    rate = (tally.actions - last_actions) / (now - last_report)
                    print(f"{now - started:.0f} {tally.finished} {rate:.0f} {rss:.1f}", flush=True)
                    last_report, last_actions = now, tally.actions
                await asyncio.sleep(0.05)
        elapsed = time.monotonic() - started
        stop.set()
        await asyncio.wait(sessions, timeout=5)
        final_rss = rss_mib(pid)
        first_rss = final_rss if first_rss is None else first_rss
        alive = serve.process.poll() is None
    print(
        f"soak: {tally.finished} games, {tally.actions} actions in {elapsed:.1f} s: "
        f"{tally.finished / elapsed:.2f} games/s, {tally.actions / elapsed:.0f} actions/s; "
        f"server RSS {first_rss:.1f} MiB at the first report, {final_rss:.1f} MiB at the end",
        flush=True,
    )
    if tally.finished < args.games:
        print(f"soak: time was up after {tally.finished} of {args.games} games", flush=True)
    problems = []
    if tally.finished == 0:
        problems.append(f"no game finished within {args.duration} s")
    if tally.abnormal:
        problems.append(f"{len(tally.abnormal)} abnormal endings, e.g. {tally.abnormal[0]}")
    if final_rss - first_rss > args.max_growth_mib:
        problems.append(f"server memory grew by {final_rss - first_rss:.1f} MiB")
    if not alive:
        problems.append("the server process died")
    for problem in problems:
        print(f"soak FAILED: {problem}", file=sys.stderr, flush=True)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    parser.add_argument("--concurrency", type=int, default=64, help="tables at once (default 64)")
    parser.add_argument("--duration", type=float, default=600, help="time limit, s (default 600)")
    parser.add_argument("--interval", type=float, default=30, help="report every N s (default 30)")
    parser.add_argument("--max-growth-mib", type=float, default=64.0)
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(soak(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
