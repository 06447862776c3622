"""What the docs-as-printed tests share: the docs' fenced blocks, a user's shell, a doc's port.

A user's shell is bash with this venv's ``rookery`` and ``python`` first on PATH (an installed
Rookery) and no ``ROOKERY_*`` or ``VIRTUAL_ENV`` variables.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

#: A fenced block, indented (in a list) or not: its indent, language tag and text.
_FENCE = re.compile(r"^( *)```([\w+-]*)[^\n]*\n(.*?)^\1```", re.DOTALL | re.MULTILINE)
#: A Markdown heading.
_HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced block of a doc: its language tag, its text (unindented), the heading above it
    and the line of the doc it starts on."""

    language: str
    text: str
    heading: str
    line: int

    @property
    def first_line(self) -> str:
        """The block's first line that is not blank, stripped."""
        return next((row.strip() for row in self.text.splitlines() if row.strip()), "")


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of a Markdown text, in order."""
    fences = list(_FENCE.finditer(text))
    headings = [
        (match.start(), match.group(1))
        for match in _HEADING.finditer(text)
        if not any(fence.start() < match.start() < fence.end() for fence in fences)
    ]  # a `# comment` line inside a block is no heading
    blocks = []
    for match in fences:
        indent, language, body = match.groups()
        above = [title for start, title in headings if start < match.start()]
        unindented = "\n".join(row[len(indent) :] for row in body.splitlines())
        line = text.count("\n", 0, match.start()) + 1
        blocks.append(Block(language, unindented, above[-1] if above else "", line))
    return blocks


def section(text: str, heading: str) -> str:
    """The text under the ``##`` heading ``heading``, up to the next ``##`` heading."""
    marker = f"\n## {heading}\n"
    assert marker in text, f"no section {heading!r}"
    return text.split(marker, 1)[1].split("\n## ", 1)[0]


def shell_env(venv_bin: Path) -> dict[str, str]:
    """A user's environment: this venv's commands first on PATH, no Rookery variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROOKERY_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv_bin}{os.pathsep}{env['PATH']}"
    return env


def shell(
    command: str, folder: Path, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash in ``folder``: its exit code and output."""
    return subprocess.run(
        ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def wait_until_free(port: int, timeout: float = 300) -> None:
    """Wait for another test's server to leave a port a doc names (several docs say 50051)."""
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("0.0.0.0", port))
                return
            except OSError:
                assert time.monotonic() < deadline, f"port {port} still taken after {timeout:g} s"
        time.sleep(1)


def accepts(port: int) -> bool:
    """Whether something listens on 127.0.0.1:``port``."""
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0
