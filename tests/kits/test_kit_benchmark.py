"""docs/benchmark.md's line for a bot in another language, as printed: the Go kit's sample bot,
launched by the arena in its sandbox, is benchmarked against the heuristic on the deal set's first
20 deals, every game dealt the set's cards and kept in the run directory."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from kit_support import KITS, REPO, build_kit
from rookery.arena.records import RunStore

BUILD_TIMEOUT_S = 900.0
DOC = REPO / "docs" / "benchmark.md"


def _line() -> str:
    (line,) = [
        row
        for row in DOC.read_text(encoding="utf-8").splitlines()
        if row.startswith("rookery benchmark mybot=clients/go/")
    ]
    return line


def test_the_docs_go_bot_line_benchmarks_the_kits_bot_in_the_sandbox(tmp_path: Path) -> None:
    line = _line()
    _, program = KITS["go"]
    build_kit("go", timeout=BUILD_TIMEOUT_S)
    assert f"mybot={program.relative_to(REPO)}" in line, (line, program)
    # A checkout's folder whose clients/ is this checkout's, so that its runs stay out of it.
    checkout = tmp_path / "rookery"
    checkout.mkdir(mode=0o755)
    (checkout / "clients").symlink_to(REPO / "clients", target_is_directory=True)
    venv = Path(sys.executable).parent
    done = subprocess.run(
        ["bash", "-c", line], cwd=checkout, capture_output=True, text=True, timeout=600,
        env={"PATH": f"{venv}:/usr/bin:/bin", "HOME": str(tmp_path)}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sandbox: bubblewrap" in done.stderr, done.stderr
    row = re.search(r"^mybot +heuristic +20 +([+-]\d+\.\d) +±(\d+\.\d) ", done.stdout, re.M)
    assert row, done.stdout
    (run_dir,) = (checkout / "runs").glob("benchmark-mybot-heuristic-*")
    with RunStore(run_dir) as store:
        (tournament,) = store.tournaments()
        games = store.games(tournament.tournament_id)
    assert len(games) == 40 and sorted({g.seed for g in games}) == list(range(20)), games
    assert all(g.termination in ("MAX_HANDS", "TARGET_REACHED") for g in games), games
