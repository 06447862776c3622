"""Rookery's wire layer: engine ↔ proto conversion (``rookery.wire.convert``) and replays
(``rookery.wire.replay``: building, writing, reading and verifying replay files).

Everything is imported from its module: ``from rookery.wire.convert import action_from_proto``.
Errors live in the leaf module ``rookery.wire.errors``.
"""
