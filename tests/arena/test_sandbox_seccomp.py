"""The seccomp filter's program: built for both architectures it knows, none for the others."""

from __future__ import annotations

import struct

from rookery.arena import _seccomp


def test_the_filter_is_built_for_x86_64_and_aarch64_and_ends_in_returns() -> None:
    for machine in ("x86_64", "aarch64"):
        code = _seccomp.program(machine)
        assert code and len(code) % 8 == 0
        instructions = [struct.unpack("<HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
        assert instructions[-1][0] == 0x06  # a return: no path runs off the end
        assert len(instructions) < 4096  # the kernel's BPF_MAXINSNS


def test_an_unknown_architecture_gets_no_filter() -> None:
    assert _seccomp.program("riscv64") == b""
