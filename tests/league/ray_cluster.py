"""A Ray cluster of several nodes on this machine's loopback, each node a ``ray start`` of its own
(the recipe of docs/scale.md), so that a test can kill one node and only it. Every process of a
node carries a marker in its environment; the test ends exactly the processes it started."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rookery.arena.run import LOOPBACK_ONLY

RAY = Path(sys.executable).parent / "ray"
#: Set in the environment of each ``ray start``: every process of that node inherits it.
MARKER = "ROOKERY_TEST_RAY_NODE"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def node_processes(marker: str) -> list[int]:
    """The processes of the node started with ``MARKER=marker`` (Ray renames its processes)."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def running_task(marker: str, name: str) -> bool:
    """Whether a worker of that node is running a task ``name`` now (Ray titles it ray::name)."""
    for pid in node_processes(marker):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(f"ray::{name}".encode()):
                return True
    return False


def ray_environment() -> dict[str, str]:
    """This process's environment without the Ray variables a user would not set."""
    return {k: v for k, v in os.environ.items() if k not in (LOOPBACK_ONLY, "RAY_AUTH_MODE")}


@dataclass
class LoopbackCluster:
    """A head that runs no task and worker nodes, all on 127.0.0.1: ``ray.cluster_utils.Cluster``
    in a helper process of its own (Ray reads its loopback variable at import), each node's
    processes marked so that :meth:`kill_node` ends one node and nothing else."""

    env: dict[str, str] = field(default_factory=dict)
    scratch: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="rk-ray-")))
    address: str = ""
    nodes: list[str] = field(default_factory=list)
    #: The head node's marker.
    head: str = ""
    helper: subprocess.Popen[bytes] | None = None

    def start(self, nodes: int, timeout_s: float = 180, head_cpus: int = 0) -> None:
        env = ray_environment() | self.env | {MARKER: f"{self.scratch}/helper"}
        log = (self.scratch / "cluster.log").open("ab")
        self.helper = subprocess.Popen(
            [sys.executable, __file__, str(self.scratch), str(nodes), str(head_cpus)],
            stdin=subprocess.PIPE, stdout=log, stderr=log, env=env,
        )  # fmt: skip
        ready = self.scratch / "address"
        deadline = time.monotonic() + timeout_s
        while not ready.exists():
            if self.helper.poll() is not None or time.monotonic() > deadline:
                raise AssertionError((self.scratch / "cluster.log").read_text()[-3000:])
            time.sleep(0.1)
        self.address = ready.read_text().strip()
        self.nodes = [f"{self.scratch}/node{i}" for i in range(nodes)]
        self.head = f"{self.scratch}/head"

    def kill_node(self, marker: str) -> int:
        """SIGKILL every process of one node (a machine lost): how many there were."""
        pids = node_processes(marker)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return len(pids)

    def stop(self) -> None:
        if self.helper is not None and self.helper.poll() is None:
            assert self.helper.stdin is not None
            with contextlib.suppress(BrokenPipeError):
                self.helper.stdin.close()  # the helper shuts the cluster down
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.helper.wait(timeout=30)
        markers = [f"{self.scratch}/helper", f"{self.scratch}/head", *self.nodes]
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for marker in markers:
                for pid in node_processes(marker):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signum)
            deadline = time.monotonic() + 5
            while any(node_processes(m) for m in markers) and time.monotonic() < deadline:
                time.sleep(0.2)
        shutil.rmtree(self.scratch, ignore_errors=True)


def _serve_cluster(scratch: Path, nodes: int, head_cpus: int) -> None:
    """The helper: a head of ``head_cpus`` and ``nodes`` nodes of one CPU, until stdin closes."""
    os.environ[LOOPBACK_ONLY] = "0"
    from ray.cluster_utils import Cluster

    os.environ[MARKER] = f"{scratch}/head"
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": head_cpus, "include_dashboard": False}
    )
    for i in range(nodes):
        os.environ[MARKER] = f"{scratch}/node{i}"
        cluster.add_node(num_cpus=1)
    os.environ[MARKER] = f"{scratch}/helper"
    cluster.wait_for_nodes()
    (scratch / "address.tmp").write_text(cluster.address + "\n")
    (scratch / "address.tmp").rename(scratch / "address")
    sys.stdin.read()
    cluster.shutdown()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    _serve_cluster(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
