"""Build a git ref of Rookery as it was, once, for the benchmarks that compare against it.

Run: ``python bench/baseline_tree.py [REF]`` (REF defaults to ``d917ed0``, issue 42's base
commit); ``make bench`` runs it first. The commit's files are exported (``git archive``) to
``build/baseline-<commit>/``, its gRPC stubs generated from its own ``proto/`` into
``gen/python``, and its mypyc builds run as its ``make setup`` ran them (``compile_engine.py``,
``compile_wire.py``, ``compile_playouts.py``, ``compile_client.py``, ``compile_server.py``,
those the commit has), with this venv's Python, mypy and mypyc. A build that leaves a module
uncompiled (no C compiler, say) is an error here, not a silent pure baseline. A stamp written
last marks the tree finished: the next call returns at once. The last line printed is the tree's
path; ``bench/build_runs.py``'s ``tree_environment`` runs its packages.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from build_runs import tree_environment

ROOT = Path(__file__).resolve().parent.parent
#: Issue 42's base commit: "today's" build that its figures compare with.
DEFAULT_REF = "d917ed0"
#: Written last into a finished tree (the commit and the seconds its build took).
STAMP = ".rookery-baseline.json"
#: A ref's mypyc builds, in its ``make setup``'s order: the script, and the manifest it writes
#: when it compiled (a build without a compiler exits 0 without one).
COMPILES = (
    ("engine/compile_engine.py", "engine/rookery/engine/_native.json"),
    ("wire/compile_wire.py", "wire/rookery/wire/_native.json"),
    ("clients/python/compile_playouts.py", "clients/python/rookery/client/bots/_native.json"),
    ("clients/python/compile_client.py", "clients/python/rookery/client/_native.json"),
    ("server/compile_server.py", "server/rookery/server/_native.json"),
)


class BaselineError(Exception):
    """The baseline could not be built (a bad ref, a failed step), with the reason."""


def commit_of(ref: str, root: Path = ROOT) -> str:
    """The full commit id ``ref`` names in the repository at ``root``."""
    if not ref or ref.startswith("-"):
        raise BaselineError(f"baseline ref {ref!r}: not a git ref")
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise BaselineError(f"baseline ref {ref!r}: no such commit in {root}")
    return done.stdout.strip()


def tree_path(commit: str, root: Path = ROOT) -> Path:
    """Where the baseline of ``commit`` is built."""
    return root / "build" / f"baseline-{commit[:7]}"


def _step(command: list[str], cwd: Path, env: dict[str, str], log: list[str]) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    log.append(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        raise BaselineError(f"{' '.join(command)} failed in {cwd}:\n{done.stdout}{done.stderr}")


def _generate_stubs(tree: Path, env: dict[str, str], log: list[str]) -> None:
    protos = sorted(str(p.relative_to(tree)) for p in (tree / "proto").rglob("*.proto"))
    if not protos:
        raise BaselineError(f"{tree}: the commit has no proto/*.proto")
    (tree / "gen" / "python").mkdir(parents=True)
    bin_dir = Path(sys.executable).parent
    command = [sys.executable, "-m", "grpc_tools.protoc", "-I", "proto"]
    command += ["--python_out=gen/python", "--grpc_python_out=gen/python"]
    command += [f"--plugin=protoc-gen-mypy={bin_dir / 'protoc-gen-mypy'}", "--mypy_out=gen/python"]
    command += [f"--plugin=protoc-gen-mypy_grpc={bin_dir / 'protoc-gen-mypy_grpc'}"]
    _step([*command, "--mypy_grpc_out=gen/python", *protos], tree, env, log)


def _build_into(partial: Path, commit: str, root: Path, log: list[str]) -> None:
    """Export ``commit`` to ``partial``, generate its stubs and run its mypyc builds there."""
    command = ["git", "-C", str(root), "archive", "--format=tar", commit]
    archive = subprocess.run(command, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(partial, filter="data")
    env = {k: v for k, v in os.environ.items() if k != "ROOKERY_PURE_ENGINE"}
    env["PYTHONPATH"] = ""
    _generate_stubs(partial, env, log)
    env.update(tree_environment(partial))  # the compile scripts import the tree's own packages
    for script, manifest in COMPILES:
        if not (partial / script).is_file():
            continue
        started = time.monotonic()
        _step([sys.executable, script], partial, env, log)
        if not (partial / manifest).is_file():
            raise BaselineError(f"{script} compiled nothing (no C compiler, no mypyc?):\n{log[-1]}")
        print(f"  {script}: {time.monotonic() - started:.1f} s", flush=True)


def build(ref: str = DEFAULT_REF, root: Path = ROOT) -> Path:
    """The built tree of ``ref`` (built now unless a finished one is there); says how long."""
    commit = commit_of(ref, root)
    tree = tree_path(commit, root)
    stamp = tree / STAMP
    if stamp.is_file():
        took = json.loads(stamp.read_text())["took_s"]
        print(f"baseline {ref} ({commit[:7]}): {tree}, built before (in {took:.0f} s)", flush=True)
        return tree
    started = time.monotonic()
    print(f"baseline {ref} ({commit[:7]}): building {tree} (a few minutes)", flush=True)
    partial = tree.with_name(tree.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    log: list[str] = []
    try:
        _build_into(partial, commit, root, log)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)  # a failed build leaves nothing behind
        raise
    took = time.monotonic() - started
    (partial / "build.log").write_text("\n".join(log))
    (partial / STAMP).write_text(json.dumps({"ref": ref, "commit": commit, "took_s": took}))
    shutil.rmtree(tree, ignore_errors=True)
    partial.rename(tree)
    print(f"baseline {ref} ({commit[:7]}): built in {took:.0f} s", flush=True)
    return tree


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    options.add_argument("ref", nargs="?", default=DEFAULT_REF, help="a commit, tag or branch")
    args = options.parse_args(argv)
    try:
        tree = build(args.ref)
    except BaselineError as error:
        print(f"baseline_tree: {error}", file=sys.stderr)
        return 2
    print(tree)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
