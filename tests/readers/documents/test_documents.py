"""Licences, READMEs and other documentation beside transcripts: skipped with a reason."""

import json
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


def test_a_corpus_manifest_is_passed_over_but_a_transcript_of_that_name_is_read(
    tmp_path: Path, slack_false_success
):
    (tmp_path / "SOURCE-manifest.json").write_text('{\n  "manifest_version": 1\n}\n')
    transcript = tmp_path / "manifest.json"
    transcript.write_text(json.dumps(slack_false_success("c-manifest")), encoding="utf-8")
    assert detect(tmp_path / "SOURCE-manifest.json").NAME == "documents"
    assert detect(transcript).NAME == "openai_chat"
    result = scan([tmp_path])
    assert result.rejects.height == 0
    assert result.summary()["skipped_files"] == 1
    assert result.calls["conversation_id"].to_list() == ["c-manifest"]
