"""A fresh clone of this checkout: the files git tracks or would track, nothing generated."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def fresh_clone(root: Path, where: Path) -> Path:
    """Copy the checkout at ``root`` to ``where`` as a clone has it (no venv, stubs or builds)."""
    listing = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    for name in filter(None, listing.decode().split("\0")):
        source = root / name
        if source.is_file():
            target = where / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    assert not (where / "gen").exists() and not (where / ".venv").exists()
    return where
