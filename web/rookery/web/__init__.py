"""Rookery's web dashboard: leaderboard, crosstable, rating chart, live tables, replay viewer.

Served pages and a read-only JSON API (:class:`WebServer`, run by ``rookery serve`` in the game
server's event loop), and the same views as a static, self-contained report of an arena run
directory (:func:`render_report_pages`), and its one-page report.html (:func:`write_report`).
Public information only: see docs/web.md.

>>> from rookery.web import WebServer
>>> web = WebServer("127.0.0.1:0", server=None, runs=["runs/"])

``await web.start()``, ``web.url``, ``await web.stop()``.
"""

from ._errors import UnknownTournamentError, WebError
from ._http import WebServer
from ._model import event_json, live_table_json, replay_json
from ._pages import render_report_pages, write_report_pages
from ._report_html import write_report
from ._sources import RunDirectories, tournament_json

__all__ = [
    "RunDirectories",
    "UnknownTournamentError",
    "WebError",
    "WebServer",
    "event_json",
    "live_table_json",
    "render_report_pages",
    "replay_json",
    "tournament_json",
    "write_report",
    "write_report_pages",
]
