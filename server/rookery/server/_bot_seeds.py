"""Per-seat bot seeds: the seed a bot may use for its own randomness in one game.

A bot that draws random numbers plays the same game again only if its generator starts from the
same seed. The server sends each seat a seed in ``TableJoined.bot_seed``, derived from the game's
seed, its game number and the seat by keyed BLAKE2b (a pseudorandom function): without the key it
tells nothing of the game seed, hence nothing of the deals. The arena keys it with a secret of the
tournament, so the same tournament config and seed give every seat the same bot seed on any
backend and across a resume; other tables use the server's own random key.
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["bot_seed", "new_bot_seed_key"]

#: Bytes of a bot-seed key (BLAKE2b takes up to 64).
KEY_BYTES = 32
_SEED_MASK = (1 << 53) - 1


def new_bot_seed_key() -> bytes:
    """A fresh random key (a server's own, for tables that bring none)."""
    return secrets.token_bytes(KEY_BYTES)


def bot_seed(key: bytes, game_seed: int, game_number: int, seat: int) -> int:
    """The bot seed of ``seat`` in the game: 53 bits, never 0 (0 means "none sent").

    53 bits, so that every kit holds it exactly (a JavaScript number included).

    >>> bot_seed(b"k" * 32, 7, 0, 1) == bot_seed(b"k" * 32, 7, 0, 1) != bot_seed(b"k" * 32, 7, 0, 2)
    True
    """
    message = f"rookery-bot-seed:{game_seed}:{game_number}:{seat}".encode()
    digest = hashlib.blake2b(message, key=key, digest_size=8).digest()
    return (int.from_bytes(digest, "little") & _SEED_MASK) or 1
