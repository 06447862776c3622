"""Reading a tournament TOML file into a :class:`TournamentConfig` (every mistake named)."""

from __future__ import annotations

import dataclasses
import math
import shlex
import tomllib
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from rookery.arena._config_model import (
    TournamentConfig,
    _array,
    _check_keys,
    _expect,
    _number,
    _table,
    _validate,
    duplicate_hand_seeds,
)
from rookery.arena._config_seats import LLM_SEATS, house_seat
from rookery.arena._config_values import (
    _BOT_NAME,
    LATE_POLICY_NAMES,
    TOURNAMENT_TIME_CONTROL,
    BotSpec,
    ClockKind,
    Format,
)
from rookery.arena.errors import ArenaConfigError
from rookery.arena.launch._sandbox import SandboxLimits, SandboxMode
from rookery.arena.stats._sprt import SprtParams
from rookery.engine import Ruleset, RulesetError
from rookery.server import TimeControl
from rookery.wire.documents import TomlTable


def _ruleset(source: str, data: Mapping[str, object]) -> Ruleset:
    """The config's ruleset: a preset, ``[ruleset]`` overrides, and for duplicate games
    ``hand_seeds = PLAYED`` unless ``[ruleset]`` names ``hand_seeds``."""
    ruleset = _ruleset_as_written(source, data)
    table = data.get("ruleset")
    if isinstance(table, dict) and "hand_seeds" in table:
        return ruleset
    return duplicate_hand_seeds(ruleset, data.get("duplicate", True) is not False)


def _ruleset_as_written(source: str, data: Mapping[str, object]) -> Ruleset:
    preset = data.get("preset")
    given = data.get("ruleset")
    table = None if given is None else _table(source, "ruleset", given, "a table")
    if preset is not None and table is not None and "preset" in table:
        raise ArenaConfigError(
            source, "preset", "give the preset either at the top or in [ruleset]"
        )
    named: object = "standard"
    overrides: dict[str, object] = {}
    if table is not None:
        overrides = dict(table)
        named = overrides.pop("preset", preset or "standard")
    elif preset is not None:
        named = preset
    base_name = _expect(source, "preset", named, str, "a preset name")
    try:
        base = Ruleset.preset(base_name)
        if not overrides:
            return base
        merged: dict[str, object] = {**base.to_dict(), **overrides}
        if "name" not in overrides:
            merged["name"] = f"{base_name}*"
        return Ruleset.from_dict(merged)
    except RulesetError as error:
        key = "preset" if not overrides else f"ruleset.{error.parameter}"
        raise ArenaConfigError(source, key, str(error)) from None
    except (TypeError, ValueError) as error:
        raise ArenaConfigError(source, "ruleset", str(error)) from None


def _bots(source: str, given: object, workdir: str) -> tuple[BotSpec, ...]:
    entries = _array(source, "bots", given, "an array of tables ([[bots]])")
    bots = []
    for i, item in enumerate(entries):
        key = f"bots[{i}]"
        entry = _table(source, key, item, "a table with name and command (or remote = true)")
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
        given_command = entry.get("command", "")
        if isinstance(given_command, list):
            parts = [part for part in given_command if isinstance(part, str)]
            if len(parts) != len(given_command):
                raise ArenaConfigError(
                    source, f"{key}.command", "an array command must hold strings"
                )
            given_command = shlex.join(parts)
        command = _expect(source, f"{key}.command", given_command, str, "a command line")
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
        given_env = _table(source, f"{key}.env", entry.get("env", {}), "a table of strings")
        env = {name: value for name, value in given_env.items() if isinstance(value, str)}
        if len(env) != len(given_env):
            raise ArenaConfigError(source, f"{key}.env", "every value must be a string")
        folder = _expect(source, f"{key}.folder", entry.get("folder", ""), str, "a folder path")
        bots.append(
            BotSpec(
                name,
                command,
                remote,
                counts["sessions"],
                counts["processes"],
                env,
                _resolve(source, folder) if folder else "",
                workdir if command else "",
            )
        )
    return tuple(bots)


def _house_seat_entry(source: str, key: str, name: str, entry: Mapping[str, object]) -> BotSpec:
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


_E = TypeVar("_E", bound=Enum)


def _enum(source: str, key: str, value: object, kind: type[_E]) -> _E:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in kind)
        raise ArenaConfigError(source, key, f"must be one of {choices}, got {value!r}") from None


def _limits(source: str, given: object) -> SandboxLimits:
    table = _table(source, "limits", given, "a table")
    allowed = set(SandboxLimits().to_dict())
    _check_keys(source, "limits", table, allowed)
    values: dict[str, int] = {}
    for key, value in table.items():
        number = _expect(source, f"limits.{key}", value, int, "an integer")
        if number < 1:
            raise ArenaConfigError(source, f"limits.{key}", f"must be at least 1, got {number}")
        values[key] = number
    return SandboxLimits(**values)


def _teams(source: str, given: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The ``[[teams]]`` tables: ``name`` and ``members``."""
    entries = _array(source, "teams", given, "an array of tables ([[teams]])")
    teams = []
    for i, item in enumerate(entries):
        key = f"teams[{i}]"
        entry = _table(source, key, item, "a table with name and members")
        _check_keys(source, key, entry, {"name", "members"})
        name = _expect(source, f"{key}.name", entry.get("name"), str, "a team name")
        given_members = _array(source, f"{key}.members", entry.get("members"), "bot names")
        members = [m for m in given_members if isinstance(m, str)]
        if len(members) != len(given_members):
            raise ArenaConfigError(source, f"{key}.members", "must be bot names")
        teams.append((name, tuple(members)))
    return tuple(teams)


def _llm_values(source: str, data: Mapping[str, object]) -> dict[str, object]:
    """The ``[llm]`` table: ``budget_usd``, ``retries`` and ``prices``."""
    if "llm" not in data:
        return {}
    llm = _table(source, "llm", data["llm"], "a table")
    _check_keys(source, "llm", llm, {"budget_usd", "retries", "prices"})
    values: dict[str, object] = {}
    if "budget_usd" in llm:
        values["llm_budget_usd"] = _number(source, "llm.budget_usd", llm["budget_usd"], "a number")
    if "retries" in llm:
        values["llm_retries"] = _expect(source, "llm.retries", llm["retries"], int, "an integer")
    if "prices" in llm:
        prices = _table(source, "llm.prices", llm["prices"], "a table")
        values["llm_prices"] = {
            model: _price(source, f"llm.prices.{model}", price) for model, price in prices.items()
        }
    return values


def _price(source: str, key: str, value: object) -> tuple[float, float]:
    """``[IN, OUT]``: US dollars per million prompt and completion tokens, finite and ≥ 0."""
    what = "[IN, OUT] (US dollars per million prompt and completion tokens, like [0.15, 0.60])"
    given = _array(source, key, value, what)
    pair = [
        float(v)
        for v in given
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
    ]
    if len(pair) != 2 or len(pair) != len(given):
        raise ArenaConfigError(source, key, f"must be {what}, got {value!r}")
    return pair[0], pair[1]


def _sandbox_values(source: str, data: Mapping[str, object]) -> dict[str, object]:
    values: dict[str, object] = {}
    if "sandbox" in data:
        values["sandbox"] = _enum(source, "sandbox", data["sandbox"], SandboxMode)
    if "clock" in data:
        values["clock"] = _enum(source, "clock", data["clock"], ClockKind)
    for key in ("process_per_game", "pin_cpus"):
        if key in data:
            values[key] = _expect(source, key, data[key], bool, "true/false")
    if "sandbox_paths" in data:
        given = _array(source, "sandbox_paths", data["sandbox_paths"], "a list of folders")
        paths = [p for p in given if isinstance(p, str) and p]
        if len(paths) != len(given):
            raise ArenaConfigError(source, "sandbox_paths", "every entry must be a folder path")
        values["sandbox_paths"] = tuple(Path(_resolve(source, p)) for p in paths)
    if "limits" in data:
        values["limits"] = _limits(source, data["limits"])
    return values


def _time_control(source: str, given: object) -> TimeControl:
    table = _table(source, "time_control", given, "a table")
    allowed = {"action_ms", "bank_ms", "late_policy", "strike_limit", "grace_ms"}
    _check_keys(source, "time_control", table, allowed)
    values: dict[str, Any] = {}  # TimeControl's fields, each checked here
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


def _sprt(source: str, given: object) -> SprtParams:
    table = _table(source, "sprt", given, "a table")
    _check_keys(source, "sprt", table, {"elo0", "elo1", "alpha", "beta", "model"})
    default = SprtParams()
    elo0, elo1, alpha, beta = (
        _number(source, f"sprt.{key}", table[key], "a number") if key in table else otherwise
        for key, otherwise in (
            ("elo0", default.elo0),
            ("elo1", default.elo1),
            ("alpha", default.alpha),
            ("beta", default.beta),
        )
    )
    model = (
        _expect(source, "sprt.model", table["model"], str, "a string")
        if "model" in table
        else default.model
    )
    try:
        return SprtParams(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model)
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
    "deal_seeds",
}


def config_from_dict(
    data: Mapping[str, object], source: str = "<config>", workdir: str = ""
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
    values: dict[str, Any] = {}  # TournamentConfig's fields, each checked on the way
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
        ratings = _table(source, "ratings", data["ratings"], "a table")
        _check_keys(source, "ratings", ratings, {"k", "bootstrap"})
        if "k" in ratings:
            values["elo_k"] = _number(source, "ratings.k", ratings["k"], "a number")
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
    if "deal_seeds" in data:
        seeds = _array(source, "deal_seeds", data["deal_seeds"], "a list of game seeds")
        values["deal_seeds"] = tuple(
            _expect(source, "deal_seeds", seed, int, "a list of integers") for seed in seeds
        )
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
        data: TomlTable = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ArenaConfigError(source, "", f"not valid TOML: {error}") from None
    return config_from_dict(data, source, str(path.parent.absolute()))
