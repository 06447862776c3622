"""A bot that says which process it is at every table it joins (the warm-lane tests).

Each process draws a name of its own when it starts and prints ``LANE <process> <table id>`` to
its log at every table joined; it plays the first legal action.
"""

from __future__ import annotations

import secrets
import sys

from rookery.client import Bot, Table
from rookery.engine import Action, Observation

PROCESS = secrets.token_hex(6)


class LaneWitness(Bot):
    """Names its process at each table; plays the first legal action."""

    def on_table_joined(self, table: Table) -> None:
        sys.stderr.write(f"LANE {PROCESS} {table.table_id}\n")
        sys.stderr.flush()

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions()[0]
