"""``rookery arena run|report``: tournaments on an embedded server, and their reports."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import shlex
import signal
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rookery.arena.config import TournamentConfig
    from rookery.arena.run import RunResult, TournamentOptions

__all__ = ["register", "run_tournament"]

#: Exit codes of ``rookery arena run`` (SPRT codes are what a bot's CI checks).
EXIT_H1 = 0
EXIT_H0 = 1
EXIT_INCONCLUSIVE = 2
EXIT_ERROR = 3
EXIT_INTERRUPTED = 130
#: ``rookery arena report --par``'s node limit a contract, as ``rookery replay analyze``'s.
_PAR_NODE_LIMIT = 2_000_000

_EXAMPLES = textwrap.dedent(
    """\
    examples:
      # a round-robin from a config file, into a new run directory (runs/latest points at it)
      rookery arena run examples/tournaments/round-robin.toml

      # go on with an interrupted run: the same command, and the run directory to resume
      rookery arena run examples/tournaments/round-robin.toml --resume runs/latest

      # a quick head-to-head with SPRT, for a bot's CI
      rookery arena run --format sprt --elo0 0 --elo1 10 \\
          --bot new="rookery bot run mybot_new.py:Bot" --bot old="rookery bot run mybot_old.py:Bot"

      # the same games as Ray tasks on a cluster (pip install 'rookery-arena[ray]'; docs/scale.md)
      rookery arena run nightly.toml --backend ray --ray-address ray://head:10001

      # the report of a run directory
      rookery arena report runs/latest

    exit codes: 0 finished (SPRT: H1 accepted, the new bot is better); 1 SPRT: H0 accepted;
    2 SPRT: inconclusive at the game cap (or bad arguments); 3 configuration, storage or bot launch
    error; 130 interrupted or stopped at its budget (the same command with --resume DIR goes on
    with it).
    """
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery arena run``, ``rookery arena report`` and ``rookery arena incidents``."""
    group = subparsers.add_parser(
        "arena", help="run tournaments of bots and report on them", description="The arena."
    )
    commands = group.add_subparsers(title="arena commands", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run (or resume) a tournament",
        description=(
            "Run a tournament on an embedded server: launched bots are started from their "
            "commands, remote bots connect by name. Results go to a run directory (SQLite, "
            "replays, logs), a new one for each run unless --resume names one to go on with."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("config", nargs="?", help="the tournament TOML file (optional with --bot)")
    run.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help=(
            "add a launched bot (NAME=remote for a connected one; NAME=llm:MODEL@URL for a "
            "language model behind an OpenAI-compatible API, the house's seat, run outside the "
            "sandbox while the other bots stay in it; a bare random, "
            "heuristic or pimc for that reference bot); repeatable"
        ),
    )
    run.add_argument(
        "--name",
        help="the tournament's name, any text (default: from the file, or 'arena'); the run "
        "directory and ids use it as is when it is letters, digits, '.', '_', '-', and a safe "
        "form of it otherwise",
    )
    run.add_argument("--preset", help="the ruleset preset (e.g. standard, cutthroat)")
    run.add_argument("--target", type=int, help="override the ruleset's target score")
    run.add_argument("--format", choices=["round-robin", "gauntlet", "sprt"])
    run.add_argument(
        "--games",
        type=int,
        help="games per pairing, each pair of bots plays this many (a duplicate pair counts as "
        "two; SPRT: the cap on all games); default: the file's, else 10",
    )
    run.add_argument("--no-duplicate", action="store_true", help="one game per seed")
    run.add_argument("--concurrency", type=int, help="games at once (default: the cores)")
    run.add_argument(
        "--seed",
        type=int,
        help="the schedule's base seed (default: a fresh random one, recorded in the run; a "
        "resumed run keeps its own)",
    )
    run.add_argument(
        "--out",
        metavar="DIR",
        help="the run directory (default: a new one each run, runs/<name>-<date>-<time>, "
        "with runs/latest pointing at it); it must not hold this tournament's games already",
    )
    run.add_argument(
        "--resume",
        metavar="DIR",
        help="go on with the tournament in the run directory DIR (the same config or --bot "
        "flags): its recorded games are kept, the rest are played",
    )
    run.add_argument(
        "--budget-usd",
        type=float,
        metavar="USD",
        help="stop before a game that would take the language-model seats' cost past USD "
        "(the file's [llm] budget_usd; a resumed run may raise it); see docs/ai.md",
    )
    run.add_argument("--elo0", type=float, help="SPRT: Elo of H0")
    run.add_argument("--elo1", type=float, help="SPRT: Elo of H1")
    run.add_argument("--alpha", type=float, help="SPRT: false positive rate")
    run.add_argument("--beta", type=float, help="SPRT: false negative rate")
    run.add_argument("--action-ms", type=int, help="milliseconds per action")
    run.add_argument(
        "--sandbox",
        choices=["auto", "on", "off"],
        help="run launched bots in the sandbox (default: the file's, else auto: where this "
        "machine can; on: refuse to start without it); see docs/security.md",
    )
    run.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        help="a move's time in wall time, or in CPU time its bot used (needs fresh processes "
        "per game, the default with it when sandboxed)",
    )
    run.add_argument(
        "--listen", default="127.0.0.1:0", help="server address (remote bots need a fixed port)"
    )
    run.add_argument("--auth", choices=["open", "token"], default="open", help="bot auth mode")
    run.add_argument("--registry", default="", help="token registry file (with --auth token)")
    run.add_argument(
        "--remote-wait", type=float, default=600.0, help="seconds to wait for remote bots"
    )
    run.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="play the games here (local) or as Ray tasks (ray; needs rookery-arena[ray])",
    )
    run.add_argument(
        "--ray-address",
        default="",
        metavar="ADDR",
        help="the Ray cluster to join (ray://HOST:10001 or HOST:6379); default: a local Ray",
    )
    run.add_argument(
        "--ray-games-per-task",
        type=int,
        default=0,
        metavar="N",
        help="games per Ray task, in whole duplicate groups (default: picked from the size)",
    )
    run.add_argument(
        "--ray-cpus-per-task",
        type=float,
        default=1.0,
        metavar="N",
        help="CPUs each Ray task reserves for its server and bots (default 1)",
    )
    run.add_argument(
        "--ray-connect-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds to wait for --ray-address to answer before giving up (default 60)",
    )
    run.add_argument(
        "--ray-working-dir",
        default="",
        metavar="DIR",
        help="a directory Ray ships to every worker; the bots' commands run in it",
    )
    run.add_argument("--no-report", action="store_true", help="do not write the report files")
    run.set_defaults(func=_run)

    report = commands.add_parser(
        "report",
        help="write report.json, standings.csv, games.csv and report.html for a run directory",
        description="Summarize a run directory and write its report files into it.",
    )
    report.add_argument("run_dir", help="the run directory")
    report.add_argument("--quiet", action="store_true", help="only print where the files went")
    report.add_argument(
        "--regret",
        action="store_true",
        help=(
            "also sum, per bot, what its cards cost in the last 6 tricks of every hand "
            "(double-dummy; about 0.1 s a hand) into regret.json"
        ),
    )
    report.add_argument(
        "--par",
        action="store_true",
        help=(
            "with --regret: also sum, per bot, what its auctions and its nests and buries cost "
            "against each hand's par (16 whole hands solved a hand, each within "
            "--node-limit: about 4 s a standard hand; two fixed sides only)"
        ),
    )
    report.add_argument(
        "--node-limit",
        type=int,
        default=_PAR_NODE_LIMIT,
        metavar="NODES",
        help=(
            f"with --par: the most nodes a contract's search may take (default "
            f"{_PAR_NODE_LIMIT:,}; 0: no limit)"
        ),
    )
    report.set_defaults(func=_report)

    incidents = commands.add_parser(
        "incidents",
        help="list the moves of a run that were not a bot's own reply in time",
        description=(
            "List every move incident of a run directory's tournament, in game order: "
            "fallback (the bot's SDK or kit made the move because the bot's code failed), "
            "auto_played (the bot was late; the server played) and rejected (a reply refused "
            "before the move). Each line names the game, the hand and the move within the hand "
            "(from 0, applied moves only), as the replay viewer numbers them."
        ),
    )
    incidents.add_argument("run_dir", help="the run directory")
    incidents.add_argument("--bot", help="only this bot's incidents")
    incidents.add_argument(
        "--kind", choices=("fallback", "auto_played", "rejected"), help="only this kind"
    )
    incidents.add_argument("--json", action="store_true", help="one JSON object per line")
    incidents.set_defaults(func=_incidents)


def _build_config(args: argparse.Namespace) -> TournamentConfig:
    from rookery.arena.config import (
        BotSpec,
        ClockKind,
        Format,
        TournamentConfig,
        duplicate_hand_seeds,
        load_config,
        parse_bot_flag,
    )
    from rookery.arena.errors import ArenaConfigError
    from rookery.arena.launch import SandboxMode
    from rookery.arena.stats import SprtParams
    from rookery.engine import Ruleset, RulesetError

    flag_bots = tuple(parse_bot_flag(_expand_reference_bot(text)) for text in args.bot)
    if args.config:
        config = load_config(args.config)
        if flag_bots:
            names = {b.name for b in flag_bots}
            kept = tuple(b for b in config.bots if b.name not in names)
            config = config.with_overrides(bots=kept + flag_bots)
    else:
        if len(flag_bots) < 2:
            raise ArenaConfigError(
                "command line", "--bot", "give a CONFIG file or at least two --bot NAME=COMMAND"
            )
        placeholder: tuple[BotSpec, ...] = flag_bots
        config = TournamentConfig(
            name="arena",
            ruleset=duplicate_hand_seeds(Ruleset.preset("standard"), not args.no_duplicate),
            bots=placeholder,
        )
    changes: dict[str, object] = {
        "name": args.name,
        "games": args.games,
        "concurrency": args.concurrency,
        "seed": args.seed,
        "llm_budget_usd": args.budget_usd,
    }
    if args.format:
        changes["format"] = Format(args.format)
    if args.no_duplicate:
        changes["duplicate"] = False
    try:
        ruleset = config.ruleset
        if args.preset:
            duplicate = config.duplicate and not args.no_duplicate
            ruleset = duplicate_hand_seeds(Ruleset.preset(args.preset), duplicate)
        if args.target is not None and args.target != ruleset.target:
            # The ruleset is no longer the preset: its name says so ("standard, target 100").
            name = f"{ruleset.name}, target {args.target}"
            ruleset = ruleset.replace(target=args.target, name=name)
        changes["ruleset"] = ruleset
    except RulesetError as error:
        raise ArenaConfigError("command line", "--preset/--target", str(error)) from None
    sprt = config.sprt
    sprt_flags = {"elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta}
    if any(v is not None for v in sprt_flags.values()):
        try:
            given = {k: float(v) for k, v in sprt_flags.items() if v is not None}
            changes["sprt"] = SprtParams(
                elo0=given.get("elo0", sprt.elo0),
                elo1=given.get("elo1", sprt.elo1),
                alpha=given.get("alpha", sprt.alpha),
                beta=given.get("beta", sprt.beta),
                model=sprt.model,
            )
        except ValueError as error:
            raise ArenaConfigError(
                "command line", "--elo0/--elo1/--alpha/--beta", str(error)
            ) from None
    if args.action_ms is not None:
        from rookery.server import TableSpecError

        try:
            changes["time_control"] = dataclasses.replace(
                config.time_control, action_ms=args.action_ms
            )
        except TableSpecError as error:
            raise ArenaConfigError("command line", "--action-ms", str(error)) from None
    if args.sandbox is not None:
        changes["sandbox"] = SandboxMode(args.sandbox)
    if args.clock is not None:
        changes["clock"] = ClockKind(args.clock)
    return config.with_overrides(**changes)


def run_tournament(
    config: TournamentConfig, out: Path, options: TournamentOptions, *, write_files: bool = True
) -> int:
    """Run ``config`` into ``out`` with a progress display, print the results; the exit code."""
    from rich.console import Console
    from rookery.arena.errors import ArenaError
    from rookery.arena.records import load_run, sprt_line
    from rookery.arena.run import TournamentRunner
    from rookery.arena.stats import SprtDecision
    from rookery.server import AddressUnavailableError, configure_logging, tune_gc
    from rookery.web import write_report

    from ._progress import ProgressDisplay
    from ._report_tables import crosstable_table, incidents_table, standings_table

    configure_logging("error", json=False, stream=sys.stderr)
    tune_gc()  # the run's server lives in this process
    console = Console(width=None if sys.stdout.isatty() else 140)
    runner_box: list[TournamentRunner] = []

    async def main() -> RunResult:
        loop = asyncio.get_running_loop()
        with ProgressDisplay() as display:
            runner = TournamentRunner(config, out, options=options, on_progress=display)
            runner_box.append(runner)
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, runner.request_stop)
            return await runner.run()

    try:
        result = asyncio.run(main())
    except ArenaError as error:
        print(f"rookery arena run: {error}", file=sys.stderr)
        return EXIT_ERROR
    except AddressUnavailableError as error:
        fix = "listen elsewhere: --listen HOST:PORT (port 0, the default, picks a free one)"
        print(f"rookery arena run: {error}; {fix}", file=sys.stderr)
        return EXIT_ERROR
    data = load_run(out, result.tournament_id)
    console.print(standings_table(data.summary, title=f"{config.name}: standings"))
    incidents = incidents_table(data)
    if incidents is not None:
        console.print(incidents)
    console.print(crosstable_table(data.summary))
    line = sprt_line(data.summary, config)
    if line:
        console.print(line)
    verb = "resumed and played" if result.resumed else "played"
    console.print(
        f"{verb} {result.played} game(s) in {result.wall_s:.1f} s "
        f"({result.played / result.wall_s if result.wall_s > 0 else 0:.2f} games/s); "
        f"{result.recorded}/{result.total} recorded in {out}"
    )
    if write_files:
        paths = write_report(out, result.tournament_id)
        web_pages = _write_web_pages(out, result.tournament_id)
        console.print("report: " + ", ".join(str(p) for p in paths))
        console.print(f"web pages: {out / 'web' / 'index.html'} ({len(web_pages)} pages)")
    if result.budget_reached and result.cancelled:
        console.print(
            f"budget reached: a higher --budget-usd (or [llm] budget_usd) and --resume {out} "
            "go on with it",
            soft_wrap=True,  # the command stays on one line, whatever the terminal's width
        )
        return EXIT_INTERRUPTED
    if result.cancelled:
        console.print(
            f"interrupted: the same command with --resume {out} goes on with it", soft_wrap=True
        )
        return EXIT_INTERRUPTED
    if result.sprt_decision is not None:
        if result.sprt_decision is SprtDecision.H1:
            return EXIT_H1
        if result.sprt_decision is SprtDecision.H0:
            return EXIT_H0
        return EXIT_INCONCLUSIVE
    return 0


def _run(args: argparse.Namespace) -> int:
    from rookery.arena.errors import ArenaError
    from rookery.arena.run import TournamentOptions

    try:
        config = _build_config(args)
        out = _run_dir(args, config)
    except ArenaError as error:
        print(f"rookery arena run: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.seed is None and not _file_sets_seed(args.config):
        # No seed given: a fresh random one, unless this run directory resumes a tournament,
        # which goes on with the seed it recorded.
        stored = _stored_seed(out, config.tournament_id)
        if stored is not None:
            config = config.with_overrides(seed=stored)
    options = TournamentOptions(
        listen=args.listen,
        auth=args.auth,
        registry=args.registry,
        remote_wait_s=args.remote_wait,
        backend=args.backend,
        ray_address=args.ray_address,
        ray_games_per_task=args.ray_games_per_task,
        ray_cpus_per_task=args.ray_cpus_per_task,
        ray_connect_timeout_s=args.ray_connect_timeout,
        ray_working_dir=args.ray_working_dir,
    )
    return run_tournament(config, out, options, write_files=not args.no_report)


def _run_dir(args: argparse.Namespace, config: TournamentConfig) -> Path:
    """The run directory: ``--resume DIR`` (holding this tournament), ``--out`` or the file's
    ``out`` (not holding its games yet), else a new one under ``runs/``, ``runs/latest`` the
    link to it. A run resumes only when asked: a rerun after editing a bot starts afresh."""
    from rookery.arena.errors import ArenaConfigError
    from rookery.cli._run_dirs import DEFAULT_RUNS, new_run_dir, point_latest

    tournament_id: str = config.tournament_id
    if args.resume:
        out = Path(args.resume)
        if args.out and Path(args.out).resolve() != out.resolve():
            raise ArenaConfigError("command line", "--resume", f"{out} is not --out {args.out}")
        if _recorded_games(out, tournament_id) is None:
            raise ArenaConfigError(
                "command line",
                "--resume",
                f"{out} holds no tournament {tournament_id!r} to go on with (without --resume "
                "a run starts afresh in a new run directory)",
            )
    elif (given := Path(args.out) if args.out else config.out) is not None:
        out = given
        recorded = _recorded_games(out, tournament_id)
        if recorded:
            raise ArenaConfigError(
                "command line",
                "--out" if args.out else f"{config.source}: out",
                f"{out} holds {recorded} recorded game(s) of the tournament {tournament_id!r} "
                f"already: --resume {out} goes on with it; another directory, or none (a new "
                "one under runs/), starts afresh",
            )
        return out
    else:
        try:
            out = new_run_dir(DEFAULT_RUNS, tournament_id)
        except OSError as error:
            reason = f"cannot make a run directory: {error}"
            raise ArenaConfigError("command line", "--out", reason) from None
    if out.resolve().parent == DEFAULT_RUNS.resolve():
        with contextlib.suppress(OSError):  # a folder without symbolic links: no runs/latest
            point_latest(out.resolve())
    return out


def _recorded_games(out: Path, tournament_id: str) -> int | None:
    """How many games of ``tournament_id`` the run directory ``out`` has recorded; None when
    it holds no such tournament."""
    from rookery.arena.errors import ArenaError
    from rookery.arena.records import DATABASE_NAME, RunStore

    if not (out / DATABASE_NAME).is_file():
        return None
    try:
        with RunStore(out) as store:
            store.tournament(tournament_id)
            return store.count_games(tournament_id)
    except ArenaError:
        return None


def _file_sets_seed(path: str | None) -> bool:
    """Whether the tournament file at ``path`` sets ``seed``."""
    import tomllib

    if not path:
        return False
    try:
        with open(path, "rb") as handle:
            return "seed" in tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return False


def _stored_seed(out: Path, tournament_id: str) -> int | None:
    """The seed recorded by the tournament ``tournament_id`` in the run directory ``out``."""
    from rookery.arena.errors import ArenaError
    from rookery.arena.records import DATABASE_NAME, RunStore

    if not (out / DATABASE_NAME).is_file():
        return None
    try:
        with RunStore(out) as store:
            seed = store.tournament(tournament_id).config.get("seed")
    except ArenaError:
        return None
    return seed if isinstance(seed, int) else None


def _report(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rookery.arena.errors import ArenaError
    from rookery.arena.records import load_run, sprt_line
    from rookery.web import write_report

    from ._report_tables import crosstable_table

    if (args.par or args.node_limit != _PAR_NODE_LIMIT) and not args.regret:
        print("rookery arena report: --par and --node-limit go with --regret", file=sys.stderr)
        return EXIT_ERROR
    if args.node_limit < 0:
        print("rookery arena report: --node-limit: 0 (no limit) or more", file=sys.stderr)
        return EXIT_ERROR
    try:
        data = load_run(args.run_dir)
    except ArenaError as error:
        print(f"rookery arena report: {error}", file=sys.stderr)
        return EXIT_ERROR
    console = Console(width=None if sys.stdout.isatty() else 140)
    if not args.quiet:
        from ._report_tables import incidents_table, standings_table

        console.print(standings_table(data.summary, title=f"{data.tournament.name}: standings"))
        incidents = incidents_table(data)
        if incidents is not None:
            console.print(incidents)
        console.print(crosstable_table(data.summary))
        line = sprt_line(data.summary, data.config)
        if line:
            console.print(line)
    regret_files: list[Path] = []
    if args.regret:  # before report.html, which shows regret.json
        from ._report_regret import report_regret

        regret_file = report_regret(
            args.run_dir,
            data,
            console,
            quiet=args.quiet,
            par_nodes=args.node_limit if args.par else None,
        )
        regret_files = [] if regret_file is None else [regret_file]
    try:
        paths = [*write_report(args.run_dir), *regret_files]
        web_pages = _write_web_pages(Path(args.run_dir), None)
    except ArenaError as error:
        print(f"rookery arena report: {error}", file=sys.stderr)
        return EXIT_ERROR
    for path in paths:
        console.print(str(path))
    console.print(f"{Path(args.run_dir) / 'web' / 'index.html'} ({len(web_pages)} pages)")
    return EXIT_ERROR if args.regret and not regret_files else 0


def _incidents(args: argparse.Namespace) -> int:
    import json

    from rookery.arena.errors import ArenaError
    from rookery.arena.records import RunStore, load_run

    try:
        data = load_run(args.run_dir)
        with RunStore(args.run_dir) as store:
            found = store.move_incidents(data.tournament.tournament_id, args.bot, args.kind)
    except ArenaError as error:
        print(f"rookery arena incidents: {error}", file=sys.stderr)
        return EXIT_ERROR
    for incident in found:
        if args.json:
            print(json.dumps(incident.to_dict(), ensure_ascii=False))
        else:
            print(
                f"{incident.game_id} hand {incident.hand} move {incident.move} "
                f"seat {incident.seat} {incident.bot}: {incident.kind}: {incident.detail}"
            )
    if not args.json:
        print(f"{len(found)} incident(s)", file=sys.stderr)
    return 0


def _write_web_pages(run_dir: Path, tournament_id: str | None) -> list[Path]:
    """The dashboard's views as static pages in ``RUN_DIR/web/`` (leaderboard, replay viewer)."""
    from rookery.web import write_report_pages

    return write_report_pages(run_dir, tournament_id=tournament_id)


def _expand_reference_bot(text: str) -> str:
    """``--bot pimc`` names a reference bot: it becomes ``pimc=<the command that runs it>``."""
    if "=" in text:
        return text
    from rookery.client.bots import BOTS, bot_reference

    if text not in BOTS:
        import difflib

        from rookery.arena.errors import ArenaConfigError

        close = difflib.get_close_matches(text, list(BOTS), n=1, cutoff=0.6)
        if close:  # a reference bot misspelt (--bot heurstic)
            raise ArenaConfigError(
                "--bot",
                text,
                f"no reference bot {text!r}: did you mean --bot {close[0]}? (the reference "
                f"bots: {', '.join(BOTS)}; a bot of your own: NAME=COMMAND)",
            )
        return text  # parse_bot_flag explains what a --bot flag must be
    command = [sys.executable, "-m", "rookery.cli.main", "bot", "run", bot_reference(text)]
    return f"{text}={shlex.join(command)}"
