"""Submitted folders: archives that would write outside their folder or hold links are refused,
and a folder hashes the same whether it is sent as an archive or copied from disk."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from league_helpers import mix_folder
from rookery.arena.league.submissions import (
    content_sha256,
    copy_folder,
    pack_folder,
    unpack_archive,
)


def _archive(*members: tarfile.TarInfo, data: bytes = b"x") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            member.size = len(data) if member.isfile() else 0
            archive.addfile(member, io.BytesIO(data) if member.isfile() else None)
    return buffer.getvalue()


def test_an_archive_escaping_its_folder_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "unpacked"
    target.mkdir()
    escape = tarfile.TarInfo("../../escaped.txt")
    with pytest.raises(ValueError, match="archive"):
        unpack_archive(_archive(escape), target)
    assert not (tmp_path / "escaped.txt").exists()
    assert not (tmp_path.parent / "escaped.txt").exists()


def test_an_archive_with_a_link_is_refused(tmp_path: Path) -> None:
    link = tarfile.TarInfo("passwd")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    with pytest.raises(ValueError, match="links and devices are refused"):
        unpack_archive(_archive(link), tmp_path)
    assert not (tmp_path / "passwd").exists()


def test_a_folder_sent_or_copied_hashes_the_same(tmp_path: Path) -> None:
    source = mix_folder(tmp_path, "bot", 0.5)
    sent, copied = tmp_path / "sent", tmp_path / "copied"
    sent.mkdir()
    copied.mkdir()
    unpack_archive(pack_folder(source), sent)
    copy_folder(source, copied)
    assert content_sha256(sent) == content_sha256(copied) == content_sha256(source)
    (copied / "strength.txt").write_text("0.6\n")
    assert content_sha256(copied) != content_sha256(sent)
