"""HTML pages: one self-contained shell (inline CSS, JS and SVG, no external asset) that either
fetches the JSON API (served pages) or reads the data embedded in it (the static report)."""

from __future__ import annotations

import functools
import html
import json
import os
from pathlib import Path
from typing import Any

from rookery.arena.records import RunData
from rookery.wire.documents import JsonValue
from rookery.wire.replay import read_replay

from ._model import replay_json
from ._sources import load_run_readonly, tournament_json

__all__ = ["page_html", "render_report_pages", "write_report_pages"]

JSON = dict[str, Any]

_ASSETS = Path(__file__).with_name("assets")

#: The static report embeds at most this many replays by default (one page each).
MAX_REPLAY_PAGES = 500


@functools.cache
def _asset(name: str) -> str:
    return (_ASSETS / name).read_text(encoding="utf-8")


def _script_json(value: JsonValue) -> str:
    """JSON that is safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_html(title: str, boot: JSON, data: JsonValue = None) -> str:
    """One page: ``boot`` tells the script which view to draw and where its data comes from
    (``mode`` ``live``: the JSON API; ``static``: ``data``, embedded in the page)."""
    embedded = (
        f'<script type="application/json" id="rookery-data">{_script_json(data)}</script>\n'
        if data is not None
        else ""
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{_asset('app.css')}</style>\n"
        "</head><body>\n"
        '<header class="top"><a class="brand" id="home-link" href="#">Rookery</a>'
        '<nav id="crumbs"></nav></header>\n'
        '<main id="app"><noscript>This page needs JavaScript.</noscript></main>\n'
        f'<script type="application/json" id="rookery-boot">{_script_json(boot)}</script>\n'
        f"{embedded}"
        f"<script>{_asset('app.js')}</script>\n"
        "</body></html>\n"
    )


def _relative(path: Path, start: Path) -> str:
    """``path`` as a link from a page in ``start`` (forward slashes)."""
    return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()


def render_report_pages(
    source: str | Path | RunData,
    *,
    tournament_id: str | None = None,
    max_replays: int = MAX_REPLAY_PAGES,
    out_dir: str | Path | None = None,
) -> dict[str, str]:
    """The static report's pages of a run directory (or of ``RunData``), by relative file name.

    ``index.html`` is the leaderboard, crosstable, rating chart, progress and games, and
    ``replays/<game_id>.html`` the replay viewer of each of the first ``max_replays`` games that
    have a replay. Every page is self-contained (the data embedded as JSON); write them all into
    one folder (``write_report_pages``) so that the links between them work. ``out_dir`` is
    that folder (default ``<run_dir>/web``): the links to the replay files and to the arena's
    ``report.html`` are relative to it.
    """
    data = source if isinstance(source, RunData) else load_run_readonly(source, tournament_id)
    target = Path(out_dir) if out_dir is not None else data.run_dir / "web"
    view = tournament_json(data)
    pages: dict[str, str] = {}
    made = 0
    paged: set[str] = set()
    for game, row in zip(view["game_list"], data.games, strict=True):
        game["replay_page"] = False
        if made >= max_replays or not game["has_replay"]:
            continue
        if (data.run_dir / row.replay_path).is_file():
            game["replay_page"] = True
            paged.add(row.game_id)
            made += 1
    for game, row in zip(view["game_list"], data.games, strict=True):
        if not game["replay_page"]:
            continue
        path = data.run_dir / row.replay_path
        replay = replay_json(read_replay(path), row.game_id)
        replay["twin"] = game["twin"] if game["twin"] in paged else None
        title = f"{row.game_id} — {data.tournament.name} — Rookery replay"
        boot = {
            "mode": "static",
            "view": "replay",
            "home": "../index.html",
            "download": _relative(path, target / "replays"),
        }
        pages[f"replays/{row.game_id}.html"] = page_html(title, boot, replay)
    boot = {
        "mode": "static",
        "view": "tournament",
        "replays": "replays/",
        "report": _relative(data.run_dir / "report.html", target),
    }
    title = f"{data.tournament.name} — Rookery tournament"
    return {"index.html": page_html(title, boot, view), **pages}


def write_report_pages(
    run_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    tournament_id: str | None = None,
    max_replays: int = MAX_REPLAY_PAGES,
) -> list[Path]:
    """Write :func:`render_report_pages` into ``out_dir`` (default ``<run_dir>/web``)."""
    target = Path(out_dir) if out_dir is not None else Path(run_dir) / "web"
    written = []
    pages = render_report_pages(
        run_dir, tournament_id=tournament_id, max_replays=max_replays, out_dir=target
    )
    for name, text in pages.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
