"""Takes the screenshots of docs/web.md: the replay viewer (desktop and phone) and the
tournament page, from a short demo tournament of the reference bots, in Debian's Chromium.

    .venv/bin/python docs/img/take_screenshots.py            # about a minute on two cores
    .venv/bin/python docs/img/take_screenshots.py RUN_DIR    # from an existing arena run

The PNGs are written next to this script.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import ViewportSize, sync_playwright
from rookery.arena.records import load_run
from rookery.web import write_report_pages
from rookery.wire.replay import read_replay

HERE = Path(__file__).parent
CHROMIUM = "/usr/bin/chromium"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


def _demo(out: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "rookery.cli.main",
            "demo",
            "--out",
            str(out),
            "--games",
            "2",
            "--seed",
            "5",
        ],
        check=True,
    )
    return out


def _shoot(run_dir: Path) -> list[Path]:
    pages = run_dir / "web"
    write_report_pages(run_dir, pages)
    data = load_run(run_dir)
    game = max(data.games, key=lambda g: (g.hands_played, -g.index))
    hands = read_replay(run_dir / game.replay_path).hands
    hand = next(h.hand_number for h in hands if h.HasField("result") and not h.result.redeal)
    replay = (pages / "replays" / f"{game.game_id}.html").as_uri()
    shots = [
        ("replay-viewer.png", f"{replay}#hand={hand}&trick=6&seat=all", DESKTOP, False),
        ("replay-viewer-phone.png", f"{replay}#hand={hand}&trick=6&seat=all", PHONE, False),
        ("replay-viewer-deal.png", f"{replay}#hand={hand}&step=999", DESKTOP, True),
        ("tournament.png", (pages / "index.html").as_uri(), DESKTOP, False),
    ]
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        for name, url, viewport, full in shots:
            phone = viewport is PHONE
            context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("main h1")
            if full:  # the end of the hand: the deal table, below the felt
                page.locator("#deal").scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            path = HERE / name
            page.screenshot(path=str(path))
            written.append(path)
            context.close()
        browser.close()
    return written


def main() -> None:
    if len(sys.argv) > 1:
        paths = _shoot(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory(prefix="rookery-shots-") as tmp:
            paths = _shoot(_demo(Path(tmp) / "demo"))
    for path in paths:
        print(path)


if __name__ == "__main__":
    main()
