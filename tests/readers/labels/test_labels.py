"""The labels file of a labelled corpus: recognised, and passed over by the scan."""

from pathlib import Path

from builders import write_jsonl

from auditor import scan
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def test_the_labels_sample_is_recognised_and_skipped():
    path = HERE / "labels.jsonl"
    assert detect(path).NAME == "labels"
    result = read_file(path, str(path))
    assert (result.conversations, result.rejects) == ([], [])
    assert result.skipped == "labels of a labelled corpus"


def test_a_labels_file_in_a_corpus_folder_is_passed_over(tmp_path: Path):
    write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {
                "file": "a.jsonl",
                "conversation_id": "c",
                "tool_call_id": "x",
                "outcome": "ok",
                "claim": "none",
            }
        ],
    )
    result = scan([tmp_path])
    assert result.rejects.height == 0
