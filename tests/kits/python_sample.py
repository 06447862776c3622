"""The kits' sample bot, written with the Python SDK: the conformance suite runs it beside the
five kits' own. It notes every reply (``sample: …`` with ``hand_cards``, the number of cards it
held), and ``ROOKERY_SAMPLE_FAULT`` makes it fail on purpose (docs/dev/kit-contract.md): ``raise``
raises in ``act``, ``illegal`` answers an illegal bid."""

from __future__ import annotations

import os

from rookery.client import Bot
from rookery.engine import Action, Bid, Observation


class SampleBot(Bot):
    """The first legal action, noted; or the failure ``ROOKERY_SAMPLE_FAULT`` names."""

    def act(self, observation: Observation) -> Action:
        fault = os.environ.get("ROOKERY_SAMPLE_FAULT", "")
        if fault == "raise":
            raise RuntimeError("the sample bot fails on purpose (ROOKERY_SAMPLE_FAULT=raise)")
        if fault == "illegal":
            return Bid(1)
        self.note("sample: the first legal action", hand_cards=observation.hand.bit_count())
        return observation.legal_actions()[0]
