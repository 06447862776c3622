"""What a resumed run checks of the run it continues."""

from __future__ import annotations

from pathlib import Path

from rookery.arena._config_model import TournamentConfig
from rookery.arena.errors import StorageError
from rookery.arena.records._storage import RunStore

__all__ = ["check_commands"]


def check_commands(
    store: RunStore, config: TournamentConfig, tournament_id: str, run_dir: Path
) -> None:
    """A resumed bot keeps its command once it has played: two builds would be mixed.

    A bot with no game recorded yet (a failed start, say) may change it; the change is
    recorded as a ``command_changed`` incident.
    """
    changed = {
        record.name: record.command
        for record in store.bots(tournament_id)
        if not record.remote
        and record.name in {b.name for b in config.bots}
        and record.command != config.bot(record.name).command
    }
    if not changed:
        return
    played = dict.fromkeys(changed, 0)
    for row in store.iter_games(tournament_id):
        for name in set(row.seat_bots) & set(changed):
            played[name] += 1
    for name, old in changed.items():
        new = config.bot(name).command
        if played[name]:
            raise StorageError(
                f"{run_dir}: bot {name!r} played {played[name]} recorded game(s) as "
                f"{old!r}; resuming it as {new!r} would mix two builds in one tournament: "
                "give the new build another name, or use another --out directory"
            )
        store.record_incident(tournament_id, name, "command_changed", f"{old} -> {new}")
