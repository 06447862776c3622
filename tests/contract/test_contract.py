"""The wire contract: generated stubs import, are typed, and cover every rules parameter."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import rookery.v1
from rookery.engine import Ruleset
from rookery.v1 import ruleset_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto" / "rookery" / "v1"


def test_every_proto_file_has_generated_message_and_service_modules() -> None:
    protos = sorted(p.stem for p in PROTO_DIR.glob("*.proto"))
    modules = {m.name for m in pkgutil.iter_modules(rookery.v1.__path__)}
    for stem in protos:
        assert f"{stem}_pb2" in modules
        assert f"{stem}_pb2_grpc" in modules
        importlib.import_module(f"rookery.v1.{stem}_pb2")
        importlib.import_module(f"rookery.v1.{stem}_pb2_grpc")


def test_services_are_generated_with_stubs_and_servicers() -> None:
    from rookery.v1 import arena_service_pb2_grpc, bot_service_pb2_grpc, spectator_service_pb2_grpc

    assert hasattr(bot_service_pb2_grpc, "BotServiceStub")
    assert hasattr(bot_service_pb2_grpc, "BotServiceServicer")
    assert hasattr(spectator_service_pb2_grpc, "SpectatorServiceStub")
    assert hasattr(arena_service_pb2_grpc, "ArenaServiceStub")


def test_proto_ruleset_carries_every_engine_ruleset_parameter() -> None:
    proto_fields = set(ruleset_pb2.Ruleset.DESCRIPTOR.fields_by_name)
    engine_fields = {f.name for f in dataclasses.fields(Ruleset) if f.init}
    assert engine_fields <= proto_fields, engine_fields - proto_fields


def test_generated_type_stubs_catch_a_wrong_field_type(tmp_path: Path) -> None:
    """The .pyi stubs are real types: mypy rejects a string where an int field is expected."""
    good = tmp_path / "good.py"
    good.write_text(
        textwrap.dedent(
            """
            from rookery.v1 import actions_pb2, cards_pb2
            card = cards_pb2.Card(suit=cards_pb2.SUIT_RED, rank=14)
            action = actions_pb2.Action(play_card=actions_pb2.PlayCard(card=card))
            kind: str | None = action.WhichOneof("kind")
            amount: int = actions_pb2.Bid(amount=80).amount
            """
        )
    )
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from rookery.v1 import actions_pb2\nactions_pb2.Bid(amount='eighty')\n",
    )
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", ""]
    env_path = str(ROOT / "gen" / "python")
    ok = subprocess.run(
        [*mypy, str(good)],
        capture_output=True,
        text=True,
        env={"MYPYPATH": env_path, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    ko = subprocess.run(
        [*mypy, str(bad)],
        capture_output=True,
        text=True,
        env={"MYPYPATH": env_path, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert ko.returncode == 1
    assert 'Argument "amount" to "Bid" has incompatible type "str"' in ko.stdout


def test_console_script_has_help_and_version() -> None:
    exe = Path(sys.executable).parent / "rookery"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("rookery ")
    helptext = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=True)
    assert "usage: rookery" in helptext.stdout
