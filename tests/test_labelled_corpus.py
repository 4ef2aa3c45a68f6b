"""Floors on the shared labelled development corpus (skipped when it is not beside the project)."""

from pathlib import Path

import pytest

from auditor.evaluate import evaluate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "labelled"

pytestmark = pytest.mark.skipif(not (CORPUS / "labels.jsonl").exists(), reason="no labelled corpus")


@pytest.fixture(scope="module")
def evaluation():
    return evaluate(CORPUS)


def test_every_labelled_call_is_found(evaluation):
    assert evaluation.unmatched_labels == 0


def test_findings_reach_the_precision_and_recall_floors(evaluation):
    overall = evaluation.findings["all"]
    assert overall.precision >= 0.90
    assert overall.recall >= 0.90


def test_outcomes_reach_the_accuracy_floor(evaluation):
    assert evaluation.outcome_accuracy >= 0.95
