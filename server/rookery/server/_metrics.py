"""Prometheus metrics: grpc-prometheus's server metrics plus Rookery's own, a registry per server.

The gRPC metrics come from :class:`MetricsInterceptor`, which wraps every handler; the names and
labels are those of go-grpc-prometheus so that existing dashboards work.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from bisect import bisect_left
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar, cast

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import start_http_server
from prometheus_client.registry import Collector

from ._grpc_types import Continuation, answering, is_streaming, rebuilt, streaming

__all__ = ["ActionTally", "Metrics", "MetricsHttpServer", "MetricsInterceptor"]

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_Request = TypeVar("_Request")
_Response = TypeVar("_Response")

_HANDLING_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 3600)


class Metrics:
    """Every metric of one server, registered in its own :class:`CollectorRegistry`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        labels = ("grpc_type", "grpc_service", "grpc_method")
        self.started = Counter(
            "grpc_server_started_total",
            "Total number of RPCs started on the server.",
            labels,
            registry=self.registry,
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "Total number of RPCs completed on the server, regardless of success or failure.",
            (*labels, "grpc_code"),
            registry=self.registry,
        )
        self.received = Counter(
            "grpc_server_msg_received_total",
            "Total number of RPC stream messages received on the server.",
            labels,
            registry=self.registry,
        )
        self.sent = Counter(
            "grpc_server_msg_sent_total",
            "Total number of gRPC stream messages sent by the server.",
            labels,
            registry=self.registry,
        )
        self.handling = Histogram(
            "grpc_server_handling_seconds",
            "Histogram of response latency (seconds) of gRPC that had been application-level "
            "handled by the server.",
            labels,
            buckets=_HANDLING_BUCKETS,
            registry=self.registry,
        )
        self.active_tables = Gauge(
            "rookery_active_tables",
            "Tables waiting for their bots or being played.",
            registry=self.registry,
        )
        self.active_sessions = Gauge(
            "rookery_active_sessions",
            "Bot sessions connected or awaiting resume.",
            registry=self.registry,
        )
        self.actions = ActionTally()
        """``rookery_actions_total`` and ``rookery_action_latency_seconds``."""
        self.registry.register(self.actions)
        self.timeouts = Counter(
            "rookery_timeouts_total",
            "Deadlines missed by bots.",
            registry=self.registry,
        )
        self.rejections = Counter(
            "rookery_rejections_total",
            "Action replies refused, by reason.",
            ("reason",),
            registry=self.registry,
        )
        self.games_finished = Counter(
            "rookery_games_finished_total",
            "Games ended, by termination reason.",
            ("reason",),
            registry=self.registry,
        )


class ActionTally(Collector):
    """The per-action metrics: ``rookery_actions_total`` by outcome and the histogram
    ``rookery_action_latency_seconds``, counted in plain numbers and exposed at each scrape.

    An action is counted on the server's event loop, once per move of every table: a client
    library counter or histogram takes a lock and updates several values each time, which cost
    as much as a tenth of the server's work per action. The loop is the only writer; a scrape
    (another thread) reads numbers that each change atomically, and derives the count and the
    cumulative buckets from one copy of the bucket counts, so they always agree.
    """

    def __init__(self, buckets: tuple[float, ...] = _LATENCY_BUCKETS) -> None:
        self.bounds = buckets
        self.accepted = 0
        self.auto_played = 0
        self.latency_sum = 0.0
        self.latency_counts = [0] * (len(buckets) + 1)
        """Accepted actions per latency bucket (not cumulative); the last one: above every
        bound."""

    def accept(self, latency_s: float) -> None:
        """Counts an accepted action, ``latency_s`` after its request was sent."""
        self.accepted += 1
        self.latency_counts[bisect_left(self.bounds, latency_s)] += 1
        self.latency_sum += latency_s

    def auto_play(self) -> None:
        """Counts an action the server played for a seat (a missed deadline)."""
        self.auto_played += 1

    def collect(self) -> Iterator[Metric]:
        actions = CounterMetricFamily(
            "rookery_actions",
            "Actions applied at tables, by how they came about (accepted, auto_played).",
            labels=("outcome",),
        )
        actions.add_metric(("accepted",), self.accepted)
        actions.add_metric(("auto_played",), self.auto_played)
        yield actions
        counts, total = list(self.latency_counts), self.latency_sum
        cumulative, buckets = 0, []
        for bound, count in zip((*self.bounds, float("inf")), counts, strict=True):
            cumulative += count
            buckets.append((_bucket_label(bound), cumulative))
        latency = HistogramMetricFamily(
            "rookery_action_latency_seconds",
            "Time from sending an ActionRequest to receiving the accepted reply.",
        )
        latency.add_metric((), buckets, total)
        yield latency


def _bucket_label(bound: float) -> str:
    """A bucket's ``le`` as the client library writes it (``0.005``, ``1.0``, ``+Inf``)."""
    return "+Inf" if bound == float("inf") else repr(float(bound))


def _split_method(full_method: str) -> tuple[str, str]:
    _, service, method = full_method.split("/", 2) if full_method.count("/") >= 2 else ("", "", "")
    return service or "unknown", method or full_method


def _code_name(context: grpc.aio.ServicerContext[_Request, _Response]) -> str:
    code = context.code()
    if code is None:
        return "OK"
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    for status in grpc.StatusCode:
        if status.value[0] == code:
            return str(status.name)
    return "UNKNOWN"


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """Counts every RPC and message and times every call, by service and method."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def intercept_service(
        self,
        continuation: Continuation[_Request, _Response],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Request, _Response] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        service, method = _split_method(handler_call_details.method)
        if handler.request_streaming and handler.response_streaming:
            kind = "bidi_stream"
        elif handler.request_streaming:
            kind = "client_stream"
        elif handler.response_streaming:
            kind = "server_stream"
        else:
            kind = "unary"
        labels = (kind, service, method)
        m = self._metrics
        started, received, sent = (
            m.started.labels(*labels),
            m.received.labels(*labels),
            m.sent.labels(*labels),
        )
        handling = m.handling.labels(*labels)

        def finish(
            context: grpc.aio.ServicerContext[_Request, _Response],
            begin: float,
            error: BaseException | None,
        ) -> None:
            code = _code_name(context)
            if error is not None and code == "OK":
                code = "CANCELLED" if isinstance(error, asyncio.CancelledError) else "UNKNOWN"
            m.handled.labels(*labels, code).inc()
            handling.observe(time.perf_counter() - begin)

        async def count_requests(requests: AsyncIterator[object]) -> AsyncIterator[object]:
            tally = _Tally(received)
            messages = aiter(requests)
            try:
                async for request in messages:
                    tally.add()
                    yield request
            finally:
                tally.flush()
                await _close(messages)

        if not handler.response_streaming:
            answer = answering(handler)

            async def unary_response(
                request: object, context: grpc.aio.ServicerContext[_Request, _Response]
            ) -> object:
                started.inc()
                begin = time.perf_counter()
                if handler.request_streaming:
                    request = count_requests(cast(AsyncIterator[object], request))
                else:
                    received.inc()
                try:
                    response = await answer(request, context)
                except grpc.aio.AbortError as error:
                    _release(error)
                    finish(context, begin, None)
                    return None  # gRPC raises its abort itself (the status is sent already)
                except BaseException as error:
                    finish(context, begin, error)
                    raise
                finally:
                    if handler.request_streaming:
                        await _close(request)
                sent.inc()
                finish(context, begin, None)
                return response

            return rebuilt(handler, unary_response)

        if not is_streaming(handler):
            # A handler that writes with context.write: count the call, not its messages.
            write = answering(handler)

            async def writing_response(
                request: object, context: grpc.aio.ServicerContext[_Request, _Response]
            ) -> None:
                started.inc()
                begin = time.perf_counter()
                if handler.request_streaming:
                    request = count_requests(cast(AsyncIterator[object], request))
                else:
                    received.inc()
                try:
                    await write(request, context)
                except grpc.aio.AbortError as error:
                    _release(error)
                except BaseException as error:
                    finish(context, begin, error)
                    raise
                finally:
                    if handler.request_streaming:
                        await _close(request)
                finish(context, begin, None)

            return rebuilt(handler, writing_response)

        stream = streaming(handler)

        async def streaming_response(
            request: object, context: grpc.aio.ServicerContext[_Request, _Response]
        ) -> None:
            # The handler's messages are written here rather than yielded to gRPC: gRPC's own
            # loop over a response generator leaves it suspended when a write is cancelled (the
            # RPC cut, the server stopping), its ``finally`` run only when the collector gets
            # to it, late; here it is closed as the RPC ends.
            started.inc()
            begin = time.perf_counter()
            if handler.request_streaming:
                request = count_requests(cast(AsyncIterator[object], request))
            else:
                received.inc()
            tally = _Tally(sent)
            responses = stream(request, context)
            try:
                async for response in responses:
                    tally.add()
                    await context.write(response)
            except grpc.aio.AbortError as error:
                _release(error)
            except BaseException as error:
                tally.flush()
                finish(context, begin, error)
                raise
            finally:
                await responses.aclose()
                if handler.request_streaming:
                    await _close(request)
            tally.flush()
            finish(context, begin, None)

        return rebuilt(handler, streaming_response)


def _release(error: BaseException) -> None:
    """Lets the handler's frames go with an abort that gRPC keeps until the call is freed.

    ``context.abort`` stores its AbortError in the call's state and raises it; its traceback
    holds the handler's frames, which hold the context, which holds the state: a cycle that
    only the garbage collector breaks, and with it the call's memory (the request it received,
    up to max_message_bytes) is kept. A stranger's refused oversize Hellos grew a server from
    59 to 251 MiB in 200 connections, none of it returned. Cut from its frames (the handler
    returns normally; gRPC raises the stored abort itself), the call is freed at once.
    """
    error.__traceback__ = None
    error.__context__ = None
    error.__cause__ = None


async def _close(requests: object) -> None:
    """Closes a request stream's async generator the handler may have left suspended (gRPC's
    own holds the call in a cycle with its reader until collected); one still running in
    another task (a reader being cancelled) is left to end there."""
    close = getattr(requests, "aclose", None)
    if close is not None:
        with contextlib.suppress(RuntimeError):
            await close()


class _Tally:
    """Counts stream messages locally and adds them to a counter in batches (a counter's lock
    costs more than the message on a busy stream): every 256 messages, every second, and at the
    end of the stream."""

    __slots__ = ("_counter", "_last", "_pending")

    def __init__(self, counter: Counter) -> None:
        self._counter = counter
        self._pending = 0
        self._last = time.monotonic()

    def add(self) -> None:
        self._pending += 1
        if self._pending >= 256:
            self.flush()
        elif self._pending & 15 == 1:
            now = time.monotonic()
            if now - self._last >= 1.0:
                self.flush()

    def flush(self) -> None:
        if self._pending:
            self._counter.inc(self._pending)
            self._pending = 0
        self._last = time.monotonic()


class MetricsHttpServer:
    """The ``/metrics`` HTTP endpoint (a daemon thread serving one registry)."""

    def __init__(self, metrics: Metrics, address: str) -> None:
        host, _, port = address.rpartition(":")
        self._httpd, self._thread = start_http_server(
            int(port), addr=host.strip("[]") or "0.0.0.0", registry=metrics.registry
        )
        self.port: int = self._httpd.server_port

    def stop(self) -> None:
        """Stops serving."""
        self._httpd.shutdown()
        self._httpd.server_close()
