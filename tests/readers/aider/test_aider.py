"""Aider chat history Markdown: edits and shell commands become calls with aider's reports as
their results; one conversation per ``# aider chat started at`` session."""

from pathlib import Path

from auditor import scan
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import READERS, detect, read_file
from auditor.readers.aider import COMMAND, GROUP_ANSWER, NO_ASSISTANT, STATUS
from auditor.run.inputs import expand

HERE = Path(__file__).parent
AFI = HERE / "AFI-Protocol__afi-core.aider.chat.history.md"
AQUATICAT = HERE / "Aquaticat__Monochromatic.aider.chat.history.md"


def calls_and_results(result) -> list[tuple[str, object, bool | None, str]]:
    """(tool, arguments, is_error, first line of the result) per call, in order."""
    found = []
    for conversation in result.conversations:
        results = {
            p.call_id: p
            for m in conversation.messages
            for p in m.parts
            if isinstance(p, ToolResult)
        }
        for message in conversation.messages:
            for part in message.parts:
                if isinstance(part, ToolCall):
                    answer = results[part.id]
                    first = str(answer.content).splitlines()[0]
                    found.append((part.name, part.arguments, answer.is_error, first))
    return found


def write_history(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- the real files
def test_each_session_with_an_assistant_turn_is_a_conversation_of_its_own():
    result = read_file(AFI, AFI.name)
    assert [c.id for c in result.conversations] == [
        f"{AFI.name}#2025-07-15 14:53:34",
        f"{AFI.name}#2025-07-16 20:11:30",
    ]
    assert result.rejects == []
    # The session in between only updated aider: it is passed over, counted once.
    assert result.passed_over[NO_ASSISTANT] == 1
    assert result.passed_over[COMMAND] == 2  # /add …, /find … /replace …
    assert result.passed_over[STATUS] == 46


def test_applied_edits_and_shell_commands_are_calls_of_the_reply_that_asked_for_them():
    result = read_file(AFI, AFI.name)
    first = result.conversations[0]
    assert calls_and_results(result)[:4] == [
        (
            "shell",
            {"command": "chmod +x ~/AFI_Modular_Repos/*.sh"},
            None,
            "Running chmod +x ~/AFI_Modular_Repos/*.sh",
        ),
        ("edit", {"path": "aider-afi.sh"}, False, "Applied edit to aider-afi.sh"),
        ("edit", {"path": "sync-afi.sh"}, False, "Applied edit to sync-afi.sh"),
        (
            "shell",
            {"command": "chmod +x sync-afi.sh aider-afi.sh"},
            None,
            "Running chmod +x sync-afi.sh aider-afi.sh",
        ),
    ]
    # The reply's text comes first, its calls after it: the text is a plan, not a report.
    reply = next(m for m in first.messages if any(isinstance(p, ToolCall) for p in m.parts))
    assert isinstance(reply.parts[0], TextPart)
    assert reply.parts[0].text.startswith("To make the shell script files")


def test_a_search_replace_block_that_failed_to_match_fails_its_file_and_the_retry_recovers_it():
    result = read_file(AFI, AFI.name)
    assert calls_and_results(result)[4:] == [
        (
            "edit",
            {"path": "cli_hooks/validator_invoker.ts"},
            True,
            "The LLM did not conform to the edit format.",
        ),
        (
            "edit",
            {"path": "tests/poi_validator.test.ts"},
            False,
            "The other 2 SEARCH/REPLACE block(s) were applied successfully.",
        ),
        (
            "edit",
            {"path": "cli_hooks/validator_invoker.ts"},
            False,
            "Applied edit to cli_hooks/validator_invoker.ts",
        ),
    ]
    rows = scan([AFI]).calls
    failed = rows.filter(rows["outcome"] == "tool_error").row(0, named=True)
    assert failed["evidence"].startswith("The LLM did not conform to the edit format.")
    assert failed["recovered"] is True and failed["finding"] is None


def test_a_declined_edit_is_a_failed_call_and_group_answers_are_not_the_persons_words():
    result = read_file(AQUATICAT, AQUATICAT.name)
    assert calls_and_results(result) == [
        ("edit", {"path": "CONVENTIONS.md"}, True, "Skipping edits to CONVENTIONS.md")
    ]
    assert result.passed_over[GROUP_ANSWER] == 2
    (conversation,) = result.conversations
    requests = [m.parts[0].text for m in conversation.messages if m.from_person]
    assert requests[0].startswith("look at my CONVENTIONS.md\nAlso look at my eslint config")
    assert not any("(Y)es/(N)o" in text for text in requests)


def test_the_real_histories_are_detected_and_licences_beside_them_are_not():
    assert detect(AFI).NAME == "aider"
    assert detect(AQUATICAT).NAME == "aider"
    assert READERS["aider"].DESCRIPTION.startswith("Aider chat history")


# ----------------------------------------------------------------------------- the format
def test_a_multi_line_report_runs_to_the_line_with_aiders_line_break(tmp_path: Path):
    path = write_history(
        tmp_path / ".aider.chat.history.md",
        "",
        "# aider chat started at 2025-01-01 10:00:00",
        "",
        "#### rename x to y  ",
        "",
        "a.py",
        "```python",
        "<<<<<<< SEARCH",
        "x = 1",
        "=======",
        "y = 1",
        ">>>>>>> REPLACE",
        "```",
        "",
        "> Tokens: 1k sent, 20 received.  ",
        "> The LLM did not conform to the edit format.  ",
        "> https://aider.chat/docs/troubleshooting/edit-errors.html  ",
        "> # 1 SEARCH/REPLACE block failed to match!",
        "",
        "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.py",
        "<<<<<<< SEARCH",
        "x = 1",
        "=======",
        "y = 1",
        ">>>>>>> REPLACE",
        "",
        "The SEARCH section must exactly match an existing block of lines including all white"
        " space, comments, indentation, docstrings, etc  ",
        "",
        "I could not apply the change: `x = 1` is not in a.py.",
        "",
        "> Tokens: 1k sent, 20 received.  ",
    )
    result = read_file(path, path.name)
    assert calls_and_results(result) == [
        ("edit", {"path": "a.py"}, True, "The LLM did not conform to the edit format.")
    ]
    texts = [
        p.text
        for m in result.conversations[0].messages
        if m.role == "assistant"
        for p in m.parts
        if isinstance(p, TextPart)
    ]
    # The report's own lines (its SEARCH block, its advice) are not the assistant's words.
    assert texts[-1] == "I could not apply the change: `x = 1` is not in a.py."
    row = scan([path]).calls.row(0, named=True)
    assert (row["outcome"], row["claim"], row["finding"]) == ("tool_error", "failure", None)


def test_a_padded_list_of_shell_commands_runs_each_command_as_a_call(tmp_path: Path):
    path = write_history(
        tmp_path / "h.md",
        "# aider chat started at 2025-01-01 10:00:00",
        "",
        "#### make the folders  ",
        "",
        "```bash",
        "mkdir -p dist/dags",
        "touch dist/dags/index.js",
        "```",
        "",
        "> mkdir -p dist/dags      ",
        "touch dist/dags/index.js  ",
        "> Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: y  ",
        "> Running mkdir -p dist/dags  ",
        "> Running touch dist/dags/index.js  ",
        "> Error occurred while running command 'touch dist/dags/index.js': [Errno 2]  ",
    )
    result = read_file(path, path.name)
    assert calls_and_results(result) == [
        ("shell", {"command": "mkdir -p dist/dags"}, None, "Running mkdir -p dist/dags"),
        (
            "shell",
            {"command": "touch dist/dags/index.js"},
            True,
            "Running touch dist/dags/index.js",
        ),
    ]
    # The continued command list is one output line, not the assistant's text.
    assert result.passed_over == {STATUS: 2}


def test_a_markdown_heading_or_quote_in_a_reply_is_the_replys_text(tmp_path: Path):
    path = write_history(
        tmp_path / "h.md",
        "# aider chat started at 2025-01-01 10:00:00",
        "",
        "#### explain  ",
        "",
        "#### Summary",
        "> note: nothing changed",
        "All good.",
        "",
        "> Tokens: 1k sent, 20 received.  ",
    )
    (conversation,) = read_file(path, path.name).conversations
    reply = conversation.messages[-1]
    assert reply.parts[0].text == "#### Summary\n> note: nothing changed\nAll good."


def test_commands_for_aider_are_passed_over_and_ask_carries_a_message(tmp_path: Path):
    path = write_history(
        tmp_path / "h.md",
        "# aider chat started at 2025-01-01 10:00:00",
        "",
        "#### /add a.py  ",
        "> Added a.py to the chat  ",
        "",
        "#### !ls  ",
        "",
        "#### /ask what does a.py do?  ",
        "",
        "It prints hello.",
        "",
    )
    (conversation,) = read_file(path, path.name).conversations
    assert [(m.role, m.parts[0].text) for m in conversation.messages] == [
        ("user", "what does a.py do?"),
        ("assistant", "It prints hello."),
    ]
    assert read_file(path, path.name).passed_over == {COMMAND: 2, STATUS: 1}


def test_a_session_interrupted_before_any_reply_is_counted_not_read(tmp_path: Path):
    path = write_history(
        tmp_path / "h.md",
        "# aider chat started at 2025-01-01 10:00:00",
        "",
        "> Aider v0.85.1  ",
        "",
        "#### hello  ",
        "> litellm.RateLimitError: quota exceeded  ",
        ">  ",
        "> ^C KeyboardInterrupt  ",
    )
    result = read_file(path, path.name)
    assert result.conversations == []
    assert result.passed_over == {NO_ASSISTANT: 1}


def test_a_history_kept_under_its_hidden_name_is_found_in_a_folder(tmp_path: Path):
    history = tmp_path / "project" / ".aider.chat.history.md"
    history.parent.mkdir()
    history.write_text(AQUATICAT.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "project" / ".env").write_text("SECRET=1\n", encoding="utf-8")
    assert [name for _, name in expand([tmp_path])] == [str(history)]
    assert detect(history).NAME == "aider"
