"""One author tries to take more of the league than its quotas give (docs/league.md, Quotas):
a flood of submissions, a queue of challenge pairs that keeps another author's version busy, a
build step that fills the organiser's disk, an archive bigger than a version may be, and a
retired version whose queued challenges would go on playing. Each is refused or stopped with a
precise error, and nobody else is held up."""

from __future__ import annotations

import asyncio
import io
import tarfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from league_support import LeagueUnderAttack, bot_folder, league_under_attack
from rookery.arena.launch import probe
from rookery.arena.league.submissions import folder_usage
from rookery.v1 import arena_service_pb2_grpc, league_pb2

MIB = 1024 * 1024


async def _active(league: LeagueUnderAttack, *authors: str) -> None:
    for author in authors:
        await league.submit(author, bot_folder(league.root / "sources", author))
    for author in authors:
        settled = await league.settled(f"{author}@1", timeout_s=90)
        assert settled.status == league_pb2.VERSION_STATUS_ACTIVE, settled.detail


async def test_a_flood_of_submissions_stops_at_the_daily_quota(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory", "alice"), submissions_per_day=3) as league:
        accepted, refused = [], []
        for n in range(10):
            folder = bot_folder(tmp_path / "flood", f"m{n}")
            try:
                accepted.append(await league.submit("mallory", folder, build="exit 1"))
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
                refused.append(str(error.details()))
        assert [v.version_id for v in accepted] == ["mallory@1", "mallory@2", "mallory@3"]
        assert len(refused) == 7
        assert refused[0].startswith(
            "bot 'mallory' has submitted 3 versions in the last 24 hours, the league's limit "
            "(submissions_per_day 3): the next is accepted from "
        ), refused[0]
        stored = [v.version_id for v in league.running.league.store.versions("mallory")]
        assert stored == ["mallory@1", "mallory@2", "mallory@3"]
        other = await league.submit("alice", bot_folder(tmp_path, "alice"), build="exit 1")
        assert other.version_id == "alice@1", "another author's quota is their own"


async def test_challenge_pairs_queued_at_once_are_capped(tmp_path: Path) -> None:
    async with league_under_attack(
        tmp_path, ("mallory", "alice"), challenge_pairs=6, autoplay=False
    ) as league:
        await _active(league, "mallory", "alice")
        token = league.tokens["mallory"]

        def challenge(pairs: int) -> league_pb2.ChallengeRequest:
            return league_pb2.ChallengeRequest(
                version_id="mallory@1", opponent_version_id="alice@1", pairs=pairs
            )

        await league.call("Challenge", challenge(4), token)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await league.call("Challenge", challenge(4), token)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.value.details() == (
            "bot 'mallory' has 4 challenge pair(s) queued, and the league takes at most 6 at "
            "once (challenge_pairs): ask for 2 or fewer now, or once they are played"
        )
        await league.call("Challenge", challenge(2), token)
        with pytest.raises(grpc.aio.AioRpcError) as again:
            await league.call("Challenge", challenge(1), token)
        assert again.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert league.running.league.queued_challenge_pairs(1, "mallory") == 6


async def test_a_retired_version_plays_none_of_its_queued_challenges(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory", "alice", "bob"), autoplay=False) as league:
        await _active(league, "mallory", "alice", "bob")
        running = league.running.league
        request = league_pb2.ChallengeRequest(
            version_id="mallory@1", opponent_version_id="alice@1", pairs=10
        )
        await league.call("Challenge", request, league.tokens["mallory"])
        assert running.next_pairing() == ("challenge", "mallory@1", "alice@1", False, 1)
        retire = league_pb2.RetireVersionRequest(version_id="mallory@1")
        await league.call("RetireVersion", retire, league.tokens["mallory"])
        pairing = running.next_pairing()
        assert pairing is not None and pairing[0] == "rated", pairing
        assert "mallory@1" not in pairing[1:3], pairing
        assert running.queued_challenge_pairs(1, "mallory") == 0
        assert await running.step()
        deadline = time.monotonic() + 60
        while running.store.count_pairs(1, ("rated",)) < 1:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        assert running.store.count_pairs(1, ("challenge",)) == 0


@contextmanager
def _largest_size(folder: Path) -> Iterator[list[int]]:
    """The largest size ``folder`` reaches while the block runs, measured every 10 ms."""
    largest = [0]
    stop = threading.Event()

    def measure() -> None:
        while not stop.wait(0.01):
            largest[0] = max(largest[0], folder_usage(folder)[0])

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    try:
        yield largest
    finally:
        stop.set()
        thread.join()


async def test_a_build_filling_the_disk_is_stopped_by_the_leagues_cap(tmp_path: Path) -> None:
    if not probe().available:
        pytest.fail(f"the build runs in the sandbox: {probe().describe()}")
    # 1 GiB in 128 files of 8 MiB (under the sandbox's per-file limit, which does not stop it).
    build = (
        "i=0; while [ $i -lt 128 ]; do head -c 8388608 /dev/zero > fill.$i || exit 9; "
        "i=$((i+1)); done; echo wrote 1 GiB"
    )
    async with league_under_attack(
        tmp_path, ("mallory",), sandbox="on", build_bytes=32 * MIB
    ) as league:
        folder = league.running.league.version_folder("mallory@1")
        with _largest_size(folder) as largest:
            await league.submit("mallory", bot_folder(tmp_path, "mallory"), build=build)
            settled = await league.settled("mallory@1", timeout_s=60)
        assert settled.status == league_pb2.VERSION_STATUS_BUILD_FAILED
        assert settled.detail.startswith(
            "build stopped: its folder passed the league's 32 MiB a build (build_bytes), at "
        ), settled.detail
        print(f"\nthe build's folder reached {largest[0] / MIB:.0f} MiB before it was stopped")
        assert largest[0] < 256 * MIB, f"it wrote {largest[0] / MIB:.0f} MiB"
        assert not folder.exists(), "the stopped build's files are removed"
        log = (await league.version("mallory@1", league.tokens["mallory"])).build_log
        assert "\nwrote 1 GiB\n" not in log and "build stopped: its folder passed" in log


async def test_an_archive_bigger_than_a_version_may_be_is_refused(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory",), version_bytes=1 * MIB) as league:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            member = tarfile.TarInfo("weights.bin")
            member.size = 2 * MIB
            archive.addfile(member, io.BytesIO(bytes(2 * MIB)))
        request = league_pb2.SubmitVersionRequest(
            bot_name="mallory", command="true", archive=buffer.getvalue()
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await league.call("SubmitVersion", request, league.tokens["mallory"])
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.details() == (
            f"archive: unpacks to {2 * MIB} bytes, more than the league's {MIB} bytes a version "
            "(version_bytes)"
        )
        assert league.running.league.store.versions() == []
        assert not any((tmp_path / "league" / "versions").iterdir())


async def _upload(
    league: LeagueUnderAttack, bot: str, token: str, chunks: int, sent: list[int]
) -> tuple[grpc.StatusCode, str]:
    """A streamed submission of ``chunks`` chunks of 256 KiB, as ``rookery league submit`` sends
    it (the blocking client; the asyncio one reports its own INTERNAL once the server has ended
    the call under a write): the server's status and details, ``sent`` counting the chunks the
    server took."""

    def messages() -> Iterator[league_pb2.SubmitVersionUploadRequest]:
        request = league_pb2.SubmitVersionRequest(bot_name=bot, command="true")
        yield league_pb2.SubmitVersionUploadRequest(request=request)
        for _ in range(chunks):
            sent[0] += 1
            yield league_pb2.SubmitVersionUploadRequest(archive_chunk=bytes(256 * 1024))

    def run() -> tuple[grpc.StatusCode, str]:
        metadata = (("authorization", f"Bearer {token}"),)
        with grpc.insecure_channel(league.running.server.target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            try:
                stub.SubmitVersionUpload(messages(), metadata=metadata, timeout=60)
            except grpc.RpcError as error:
                return error.code(), str(error.details())
        return grpc.StatusCode.OK, ""

    return await asyncio.to_thread(run)


async def test_an_upload_for_another_authors_bot_is_refused_before_its_archive(
    tmp_path: Path,
) -> None:
    async with league_under_attack(tmp_path, ("mallory", "alice")) as league:
        sent = [0]
        code, details = await _upload(league, "alice", league.tokens["mallory"], 400, sent)
        assert code == grpc.StatusCode.PERMISSION_DENIED, details
        assert "only bot 'alice''s own token" in details
        assert sent[0] < 400, "the upload was cut at its first message"
        assert league.running.league.store.versions() == []


async def test_an_upload_past_the_version_cap_is_refused_midway(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory",), version_bytes=1 * MIB) as league:
        sent = [0]
        code, details = await _upload(league, "mallory", league.tokens["mallory"], 400, sent)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        assert details == f"archive: more than the league's {MIB} bytes a version (version_bytes)"
        assert sent[0] < 400
        assert league.running.league.store.versions() == []


LOUD_BOT = """
import sys

from rookery.client import Bot
from rookery.client.bots.random_bot import RandomBot


class LoudBot(RandomBot):
    def act(self, observation):
        sys.stdout.write("noise " * 20_000 + "\\n")  # 120 kB a move
        sys.stdout.flush()
        return super().act(observation)
"""


async def test_a_bot_printing_without_end_keeps_only_its_newest_log(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory",), log_bytes=256 * 1024) as league:
        folder = tmp_path / "loud"
        folder.mkdir()
        (folder / "loud_bot.py").write_text(LOUD_BOT)
        await league.submit("mallory", folder, command="rookery bot run loud_bot.py:LoudBot")
        await league.settled("mallory@1", timeout_s=90)
        log = league.running.league.folder / "logs" / "mallory@1.log"
        size = log.stat().st_size
        print(f"\nthe loud bot's log after its qualification pair: {size} bytes")
        assert size <= 256 * 1024 + 100, f"{size} bytes kept"
        text = log.read_text()
        assert text.startswith("--- ") and "earlier bytes cut (log_bytes)" in text.splitlines()[0]
        assert "noise noise" in text, "its newest output is kept"


async def test_a_queue_of_challenges_takes_every_other_pair_at_most(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory", "alice", "bob"), autoplay=False) as league:
        await _active(league, "mallory", "alice", "bob")
        running = league.running.league
        request = league_pb2.ChallengeRequest(
            version_id="mallory@1", opponent_version_id="alice@1", pairs=10
        )
        await league.call("Challenge", request, league.tokens["mallory"])
        kinds = []
        for played in range(1, 5):
            choice = running.next_pairing()
            assert choice is not None
            kinds.append(choice[0])
            assert await running.step()
            deadline = time.monotonic() + 60
            while running.store.count_pairs(1, ("challenge", "rated")) < played:
                assert time.monotonic() < deadline, kinds
                await asyncio.sleep(0.05)
            await asyncio.gather(*running._flight.tasks)  # its slot is free again
        assert kinds == ["challenge", "rated", "challenge", "rated"], kinds


SLOW_BOT = """
import time

from rookery.client.bots.random_bot import RandomBot


class SlowBot(RandomBot):
    def act(self, observation):
        time.sleep(0.2)
        return super().act(observation)
"""


async def test_a_retired_version_stops_the_games_it_is_playing(tmp_path: Path) -> None:
    async with league_under_attack(tmp_path, ("mallory", "alice"), autoplay=False) as league:
        folder = tmp_path / "slow"
        folder.mkdir()
        (folder / "slow_bot.py").write_text(SLOW_BOT)
        await league.submit("mallory", folder, command="rookery bot run slow_bot.py:SlowBot")
        await _active(league, "alice")
        assert (await league.settled("mallory@1", timeout_s=120)).status == (
            league_pb2.VERSION_STATUS_ACTIVE
        )
        running = league.running.league
        request = league_pb2.ChallengeRequest(
            version_id="mallory@1", opponent_version_id="alice@1", pairs=4
        )
        await league.call("Challenge", request, league.tokens["mallory"])
        assert await running.step()
        server = league.running.server
        deadline = time.monotonic() + 30
        while not any(
            t.spec.tournament_id.startswith("league-") and t.outcome is None
            for t in server.tables.values()
        ):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        retired_at = time.monotonic()
        retire = league_pb2.RetireVersionRequest(version_id="mallory@1")
        await league.call("RetireVersion", retire, league.tokens["mallory"])
        await asyncio.gather(*running._flight.tasks)
        stopped_after = time.monotonic() - retired_at
        (pair,) = running.store.pairs(1, kinds=("challenge",))
        assert pair.void, "its games were aborted: the pair is void"
        assert {g.termination for g in pair.games} == {"ABORTED"}
        assert stopped_after < 5, f"it played on for {stopped_after:.1f} s"
