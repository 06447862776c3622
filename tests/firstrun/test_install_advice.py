"""Install advice names what a user can run: the distribution ``rookery-arena``, not ``rookery``.

``rookery`` on the package index is another project, and a pip user has no Makefile: the extras
are ``rookery-arena[rl]``, ``[fast]``, ``[ray]``, and the pure engine's reason says that pip
installs it so (``make setup`` compiles it in a clone).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

#: An extra (rl, fast, ray, dev) on a distribution called ``rookery``, not ``rookery-arena``.
_WRONG_EXTRA = re.compile(r"(?<![\w-])rookery\[(?:rl|fast|ray|dev)\]")

#: ``rookery envs check`` with PettingZoo made unimportable, as without the rl extra.
_WITHOUT_RL = """\
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pettingzoo", "gymnasium", "pyspiel"):
            raise ImportError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, Missing())
from rookery.cli.main import main
sys.exit(main(["envs", "check"]))
"""


def test_no_file_names_the_extras_of_a_distribution_called_rookery(root: Path) -> None:
    listing = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    wrong = []
    for name in filter(None, listing.split("\0")):
        path = root / name
        if path.suffix in (".py", ".md", ".toml", ".txt") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            wrong += [f"{name}: {m.group(0)}" for m in _WRONG_EXTRA.finditer(text)]
    assert wrong == []


def test_envs_check_without_the_rl_extra_names_the_distribution() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_RL], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'rookery-arena[rl]'" in done.stderr, done.stderr
