"""`rookery play`: a local server and its /play page, as a real process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("rookery")


def test_play_serves_the_page_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(
        [str(_SCRIPT), "play", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("rookery play: http://127.0.0.1:"), line
        url = line.split()[2]
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200 and b'"view":"setup"' in page.read()
        with urllib.request.urlopen(url.replace("/play", "/api/play"), timeout=10) as answer:
            choices = json.loads(answer.read())
        assert choices["reference_bots"] == ["heuristic", "pimc", "random"]
        assert choices["token_mode"] is False
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "Traceback" not in err
