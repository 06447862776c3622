"""The lobby: who may open a session, and who may resume one.

A bot's ``Hello`` is checked here against the server's rules, with no gRPC in sight:
- the server is not stopping;
- the Hello itself is well formed (its name, its version, its ``max_tables``);
- in token mode, the token is the bot's registry token or a live launch key;
- a resume names a session that exists, gives its secret, and comes from its own bot;
- a new session is within the per-bot and per-peer limits.

A refusal raises :class:`AdmissionError` with its :class:`Refusal` kind and the sentence the bot
reads; the servicer maps the kind to a gRPC status code in one table (``_services._REFUSAL_CODES``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from rookery.v1 import bot_service_pb2

from ._errors import InvalidBotNameError, ServerError, ServerStoppingError
from ._hub import ServerHub
from ._limits import hello_problem
from ._registry import validate_bot_name
from ._session import Session

__all__ = ["Admission", "AdmissionError", "Lobby", "Refusal"]


class Refusal(enum.Enum):
    """Why a Hello is refused."""

    STOPPING = "stopping"
    """The server is shutting down."""
    MALFORMED = "malformed"
    """The Hello breaks the protocol (a name, a version, a count out of bounds)."""
    UNAUTHENTICATED = "unauthenticated"
    """No token, a wrong token, or a wrong resume secret."""
    NO_SUCH_SESSION = "no_such_session"
    """A resume of a session that is unknown, expired, or another bot's."""
    CROWDED = "crowded"
    """Over a limit of sessions (per bot or per peer)."""


class AdmissionError(ServerError):
    """A Hello refused: its kind and the sentence the bot reads."""

    def __init__(self, refusal: Refusal, detail: str) -> None:
        super().__init__(detail)
        self.refusal = refusal
        self.detail = detail


@dataclass(frozen=True)
class Admission:
    """An admitted Hello: the session it opened or resumed."""

    session: Session
    resumed: bool
    cursors: dict[str, int] = field(default_factory=dict)
    """On a resume: the last event seq the bot has, by table id (what to send again after)."""


class Lobby:
    """Admits Hellos to the server's sessions (``admit``)."""

    def __init__(self, hub: ServerHub) -> None:
        self._hub = hub

    def admit(self, hello: bot_service_pb2.Hello, peer: str) -> Admission:
        """Opens or resumes the session ``hello`` asks for, from ``peer``; raises
        :class:`AdmissionError` when refused."""
        hub = self._hub
        if hub.is_stopping:
            raise AdmissionError(Refusal.STOPPING, "the server is shutting down")
        _check_form(hello)
        self._authenticate(hello)
        resume = hello.resume if hello.HasField("resume") else None
        if resume is not None and resume.session_id:
            return self._resume(hello, resume, peer)
        refusal = hub.roster.admission_problem(hello.name, peer, hello.token)
        if refusal:
            raise AdmissionError(Refusal.CROWDED, refusal)
        try:
            session = hub.roster.open_session(hello, peer=peer)
        except ServerStoppingError as error:
            raise AdmissionError(Refusal.STOPPING, str(error)) from error
        return Admission(session, resumed=False)

    def _authenticate(self, hello: bot_service_pb2.Hello) -> None:
        hub = self._hub
        if not hub.config.is_token_mode:
            return
        if not hello.token:
            raise AdmissionError(
                Refusal.UNAUTHENTICATED,
                "Hello.token is empty: this server needs a bot token (issued by the organiser "
                "with 'rookery bots add NAME')",
            )
        if not hub.bots.check_token(hello.name, hello.token) and not hub.roster.is_launch_key(
            hello.name, hello.token
        ):
            raise AdmissionError(
                Refusal.UNAUTHENTICATED, f"the token is not valid for bot {hello.name!r}"
            )

    def _resume(
        self, hello: bot_service_pb2.Hello, resume: bot_service_pb2.Resume, peer: str
    ) -> Admission:
        session = self._hub.roster.session(resume.session_id)
        if session is None:
            raise AdmissionError(
                Refusal.NO_SUCH_SESSION,
                f"unknown or expired session {resume.session_id!r}: open a new session "
                "(a Hello without resume)",
            )
        if not session.check_secret(resume.resume_secret):
            raise AdmissionError(
                Refusal.UNAUTHENTICATED, f"wrong resume secret for session {resume.session_id!r}"
            )
        if session.bot != hello.name:
            raise AdmissionError(
                Refusal.NO_SUCH_SESSION,
                f"session {resume.session_id!r} belongs to bot {session.bot!r}, not {hello.name!r}",
            )
        # This stream's Hello decides how the resumed session is served.
        session.wants_events = not hello.observations_only
        session.batching = hello.batching
        session.defers_events = hello.defer_events
        session.wants_card_masks = hello.card_masks
        session.groups_events = hello.group_events
        session.peer = peer
        cursors = {c.table_id: c.last_seq for c in resume.cursors}
        return Admission(session, resumed=True, cursors=cursors)


def _check_form(hello: bot_service_pb2.Hello) -> None:
    try:
        validate_bot_name(hello.name)
    except InvalidBotNameError as error:
        raise AdmissionError(Refusal.MALFORMED, f"Hello.name: {error}") from error
    problem = hello_problem(hello)
    if problem:
        raise AdmissionError(Refusal.MALFORMED, problem)
    if hello.max_tables < 0:
        raise AdmissionError(
            Refusal.MALFORMED, f"Hello.max_tables must be ≥ 0, got {hello.max_tables}"
        )
