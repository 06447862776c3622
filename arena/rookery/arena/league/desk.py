"""The league's desk: whose token may submit, retire, challenge and read a bot's private parts,
the season's deadline and the quotas (submissions a day, challenge pairs queued), the runtime logs
authors read, and the house bot's version."""

from __future__ import annotations

import contextlib
import hmac
import time
from pathlib import Path

import structlog
from rookery.server import QuotaExceededError, RookeryServer, SubmissionsClosedError

from .options import LeagueOptions
from .store import LeagueStore, SeasonRecord, VersionState
from .submissions import identity_sha256

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")

#: The house bot every new version qualifies against.
HOUSE_RANDOM = "rookery-random"
_RANDOM_COMMAND = "rookery bot run rookery.client.bots.random_bot:RandomBot"
#: The most bytes of a runtime log one GetVersion returns (within the 1 MiB message limit).
RUNTIME_LOG_BYTES = 256 * 1024
#: The window of the submissions quota.
_DAY_S = 86_400.0


class Desk:
    """The rules of who may do what and when, for the league stored in ``store`` on ``server``."""

    def __init__(self, store: LeagueStore, server: RookeryServer, options: LeagueOptions) -> None:
        self.store = store
        self.server = server
        self.options = options

    def check_token(self, bot: str, token: str | None) -> None:
        """``PermissionError`` unless ``token`` is ``bot``'s (an author's own bots only)."""
        if self.options.open_mode:
            return
        if not token or not self.server.bots.check_token(bot, token):
            raise PermissionError(
                f"only bot {bot!r}'s own token may submit, retire or challenge with its versions "
                "(metadata 'authorization: Bearer <its token>')"
            )

    def may_read_private(self, bot: str, token: str | None) -> bool:
        """Whether ``token`` may read ``bot``'s private parts (its versions' commands, build
        logs and runtime logs): the bot's own token, or the organiser's (any, in open mode)."""
        if self.options.open_mode:
            return True
        if not token:
            return False
        admin = self.server.config.admin_token
        if admin and hmac.compare_digest(token.encode(), admin.encode()):
            return True
        return self.server.bots.check_token(bot, token)

    def check_submission(self, bot: str, token: str | None) -> SeasonRecord:
        """The open season if ``token`` may submit a version of ``bot`` now (its token, before
        the deadline, within the day's quota); else the error that says why not."""
        if bot == HOUSE_RANDOM:
            raise PermissionError(f"{HOUSE_RANDOM!r} is the league's own bot")
        self.check_token(bot, token)
        self.check_deadline()
        season = self.store.season()
        if season.status != "open":
            raise SubmissionsClosedError(
                f"season {season.name!r} closed its submissions at its deadline "
                f"({time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(season.deadline))})"
            )
        self.check_quota(bot)
        return season

    def check_quota(self, bot: str) -> None:
        """:class:`QuotaExceededError` once ``bot`` has submitted its versions of the last 24
        hours (``submissions_per_day``), saying when the next one is accepted."""
        limit = self.options.submissions_per_day
        if limit <= 0:
            return
        recent = self.store.submission_times(bot, time.time() - _DAY_S)
        if len(recent) >= limit:
            again = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(recent[-limit] + _DAY_S))
            raise QuotaExceededError(
                f"bot {bot!r} has submitted {len(recent)} versions in the last 24 hours, the "
                f"league's limit (submissions_per_day {limit}): the next is accepted from {again}"
            )

    def local_source(self, local_folder: str) -> Path:
        """The local folder a submission names, if the league takes it from there."""
        root = self.options.local_root
        if root is None:
            raise PermissionError(
                "this league takes no local folders (start it with --local-root DIR); send an "
                "archive of the folder instead"
            )
        source = Path(local_folder).resolve()
        if not source.is_relative_to(root.resolve()):
            raise PermissionError(f"local_folder: {local_folder} is not inside {root}")
        return source

    def runtime_log(self, version_id: str, max_bytes: int) -> str:
        """The end of a version's runtime log (every process's output, ``logs/<id>.log``): its
        last ``max_bytes`` bytes, at most :data:`RUNTIME_LOG_BYTES`; ``ValueError`` beyond."""
        if not 0 < max_bytes <= RUNTIME_LOG_BYTES:
            raise ValueError(f"runtime_log_bytes: 1 to {RUNTIME_LOG_BYTES}, got {max_bytes}")
        self.store.version(version_id)  # LookupError for an unknown one, before any path
        path = self.store.folder / "logs" / f"{version_id}.log"
        try:
            with path.open("rb") as handle:
                size = handle.seek(0, 2)
                handle.seek(max(0, size - max_bytes))
                data = handle.read(max_bytes)
        except FileNotFoundError:
            return ""
        return data.decode("utf-8", "replace")

    def queued_challenge_pairs(self, season_id: int, bot: str) -> int:
        """The challenge pairs of ``bot``'s versions still to be played (those of a retired or
        disqualified version, or against one, are dropped)."""
        active = self.active_ids()
        return sum(
            left
            for _id, a, b, left, _rated in self.store.open_challenges(season_id)
            if self.store.version(a).bot == bot and a in active and b in active
        )

    def active_ids(self) -> set[str]:
        """The ids of the versions in play."""
        return {v.version_id for v in self.store.versions() if v.status == VersionState.ACTIVE}

    def check_deadline(self) -> None:
        """Closes the open season's submissions once its deadline has passed."""
        with contextlib.suppress(LookupError):
            season = self.store.season()
            if season.status == "open" and time.time() >= season.deadline:
                self.store.set_season_status(season.season_id, "final")
                log.info(
                    "deadline reached: submissions closed, final evaluation", season=season.name
                )

    def ensure_house(self) -> None:
        """Adds the house bot's version once."""
        if any(v.bot == HOUSE_RANDOM for v in self.store.versions(HOUSE_RANDOM, house=True)):
            return
        self.store.add_version(
            HOUSE_RANDOM,
            0,
            "",
            identity_sha256("house", _RANDOM_COMMAND, ""),
            _RANDOM_COMMAND,
            "",
            "the random reference bot (qualification)",
            VersionState.ACTIVE,
            house=True,
        )

    def next_challenge(
        self, season_id: int, busy: dict[str, int], in_flight: list[int]
    ) -> tuple[str, str, str, bool, int | None] | None:
        """The next queued challenge whose versions are active and free: (kind, a, b, rated,
        challenge id), or None (``in_flight``: the ids of the challenge pairs being played)."""
        active = self.active_ids()  # a retired version plays none of its queued challenges
        for challenge_id, a, b, left, rated in self.store.open_challenges(season_id):
            playing = in_flight.count(challenge_id)
            if a not in active or b not in active:
                continue
            if left - playing > 0 and not busy.get(a) and not busy.get(b):
                return ("challenge", a, b, rated, challenge_id)
        return None
