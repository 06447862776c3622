"""Tournament configuration: a TOML file, validated into frozen values, overridable by flags.

A minimal file::

    name = "nightly"
    preset = "standard"
    format = "round-robin"     # round-robin | gauntlet | sprt
    games = 20                 # per pairing; duplicate pairs count as two games; SPRT: the cap

    [[bots]]
    name = "random"
    command = "rookery bot run rookery.client.bots.random:RandomBot"

    [[bots]]
    name = "contestant"
    remote = true              # an already-connected session of that name

Running submitted bots (see docs/arena.md and docs/security.md)::

    sandbox = "on"             # auto (default) | on | off
    clock = "cpu"              # wall (default) | cpu: a move's time is the CPU its bot used
    process_per_game = true    # fresh processes a game (default with clock cpu; else lanes)
    pin_cpus = false           # each game's bots on one CPU of their own
    sandbox_paths = ["/opt/toolchain"]   # more read-only folders for the bots

    [limits]
    memory_mb = 1024
    processes = 128
    file_size_mb = 64
    scratch_mb = 64
    log_kb = 1024

Every mistake is reported as a :class:`~rookery.arena.errors.ArenaConfigError` naming the file, the
key and what is wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import secrets
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from rookery.arena.errors import ArenaConfigError
from rookery.arena.launch._sandbox import SandboxLimits, SandboxMode
from rookery.arena.stats._sprt import SprtParams
from rookery.engine import HandSeeds, Ruleset, RulesetError
from rookery.server import LatePolicy, TimeControl

__all__ = [
    "TOURNAMENT_TIME_CONTROL",
    "BotSpec",
    "ClockKind",
    "Format",
    "TournamentConfig",
    "config_from_dict",
    "duplicate_hand_seeds",
    "load_config",
    "parse_bot_flag",
]

_BOT_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
#: What a tournament's id may hold (it prefixes table ids, which the server checks).
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def tournament_id_for(name: str) -> str:
    """A tournament's id from its display name: the name itself when it is a safe id already.

    Otherwise runs of other characters become ``-`` and a short hash of the name is added, so
    that ``"Spring contest"`` and ``"Spring-contest"`` get different ids (``Spring-contest-…``).
    """
    if _SAFE_ID.fullmatch(name):
        return name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._")[:48] or "tournament"
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{stem}-{digest}"


class Format(Enum):
    """How the bots are paired."""

    ROUND_ROBIN = "round-robin"
    """Every pair of bots (per-player presets: every combination, seats rotated)."""
    GAUNTLET = "gauntlet"
    """The first bot against each of the others."""
    SPRT = "sprt"
    """The first bot (new) against the second (old) until the SPRT decides or the cap."""


class ClockKind(Enum):
    """What a launched bot's think time is measured in."""

    WALL = "wall"
    """Wall time from the request to the reply (what the bot sees; a loaded machine costs it)."""
    CPU = "cpu"
    """CPU time its processes used since its previous reply (needs ``process_per_game``)."""


TOURNAMENT_TIME_CONTROL = TimeControl(action_ms=2000, grace_ms=5000)
"""The clock of a tournament's tables when its ``[time_control]`` does not say: the server's
:class:`~rookery.server.TimeControl` with 2000 ms per action and 5000 ms to resume. A tournament
or table started over ArenaService starts from the server's configured clock instead (5000 and
10000 ms unless configured)."""

LATE_POLICY_NAMES: dict[str, LatePolicy] = {
    "auto-play": LatePolicy.AUTO_PLAY,
    "forfeit": LatePolicy.FORFEIT,
}
"""``time_control.late_policy`` in a tournament file, by its name there."""


def late_policy_name(policy: LatePolicy) -> str:
    """A late policy by its tournament-file name (``auto-play``, ``forfeit``)."""
    return next(name for name, value in LATE_POLICY_NAMES.items() if value is policy)


@dataclass(frozen=True)
class BotSpec:
    """One bot: launched from ``command`` by the arena, or ``remote`` (already connected)."""

    name: str
    command: str = ""
    remote: bool = False
    #: Sessions per process (launched bots); 0 lets the arena pick enough for the concurrency.
    sessions: int = 0
    #: Processes to start (launched bots); 0 lets the arena pick.
    processes: int = 0
    #: Extra environment variables for a launched bot.
    env: Mapping[str, str] = field(default_factory=dict)
    #: The bot's own folder (read-only in the sandbox, its working directory); empty: the
    #: folder of its program when the command names one.
    folder: str = ""
    #: The folder the command runs in (its relative paths resolve against it): the config
    #: file's folder; empty for ``--bot`` flags (the arena's current folder).
    workdir: str = ""
    #: The house's language-model seat this bot is (a key of :data:`LLM_SEATS`), made only from
    #: ``--bot NAME=llm:MODEL@URL`` or a ``[[bots]]`` entry with ``kind``: Rookery's own code,
    #: launched outside the sandbox (it reaches its model's API) while every other bot stays in
    #: it. Empty: any other bot.
    seat: str = ""

    @property
    def argv(self) -> list[str]:
        """The command split as a shell would (no shell is involved)."""
        return shlex.split(self.command)


def random_seed() -> int:
    """A fresh tournament seed from the system's random source: every deal derives from the
    seed, so a guessable default would let anyone compute them. The run records it."""
    return secrets.randbits(63)


def default_concurrency() -> int:
    """Games at once when unset: the number of cores (at least 1)."""
    return max(1, os.cpu_count() or 1)


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

    def to_dict(self) -> dict[str, Any]:
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

    def _llm_dict(self) -> dict[str, Any]:
        llm: dict[str, Any] = {}
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


def schedule_fields(data: Mapping[str, Any]) -> dict[str, Any]:
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
    fields["bots"] = [b["name"] for b in data.get("bots", ())]
    llm = {k: v for k, v in fields.pop("llm", {}).items() if k not in ("budget_usd", "prices")}
    if llm:  # the retry policy decides games; the budget stops a run, the prices count
        fields["llm"] = llm
    if data.get("format") != Format.SPRT.value:
        fields.pop("sprt", None)
    return fields


def changed_fields(stored: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two stored configurations in what decides the games, one line each
    (``games: 20 -> 40``, ``ruleset.target: 150 -> 100``, ``bots: a, b -> a, c``)."""

    def flat(value: Any, prefix: str) -> dict[str, Any]:
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for key, item in value.items():
                out.update(flat(item, f"{prefix}.{key}" if prefix else str(key)))
            return out
        return {prefix: value}

    def shown(value: Any) -> str:
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


def _expect(source: str, key: str, value: Any, kinds: type | tuple[type, ...], what: str) -> Any:
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise ArenaConfigError(source, key, f"must be {what}, got {value!r}")
    if not isinstance(value, kinds):
        raise ArenaConfigError(source, key, f"must be {what}, got {type(value).__name__} {value!r}")
    return value


def _check_keys(source: str, prefix: str, table: Mapping[str, Any], allowed: set[str]) -> None:
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


def _ruleset(source: str, data: Mapping[str, Any]) -> Ruleset:
    """The config's ruleset: a preset, ``[ruleset]`` overrides, and for duplicate games
    ``hand_seeds = PLAYED`` unless ``[ruleset]`` names ``hand_seeds``."""
    ruleset = _ruleset_as_written(source, data)
    table = data.get("ruleset")
    if isinstance(table, dict) and "hand_seeds" in table:
        return ruleset
    return duplicate_hand_seeds(ruleset, data.get("duplicate", True) is not False)


def _ruleset_as_written(source: str, data: Mapping[str, Any]) -> Ruleset:
    preset = data.get("preset")
    table = data.get("ruleset")
    if preset is not None and table is not None and "preset" in table:
        raise ArenaConfigError(
            source, "preset", "give the preset either at the top or in [ruleset]"
        )
    base_name = "standard"
    overrides: dict[str, Any] = {}
    if table is not None:
        _expect(source, "ruleset", table, dict, "a table")
        overrides = dict(table)
        base_name = overrides.pop("preset", preset or "standard")
    elif preset is not None:
        base_name = preset
    _expect(source, "preset", base_name, str, "a preset name")
    try:
        base = Ruleset.preset(base_name)
        if not overrides:
            return base
        merged = base.to_dict()
        merged.update(overrides)
        if "name" not in overrides:
            merged["name"] = f"{base_name}*"
        return Ruleset.from_dict(merged)
    except RulesetError as error:
        key = "preset" if not overrides else f"ruleset.{error.parameter}"
        raise ArenaConfigError(source, key, str(error)) from None
    except (TypeError, ValueError) as error:
        raise ArenaConfigError(source, "ruleset", str(error)) from None


def _bots(source: str, entries: Any, workdir: str) -> tuple[BotSpec, ...]:
    _expect(source, "bots", entries, list, "an array of tables ([[bots]])")
    bots = []
    for i, entry in enumerate(entries):
        key = f"bots[{i}]"
        _expect(source, key, entry, dict, "a table with name and command (or remote = true)")
        _check_keys(
            source,
            key,
            entry,
            {"name", "command", "remote", "sessions", "processes", "env", "folder"}
            | ({"kind", "model", "url"} if "kind" in entry else set()),
        )
        name = _expect(source, f"{key}.name", entry.get("name"), str, "a bot name")
        if not _BOT_NAME.match(name):
            raise ArenaConfigError(
                source, f"{key}.name", f"{name!r}: use 1-64 letters, digits, '.', '_' or '-'"
            )
        if "kind" in entry:
            bots.append(_house_seat_entry(source, key, name, entry))
            continue
        remote = _expect(source, f"{key}.remote", entry.get("remote", False), bool, "true/false")
        command = entry.get("command", "")
        if isinstance(command, list):
            if not all(isinstance(part, str) for part in command):
                raise ArenaConfigError(
                    source, f"{key}.command", "an array command must hold strings"
                )
            command = shlex.join(command)
        _expect(source, f"{key}.command", command, str, "a command line")
        if remote and command:
            raise ArenaConfigError(
                source, key, f"bot {name!r}: give a command or remote = true, not both"
            )
        if not remote and not command.strip():
            raise ArenaConfigError(source, key, f"bot {name!r}: needs a command (or remote = true)")
        if command:
            try:
                shlex.split(command)
            except ValueError as error:
                raise ArenaConfigError(
                    source, f"{key}.command", f"cannot be split: {error}"
                ) from None
        counts = {}
        for field_name in ("sessions", "processes"):
            value = _expect(
                source, f"{key}.{field_name}", entry.get(field_name, 0), int, "an integer"
            )
            if value < 0:
                raise ArenaConfigError(source, f"{key}.{field_name}", f"must be >= 0, got {value}")
            counts[field_name] = value
        env = _expect(source, f"{key}.env", entry.get("env", {}), dict, "a table of strings")
        if not all(isinstance(v, str) for v in env.values()):
            raise ArenaConfigError(source, f"{key}.env", "every value must be a string")
        folder = _expect(source, f"{key}.folder", entry.get("folder", ""), str, "a folder path")
        bots.append(
            BotSpec(
                name,
                command,
                remote,
                counts["sessions"],
                counts["processes"],
                dict(env),
                _resolve(source, folder) if folder else "",
                workdir if command else "",
            )
        )
    return tuple(bots)


def _house_seat_entry(source: str, key: str, name: str, entry: Mapping[str, Any]) -> BotSpec:
    """A ``[[bots]]`` entry with ``kind = "llm"`` (or ``"llm-tools"``), ``model`` and ``url``: the
    house's language-model seat, which runs outside the sandbox; nothing of its own beside."""
    extra = sorted(set(entry) - {"name", "kind", "model", "url"})
    if extra:
        raise ArenaConfigError(
            source,
            key,
            f"bot {name!r}: a kind = {entry['kind']!r} seat is the house's own code and takes only "
            f"name, kind, model and url; remove {', '.join(extra)}",
        )
    kind = _expect(source, f"{key}.kind", entry["kind"], str, "a seat kind")
    if kind not in LLM_SEATS:
        raise ArenaConfigError(
            source, f"{key}.kind", f"{kind!r}: one of {', '.join(map(repr, LLM_SEATS))}"
        )
    model = _expect(source, f"{key}.model", entry.get("model", ""), str, "a model name")
    url = _expect(source, f"{key}.url", entry.get("url", ""), str, "a URL")
    bot = house_seat(name, kind, model, url)
    if bot is None:
        raise ArenaConfigError(
            source,
            key,
            f"bot {name!r}: needs model (the model's name) and url (its OpenAI-compatible API's "
            "base URL, http:// or https://)",
        )
    return bot


def _resolve(source: str, path: str) -> str:
    """A path relative to the config file's folder (as is for a config not from a file)."""
    given = Path(path)
    if given.is_absolute() or source.startswith(("<", "command line")):
        return str(given)
    return str((Path(source).parent / given).resolve())


def _enum(source: str, key: str, value: Any, kind: type[Enum]) -> Any:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in kind)
        raise ArenaConfigError(source, key, f"must be one of {choices}, got {value!r}") from None


def _limits(source: str, table: Any) -> SandboxLimits:
    _expect(source, "limits", table, dict, "a table")
    allowed = set(SandboxLimits().to_dict())
    _check_keys(source, "limits", table, allowed)
    values: dict[str, int] = {}
    for key, value in table.items():
        number = _expect(source, f"limits.{key}", value, int, "an integer")
        if number < 1:
            raise ArenaConfigError(source, f"limits.{key}", f"must be at least 1, got {number}")
        values[key] = number
    return SandboxLimits(**values)


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


def _teams(source: str, data: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The ``[[teams]]`` tables: ``name`` and ``members``."""
    _expect(source, "teams", data, list, "an array of tables ([[teams]])")
    teams = []
    for i, entry in enumerate(data):
        key = f"teams[{i}]"
        _expect(source, key, entry, dict, "a table with name and members")
        _check_keys(source, key, entry, {"name", "members"})
        name = _expect(source, f"{key}.name", entry.get("name"), str, "a team name")
        members = _expect(source, f"{key}.members", entry.get("members"), list, "bot names")
        if not all(isinstance(m, str) for m in members):
            raise ArenaConfigError(source, f"{key}.members", "must be bot names")
        teams.append((name, tuple(members)))
    return tuple(teams)


def _llm_values(source: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The ``[llm]`` table: ``budget_usd``, ``retries`` and ``prices``."""
    if "llm" not in data:
        return {}
    llm = _expect(source, "llm", data["llm"], dict, "a table")
    _check_keys(source, "llm", llm, {"budget_usd", "retries", "prices"})
    values: dict[str, Any] = {}
    if "budget_usd" in llm:
        budget = _expect(source, "llm.budget_usd", llm["budget_usd"], (int, float), "a number")
        values["llm_budget_usd"] = float(budget)
    if "retries" in llm:
        values["llm_retries"] = _expect(source, "llm.retries", llm["retries"], int, "an integer")
    if "prices" in llm:
        prices = _expect(source, "llm.prices", llm["prices"], dict, "a table")
        values["llm_prices"] = {
            model: _price(source, f"llm.prices.{model}", price) for model, price in prices.items()
        }
    return values


def _price(source: str, key: str, value: Any) -> tuple[float, float]:
    """``[IN, OUT]``: US dollars per million prompt and completion tokens, finite and ≥ 0."""
    what = "[IN, OUT] (US dollars per million prompt and completion tokens, like [0.15, 0.60])"
    pair = _expect(source, key, value, list, what)
    if len(pair) != 2 or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
        for v in pair
    ):
        raise ArenaConfigError(source, key, f"must be {what}, got {value!r}")
    return float(pair[0]), float(pair[1])


def _sandbox_values(source: str, data: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if "sandbox" in data:
        values["sandbox"] = _enum(source, "sandbox", data["sandbox"], SandboxMode)
    if "clock" in data:
        values["clock"] = _enum(source, "clock", data["clock"], ClockKind)
    for key in ("process_per_game", "pin_cpus"):
        if key in data:
            values[key] = _expect(source, key, data[key], bool, "true/false")
    if "sandbox_paths" in data:
        paths = _expect(source, "sandbox_paths", data["sandbox_paths"], list, "a list of folders")
        if not all(isinstance(p, str) and p for p in paths):
            raise ArenaConfigError(source, "sandbox_paths", "every entry must be a folder path")
        values["sandbox_paths"] = tuple(Path(_resolve(source, p)) for p in paths)
    if "limits" in data:
        values["limits"] = _limits(source, data["limits"])
    return values


def _time_control(source: str, table: Any) -> TimeControl:
    _expect(source, "time_control", table, dict, "a table")
    allowed = {"action_ms", "bank_ms", "late_policy", "strike_limit", "grace_ms"}
    _check_keys(source, "time_control", table, allowed)
    values: dict[str, Any] = {}
    for key in ("action_ms", "bank_ms", "strike_limit", "grace_ms"):
        if key in table:
            value = _expect(source, f"time_control.{key}", table[key], int, "an integer")
            if value < 0 or (key == "action_ms" and value == 0):
                raise ArenaConfigError(source, f"time_control.{key}", f"out of range: {value}")
            values[key] = value
    if "late_policy" in table:
        raw = table["late_policy"]
        if not isinstance(raw, str) or raw not in LATE_POLICY_NAMES:
            choices = ", ".join(LATE_POLICY_NAMES)
            raise ArenaConfigError(
                source, "time_control.late_policy", f"must be one of {choices}, got {raw!r}"
            )
        values["late_policy"] = LATE_POLICY_NAMES[raw]
    return dataclasses.replace(TOURNAMENT_TIME_CONTROL, **values)


def _sprt(source: str, table: Any) -> SprtParams:
    _expect(source, "sprt", table, dict, "a table")
    _check_keys(source, "sprt", table, {"elo0", "elo1", "alpha", "beta", "model"})
    values: dict[str, Any] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key in table:
            values[key] = float(
                _expect(source, f"sprt.{key}", table[key], (int, float), "a number")
            )
    if "model" in table:
        values["model"] = _expect(source, "sprt.model", table["model"], str, "a string")
    try:
        return SprtParams(**values)
    except ValueError as error:
        raise ArenaConfigError(source, "sprt", str(error)) from None


_TOP_KEYS = {
    "name",
    "preset",
    "ruleset",
    "format",
    "games",
    "duplicate",
    "concurrency",
    "seed",
    "time_control",
    "sprt",
    "ratings",
    "bots",
    "out",
    "sandbox",
    "clock",
    "process_per_game",
    "pin_cpus",
    "sandbox_paths",
    "limits",
    "llm",
    "teams",
}


def config_from_dict(
    data: Mapping[str, Any], source: str = "<config>", workdir: str = ""
) -> TournamentConfig:
    """Validate a parsed TOML document into a :class:`TournamentConfig`.

    ``workdir`` is the folder the bots' commands run in (a config file's folder).
    """
    _check_keys(source, "", data, _TOP_KEYS)
    name = _expect(source, "name", data.get("name", "tournament"), str, "a string")
    raw_format = _expect(source, "format", data.get("format", "round-robin"), str, "a string")
    try:
        tournament_format = Format(raw_format)
    except ValueError:
        choices = ", ".join(f.value for f in Format)
        raise ArenaConfigError(
            source, "format", f"must be one of {choices}, got {raw_format!r}"
        ) from None
    values: dict[str, Any] = {}
    for key in ("games", "concurrency", "seed"):
        if key in data:
            values[key] = _expect(source, key, data[key], int, "an integer")
    if "duplicate" in data:
        values["duplicate"] = _expect(source, "duplicate", data["duplicate"], bool, "true/false")
    if "time_control" in data:
        values["time_control"] = _time_control(source, data["time_control"])
    if "sprt" in data:
        values["sprt"] = _sprt(source, data["sprt"])
    if "ratings" in data:
        ratings = _expect(source, "ratings", data["ratings"], dict, "a table")
        _check_keys(source, "ratings", ratings, {"k", "bootstrap"})
        if "k" in ratings:
            values["elo_k"] = float(
                _expect(source, "ratings.k", ratings["k"], (int, float), "a number")
            )
        if "bootstrap" in ratings:
            values["bootstrap"] = _expect(
                source, "ratings.bootstrap", ratings["bootstrap"], int, "an integer"
            )
    if "out" in data:
        values["out"] = Path(_expect(source, "out", data["out"], str, "a directory path"))
    values.update(_sandbox_values(source, data))
    values.update(_llm_values(source, data))
    if "teams" in data:
        values["teams"] = _teams(source, data["teams"])
    config = TournamentConfig(
        name=name,
        ruleset=_ruleset(source, data),
        bots=_bots(source, data.get("bots", []), workdir),
        format=tournament_format,
        source=source,
        **values,
    )
    _validate(config, source)
    return config


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament TOML file."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ArenaConfigError(source, "", f"cannot read the file: {error.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ArenaConfigError(source, "", f"not valid TOML: {error}") from None
    return config_from_dict(data, source, str(path.parent.absolute()))


LLM_SEATS = {"llm": "rookery.envs.seat:TextSeatBot", "llm-tools": "rookery.envs.seat:ToolSeatBot"}
"""``--bot NAME=llm:MODEL@URL``: a language-model seat (``llm-tools:`` the tool-calling one) for
the model behind an OpenAI-compatible API at URL (docs/ai.md)."""

#: What a house seat's ``env`` may hold: its model and API (the key comes from the organiser's
#: own environment, ``ROOKERY_CHAT_KEY``). Nothing that could change which code runs unconfined.
_HOUSE_SEAT_ENV = frozenset({"ROOKERY_CHAT_URL", "ROOKERY_CHAT_MODEL"})


def house_seat(name: str, kind: str, model: str, url: str) -> BotSpec | None:
    """The house's language-model seat ``kind`` (``llm``, ``llm-tools``) for ``model`` at ``url``,
    or None when the model or the URL is not valid."""
    model, url = model.strip(), url.strip()
    if kind not in LLM_SEATS or not model or not url.startswith(("http://", "https://")):
        return None
    env = {"ROOKERY_CHAT_URL": url, "ROOKERY_CHAT_MODEL": model}
    return BotSpec(name, f"rookery bot run {LLM_SEATS[kind]}", env=env, seat=kind)


def is_house_seat(bot: BotSpec) -> bool:
    """Whether ``bot`` is exactly a house language-model seat as :func:`house_seat` makes it (the
    house's command, its model and URL, nothing else): only such a bot runs outside the sandbox.
    A spec built in code is held to what the parsers make."""
    expected = house_seat(
        bot.name,
        bot.seat,
        bot.env.get("ROOKERY_CHAT_MODEL", ""),
        bot.env.get("ROOKERY_CHAT_URL", ""),
    )
    return (
        expected is not None
        and bot.command == expected.command
        and set(bot.env) == _HOUSE_SEAT_ENV
        and not (bot.remote or bot.folder or bot.workdir or bot.sessions or bot.processes)
    )


def _check_house_seat(bot: BotSpec, source: str) -> None:
    if not is_house_seat(bot):
        raise ArenaConfigError(
            source,
            "bots",
            f"bot {bot.name!r}: a house language-model seat is its kind, model and url alone "
            "(no command, env or folder of its own)",
        )


def _llm_bot(name: str, kind: str, target: str, text: str) -> BotSpec:
    model, _, url = target.partition("@")
    bot = house_seat(name, kind, model, url) if "@" in target else None
    if bot is None:
        raise ArenaConfigError(
            "--bot",
            text,
            f"expected NAME={kind}:MODEL@URL, the model's name and its OpenAI-compatible API's "
            f"base URL (like {kind}:gpt-4o-mini@https://api.openai.com/v1)",
        )
    return bot


def parse_bot_flag(text: str) -> BotSpec:
    """A ``--bot NAME=COMMAND`` flag (``NAME=remote`` for a connected bot, ``NAME=llm:MODEL@URL``
    for a language-model seat)."""
    name, sep, command = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ArenaConfigError("--bot", text, "expected NAME=COMMAND (or NAME=remote)")
    if not _BOT_NAME.match(name):
        raise ArenaConfigError(
            "--bot", text, f"{name!r}: use 1-64 letters, digits, '.', '_' or '-'"
        )
    if command.strip() == "remote":
        return BotSpec(name, remote=True)
    kind, colon, target = command.strip().partition(":")
    if colon and kind in LLM_SEATS:
        return _llm_bot(name, kind, target, text)
    if not command.strip():
        raise ArenaConfigError("--bot", text, f"bot {name!r} needs a command after '='")
    return BotSpec(name, command.strip())
