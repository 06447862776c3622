"""Every fenced shell block of the first-hour docs (README.md, docs/arena.md, docs/ai.md and each
guide in docs/bots/) is run as printed by a named test, or is not a command (output, a listing,
a synopsis) and says so here. A new block that no test runs fails this test until it is given one.

A block is known by its doc, the heading above it and the start of its first line. The table
names the test module and function that run it; this test checks that the function is there and
that its module names the doc, or the guide's language (the tests find their blocks in the docs,
never a copy of them).
"""

from __future__ import annotations

import re
from pathlib import Path

from doc_commands import Block, fenced_blocks

#: The docs whose every command runs as printed (issue 41).
DOCS = ("README.md", "docs/arena.md", "docs/ai.md", "docs/bots/*.md")
#: The languages of a shell block ("" is a plain block: the docs print commands so).
SHELL = ("", "sh", "bash", "shell", "console")
#: A test that runs a block: its file under tests/ and its function.
FIRSTRUN = "firstrun/test_"
ARENA_DOC = f"{FIRSTRUN}arena_doc_as_printed.py::"
AI_DOC = f"{FIRSTRUN}ai_doc_as_printed.py::"
AI_LLM_DOC = f"{FIRSTRUN}ai_doc_llm_as_printed.py::"
SERVER_SESSION = f"{FIRSTRUN}python_guide_server_session.py::"
BUILD_AND_RUN = (
    f"{FIRSTRUN}kit_guides_build_and_run.py::"
    "test_the_build_and_run_block_builds_the_kit_and_its_bot_plays_a_game"
)
TESTING_LOCALLY = (
    f"{FIRSTRUN}kit_guides_build_and_run.py::test_the_testing_locally_block_plays_a_game_as_printed"
)
ARENA_LINE = (
    f"{FIRSTRUN}kit_guides_build_and_run.py::"
    "test_the_sample_bots_arena_line_plays_from_the_checkout_as_printed"
)
OUTSIDE = (
    "kits/test_outside_projects.py::"
    "test_bot_project_outside_the_repository_depends_on_the_kit_as_its_guide_says_and_plays"
)
#: Not commands: what the block is instead.
NOT_A_COMMAND = "-"

#: (doc, heading, start of the first line) -> the test that runs the block, or why none does.
RUN_BY: dict[tuple[str, str, str], str] = {
    ("README.md", "Rookery", "make demo"): (
        f"{FIRSTRUN}make_demo_as_another_user.py::"
        "test_make_demo_as_a_user_who_is_not_root_plays_its_games"
    ),  # its `make test` line is CI's own command (.ci/run): no test runs the suite within it
    ("README.md", "A first session", "make setup"): (
        f"{FIRSTRUN}readme_session.py::test_the_readme_first_session_works_as_printed"
    ),
    ("README.md", "A first session", ".venv/bin/rookery arena run"): (
        f"{FIRSTRUN}readme_session.py::test_the_readme_first_session_works_as_printed"
    ),
    ("docs/arena.md", "The arena: tournaments, ratings, SPRT, replays", "runs/<name>"): (
        f"{NOT_A_COMMAND} a run directory's listing"
    ),
    ("docs/arena.md", "Running a tournament", "rookery arena run"): (
        f"{ARENA_DOC}test_running_a_tournament_as_printed"
    ),
    ("docs/arena.md", "What happens to misbehaving bots", "000003 hand 2"): (
        f"{NOT_A_COMMAND} a line of `rookery arena incidents` output"
    ),
    (
        "docs/arena.md",
        "Recipe: regression testing a new version (SPRT in CI)",
        "rookery arena run --format sprt",
    ): f"{ARENA_DOC}test_the_sprt_recipe_as_printed_with_a_cap_of_four_games",
    **{
        (
            "docs/arena.md",
            "Recipe: a contest (remote bots, tokens, round-robin, report)",
            start,
        ): f"{ARENA_DOC}test_the_remote_contest_recipe_as_printed"
        for start in (
            "rookery bots add",
            "rookery arena run contest.toml",
            "ROOKERY_SERVER=127.0.0.1:50051",
            "rookery arena report",
        )
    },
    **{
        ("docs/arena.md", "Recipe: a contest of submitted bots, in the sandbox", start): (
            f"{ARENA_DOC}test_the_sandboxed_contest_recipe_as_printed"
        )
        for start in ("mkdir -p submissions", "rookery arena run spring-contest.toml")
    },
    ("docs/ai.md", "OpenSpiel", "rookery serve"): (
        f"{AI_DOC}test_the_mcts_bot_plays_a_table_of_its_own_server_as_printed"
    ),
    ("docs/ai.md", "Training, and the bridge back to the arena", "rookery serve"): (
        f"{AI_DOC}test_the_trained_policy_plays_a_table_of_its_own_server_as_printed"
    ),
    ("docs/ai.md", "Training, and the bridge back to the arena", "rookery envs train"): (
        "envs/test_envs_recipe.py::test_the_train_then_arena_recipe_runs_as_printed_with_the_sandbox_on"
    ),
    ("docs/ai.md", "The text seat for language-model agents", "rookery serve"): (
        f"{AI_LLM_DOC}test_the_text_seat_plays_a_table_of_its_own_server_as_printed"
    ),
    (
        "docs/ai.md",
        "Recipe: a hosted model against the reference pool",
        "export ROOKERY_CHAT_KEY",
    ): f"{AI_LLM_DOC}test_the_gauntlet_recipe_and_its_ledger_as_printed",
    ("docs/ai.md", "Recipe: a hosted model against the reference pool", "rookery arena run"): (
        f"{AI_LLM_DOC}test_the_arena_llm_flag_line_as_printed"
    ),
    ("docs/bots/python.md", "A whole bot", "rookery arena run"): (
        f"{FIRSTRUN}guides_as_printed.py::test_the_python_guide_plays_in_the_arena_as_printed"
    ),
    ("docs/bots/python.md", "A whole bot", "ROOKERY_SESSIONS=4 python my_bot.py"): (
        f"{SERVER_SESSION}test_each_line_of_the_guides_own_server_block_takes_a_whole_table"
    ),
    ("docs/bots/python.md", "From the shell: `rookery bot run`", "rookery bot run MODULE:CLASS"): (
        f"{NOT_A_COMMAND} the command's synopsis"
    ),
    ("docs/bots/python.md", "Testing your bot locally", "rookery arena run"): (
        f"{SERVER_SESSION}test_the_guides_few_games_against_a_reference_bot_as_printed"
    ),
    **{
        ("docs/bots/python.md", "Testing your bot locally", start): (
            f"{SERVER_SESSION}test_the_python_guide_against_a_standing_server_as_printed"
        )
        for start in (
            "rookery serve",
            "rookery bot run my_bot.py:Greedy",
            "rookery table create",
            "rookery replay verify",
        )
    },
    ("docs/bots/python.md", "Testing your bot locally", "npx --yes @bufbuild/buf"): (
        f"{FIRSTRUN}python_guide_buf_curl.py::"
        "test_the_buf_curl_block_creates_a_table_that_is_played_as_printed"
    ),
    ("docs/bots/reference.md", "Running them", "rookery bot run"): (
        f"{FIRSTRUN}reference_doc_processes.py::"
        "test_the_reference_bots_as_processes_play_a_table_as_printed"
    ),
    ("docs/bots/reference.md", "Running them", "rookery arena run"): (
        f"{FIRSTRUN}reference_doc_arena.py::"
        "test_the_reference_bots_arena_block_plays_its_games_as_printed"
    ),
    ("docs/bots/cpp.md", "Build and run", "apt-get install"): BUILD_AND_RUN,
    ("docs/bots/cpp.md", "Your bot's own project", '"$ROOKERY/clients/cpp/build.sh"'): OUTSIDE,
    ("docs/bots/cpp.md", "In the arena", "rookery arena run"): OUTSIDE,
    ("docs/bots/go.md", "Build and run", "cd clients/go"): BUILD_AND_RUN,
    ("docs/bots/go.md", "Your bot's own module", '"$ROOKERY/clients/go/build.sh"'): OUTSIDE,
    ("docs/bots/go.md", "Command line", "rookery arena run"): ARENA_LINE,
    ("docs/bots/go.md", "In the arena", "rookery arena run"): OUTSIDE,
    ("docs/bots/go.md", "Testing your bot locally", "rookery serve"): TESTING_LOCALLY,
    ("docs/bots/java.md", "Build and run", "cd clients/java"): BUILD_AND_RUN,
    ("docs/bots/java.md", "Your bot's own project", '(cd "$ROOKERY/clients/java"'): OUTSIDE,
    ("docs/bots/java.md", "In the arena", "rookery arena run"): OUTSIDE,
    ("docs/bots/rust.md", "Build and run", "cd clients/rust"): BUILD_AND_RUN,
    ("docs/bots/rust.md", "Your bot's own crate", "cp ../rookery/clients/rust/Cargo.lock"): OUTSIDE,
    ("docs/bots/rust.md", "In the arena", "rookery arena run"): OUTSIDE,
    ("docs/bots/typescript.md", "Build and run", "cd clients/typescript"): BUILD_AND_RUN,
    (
        "docs/bots/typescript.md",
        "Your bot's own package",
        '(cd "$ROOKERY/clients/typescript"',
    ): OUTSIDE,
    ("docs/bots/typescript.md", "Command line", "rookery arena run"): ARENA_LINE,
    ("docs/bots/typescript.md", "In the arena", "rookery arena run"): OUTSIDE,
    ("docs/bots/typescript.md", "Testing your bot locally", "rookery serve"): TESTING_LOCALLY,
}


def shell_blocks(root: Path) -> list[tuple[str, Block]]:
    """Every shell block of the docs: (the doc's path from the root, the block)."""
    found = []
    for pattern in DOCS:
        for path in sorted(root.glob(pattern)):
            doc = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8")
            found += [(doc, block) for block in fenced_blocks(text) if block.language in SHELL]
    return found


def _entries_of(doc: str, block: Block) -> list[tuple[str, str, str]]:
    return [
        key
        for key in RUN_BY
        if key[:2] == (doc, block.heading) and block.first_line.startswith(key[2])
    ]


def test_every_shell_block_of_the_docs_has_a_test_that_runs_it(root: Path) -> None:
    blocks = shell_blocks(root)
    assert len(blocks) > 40, len(blocks)  # the docs were found
    unrun = [
        f"{doc}:{block.line} ({block.heading}): {block.first_line}"
        for doc, block in blocks
        if len(_entries_of(doc, block)) != 1
    ]
    assert unrun == [], "blocks no test runs (or more than one entry matches):\n" + "\n".join(unrun)
    matched = {key for doc, block in blocks for key in _entries_of(doc, block)}
    assert set(RUN_BY) - matched == set(), "entries of no block (moved or gone)"


def test_each_named_test_is_there_and_reads_its_doc(root: Path) -> None:
    for (doc, _, start), runner in RUN_BY.items():
        if runner.startswith(NOT_A_COMMAND):
            continue
        module, function = runner.split("::")
        source = (root / "tests" / module).read_text(encoding="utf-8")
        assert re.search(rf"^(async )?def {function}\(", source, re.MULTILINE), runner
        # By its name, or (a guide's test parametrized by language) by its language's.
        named = Path(doc).name in source or f'"{Path(doc).stem}"' in source
        assert named, f"{module} does not read {doc} ({start!r})"
