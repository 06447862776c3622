"""The house's language-model seats and the ``--bot`` flag that names a bot."""

from __future__ import annotations

from rookery.arena._config_values import _BOT_NAME, BotSpec
from rookery.arena.errors import ArenaConfigError

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
