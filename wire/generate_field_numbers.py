"""Generate ``rookery/v1/field_numbers.py``: every message's field numbers, from the .proto files.

Run by ``make proto`` (``python wire/generate_field_numbers.py proto gen/python``) beside protoc's
stubs, and by the wheel's build hook (``hatch_build.py``). The hand-made protobuf codecs
(``rookery.wire.fastpath``) take their field numbers from the generated module, so that no module
holds a literal field number and a renumbered field in the contract is a regenerated constant,
not a silent misreading. The numbers come from protoc's own parse of the contract (a descriptor
set), one class per message (nested messages as nested classes), one constant per field::

    class ActionRequest:
        TABLE_ID: Final = 1

With ``--rust FILE`` it also writes the same numbers as a Rust module for the native core, which
writes the servers' action requests (``core/src/field_numbers.rs``, one ``pub mod`` per message,
``pub mod action_request { pub const TABLE_ID: u32 = 1; … }``). That file is committed (the core
builds from a clean clone and from the sdist without protoc); ``tests/wire`` holds it equal to
this generator's output.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

MODULE = Path("rookery") / "v1" / "field_numbers.py"
"""Where the module goes under the output folder (beside the generated stubs)."""


def descriptor_set(proto_root: Path) -> descriptor_pb2.FileDescriptorSet:
    """protoc's parse of every ``rookery/v1/*.proto`` under ``proto_root``."""
    protos = sorted((proto_root / "rookery" / "v1").glob("*.proto"))
    if not protos:
        raise SystemExit(f"no .proto files under {proto_root / 'rookery' / 'v1'}")
    with tempfile.TemporaryDirectory(prefix="rookery-fields-") as folder:
        out = Path(folder) / "set.pb"
        command = [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{proto_root}",
            f"--descriptor_set_out={out}",
            *(str(path) for path in protos),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"protoc failed:\n{done.stdout}{done.stderr}")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _message_lines(message: descriptor_pb2.DescriptorProto, source: str, indent: str) -> list[str]:
    lines = [f"{indent}class {message.name}:", f'{indent}    """``{message.name}`` ({source})."""']
    if message.field:
        lines.append("")
    lines += [f"{indent}    {one.name.upper()}: Final = {one.number}" for one in message.field]
    for nested in message.nested_type:
        if nested.options.map_entry:
            continue
        lines += ["", *_message_lines(nested, source, indent + "    ")]
    return lines


def module_text(files: descriptor_pb2.FileDescriptorSet) -> str:
    """The generated module's source."""
    lines = [
        '"""The field numbers of every message of proto/rookery/v1, for the hand-made codecs',
        "(rookery.wire.fastpath). Generated from the .proto files by `make proto`",
        '(wire/generate_field_numbers.py): never edit it."""',
        "",
        "from typing import Final",
    ]
    for proto in sorted(files.file, key=lambda f: f.name):
        source = Path(proto.name).name
        for message in proto.message_type:
            lines += ["", "", *_message_lines(message, source, "")]
    return "\n".join(lines) + "\n"


def _snake(name: str) -> str:
    """``ActionRequest`` -> ``action_request``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _rust_lines(message: descriptor_pb2.DescriptorProto, source: str, indent: str) -> list[str]:
    module = _snake(message.name)
    lines = [f"{indent}/// `{message.name}` ({source}).", f"{indent}pub mod {module} {{"]
    lines += [f"{indent}    pub const {f.name.upper()}: u32 = {f.number};" for f in message.field]
    for nested in message.nested_type:
        if not nested.options.map_entry:
            lines += _rust_lines(nested, source, indent + "    ")
    if len(lines) == 2:  # no field: as rustfmt writes it
        return [lines[0], lines[1] + "}"]
    return [*lines, f"{indent}}}"]


def rust_text(files: descriptor_pb2.FileDescriptorSet) -> str:
    """The generated Rust module's source (the same numbers as :func:`module_text`)."""
    lines = [
        "//! The field numbers of every message of proto/rookery/v1, for the core's protobuf",
        "//! writer (`requests`). Generated from the .proto files by `make proto`",
        "//! (wire/generate_field_numbers.py --rust): never edit it.",
    ]
    for proto in sorted(files.file, key=lambda f: f.name):
        source = Path(proto.name).name
        for message in proto.message_type:
            lines += ["", *_rust_lines(message, source, "")]
    return "\n".join(lines) + "\n"


def generate(proto_root: Path, out_root: Path) -> Path:
    """Write the module under ``out_root``; its path."""
    target = out_root / MODULE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(module_text(descriptor_set(proto_root)), encoding="utf-8")
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("proto_root", type=Path, help="the folder holding rookery/v1/*.proto")
    parser.add_argument("out_root", type=Path, help="the folder of the generated stubs")
    parser.add_argument("--rust", type=Path, help="also write the numbers as this Rust module")
    args = parser.parse_args()
    generate(args.proto_root, args.out_root)
    if args.rust is not None:
        args.rust.write_text(rust_text(descriptor_set(args.proto_root)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
