"""The server's configuration: every option with its default, from a TOML file and ``ROOKERY_*``."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rookery.wire.documents import TomlTable

from ._errors import ServerConfigError, TableSpecError
from ._time_control import LatePolicy, TimeControl

__all__ = ["AuthMode", "ServerConfig", "environment_values"]

AuthMode = str
"""``"open"`` (any bot name, no tokens) or ``"token"`` (bot tokens from the registry)."""

_AUTH_MODES = ("open", "token")
_MAX_SERVER_NAME = 64
_ENV_PREFIX = "ROOKERY_"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Every option of the server. Defaults suit a local server; docs/server.md lists them all."""

    address: str = "127.0.0.1:50051"
    """Where the gRPC server listens (``host:port``; port 0 picks a free one)."""
    server_name: str = ""
    """The server's name, sent in every Welcome: a bot that expects another (the SDK's
    ``--expect-server``) leaves. Empty: unnamed."""
    unix_socket: str = ""
    """A Unix socket path the server also listens on (mode 0666; the arena's sandboxed bots
    reach the server through it, so it serves BotService only); empty: none."""
    metrics_address: str = ""
    """Where the Prometheus ``/metrics`` HTTP endpoint listens (``host:port``); empty: off."""
    auth: AuthMode = "open"
    """``open``: any bot name, tokens ignored. ``token``: each bot needs its registry token."""
    db: str = ""
    """The bot registry's SQLite file; empty keeps the registry in memory."""
    admin_token: str = ""
    """The token guarding ArenaService mutations; empty: open mode leaves them unguarded, token
    mode refuses them."""
    tls_cert: str = ""
    """PEM certificate chain file; with ``tls_key``, the server speaks TLS only."""
    tls_key: str = ""
    """PEM private key file of ``tls_cert``."""
    replay_dir: str = ""
    """A directory where every finished game's replay is written as a file; empty: none."""
    max_message_bytes: int = 1 << 20
    """The largest message the server accepts from a client."""
    max_send_message_bytes: int = 64 << 20
    """The largest message the server sends (a long game's replay)."""
    max_tables_per_session: int = 64
    """The most tables one bot session plays at once (Hello.max_tables is capped to it)."""
    max_sessions: int = 1024
    """The most bot sessions connected (or awaiting resume) at once."""
    max_sessions_per_bot: int = 256
    """The most sessions of one bot name (one token) at once."""
    max_sessions_per_peer: int = 512
    """The most sessions opened from one network address (IP) at once."""
    reserved_sessions: int = 64
    """The last of ``max_sessions``, kept for the bots a waiting table names (and, in token mode,
    for a registered bot's first session): a flood of other names cannot lock them out. At most
    a quarter of ``max_sessions`` is reserved."""
    max_watchers_per_table: int = 64
    """The most spectator streams (WatchTable) of one table at once."""
    max_watchers_per_peer: int = 128
    """The most spectator streams opened from one network address (IP) at once."""
    watcher_queue_size: int = 1024
    """Messages queued for one spectator stream before it counts as not reading and is cut."""
    action_rate: float = 2000.0
    """Messages per second one session may send (token bucket refill rate)."""
    action_burst: int = 4000
    """The token bucket's size: how many messages a session may send in a burst."""
    hello_timeout_s: float = 10.0
    """How long a new stream may take to send its Hello."""
    idle_timeout_s: float = 600.0
    """How long a session may stay silent (no reply, no ping) before it is closed; 0: no limit."""
    send_queue_size: int = 10000
    """Messages queued for one session before it counts as stuck and is disconnected."""
    keepalive_time_s: float = 30.0
    """Interval of the server's HTTP/2 keepalive pings."""
    keepalive_timeout_s: float = 20.0
    """How long the server waits for a keepalive ping's answer before dropping the connection."""
    min_client_ping_interval_s: float = 10.0
    """The shortest interval between HTTP/2 pings a client may send without being penalised."""
    join_timeout_s: float = 60.0
    """How long a table created over the API waits for its bots before it is aborted."""
    finished_tables_kept: int = 1000
    """How many finished tables (and their replays) stay in memory."""
    shutdown_grace_s: float = 10.0
    """On SIGTERM/SIGINT, how long running tables may take to finish before they are aborted."""
    log_level: str = "info"
    """The lowest level logged: debug, info, warning, error."""
    log_json: bool = True
    """JSON log lines (true) or a console format for people (false)."""
    time_control: TimeControl = field(default_factory=TimeControl)
    """The clock of tables that do not set their own (``[time_control]`` in the TOML file)."""

    def __post_init__(self) -> None:
        if self.auth not in _AUTH_MODES:
            raise ServerConfigError(
                "auth", f"must be one of {', '.join(_AUTH_MODES)}, got {self.auth!r}"
            )
        if self.auth == "token" and not self.db:
            raise ServerConfigError("db", "token mode needs a bot registry file (--db FILE)")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ServerConfigError("tls_cert", "TLS needs both a certificate and a key")
        for name in (
            "max_message_bytes",
            "max_send_message_bytes",
            "max_tables_per_session",
            "max_sessions",
            "max_sessions_per_bot",
            "max_sessions_per_peer",
            "max_watchers_per_table",
            "max_watchers_per_peer",
            "watcher_queue_size",
            "action_burst",
            "send_queue_size",
            "finished_tables_kept",
        ):
            if getattr(self, name) < 1:
                raise ServerConfigError(name, f"must be ≥ 1, got {getattr(self, name)}")
        for name in ("action_rate", "hello_timeout_s", "keepalive_time_s", "keepalive_timeout_s"):
            if getattr(self, name) <= 0:
                raise ServerConfigError(name, f"must be > 0, got {getattr(self, name)}")
        for name in (
            "idle_timeout_s",
            "join_timeout_s",
            "shutdown_grace_s",
            "min_client_ping_interval_s",
        ):
            if getattr(self, name) < 0:
                raise ServerConfigError(name, f"must be ≥ 0, got {getattr(self, name)}")
        if self.reserved_sessions < 0:
            raise ServerConfigError(
                "reserved_sessions", f"must be ≥ 0, got {self.reserved_sessions}"
            )
        if len(self.server_name) > _MAX_SERVER_NAME or not self.server_name.isprintable():
            raise ServerConfigError(
                "server_name", f"must be at most {_MAX_SERVER_NAME} printable characters"
            )
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            raise ServerConfigError("log_level", f"unknown level {self.log_level!r}")

    @property
    def is_token_mode(self) -> bool:
        """Whether bots need a token."""
        return self.auth == "token"

    @property
    def sessions_reserved(self) -> int:
        """How many of ``max_sessions`` are reserved (``reserved_sessions``, at most a quarter)."""
        return min(self.reserved_sessions, self.max_sessions // 4)

    @property
    def is_tls(self) -> bool:
        """Whether the server speaks TLS."""
        return bool(self.tls_cert)

    def replace(self, **changes: Any) -> ServerConfig:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, values: Mapping[str, object], *, source: str = "config") -> ServerConfig:
        """A config from plain values (a parsed TOML file): unknown keys are refused by name."""
        return cls().updated(values, source=source)

    def updated(self, values: Mapping[str, object], *, source: str = "config") -> ServerConfig:
        """This config with the given plain values applied, each converted to its option's type."""
        changes: dict[str, Any] = {}  # each converted to its option's type (_OPTION_TYPES)
        time_control = self.time_control
        for key, raw in values.items():
            name = key.replace("-", "_")
            if name == "time_control":
                if not isinstance(raw, Mapping):
                    raise ServerConfigError("time_control", f"{source}: must be a table of options")
                time_control = _time_control_with(time_control, raw, source)
                continue
            if name not in _OPTION_TYPES:
                raise ServerConfigError(name, f"{source}: unknown option")
            changes[name] = _convert(name, raw, _OPTION_TYPES[name], source)
        changes["time_control"] = time_control
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_file(cls, path: str | Path) -> ServerConfig:
        """A config from a TOML file: top-level keys are option names; ``[time_control]`` a table.

        A ``[server]`` table, if present, is read instead of the top level.
        """
        return cls.from_mapping(_read_toml(path), source=str(path))

    def with_environment(self, environ: Mapping[str, str] | None = None) -> ServerConfig:
        """This config with every ``ROOKERY_<OPTION>`` variable applied (see
        :func:`environment_values`)."""
        values = environment_values(environ)
        return self.updated(values, source="environment") if values else self

    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        overrides: Mapping[str, object] | None = None,
    ) -> ServerConfig:
        """The config from every source: defaults < the TOML file < ``ROOKERY_*`` < ``overrides``.

        When no source sets ``auth``, a server given a bot registry file (``db``) runs in token
        mode, otherwise in open mode.
        """
        layers: list[tuple[str, Mapping[str, object]]] = []
        if path is not None:
            layers.append((str(path), _read_toml(path)))
        layers.append(("environment", environment_values(environ)))
        layers.append(("command line", dict(overrides or {})))
        merged: dict[str, object] = {}
        time_control: dict[str, object] = {}
        for _, values in layers:
            for key, value in values.items():
                name = key.replace("-", "_")
                if name == "time_control" and isinstance(value, Mapping):
                    time_control.update(value)
                else:
                    merged[name] = value
        if "auth" not in merged:
            merged["auth"] = "token" if merged.get("db") else "open"
        if time_control:
            merged["time_control"] = time_control
        return cls.from_mapping(merged, source="configuration")


def environment_values(
    environ: Mapping[str, str] | None = None,
) -> dict[str, str | dict[str, str]]:
    """The options set by ``ROOKERY_<OPTION>`` variables (``ROOKERY_ADMIN_TOKEN``, …).

    Time-control options are ``ROOKERY_TIME_CONTROL_<FIELD>``, e.g.
    ``ROOKERY_TIME_CONTROL_ACTION_MS``. Other ``ROOKERY_*`` variables are ignored (the SDK uses
    some of its own).
    """
    environ = os.environ if environ is None else environ
    values: dict[str, str | dict[str, str]] = {}
    time_control: dict[str, str] = {}
    for key, raw in environ.items():
        if not key.startswith(_ENV_PREFIX):
            continue
        name = key[len(_ENV_PREFIX) :].lower()
        if name.startswith("time_control_"):
            time_control[name[len("time_control_") :]] = raw
        elif name in _OPTION_TYPES:
            values[name] = raw
    if time_control:
        values["time_control"] = time_control
    return values


def _read_toml(path: str | Path) -> TomlTable:
    try:
        with open(path, "rb") as handle:
            data: TomlTable = tomllib.load(handle)
    except OSError as error:
        raise ServerConfigError("config", f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ServerConfigError("config", f"{path} is not valid TOML: {error}") from None
    section = data.get("server", data)
    if not isinstance(section, Mapping):
        raise ServerConfigError("config", f"{path}: [server] must be a table")
    return section


def _time_control_with(base: TimeControl, raw: Mapping[str, object], source: str) -> TimeControl:
    changes: dict[str, Any] = {}  # TimeControl's fields, each converted here
    for key, value in raw.items():
        name = key.replace("-", "_")
        option = f"time_control.{name}"
        if name == "late_policy":
            text = str(value).upper().replace("-", "_")
            try:
                changes[name] = LatePolicy[text]
            except KeyError:
                raise ServerConfigError(option, f"{source}: must be auto_play or forfeit") from None
        elif name in ("action_ms", "bank_ms", "strike_limit", "grace_ms"):
            changes[name] = _convert(option, value, int, source)
        else:
            raise ServerConfigError(option, f"{source}: unknown option")
    try:
        return dataclasses.replace(base, **changes)
    except TableSpecError as error:
        raise ServerConfigError("time_control", f"{source}: {error}") from None


def _convert(name: str, raw: object, kind: type, source: str) -> bool | int | float | str:
    """``raw`` (a TOML value, an environment variable's text) as an option of type ``kind``."""
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ServerConfigError(name, f"{source}: expected a boolean, got {raw!r}")
    if kind is str:
        if isinstance(raw, bool | int | float | str):
            return str(raw)
        raise ServerConfigError(name, f"{source}: expected a string, got {raw!r}")
    try:
        if not isinstance(raw, int | float | str):
            raise TypeError
        if kind is int:
            if isinstance(raw, float) and not raw.is_integer():
                raise ValueError
            return int(raw)
        return float(raw)
    except (TypeError, ValueError):
        raise ServerConfigError(name, f"{source}: expected a number, got {raw!r}") from None


_OPTION_TYPES: dict[str, type] = {
    f.name: {"int": int, "float": float, "bool": bool, "str": str, "AuthMode": str}.get(
        str(f.type), str
    )
    for f in dataclasses.fields(ServerConfig)
    if f.name != "time_control"
}
