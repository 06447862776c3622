"""Saving a page's screenshot for people to look at (``tests/web/artifacts``).

Headless Chromium on a loaded machine now and then refuses a capture (``Page.captureScreenshot``:
"Unable to capture screenshot") while the page itself is fine: that is retried, a few times, and
any other error fails the test as before. A screenshot is an artifact, never what a test asserts.
"""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Error, Page

ATTEMPTS = 4
"""Captures tried before the refusal fails the test."""


def save_screenshot(page: Page, path: Path, *, full_page: bool = False) -> None:
    """``page.screenshot`` to ``path``, tried again when Chromium refuses the capture."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            page.screenshot(path=str(path), full_page=full_page)
            return
        except Error as error:
            if "Unable to capture screenshot" not in str(error) or attempt == ATTEMPTS:
                raise
            time.sleep(0.5 * attempt)
