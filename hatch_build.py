"""A hatch build hook: the gRPC stubs (``rookery.v1``) generated from ``proto/`` into every build
(with ``rookery.v1.field_numbers``, the field numbers of the hand-made codecs).

The generated code is not committed (``make proto`` writes it to ``gen/python`` for the editable
install). A wheel or an sdist built from a clean clone would miss it and install a ``rookery``
that cannot start, so this hook runs ``grpc_tools.protoc`` (a build requirement) into a temporary
folder and adds the stubs: to the wheel as ``rookery/v1/``, to the sdist as ``gen/python/`` (the
sdist also carries ``proto/``, so a wheel built from it generates them again the same way).
The editable install is left alone: it reads ``gen/python`` itself.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


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

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the temporary folder of the generated stubs."""
        output = getattr(self, "_output", None)
        if output is not None:
            shutil.rmtree(output, ignore_errors=True)
