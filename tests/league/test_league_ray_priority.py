"""A league's Ray worker runs at the machine's normal priority, whatever Ray started it at.

Ray starts its workers at niceness 15; the worker's embedded server and the unconfined bots it
starts inherited it, and on a busy machine the unconfined league on Ray played 0.65 of local's
pairs/s against 0.79 once the worker set itself back (bench/league_ray_bench.py). Run as root (as
CI does): lowering a niceness needs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_PROBE = """
import json, os, subprocess, sys, threading
from rookery.arena.league import ray_worker
os.nice(15)  # as Ray starts a worker
ready = threading.Event()
done = threading.Event()
threading.Thread(target=lambda: (ready.set(), done.wait())).start()  # made at 15
ready.wait()
ray_worker._normal_priority()
threads = [os.getpriority(os.PRIO_PROCESS, int(t)) for t in os.listdir("/proc/self/task")]
child = subprocess.run([sys.executable, "-c", "import os; print(os.nice(0))"],
                       capture_output=True, text=True, check=True).stdout.strip()
done.set()
print(json.dumps({"threads": threads, "child": int(child)}))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering a niceness needs root (CI runs as root)")
def test_a_worker_started_at_niceness_15_sets_every_thread_and_its_children_back_to_0() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    seen = json.loads(out.splitlines()[-1])
    assert len(seen["threads"]) >= 2
    assert seen["threads"] == [0] * len(seen["threads"])
    assert seen["child"] == 0
