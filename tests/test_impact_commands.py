"""Shell commands and coding-agent tools: what a call would have done, read from the command line.

Each test reads like the calls it judges: a command an agent ran and what it did to the world.
A command is a write when any of its segments writes, a read when every segment reads, and
unknown otherwise (see ``rules/impact.toml``).
"""

from __future__ import annotations

import random

import pytest
from builders import rules

from auditor.audit.commands import Segment, command_of, parse_command, segment_impact
from auditor.audit.impact import Impact, impact_of
from auditor.model import ToolCall
from auditor.rules_loader import RuleFileError, load_rules


def impact(name: str, arguments=None) -> Impact:
    loaded = rules()
    call = ToolCall(id="1", name=name, arguments=arguments, line=1)
    return impact_of(call, loaded.impact, loaded.outcomes)


def bash(command: str) -> Impact:
    return impact("Bash", {"command": command, "description": "run it"})


def programs(text: str) -> list[tuple[str, str | None]]:
    return [(s.program, s.subcommand) for s in parse_command(text)]


# ----------------------------------------------------------------------------- parse_command
def test_a_command_line_splits_into_segments_at_and_or_semicolon_pipe_and_newline():
    text = "cargo build && cargo test || echo failed; git status | head -5\nls -la"
    assert programs(text) == [
        ("cargo", "build"),
        ("cargo", "test"),
        ("echo", None),
        ("git", "status"),
        ("head", None),
        ("ls", None),
    ]


def test_a_segment_knows_its_program_subcommand_arguments_options_and_text():
    (segment,) = parse_command("git -C /repo log --oneline -5 src/main.rs")
    assert segment == Segment(
        program="git",
        subcommand="log",
        arguments=["src/main.rs"],
        options=["-C=/repo", "--oneline", "-5"],
        redirects=[],
        text="git -C /repo log --oneline -5 src/main.rs",
    )


def test_the_program_is_the_basename_of_the_path_it_was_run_from():
    (segment,) = parse_command("./target/debug/issue-tool create 'Fix login' --priority high")
    assert (segment.program, segment.subcommand) == ("issue-tool", "create")
    assert segment.arguments[0] == "Fix login"


def test_cd_env_assignments_sudo_time_timeout_nice_and_env_are_skipped():
    assert programs("cd crates/autopilot && RUST_BACKTRACE=1 cargo test") == [
        ("cd", None),
        ("cargo", "test"),
    ]
    assert programs("sudo -u deploy timeout 60 nice -n 10 env FOO=1 make test") == [
        ("make", "test")
    ]
    assert programs("time INSTA_UPDATE=always cargo insta accept") == [("cargo", "insta")]


def test_bash_c_and_sh_c_are_unwrapped():
    assert programs("bash -lc 'cd /repo && git push origin main'") == [
        ("cd", None),
        ("git", "push"),
    ]
    assert programs('sh -c "rm -rf build"') == [("rm", None)]


def test_powershell_command_scripts_are_unwrapped():
    assert programs(
        'pwsh -NoProfile -Command "Get-ADUser -Identity mokonkwo | Select-Object Name"'
    ) == [
        ("Get-ADUser", "mokonkwo"),
        ("Select-Object", "Name"),
    ]
    assert programs("powershell -ExecutionPolicy Bypass -Command 'Unlock-ADAccount jdoe'") == [
        ("Unlock-ADAccount", "jdoe")
    ]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('pwsh -NoProfile -Command "Get-ADUser -Identity mokonkwo"', Impact.READ),
        (
            "pwsh -Command \"Add-ADGroupMember -Identity 'Parks-Staff' -Members mokonkwo\"",
            Impact.WRITE,
        ),
        ("Get-Printer -Name HR-2 | Format-Table", Impact.READ),
        ("Remove-PrintJob -PrinterName HR-2 -ID 14", Impact.WRITE),
        ("Invoke-Sqlcmd -Query x", Impact.UNKNOWN),  # a verb that says neither
    ],
)
def test_a_powershell_cmdlet_is_read_or_write_by_its_verb(command, expected):
    assert bash(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "/opt/unity/Editor/Unity -batchmode -quit -executeMethod Build.Windows 2>&1 | tail -5",
        "msbuild Game.sln /p:Configuration=Release",
        "xcodebuild -scheme App build",
        "RunUAT BuildCookRun -project=Outpost.uproject -platform=Win64",
    ],
)
def test_engine_and_ide_builds_are_reads(command):
    assert bash(command) == Impact.READ


def test_quotes_keep_operators_and_spaces_inside_one_argument():
    (segment,) = parse_command("""grep -rn "a && b; c | d" src/ 'it''s'""")
    assert segment.program == "grep"
    assert segment.arguments == ["a && b; c | d", "src/", "its"]
    assert segment.redirects == []


def test_a_quoted_angle_bracket_is_an_argument_not_a_redirect():
    (segment,) = parse_command("""grep ">" notes.txt""")
    assert segment.redirects == []
    assert segment.arguments == [">", "notes.txt"]


def test_redirects_name_the_files_written_and_leave_out_streams_and_dev_null():
    (segment,) = parse_command("cargo test 2>&1 > /tmp/test.log 2>/dev/null >> out.txt")
    assert segment.redirects == ["/tmp/test.log", "out.txt"]
    assert segment.arguments == []


def test_a_heredoc_body_is_not_commands():
    text = "cat > notes.md <<'EOF'\nrm -rf /\ngit push --force\nEOF\nls"
    assert programs(text) == [("cat", None), ("ls", None)]
    assert parse_command(text)[0].redirects == ["notes.md"]


def test_a_commit_message_written_through_a_heredoc_in_a_substitution_stays_one_argument():
    text = (
        'git add -A && git commit -m "$(cat <<\'EOF\'\nFix the "login" bug; rm old files\n\n'
        'Co-Authored-By: Claude\nEOF\n)" && git push origin main'
    )
    assert programs(text) == [("git", "add"), ("git", "commit"), ("git", "push")]


def test_a_command_substitution_is_part_of_its_word():
    (segment,) = parse_command('echo "build $(date +%Y%m%d) | $(git rev-parse HEAD)"')
    assert segment.program == "echo"
    assert len(segment.arguments) == 1


def test_unbalanced_quotes_still_give_segments():
    segments = parse_command("git commit -m 'unfinished && git push")
    assert segments[0].program == "git"
    assert segments[0].subcommand == "commit"


def test_line_continuations_and_comments():
    text = "# build first\ncargo build \\\n  --release  # optimised\ngit status"
    assert programs(text) == [("cargo", "build"), ("git", "status")]
    assert parse_command(text)[0].options == ["--release"]


def test_control_words_of_a_small_script_are_not_programs():
    text = "for f in *.rs; do\n  wc -l $f\ndone\nif [ -f x ]; then rm x; fi"
    assert [p for p, _ in programs(text)] == ["wc", "[", "rm"]


def test_empty_and_odd_input_never_raises():
    for text in ["", "   ", "&&", "|||", ";;", "'", '"', "$(", "`", "<<EOF", "> ", "\\", "))"]:
        assert isinstance(parse_command(text), list)


def test_random_text_never_raises():
    alphabet = "ab -|&;<>'\"$()`\\\n{}=#*"
    generator = random.Random(7)
    for _ in range(2000):
        text = "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 40)))
        for segment in parse_command(text):
            assert isinstance(segment.program, str)


def test_a_long_script_is_read_only_up_to_a_cap():
    text = "echo hi\n" * 50_000
    assert 0 < len(parse_command(text)) <= 500


# ----------------------------------------------------------------------------- command_of
@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("Bash", {"command": "git status", "description": "Show status"}, "git status"),
        ("execute_bash", {"command": "ls -la", "is_input": "false"}, "ls -la"),
        ("bash", {"command": "python reproduce.py"}, "python reproduce.py"),
        ("shell", {"command": ["bash", "-lc", "cargo test"], "workdir": "/repo"}, "cargo test"),
        ("shell", {"command": ["git", "diff", "--stat"]}, "git diff --stat"),
        ("exec_command", {"cmd": "rg -n TODO src", "yield_time_ms": 1000}, "rg -n TODO src"),
        ("mcp__desktop-commander__execute_command", {"command": "pwd"}, "pwd"),
        ("run_terminal_cmd", {"command": "npm test", "is_background": False}, "npm test"),
        ("run_shell", {"command": "git push origin v2.4.0"}, "git push origin v2.4.0"),
        ("shell_exec", {"cmd": "make release"}, "make release"),
    ],
)
def test_the_command_of_a_shell_call(name, arguments, expected):
    assert command_of(ToolCall(id="1", name=name, arguments=arguments, line=1)) == expected


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("Read", {"file_path": "/repo/README.md"}),
        ("str_replace_editor", {"command": "view", "path": "/repo/a.py"}),
        ("edit", {"command": "edit 4:4\ndef f():\nend_of_edit"}),
        ("Bash", {"description": "no command at all"}),
        ("Bash", "not even a dict"),
    ],
)
def test_other_calls_have_no_command(name, arguments):
    assert command_of(ToolCall(id="1", name=name, arguments=arguments, line=1)) is None


# ----------------------------------------------------------------------------- shell: reads
@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git log --oneline -10",
        "git diff HEAD~1 -- src/lib.rs",
        "git -C /home/me/repo show abc123 --stat",
        "git branch",
        "git branch --list 'feature/*'",
        "git remote -v",
        "git stash list",
        "git fetch origin",
        "ls -la crates/",
        "cat Cargo.toml | grep version",
        "find . -name '*.rs' -type f | wc -l",
        "grep -rn 'fn main' src/ 2>/dev/null | head -20",
        "rg -n TODO --type rust",
        "sed -n '10,40p' src/main.rs",
        "awk '{print $1}' access.log | sort | uniq -c | sort -rn",
        "jq '.dependencies' package.json",
        "pwd && which cargo && echo $PATH",
        "sleep 30 && gh run list --repo acme/api --limit 5",
        "gh pr view 88 --repo acme/api --json title,body --jq '.title'",
        "gh pr checks 4",
        "gh issue list --state open",
        "kubectl get pods -n prod",
        "kubectl logs deploy/api --tail 100",
        "curl -s https://api.example.com/health",
        "wget -qO- https://example.com/status",
        "whoami",
        "ps aux | grep node",
        "tail -f /var/log/syslog",
        "diff -u old.txt new.txt",
    ],
)
def test_commands_that_only_look_are_reads(command):
    assert bash(command) == Impact.READ


@pytest.mark.parametrize(
    "command",
    [
        "cargo build --release",
        "cargo test -p autopilot -- --nocapture 2>&1 | tail -30",
        "cd crates/autopilot && cargo clippy --all-targets -- -D warnings",
        "cargo check && cargo test && cargo doc --no-deps",
        "npm test",
        "npm run build",
        "npm run lint 2>&1",
        "pnpm test",
        "yarn lint",
        "pytest -q tests/test_api.py",
        "python -m pytest -x",
        "python3 -m pytest tests -k login",
        "uv run pytest",
        "go test ./...",
        "go vet ./... && go build ./cmd/server",
        "make",
        "make test",
        "tsc --noEmit",
        "npx tsc --noEmit",
        "eslint src/",
        "npx jest --coverage",
        "vitest run",
        "./gradlew test",
        "mvn -q verify",
        "ctest --output-on-failure",
        "timeout 300 cargo test --workspace",
    ],
)
def test_builds_and_test_runs_are_reads(command):
    assert bash(command) == Impact.READ


# ----------------------------------------------------------------------------- shell: writes
@pytest.mark.parametrize(
    "command",
    [
        "git push origin main",
        "git add -A && git commit -m 'Fix login'",
        "git status && git add src/ && git status",
        "git stash && cargo test",
        "git checkout -b feature/login",
        "git reset --hard HEAD~1",
        "git branch -D old-feature",
        "git tag v1.2.0",
        "git pull --rebase",
        "rm -rf target/",
        "mkdir -p docs/logs",
        "mv old.rs new.rs && cp a b",
        "chmod +x run.sh",
        "kill 4242",
        "pkill -f 'cargo run'",
        "sed -i 's/foo/bar/g' src/main.rs",
        "sed -i.bak -e 's/a/b/' config.ini",
        "echo 'export PATH=$PATH:~/bin' >> ~/.bashrc",
        "cargo test > /tmp/test.log 2>&1",
        "gh issue view 87 --json body | tee issue-87.json",
        "cargo add serde --features derive",
        "cargo fmt",
        "cargo clippy --fix --allow-dirty",
        "npm install lodash",
        "npm ci",
        "pip install -r requirements.txt",
        "python -m pip install requests",
        "eslint --fix src/",
        "npm run lint:fix",
        "gh pr create --title 'Add login' --body 'Closes #3'",
        "gh pr merge 12 --squash",
        "gh issue comment 87 --body 'Done'",
        "gh release create v1.0.0",
        "docker push registry.example.com/api:1.2",
        "kubectl apply -f deploy.yaml",
        "kubectl scale deploy/api --replicas=3",
        'curl -X POST https://api.example.com/tickets -d \'{"title": "x"}\'',
        "curl -s -XDELETE https://api.example.com/tickets/42",
        "curl --request PATCH https://api.example.com/tickets/42",
        "curl -F 'file=@report.pdf' https://upload.example.com",
        "curl --data-binary @body.json https://api.example.com/x",
        "twine upload dist/*",
        "terraform apply -auto-approve",
        "cat > notes.md <<'EOF'\n# Notes\nEOF",
        "sqlite3 autopilot.db \"UPDATE issues SET status = 'done' WHERE number = 821\"",
        "psql -c 'DELETE FROM sessions WHERE expired'",
    ],
)
def test_commands_that_change_something_are_writes(command):
    assert bash(command) == Impact.WRITE


# ----------------------------------------------------------------------------- help, SQL, words
@pytest.mark.parametrize(
    "command",
    [
        "cargo autopilot issue create --help",
        "rm --help",
        "terraform -h",
        "kubectl --version",
        "mytool help",
        "gh help pr",
    ],
)
def test_asking_for_help_or_a_version_is_a_read_whatever_the_program(command):
    assert bash(command) == Impact.READ


def test_an_sql_select_through_a_shell_client_is_a_read():
    assert bash('sqlite3 autopilot.db "SELECT number, title FROM issues LIMIT 5"') == Impact.READ


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("./target/debug/issue-tool create 'Fix login' --priority high", Impact.WRITE),
        ("mytool issue list", Impact.READ),
        ("cargo run --bin openagents -- directive get d-016", Impact.READ),
        ("cargo run --bin autopilot -- issue claim 794", Impact.WRITE),
        ("cargo run -p issue-tool -- directive-get d-004", Impact.READ),
        ("cargo autopilot issue ready", Impact.READ),
        ("cargo autopilot issue complete 855", Impact.WRITE),
        ("npm run check:file-size", Impact.READ),
        ("node scripts/deploy.js production", Impact.WRITE),
        ("python manage.py migrate", Impact.WRITE),
        ("python reproduce.py", Impact.UNKNOWN),
        ("python -c 'print(1)'", Impact.UNKNOWN),
        ("RsaCtfTool.py --createpub -n 0xCE32 -e 65537", Impact.UNKNOWN),
    ],
)
def test_a_program_the_table_does_not_know_is_judged_by_the_words_after_it(command, expected):
    assert bash(command) == expected


def test_a_read_and_an_unknown_segment_make_an_unknown_command():
    assert bash("ls && python reproduce.py") == Impact.UNKNOWN


def test_a_write_anywhere_makes_the_command_a_write():
    assert bash("python reproduce.py; rm reproduce.py") == Impact.WRITE


def test_segment_impact_judges_one_segment():
    push, status = parse_command("git push && git status")
    impact_rules = rules().impact
    assert segment_impact(push, impact_rules) == Impact.WRITE
    assert segment_impact(status, impact_rules) == Impact.READ


def test_other_shell_tools_read_their_command_the_same_way():
    assert impact("execute_bash", {"command": "git status"}) == Impact.READ
    assert impact("shell", {"command": ["bash", "-lc", "git push"]}) == Impact.WRITE
    assert impact("exec_command", {"cmd": "cargo test"}) == Impact.READ
    assert impact("bash", {"command": "rm reproduce.py"}) == Impact.WRITE


def test_a_command_that_starts_with_a_brace_is_not_a_graphql_query():
    assert bash("{ echo a; rm -f x; }") == Impact.WRITE


# ----------------------------------------------------------------------------- coding tools
@pytest.mark.parametrize(
    "name", ["Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "NotebookRead", "TodoRead"]
)
def test_coding_agent_tools_that_look_are_reads(name):
    assert impact(name, {"file_path": "/repo/x"}) == Impact.READ


@pytest.mark.parametrize("name", ["Edit", "MultiEdit", "Write", "NotebookEdit"])
def test_coding_agent_tools_that_change_files_are_writes(name):
    assert impact(name, {"file_path": "/repo/x.json", "new_string": '{\n  "a": 1\n}'}) == (
        Impact.WRITE
    )


def test_the_agents_own_todo_list_is_not_a_write_to_the_world():
    assert impact("TodoWrite", {"todos": [{"content": "Fix login", "status": "pending"}]}) == (
        Impact.READ
    )


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("open", {"command": "open src/marshmallow/fields.py 1474"}, Impact.READ),
        ("goto", {"line_number": 120}, Impact.READ),
        ("scroll_down", {}, Impact.READ),
        ("search_dir", {"search_term": "handler"}, Impact.READ),
        ("find_file", {"file_name": "fields.py"}, Impact.READ),
        ("edit", {"command": "edit 4:4\ndef division(a, b) -> float:\nend_of_edit"}, Impact.WRITE),
        ("create", {"command": "create reproduce.py"}, Impact.WRITE),
        ("insert", {"line": 4, "text": "import os"}, Impact.WRITE),
    ],
)
def test_swe_agent_interface_commands(name, arguments, expected):
    assert impact(name, arguments) == expected


@pytest.mark.parametrize("name", ["str_replace_editor", "file_editor"])
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("view", Impact.READ),
        ("create", Impact.WRITE),
        ("str_replace", Impact.WRITE),
        ("insert", Impact.WRITE),
        ("undo_edit", Impact.WRITE),
    ],
)
def test_an_editor_tool_is_judged_by_its_command(name, command, expected):
    assert impact(name, {"command": command, "path": "/workspace/app.py"}) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cargo run -p autopilot --release -- issue --help",
        "cargo run --bin issue_ready 2>&1",
        "cargo autopilot metrics analyze --compare 2025-12-01..2025-12-19",
    ],
)
def test_a_runner_is_judged_by_what_it_runs(command):
    assert bash(command) == Impact.READ


# ----------------------------------------------------------------------------- a user's rules
def test_a_users_impact_file_moves_a_shipped_pattern_and_adds_its_own(tmp_path):
    (tmp_path / "impact.toml").write_text(
        '[shell.commands]\nread = ["docker run"]\nwrite = ["mytool sync"]\n', encoding="utf-8"
    )
    own = load_rules(tmp_path)
    call = ToolCall(id="1", name="Bash", arguments={"command": "docker run --rm img"}, line=1)
    assert impact_of(call, own.impact, own.outcomes) == Impact.READ
    call = ToolCall(id="2", name="Bash", arguments={"command": "mytool sync --all"}, line=1)
    assert impact_of(call, own.impact, own.outcomes) == Impact.WRITE


def test_one_file_listing_a_pattern_under_two_impacts_is_an_error(tmp_path):
    (tmp_path / "impact.toml").write_text(
        '[shell.commands]\nread = ["mytool sync"]\nwrite = ["mytool  sync"]\n', encoding="utf-8"
    )
    with pytest.raises(RuleFileError, match="mytool sync"):
        load_rules(tmp_path)
