"""A small labelled set in voices the development corpus does not use (terse, lower-case,
markdown, small talk), scored with the same evaluation users run on their own labels."""

from pathlib import Path

from auditor.evaluate import evaluate

VOICES = Path(__file__).parent / "data" / "voices"


def test_every_call_in_other_voices_gets_its_labelled_claim_and_finding():
    evaluation = evaluate(VOICES)
    wrong = evaluation.mismatches().select("conversation_id", "claim", "expected_claim")
    assert wrong.height == 0, wrong
    assert evaluation.findings["all"].true_positive == 7
