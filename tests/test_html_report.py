"""`auditor report`: one self-contained HTML file (checked in a real headless browser) and the
same report as Markdown; transcript content is always escaped."""

import os
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest
from builders import assistant, call, chat, text_block, tool, user, write_jsonl
from typer.testing import CliRunner

from auditor.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)></pre></div>"
BROWSER_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def hostile_conversation() -> dict:
    """Markup and script tags everywhere a transcript can carry them."""
    record = chat(
        user(f"Close OPS-1 {HOSTILE}"),
        assistant(None, call("c1", "update_ticket", key="OPS-1", note=HOSTILE)),
        tool("c1", text_block(f"403 Forbidden: {HOSTILE} | `pipe`"), isError=True),
        assistant(f"Done, OPS-1 is closed. {HOSTILE}"),
        conversation_id="conv-<b>1</b>",
    )
    record["created_at"] = "2026-03-02T09:00:00Z"
    record["user"] = "u-1"
    return record


@pytest.fixture
def out(tmp_path: Path) -> Path:
    write_jsonl(tmp_path / "logs.jsonl", [hostile_conversation()])
    runner.invoke(app, ["scan", str(tmp_path / "logs.jsonl"), "--out", str(tmp_path / "out")])
    return tmp_path / "out"


def report(out: Path, *options: str):
    return runner.invoke(app, ["report", str(out), *options])


def test_report_writes_html_and_markdown(out: Path, tmp_path: Path):
    result = report(out, "--html", tmp_path / "r.html", "--markdown", tmp_path / "r.md")
    assert result.exit_code == 0, result.output
    assert "<h1>" in (tmp_path / "r.html").read_text()
    assert (tmp_path / "r.md").read_text().startswith("# ")


def test_report_without_an_output_file_is_a_usage_error(out: Path):
    assert report(out).exit_code == 2


def test_transcript_script_tags_and_markup_are_escaped(out: Path, tmp_path: Path):
    report(out, "--html", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert "<script>document.title" not in page
    assert "<img src=x" not in page
    assert "conv-<b>1</b>" not in page
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in page
    assert len(re.findall(r"<script>", page)) == 1  # the report's own, allowed by its hash


def test_the_page_loads_nothing_from_the_network(out: Path, tmp_path: Path):
    report(out, "--html", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert "<link" not in page


def test_markdown_keeps_transcript_text_in_code(out: Path, tmp_path: Path):
    report(out, "--markdown", tmp_path / "r.md")
    document = (tmp_path / "r.md").read_text()
    outside_code = re.sub(r"(`+)(?:(?!\1).)*?\1|^\s*```.*?^\s*```", "", document, flags=re.S | re.M)
    assert "<script>" not in outside_code
    assert "\\|" in document  # a pipe in a table cell cannot split the row


# ----------------------------------------------------------------------------- browser
def browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("AUDITOR_REQUIRE_BROWSER"):
        pytest.fail("chromium is required here (apt-get install -y chromium)")
    pytest.skip("chromium is not installed")


def render(page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            browser(),
            *BROWSER_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_in_a_browser_the_report_shows_its_parts_and_no_injected_script_runs(
    out: Path, tmp_path: Path
):
    report(out, "--html", tmp_path / "r.html")
    dom = render(tmp_path / "r.html", tmp_path, "--dump-dom").stdout
    assert 'data-ready="1"' in dom  # the report's own script ran
    assert "<title>pwned</title>" not in dom
    for visible in ("Summary", "Findings over time and by tool", "Findings (1)", "Timelines"):
        assert visible in dom
    assert dom.count('<svg class="chart"') == 2
    assert "<mark>403 Forbidden" in dom or "<mark>" in dom


def test_the_rendered_report_is_not_blank(out: Path, tmp_path: Path):
    report(out, "--html", tmp_path / "r.html")
    shot = tmp_path / "r.png"
    render(tmp_path / "r.html", tmp_path, "--window-size=1200,1600", f"--screenshot={shot}")
    assert len(set(png_pixels(shot.read_bytes()))) > 30  # many colours: text, charts, badges


def png_pixels(data: bytes) -> bytes:
    """The decompressed image data of a PNG (enough to tell a blank page from a drawn one)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, []
    while at < len(data):
        length = int.from_bytes(data[at : at + 4], "big")
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            chunks.append(data[at + 8 : at + 8 + length])
        at += 12 + length
    return zlib.decompress(b"".join(chunks))


def test_the_sample_report_renders(tmp_path: Path):
    runner.invoke(app, ["scan", str(ROOT / "sample_transcripts"), "--out", str(tmp_path / "out")])
    report(tmp_path / "out", "--html", tmp_path / "r.html")
    dom = render(tmp_path / "r.html", tmp_path, "--dump-dom").stdout
    assert "Findings (12)" in dom
    assert dom.count('class="finding"') == 12
