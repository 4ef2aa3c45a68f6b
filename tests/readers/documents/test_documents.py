"""Licences, READMEs and other documentation beside transcripts: skipped with a reason."""

from pathlib import Path

from auditor import scan
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def test_a_licence_is_recognised_and_skipped():
    path = HERE / "LICENSE"
    assert detect(path).NAME == "documents"
    result = read_file(path, str(path))
    assert (result.conversations, result.rejects) == ([], [])
    assert result.skipped == "not a transcript (documentation or licence)"


def test_licences_and_readmes_are_passed_over_with_a_reason(tmp_path: Path):
    (tmp_path / "LICENSE").write_text("MIT License\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# logs\n", encoding="utf-8")
    result = scan([tmp_path])
    assert result.rejects.height == 0
    assert result.summary()["skipped_files"] == 2
