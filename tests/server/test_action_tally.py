"""The per-action metrics expose exactly what the client library's counter and histogram would."""

from __future__ import annotations

import random

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from rookery.server._metrics import ActionTally, Metrics


def _lines(registry: CollectorRegistry) -> list[str]:
    # ``_created`` samples are optional in the exposition format; the tally has none.
    return sorted(
        line for line in generate_latest(registry).decode().splitlines() if "_created" not in line
    )


def test_the_tally_exposes_what_a_library_counter_and_histogram_would() -> None:
    library = CollectorRegistry()
    counter = Counter(
        "rookery_actions_total",
        "Actions applied at tables, by how they came about (accepted, auto_played).",
        ("outcome",),
        registry=library,
    )
    tally = ActionTally()
    histogram = Histogram(
        "rookery_action_latency_seconds",
        "Time from sending an ActionRequest to receiving the accepted reply.",
        buckets=tally.bounds,
        registry=library,
    )
    counter.labels("accepted")
    counter.labels("auto_played")
    ours = CollectorRegistry()
    ours.register(tally)
    rng = random.Random(5)
    # On a bucket's bound, between bounds, below the first and above the last.
    values = [*tally.bounds, 0.0, 0.0001, 99.0] + [rng.expovariate(20.0) for _ in range(500)]
    for index, value in enumerate(values):
        if index % 9 == 4:
            counter.labels("auto_played").inc()
            tally.auto_play()
        else:
            counter.labels("accepted").inc()
            histogram.observe(value)
            tally.accept(value)
    assert _lines(ours) == _lines(library)
    assert tally.accepted + tally.auto_played == len(values)


def test_a_server_registry_exposes_the_tally() -> None:
    metrics = Metrics()
    metrics.actions.accept(0.003)
    metrics.actions.auto_play()
    text = generate_latest(metrics.registry).decode()
    assert 'rookery_actions_total{outcome="accepted"} 1.0' in text
    assert 'rookery_actions_total{outcome="auto_played"} 1.0' in text
    assert 'rookery_action_latency_seconds_bucket{le="0.005"} 1.0' in text
    assert 'rookery_action_latency_seconds_bucket{le="0.0025"} 0.0' in text
    assert "rookery_action_latency_seconds_count 1.0" in text
