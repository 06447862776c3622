"""Bot processes: how a bot's command is found, started, sandboxed and supervised.

- ``_commands``: a bot's command line resolved to a program (relative paths, PATH, the SDK).
- ``_launcher``: the launch plan of a game's seats and the processes' lifetimes.
- ``_bot_process``: one bot process, its log and its exit.
- ``_lanes``: warm sandboxed bot processes in lanes, reused across games of different seeds.
- ``_supervisor``: one run's bots (``BotSupervisor``): its sandbox, launch keys, shared
  processes, warm lanes or each game's fresh ones, the remote bots awaited, all stopped at the end.
- ``_sandbox``: the bubblewrap sandbox (its limits, incidents, command line and mounts);
  ``_sandbox_probe`` what this machine offers for it, ``_sandbox_folders`` the bot's folder and
  what in it is covered up, ``_cgroups`` its cgroup v2 groups, ``_process_meter`` the metering
  of a sandboxed process; ``_sandbox_exec`` and ``_exec_guard`` run inside it, ``_seccomp`` is
  its filter.
"""

from __future__ import annotations

from rookery.arena.launch._bot_process import start_bot_process
from rookery.arena.launch._sandbox import SandboxLimits, SandboxMode, SandboxRuntime
from rookery.arena.launch._sandbox_probe import probe

__all__ = [
    "SandboxLimits",
    "SandboxMode",
    "SandboxRuntime",
    "probe",
    "start_bot_process",
]
