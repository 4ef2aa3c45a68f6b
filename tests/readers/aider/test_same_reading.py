"""The Aider reader reads every history as the reader it replaced did (``reference_reader.py``,
its blocks cut by one regular expression): the same conversations, messages, parts, calls,
results and line numbers, the same rejects and the same lines passed over with their reasons,
on the real histories, on variants of them (CRLF, a BOM, trailing spaces stripped, no final
newline, cut anywhere, lines dropped) and on histories made up of odd lines."""

from __future__ import annotations

import importlib.util
import random
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.readers import aider
from auditor.readers.result import ReadResult

HERE = Path(__file__).parent
REAL = sorted(HERE.glob("*.aider.chat.history.md"))

_spec = importlib.util.spec_from_file_location("aider_reference", HERE / "reference_reader.py")
assert _spec is not None and _spec.loader is not None
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def both(data: bytes) -> tuple[ReadResult, ReadResult]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ".aider.chat.history.md"
        path.write_bytes(data)
        return reference.read(path, "some/source"), aider.read(path, "some/source")


def assert_same(data: bytes) -> None:
    old, new = both(data)
    assert new.conversations == old.conversations
    assert new.rejects == old.rejects
    assert new.skipped == old.skipped
    # The reasons in the order they were first counted, and each count.
    assert list(new.passed_over.items()) == list(old.passed_over.items())


# ----------------------------------------------------------------------------- real histories
def test_the_real_histories_read_the_same():
    assert REAL
    for path in REAL:
        data = path.read_bytes()
        old, _ = both(data)
        assert old.conversations  # the comparison is not of two empty readings
        assert_same(data)


def test_variants_of_the_real_histories_read_the_same():
    for path in REAL:
        data = path.read_bytes()
        assert_same(data.replace(b"\n", b"\r\n"))  # Windows line ends
        assert_same(b"\xef\xbb\xbf" + data)  # a BOM
        assert_same(data.rstrip(b"\n"))  # no final newline
        assert_same(data.rstrip(b"\n") + b"\n   \n\t\n\n")  # blank lines at the end
        # Trailing spaces stripped: aider's line breaks are gone (markers by prefix alone).
        assert_same(b"\n".join(row.rstrip() for row in data.split(b"\n")))
        # The person's and aider's markers without their space.
        assert_same(data.replace(b"\n> ", b"\n>").replace(b"\n#### ", b"\n####"))


def test_real_histories_cut_anywhere_or_with_lines_dropped_read_the_same():
    chance = random.Random(17)
    for path in REAL:
        data = path.read_bytes()
        for _ in range(40):
            assert_same(data[: chance.randrange(len(data))])
            assert_same(data[chance.randrange(len(data)) :])
        rows = data.split(b"\n")
        for _ in range(40):
            kept = [row for row in rows if chance.random() > 0.15]
            assert_same(b"\n".join(kept))
            shuffled = rows[:]
            start = chance.randrange(len(rows))
            piece = shuffled[start : start + 30]
            chance.shuffle(piece)
            shuffled[start : start + 30] = piece
            assert_same(b"\n".join(shuffled))


# ----------------------------------------------------------------------------- made-up histories
HEADERS = [
    "# aider chat started at 2025-01-01 10:00:00",
    "# aider chat started at 2025-01-01 10:00:00",  # the same time again
    "# aider chat started at 2025-01-02T11:00:00  ",
    "# aider chat started at 2025-01-0x",  # not a header
    "# aider chat started at ",
]
LINES = [
    "",
    " ",
    "  ",
    "\t",
    " \t ",
    "#### fix the bug  ",
    "#### fix the bug",
    "####",
    "####  ",
    "#### ",
    "####x  ",
    "#### #### typed after the marker  ",
    "#### /add a.py  ",
    "#### /ask why does it fail?  ",
    "#### /ask  ",
    "#### /code make it so  ",
    "#### !ls  ",
    "#### <blank>  ",
    "#### Create new file? (Y)es/(N)o [Yes]: y  ",
    "#### Allow edits to 2 files? (Y)es/(N)o/(A)ll/(S)kip all [Yes]: a  ",
    "> Tokens: 1k sent, 20 received.  ",
    "> Tokens: 1k sent, 20 received.",
    ">",
    ">  ",
    "> ",
    ">\t",
    ">x",
    "> Applied edit to a.py  ",
    "> Applied edit to a.py",
    "> Applied edit to src\\b.py  ",
    "> Applied edit to   ",
    "> Skipping edits to b.py  ",
    "> Running ls -la  ",
    "> Running ls",
    "> Running   ",
    "> Error occurred while running command  ",
    "> Error occurred while running commands  ",
    "> Added 3 lines of output to the chat.  ",
    "> Added 1 line of output to the chat.",
    "> The LLM did not conform to the edit format.  ",
    "> The LLM did not conform to the edit format.",
    "> https://aider.chat/docs/troubleshooting/edit-errors.html  ",
    "> https://aider.chat/docs/llms/warnings.html  ",
    "> # 1 SEARCH/REPLACE block failed to match!",
    "> # 2 SEARCH/REPLACE blocks failed to match!  ",
    "> Commit 1a2b3c4 fix: the bug  ",
    "> Add command output to the chat? (Y)es/(N)o [Yes]: y  ",
    ">  Running with a space  ",
    "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.py",
    "  ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in b.py",
    "# The other 1 SEARCH/REPLACE block was applied successfully.",
    "# The other 2 SEARCH/REPLACE blocks were applied successfully.",
    "Here is the change:",
    "a.py",
    "src/b.py:",
    "**c.py**",
    "```python",
    "```",
    "<<<<<<< SEARCH",
    "<<<<<<< SEARCH>",
    "======= ",
    "=======",
    ">>>>>>> REPLACE",
    "x = 1",
    "#### A heading in the reply",
    "> a quote in the reply",
    "<thinking-content-7f3a>",
    "</thinking-content-7f3a>",
    "ends with aider's break  ",
    "emoji 🔎 and 🧠",
    "odd breaks\u2028inside\x85and\x0cthere",
    "a lone\rcarriage return",
    "Running ls",
    "Applied edit to a.py",
    "\ufeffa BOM inside",
    "x" * 5000,
    "  " + "y" * 3000 + "  ",
]


@st.composite
def histories(draw: st.DrawFn) -> bytes:
    rows = draw(
        st.lists(
            st.one_of(
                st.sampled_from(LINES),
                st.sampled_from(HEADERS),
                st.text(alphabet=" \t>#ab\r\n", max_size=12),
            ),
            max_size=60,
        )
    )
    if draw(st.booleans()):
        rows.insert(0, HEADERS[0])
    if draw(st.booleans()):  # no line ends with aider's break: markers by prefix alone
        rows = [row.rstrip(" ") for row in rows]
    text = draw(st.sampled_from(["\n", "\r\n"])).join(rows)
    text += draw(st.sampled_from(["", "\n", "\r\n", "\n\n", "\n  \n", "  "]))
    if draw(st.booleans()):
        text = "\ufeff" + text
    data = text.encode("utf-8")
    if draw(st.booleans()):  # bytes that are not UTF-8
        at = draw(st.integers(min_value=0, max_value=len(data)))
        data = data[:at] + b"\xff\xc3" + data[at:]
    return data


@settings(max_examples=1500, deadline=None)
@given(histories())
def test_made_up_histories_read_the_same(data: bytes):
    assert_same(data)


def test_an_empty_file_and_one_without_a_session_read_the_same():
    for data in (b"", b"\n", b"hello\n", b"> x  \n#### y  \n", b"\xef\xbb\xbf"):
        assert_same(data)


def test_the_white_space_found_by_expression_is_what_rstrip_takes():
    """``_output_text`` finds the lines to strip by ``[^\\S\\n]`` before a newline: for every
    character, that is ``str.rstrip``'s own test."""
    import re

    space = re.compile(r"[^\S\n]")
    for code in range(0x110000):
        char = chr(code)
        stripped = ("a" + char).rstrip() == "a"
        assert bool(space.match(char)) == (stripped and char != "\n"), hex(code)
