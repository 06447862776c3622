"""The tournament configuration (:class:`TournamentConfig`) and its validation."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from rookery.arena._config_seats import _check_house_seat, is_house_seat
from rookery.arena._config_values import (
    _BOT_NAME,
    TOURNAMENT_TIME_CONTROL,
    BotSpec,
    ClockKind,
    Format,
    default_concurrency,
    late_policy_name,
    random_seed,
    tournament_id_for,
)
from rookery.arena.errors import ArenaConfigError
from rookery.arena.launch._sandbox import SandboxLimits, SandboxMode
from rookery.arena.stats._sprt import SprtParams
from rookery.engine import HandSeeds, Ruleset
from rookery.server import TimeControl
from rookery.wire.documents import JsonObject, JsonValue

_T = TypeVar("_T")


@dataclass(frozen=True)
class TournamentConfig:
    """A complete, validated tournament definition."""

    name: str
    ruleset: Ruleset
    bots: tuple[BotSpec, ...]
    format: Format = Format.ROUND_ROBIN
    games: int = 10
    duplicate: bool = True
    concurrency: int = field(default_factory=default_concurrency)
    seed: int = field(default_factory=random_seed)
    """The schedule's base seed; unset, a fresh random one (recorded with the run)."""
    time_control: TimeControl = TOURNAMENT_TIME_CONTROL
    sprt: SprtParams = field(default_factory=SprtParams)
    elo_k: float = 16.0
    bootstrap: int = 200
    sandbox: SandboxMode = SandboxMode.AUTO
    clock: ClockKind = ClockKind.WALL
    #: Fresh bot processes for every game; None: yes when sandboxed.
    process_per_game: bool | None = None
    pin_cpus: bool = False
    sandbox_paths: tuple[Path, ...] = ()
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    out: Path | None = None
    source: str = "<config>"
    #: ``[llm] budget_usd``: the run stops before a game that would take its language-model
    #: seats' cost past it (None: no cap). A resumed run may raise it.
    llm_budget_usd: float | None = None
    #: ``[llm] retries``: the re-prompts a language-model seat gives an invalid reply before the
    #: late policy plays for it (``ROOKERY_CHAT_RETRIES`` of every launched bot that sets none).
    llm_retries: int | None = None
    #: ``[llm.prices]``: per model (``ROOKERY_CHAT_MODEL``), US dollars per million prompt and
    #: completion tokens: ``ROOKERY_CHAT_PRICE`` of each seat of that model that sets none.
    llm_prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    #: ``[[teams]]``: partnerships of different bots (a language model and a bot, say), each
    #: (name, members): the team is one entry of the pairings and its members share its side's
    #: seats in turn. A bot in a team plays only in it.
    teams: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: ``deal_seeds``: the game seed of each round, in order, instead of seeds derived from
    #: :attr:`seed` (the benchmark's fixed deal sets: ``rookery benchmark NAME=COMMAND``). Empty:
    #: derived. A round's seed deals every game of the round.
    deal_seeds: tuple[int, ...] = ()

    @property
    def tournament_id(self) -> str:
        """The id the run is stored under and its tables are named by (from :attr:`name`)."""
        return tournament_id_for(self.name)

    def bot(self, name: str) -> BotSpec:
        """The bot called ``name``."""
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    @property
    def entries(self) -> tuple[str, ...]:
        """What the pairings pair: each team, then each bot in no team, in the file's order."""
        members = {bot for _, team in self.teams for bot in team}
        return tuple(name for name, _ in self.teams) + tuple(
            bot.name for bot in self.bots if bot.name not in members
        )

    @property
    def team_members(self) -> dict[str, tuple[str, ...]]:
        """Each team's members, by the team's name."""
        return dict(self.teams)

    def launch_spec(self, bot: BotSpec) -> BotSpec:
        """``bot`` as launched: with the tournament's retry policy and its model's price for a
        language-model seat (``ROOKERY_CHAT_RETRIES``, ``ROOKERY_CHAT_PRICE``) unless the bot's
        own env sets them."""
        env = dict(bot.env)
        if self.llm_retries is not None:
            env.setdefault("ROOKERY_CHAT_RETRIES", str(self.llm_retries))
        price = self.llm_prices.get(env.get("ROOKERY_CHAT_MODEL", ""))
        if price is not None:
            env.setdefault("ROOKERY_CHAT_PRICE", f"{price[0]!r},{price[1]!r}")
        return bot if env == bot.env else dataclasses.replace(bot, env=env)

    def to_dict(self) -> dict[str, JsonValue]:
        """A JSON-able description (stored with the run; ``out`` and ``source`` left out)."""
        return {
            "name": self.name,
            "ruleset": self.ruleset.to_dict(),
            "format": self.format.value,
            "games": self.games,
            "duplicate": self.duplicate,
            "concurrency": self.concurrency,
            "seed": self.seed,
            "time_control": {
                "action_ms": self.time_control.action_ms,
                "bank_ms": self.time_control.bank_ms,
                "late_policy": late_policy_name(self.time_control.late_policy),
                "strike_limit": self.time_control.strike_limit,
                "grace_ms": self.time_control.grace_ms,
            },
            "sprt": {
                "elo0": self.sprt.elo0,
                "elo1": self.sprt.elo1,
                "alpha": self.sprt.alpha,
                "beta": self.sprt.beta,
                "model": self.sprt.model,
            },
            "ratings": {"k": self.elo_k, "bootstrap": self.bootstrap},
            "clock": self.clock.value,
            "sandbox": self.sandbox.value,
            **(
                {} if self.process_per_game is None else {"process_per_game": self.process_per_game}
            ),
            "pin_cpus": self.pin_cpus,
            "sandbox_paths": [str(p) for p in self.sandbox_paths],
            "limits": self.limits.to_dict(),
            **({"llm": self._llm_dict()} if self._llm_dict() else {}),
            **(
                {"teams": [{"name": n, "members": list(m)} for n, m in self.teams]}
                if self.teams
                else {}
            ),
            **({"deal_seeds": list(self.deal_seeds)} if self.deal_seeds else {}),
            "bots": [
                {
                    "name": b.name,
                    "command": b.command,
                    "remote": b.remote,
                    "sessions": b.sessions,
                    "processes": b.processes,
                }
                for b in self.bots
            ],
        }

    def _llm_dict(self) -> dict[str, JsonValue]:
        llm: dict[str, JsonValue] = {}
        if self.llm_budget_usd is not None:
            llm["budget_usd"] = self.llm_budget_usd
        if self.llm_retries is not None:
            llm["retries"] = self.llm_retries
        if self.llm_prices:
            llm["prices"] = {model: list(price) for model, price in self.llm_prices.items()}
        return llm

    def fingerprint(self) -> str:
        """A hash of what decides the schedule and the games: a resumed run must match it.

        Concurrency, ratings settings, commands and the output directory may change between
        runs without changing which games are played.
        """
        text = json.dumps(schedule_fields(self.to_dict()), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def with_overrides(self, **changes: Any) -> TournamentConfig:
        """A copy with the given fields replaced and validated again (``None`` leaves a field)."""
        actual = {k: v for k, v in changes.items() if v is not None}
        updated = dataclasses.replace(self, **actual)
        _validate(updated, "command line")
        return updated


#: How bots are confined: not part of which games are played (a run may resume with others).
_SANDBOX_KEYS = ("sandbox", "process_per_game", "pin_cpus", "sandbox_paths", "limits")


def schedule_fields(data: JsonObject) -> dict[str, JsonValue]:
    """The part of a stored configuration (:meth:`TournamentConfig.to_dict`) that decides the
    games: what :meth:`TournamentConfig.fingerprint` hashes."""
    dropped = ("concurrency", "ratings", "name", *_SANDBOX_KEYS)
    fields = {k: v for k, v in data.items() if k not in dropped}
    if fields.get("clock") == ClockKind.WALL.value:
        fields.pop("clock")  # as before clocks could be chosen: older runs resume
    ruleset = fields.get("ruleset")
    if isinstance(ruleset, Mapping) and ruleset.get("hand_seeds") == HandSeeds.DEALT.name:
        # as before hand seeds could be chosen: older runs resume
        fields["ruleset"] = {k: v for k, v in ruleset.items() if k != "hand_seeds"}
    bots = data.get("bots", ())
    fields["bots"] = [
        b["name"] for b in (bots if isinstance(bots, list) else ()) if isinstance(b, Mapping)
    ]
    stored_llm = fields.pop("llm", {})
    llm = {
        k: v
        for k, v in (stored_llm.items() if isinstance(stored_llm, Mapping) else ())
        if k not in ("budget_usd", "prices")
    }
    if llm:  # the retry policy decides games; the budget stops a run, the prices count
        fields["llm"] = llm
    if data.get("format") != Format.SPRT.value:
        fields.pop("sprt", None)
    return fields


def changed_fields(stored: JsonObject, new: JsonObject) -> list[str]:
    """What differs between two stored configurations in what decides the games, one line each
    (``games: 20 -> 40``, ``ruleset.target: 150 -> 100``, ``bots: a, b -> a, c``)."""

    def flat(value: JsonValue, prefix: str) -> dict[str, JsonValue]:
        if isinstance(value, Mapping):
            out: dict[str, JsonValue] = {}
            for key, item in value.items():
                out.update(flat(item, f"{prefix}.{key}" if prefix else str(key)))
            return out
        return {prefix: value}

    def shown(value: JsonValue) -> str:
        if isinstance(value, list):
            return ", ".join(map(str, value)) or "(none)"
        return "(unset)" if value is None else repr(value)

    old, now = flat(schedule_fields(stored), ""), flat(schedule_fields(new), "")
    return [
        f"{key}: {shown(old.get(key))} -> {shown(now.get(key))}"
        for key in sorted(set(old) | set(now))
        if old.get(key) != now.get(key)
    ]


def _validate(config: TournamentConfig, source: str) -> None:
    if not config.name.strip():
        raise ArenaConfigError(source, "name", "the tournament needs a name (any text)")
    if not config.bots:
        raise ArenaConfigError(source, "bots", "no bots: give at least two [[bots]] or --bot flags")
    names = [b.name for b in config.bots]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ArenaConfigError(source, "bots", f"bot names must be unique; repeated: {duplicates}")
    if len(config.bots) < 2:
        raise ArenaConfigError(source, "bots", f"a tournament needs at least two bots, got {names}")
    if config.format is Format.SPRT and len(config.bots) != 2:
        raise ArenaConfigError(
            source, "bots", f"format 'sprt' plays exactly two bots (new, old); got {names}"
        )
    if config.games < 1:
        raise ArenaConfigError(source, "games", f"must be at least 1, got {config.games}")
    if config.concurrency < 1:
        raise ArenaConfigError(
            source, "concurrency", f"must be at least 1, got {config.concurrency}"
        )
    if not 0 <= config.seed < 2**63:
        raise ArenaConfigError(source, "seed", f"must lie in 0 .. 2**63 - 1, got {config.seed}")
    if config.elo_k <= 0:
        raise ArenaConfigError(source, "ratings.k", f"must be positive, got {config.elo_k}")
    if config.bootstrap < 0:
        raise ArenaConfigError(source, "ratings.bootstrap", f"must be >= 0, got {config.bootstrap}")
    _validate_teams(config, source)
    _validate_deal_seeds(config, source)
    budget = config.llm_budget_usd
    if budget is not None and not (math.isfinite(budget) and budget > 0):
        raise ArenaConfigError(source, "llm.budget_usd", f"must be a positive number, got {budget}")
    if config.llm_retries is not None and not 0 <= config.llm_retries <= 20:
        raise ArenaConfigError(
            source, "llm.retries", f"must lie in 0 .. 20, got {config.llm_retries}"
        )
    for bot in config.bots:
        if bot.seat:
            _check_house_seat(bot, source)
    online = [b.name for b in config.bots if "ROOKERY_CHAT_URL" in b.env and not is_house_seat(b)]
    if online and config.sandbox is not SandboxMode.OFF:
        raise ArenaConfigError(
            source,
            "sandbox",
            f"{', '.join(online)}: a command of its own that reaches a model's API over the "
            "network, which the sandbox forbids; seat the model as the house's language-model "
            'seat instead (--bot NAME=llm:MODEL@URL, or kind = "llm" with model and url in '
            "[[bots]]), which runs outside the sandbox while the other bots stay in it, or run "
            'every bot unconfined (sandbox = "off", --sandbox off), the organiser trusting them',
        )
    if config.clock is ClockKind.CPU and config.process_per_game is False:
        raise ArenaConfigError(
            source,
            "clock",
            "clock = 'cpu' measures each game's own bot processes: it needs process_per_game",
        )


def _validate_deal_seeds(config: TournamentConfig, source: str) -> None:
    if not config.deal_seeds:
        return
    wrong = [seed for seed in config.deal_seeds if not 0 <= seed < 2**63]
    if wrong:
        raise ArenaConfigError(source, "deal_seeds", f"must lie in 0 .. 2**63 - 1, got {wrong[0]}")
    per_round = config.ruleset.num_sides if config.duplicate else 1  # games a round a pairing
    rounds = math.ceil(config.games / per_round)
    if rounds > len(config.deal_seeds):
        raise ArenaConfigError(
            source,
            "deal_seeds",
            f"{len(config.deal_seeds)} seeds deal at most {len(config.deal_seeds) * per_round} "
            f"games a pairing, and games = {config.games}",
        )


def _expect(source: str, key: str, value: object, kind: type[_T], what: str) -> _T:
    """``value`` when it is a ``kind`` (a bool is not an int here); the config's error naming
    ``key`` and ``what`` it must be otherwise."""
    if isinstance(value, bool) and kind is not bool:
        raise ArenaConfigError(source, key, f"must be {what}, got {value!r}")
    if not isinstance(value, kind):
        raise ArenaConfigError(source, key, f"must be {what}, got {type(value).__name__} {value!r}")
    return value


def _number(source: str, key: str, value: object, what: str) -> float:
    """``value`` as a float when it is an int or a float (not a bool)."""
    if isinstance(value, bool):
        raise ArenaConfigError(source, key, f"must be {what}, got {value!r}")
    if not isinstance(value, int | float):
        raise ArenaConfigError(source, key, f"must be {what}, got {type(value).__name__} {value!r}")
    return float(value)


def _table(source: str, key: str, value: object, what: str) -> dict[str, object]:
    """``value`` when it is a TOML table (``dict``); the config's error otherwise."""
    table = _expect(source, key, value, dict, what)
    return {str(name): item for name, item in table.items()}


def _array(source: str, key: str, value: object, what: str) -> list[object]:
    """``value`` when it is a TOML array (``list``); the config's error otherwise."""
    return list(_expect(source, key, value, list, what))


def _check_keys(source: str, prefix: str, table: Mapping[str, object], allowed: set[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        where = f"{prefix}.{unknown[0]}" if prefix else unknown[0]
        raise ArenaConfigError(
            source, where, f"unknown key; expected one of: {', '.join(sorted(allowed))}"
        )


def duplicate_hand_seeds(ruleset: Ruleset, duplicate: bool) -> Ruleset:
    """``ruleset`` with ``hand_seeds = PLAYED`` when the games are duplicate and it has ``DEALT``.

    For rulesets the arena chose itself (a preset named on the command line, a spec without
    ``hand_seeds``): duplicate pairs then see the same deals and dealers for every hand played
    out, whatever all-pass redeals one of the pair had (docs/arena.md). A config file's
    ``[ruleset] hand_seeds`` is respected as written.
    """
    if duplicate and ruleset.hand_seeds is HandSeeds.DEALT:
        return ruleset.replace(hand_seeds=HandSeeds.PLAYED)
    return ruleset


def _validate_teams(config: TournamentConfig, source: str) -> None:
    """Teams: distinct names that are no bot's, of 2 or more distinct bots, each in one team, as
    many as the seats of a side at most, in a ruleset of fixed partnerships, not under SPRT."""
    if not config.teams:
        return
    ruleset = config.ruleset
    if ruleset.num_sides == ruleset.players:
        raise ArenaConfigError(
            source, "teams", f"{ruleset.name!r} has no fixed partnerships: teams need a side of 2+"
        )
    if config.format is Format.SPRT:
        raise ArenaConfigError(source, "teams", "format 'sprt' plays two bots, not teams")
    bots = {bot.name for bot in config.bots}
    seats = len(ruleset.seats_of_side(0))
    seen: set[str] = set()
    for i, (name, members) in enumerate(config.teams):
        key = f"teams[{i}]"
        if name in bots or name in seen or not _BOT_NAME.match(name):
            what = "1-64 letters, digits, '.', '_' or '-'; no bot's, no other team's"
            raise ArenaConfigError(source, f"{key}.name", f"{name!r}: a team needs a name ({what})")
        seen.add(name)
        if not 2 <= len(set(members)) == len(members) <= seats:
            got = f"{name!r}: 2 to {seats} different bots, got {list(members)}"
            raise ArenaConfigError(source, f"{key}.members", got)
        for member in members:
            if member not in bots:
                raise ArenaConfigError(
                    source, f"{key}.members", f"{member!r} is no bot of the file"
                )
            if member in seen:
                raise ArenaConfigError(source, f"{key}.members", f"{member!r} is in two teams")
            seen.add(member)
    if len(config.entries) < 2:
        raise ArenaConfigError(
            source, "teams", f"the pairings need 2 entries, got {config.entries}"
        )
