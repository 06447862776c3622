"""docs/dev/architecture.md names only modules that exist: every file or folder it lists in a
component's room (`_table.py`, `fastpath/`) is in that component's folder, and every
`rookery.x.y` it names is a module of the tree (or a name its module defines)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "dev" / "architecture.md"

#: The folder of each component under the `rookery` namespace (as the layer test has them).
FOLDERS: dict[str, str] = {
    "engine": "engine",
    "wire": "wire",
    "server": "server",
    "arena": "arena",
    "web": "web",
    "client": "clients/python",
    "envs": "envs",
    "cli": "cli",
}
#: Names that are not files of the tree: generated (`make proto`) or a placeholder in prose.
_NOT_FILES = {"rookery.v1", "rookery.X"}

_SECTION = re.compile(r"^###\s+\S+\s+—\s+`([^`]+)`", re.MULTILINE)
_HEADING = re.compile(r"^#{2,3}\s", re.MULTILINE)
_FILE = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*(?:\.py|/))`")
_DOTTED = re.compile(r"`(rookery\.[A-Za-z0-9_.]+)`")


def _rooms(text: str) -> list[tuple[str, str]]:
    """Each room's folder (``### server — `server/rookery/server/` ...``) and its text."""
    rooms = []
    for match in _SECTION.finditer(text):
        following = _HEADING.search(text, match.end())
        end = following.start() if following is not None else len(text)
        rooms.append((match.group(1), text[match.end() : end]))
    return rooms


def _named_files(folder: Path, body: str) -> list[str]:
    """The files and folders ``body`` names that no file or folder of ``folder`` is called."""
    present = {path.name for path in folder.rglob("*")}
    missing = []
    for name in sorted(set(_FILE.findall(body))):
        if name.rstrip("/") not in present:
            missing.append(name)
    return missing


def _module_exists(dotted: str) -> bool:
    """Whether ``rookery.component.a.b`` is a module of the tree, or a name its deepest module
    (or package) defines."""
    parts = dotted.split(".")
    folder = FOLDERS.get(parts[1])
    if folder is None:
        return False
    base = ROOT / folder / "rookery"
    for length in range(len(parts), 1, -1):
        path = base.joinpath(*parts[1:length])
        source = path.with_suffix(".py")
        if not source.is_file():
            source = path / "__init__.py"
        if not source.is_file():
            continue
        rest = parts[length:]
        if not rest:
            return True
        pattern = rf"\b{re.escape(rest[0])}\b"
        return len(rest) == 1 and re.search(pattern, source.read_text()) is not None
    return False


def test_every_file_a_room_lists_is_in_its_folder() -> None:
    rooms = _rooms(PAGE.read_text(encoding="utf-8"))
    assert len(rooms) >= 8, "the page's rooms (### name — `folder/`) were not found"
    missing = {
        folder: names for folder, body in rooms if (names := _named_files(ROOT / folder, body))
    }
    assert not missing, f"architecture.md names files its rooms do not have: {missing}"


def test_every_rookery_module_the_page_names_exists() -> None:
    names = set(_DOTTED.findall(PAGE.read_text(encoding="utf-8")))
    assert "rookery.wire.fastpath" in names or names, "no rookery.* name found on the page"
    missing = sorted(
        name
        for name in names
        if not any(name == skip or name.startswith(skip + ".") for skip in _NOT_FILES)
        and not _module_exists(name)
    )
    assert not missing, f"architecture.md names modules that do not exist: {missing}"


def test_a_missing_module_is_caught(tmp_path: Path) -> None:
    """The checks find a name with no file (so that they are not vacuous)."""
    assert _named_files(ROOT / "server" / "rookery" / "server", "- `_no_such_room.py`: x") == [
        "_no_such_room.py"
    ]
    assert not _module_exists("rookery.server._no_such_room")
    assert not _module_exists("rookery.wire.fastpath.no_such_name_anywhere")
    assert _module_exists("rookery.wire.fastpath")
    assert _module_exists("rookery.client.Bot")
