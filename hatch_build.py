"""A hatch build hook: the gRPC stubs (``rookery.v1``) generated from ``proto/`` into every build
(with ``rookery.v1.field_numbers``, the field numbers of the hand-made codecs).

The generated code is not committed (``make proto`` writes it to ``gen/python`` for the editable
install). A wheel or an sdist built from a clean clone would miss it and install a ``rookery``
that cannot start, so this hook runs ``grpc_tools.protoc`` (a build requirement) into a temporary
folder and adds the stubs: to the wheel as ``rookery/v1/``, to the sdist as ``gen/python/`` (the
sdist also carries ``proto/``, so a wheel built from it generates them again the same way).
The editable install is left alone: it reads ``gen/python`` itself.

A wheel also carries the native core (``rookery_core``, ``core/``, Rust) where ``cargo`` is found:
maturin builds it (one abi3 extension for CPython 3.11 and later) and the wheel takes that platform
tag instead of ``py3-none-any``. Where zig is found (pip's ``ziglang``, a dev dependency, or ``zig``
on the PATH) maturin links the core with it against glibc 2.17, ``--compatibility manylinux2014``,
and checks that no symbol needs a newer glibc: the wheel installs on any Linux of the last decade
(``cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64``). Without zig (or with
``ROOKERY_NO_ZIG=1``, or when that build fails) the core is built for this machine and says so once:
maturin then tags it with the newest glibc its symbols need (``manylinux_2_34`` on Debian 12), a
wheel for this Linux and newer ones, never a tag it does not earn. Without cargo (or when the
core's build fails) the wheel is pure, and says so once: ``rookery.engine`` then runs its
pure-Python engine, as it does wherever the core is missing (``rookery --version`` names the build
that runs).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MANYLINUX = "manylinux2014"
"""The core's Linux where zig links it: glibc 2.17 and later (PEP 599; ``manylinux_2_17``)."""
NATIVE_TAG = "the core is built for this machine's glibc, tagged with the newest its symbols need"
"""What the build says, once, when the core is not linked for manylinux2014."""


class GeneratedStubsHook(BuildHookInterface):  # type: ignore[type-arg]
    """Generates ``rookery/v1/*_pb2.py`` and ``*_pb2_grpc.py`` from ``proto/rookery/v1``."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Generate the stubs and map them into the build (not for an editable wheel)."""
        if self.target_name == "wheel" and version == "editable":
            return
        root = Path(self.root)
        protos = sorted((root / "proto" / "rookery" / "v1").glob("*.proto"))
        if not protos:
            raise RuntimeError(f"no proto files under {root / 'proto'}: cannot generate stubs")
        self._output = Path(tempfile.mkdtemp(prefix="rookery-stubs-"))
        command = [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{root / 'proto'}",
            f"--python_out={self._output}",
            f"--grpc_python_out={self._output}",
            *(str(p) for p in protos),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"protoc failed:\n{done.stdout}{done.stderr}")
        # The field numbers of the hand-made codecs (rookery/v1/field_numbers.py), as `make proto`.
        generator = root / "wire" / "generate_field_numbers.py"
        command = [sys.executable, str(generator), str(root / "proto"), str(self._output)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{generator.name} failed:\n{done.stdout}{done.stderr}")
        prefix = "" if self.target_name == "wheel" else "gen/python/"
        for path in sorted(self._output.rglob("*.py")):
            relative = path.relative_to(self._output).as_posix()
            build_data["force_include"][str(path)] = prefix + relative
        if self.target_name == "wheel":
            self._add_core(root, build_data)

    def _add_core(self, root: Path, build_data: dict[str, Any]) -> None:
        """Build the native core with maturin and put its package into the wheel, with the core
        wheel's platform tag; without cargo, or when the build fails, say so once (pure wheel)."""
        if shutil.which("cargo") is None:
            _say("no Rust toolchain (cargo) found: the wheel carries the pure engine")
            return
        env = dict(os.environ)
        if (root / "build").is_dir():  # a clone: the Makefile's cargo cache (make setup's)
            env.setdefault("CARGO_TARGET_DIR", str(root / "build" / "core-target"))
        built: Path | str = "not linked with zig"
        zig_env = _with_zig(env)
        if not sys.platform.startswith("linux"):
            pass  # manylinux is Linux's: elsewhere maturin tags the core for this system's version
        elif zig_env is None:
            _say(f"no zig found (the ziglang package, or zig on the PATH): {NATIVE_TAG}")
        else:
            built = self._build_core(root, ["--zig", "--compatibility", MANYLINUX], zig_env)
            if isinstance(built, str):
                _say(f"the core's {MANYLINUX} build with zig failed: {NATIVE_TAG}\n{built}")
        if isinstance(built, str):
            built = self._build_core(root, [], env)
        if isinstance(built, str):
            _say(f"the native core's build failed: the wheel carries the pure engine\n{built}")
            return
        unpacked = self._output / "core"
        with zipfile.ZipFile(built) as wheel:
            for name in wheel.namelist():
                if name.startswith("rookery_core/"):
                    wheel.extract(name, unpacked)
        for path in sorted((unpacked / "rookery_core").rglob("*")):
            if path.is_file():
                build_data["force_include"][str(path)] = path.relative_to(unpacked).as_posix()
        # rookery_core-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl: the tag
        # (a compressed tag set, which hatchling writes out one Tag line each) after the version.
        build_data["tag"] = built.stem.split("-", 2)[2]
        build_data["pure_python"] = False

    def _build_core(self, root: Path, options: list[str], env: dict[str, str]) -> Path | str:
        """The core's wheel built by maturin with ``options``, or the tail of its failed build."""
        core_wheels = Path(tempfile.mkdtemp(prefix="core-wheel-", dir=self._output))
        command = [
            sys.executable, "-m", "maturin", "build", "--release", "--locked", *options,
            "-m", str(root / "core" / "Cargo.toml"), "-o", str(core_wheels), "-i", sys.executable,
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        built = sorted(core_wheels.glob("rookery_core-*.whl"))
        if done.returncode != 0 or len(built) != 1:
            return "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        return built[0]

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the temporary folder of the generated stubs."""
        output = getattr(self, "_output", None)
        if output is not None:
            shutil.rmtree(output, ignore_errors=True)


def _with_zig(env: dict[str, str]) -> dict[str, str] | None:
    """``env`` for maturin's ``--zig``: zig from pip's ``ziglang`` in this interpreter (the pinned
    dev dependency) or ``zig`` on the PATH; None where there is none or ``ROOKERY_NO_ZIG=1``."""
    if env.get("ROOKERY_NO_ZIG") == "1":
        return None
    if importlib.util.find_spec("ziglang") is not None:
        return dict(env, CARGO_ZIGBUILD_PYTHON_PATH=sys.executable)  # `python -m ziglang`
    return dict(env) if shutil.which("zig", path=env.get("PATH")) is not None else None


def _say(message: str) -> None:
    """One line of the build's output about the native core."""
    print(f"rookery-arena: {message}", file=sys.stderr, flush=True)
