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
    assert overall.precision >= 0.93
    assert overall.recall >= 0.93


def test_critical_findings_reach_their_floors(evaluation):
    critical = evaluation.findings["critical"]
    assert critical.precision >= 0.97
    assert critical.recall >= 0.95


def test_claims_reach_the_accuracy_floor(evaluation):
    assert evaluation.claim_accuracy >= 0.93


def test_outcomes_reach_the_accuracy_floor(evaluation):
    assert evaluation.outcome_accuracy >= 0.95


# ----------------------------------------------------------------------------- real transcripts
REAL = CORPUS.parent / "real"


@pytest.fixture(scope="module")
def real():
    if not (REAL / "labels.jsonl").exists():
        pytest.skip("no hand-labelled real corpus")
    return evaluate(REAL)


def test_on_real_logs_false_alarms_stay_under_two_percent_of_the_quiet_calls(real):
    assert real.quiet_calls >= 100
    assert real.false_alarm_rate <= 0.02


def test_on_real_logs_outcomes_reach_the_accuracy_floor(real):
    assert real.outcome_accuracy >= 0.95


def test_on_real_logs_every_clear_finding_is_found(real):
    assert real.findings["all"].false_negative == 0


# ----------------------------------------------------------------------------- blind set
BLIND = Path(__file__).parent / "data" / "blind" / "agent-runs"


def test_a_blind_set_written_without_sight_of_the_rules_stays_above_its_floors():
    """Agent runs labelled by someone who never read the rules (tests/data/blind/agent-runs):
    a floor a little under today's figures, so that a change that overfits elsewhere shows."""
    blind = evaluate(BLIND)
    assert blind.findings["all"].precision >= 0.70
    assert blind.findings["all"].recall >= 0.70
    assert blind.outcome_accuracy >= 0.95
    assert blind.false_alarm_rate <= 0.05


def test_the_blind_dutch_and_italian_set_stays_above_its_floors():
    """Dutch and Italian support chats labelled by someone who never read the rules."""
    blind = evaluate(Path(__file__).parent / "data" / "blind" / "languages-nl-it")
    assert blind.findings["all"].recall >= 0.70
    assert blind.findings["all"].precision >= 0.65
    assert blind.outcome_accuracy >= 0.95


def test_the_blind_identity_set_stays_above_its_floors():
    """Null identities answered in many voices, labelled by someone who never read the rules."""
    blind = evaluate(Path(__file__).parent / "data" / "blind" / "identity")
    assert blind.findings["identity_assumed"].precision >= 0.9
    assert blind.findings["identity_assumed"].recall >= 0.6
    assert blind.false_alarm_rate <= 0.1


# Blind sets written for issue 16 (claims on replies the rules have never seen), each by a helper
# that read only the spec and the formats reference: (folder, critical precision and recall floor,
# all-findings precision and recall floor). The floors sit a little under the figures measured
# when the sets were added (README, "Measured figures"), so a change that overfits elsewhere
# shows here.
CLAIM_SETS = [
    ("attribution", 0.9, 0.8, 0.85, 0.85),
    ("subjects", 0.9, 0.85, 0.9, 0.8),
    ("unworded", 0.85, 0.9, 0.85, 0.9),
    ("languages", 0.9, 0.9, 0.85, 0.9),
    ("mixed", 0.9, 0.9, 0.9, 0.9),
    # written last, to measure the finished rules on replies nobody had read
    ("heldout-chat", 0.85, 0.85, 0.8, 0.75),
    ("heldout-agents", 0.75, 0.85, 0.75, 0.75),
    ("heldout-mixed", 0.85, 0.85, 0.8, 0.8),
    ("heldout-final", 0.85, 0.8, 0.8, 0.75),
    ("heldout-check", 0.9, 0.85, 0.9, 0.8),
    # written on 2026-12-01 (evening); fleet, europe and smallbiz were measured blind
    ("heldout-backoffice", 0.85, 0.9, 0.85, 0.85),
    ("heldout-ops", 0.9, 0.85, 0.85, 0.85),
    ("heldout-fleet", 0.9, 0.9, 0.9, 0.85),
    ("heldout-europe", 0.8, 0.85, 0.8, 0.9),
    ("heldout-reviewers", 0.9, 0.8, 0.85, 0.85),
    ("heldout-smallbiz", 0.8, 0.8, 0.75, 0.75),
    ("heldout-coding", 0.9, 0.85, 0.9, 0.85),
    # written on 2026-12-01 (late evening); public, travel and itadmin were measured blind
    ("heldout-clinics", 0.8, 0.9, 0.85, 0.85),
    ("heldout-creators", 0.9, 0.9, 0.9, 0.9),
    ("heldout-data", 0.9, 0.9, 0.9, 0.9),
    ("heldout-public", 0.85, 0.9, 0.85, 0.85),
    ("heldout-travel", 0.8, 0.9, 0.85, 0.75),
    ("heldout-itadmin", 0.8, 0.8, 0.85, 0.75),
    # written at the end of that round and measured blind; their mismatches were listed once
    # at the start of the next round, before it changed anything
    ("heldout-logistics", 0.8, 0.9, 0.8, 0.9),
    ("heldout-finance", 0.8, 0.8, 0.8, 0.75),
    # written on 2026-12-01 (night), measured before any change; agentops was left unread
    ("heldout-home", 0.9, 0.9, 0.8, 0.9),
    ("heldout-langs", 0.85, 0.85, 0.8, 0.8),
    ("heldout-agentops", 0.9, 0.85, 0.9, 0.8),
    # written on 2026-12-02, measured before any change, then read
    ("heldout-voices", 0.9, 0.9, 0.9, 0.9),
    ("heldout-agentwork", 0.9, 0.7, 0.9, 0.7),
    ("heldout-phrasebook", 0.9, 0.9, 0.9, 0.9),
    ("heldout-multi", 0.9, 0.75, 0.9, 0.85),
    # written after that round's changes, measured once on them, never read
    ("heldout-euro", 0.9, 0.85, 0.9, 0.85),
    ("heldout-fresh", 0.9, 0.9, 0.9, 0.9),
    # written later that day, measured on the rules before and after the round: unchanged
    ("heldout-euro2", 0.9, 0.9, 0.9, 0.9),
    ("heldout-agents2", 0.9, 0.8, 0.9, 0.75),
    ("heldout-chat3", 0.9, 0.9, 0.9, 0.9),
    ("heldout-agents3", 0.9, 0.75, 0.85, 0.8),
    # written at the end of the round, measured once on its rules, never read
    ("heldout-agents4", 0.8, 0.8, 0.8, 0.7),
    ("heldout-voices2", 0.9, 0.85, 0.9, 0.8),
    # written on 2026-12-02 (morning), measured on the rules of 6330d54 before any change, then
    # read
    ("heldout-summaries", 0.85, 0.85, 0.85, 0.8),
    ("heldout-identity", 0.9, 0.9, 0.9, 0.9),
    ("heldout-agentsteps", 0.9, 0.8, 0.8, 0.7),
    ("heldout-regions", 0.9, 0.9, 0.9, 0.9),
    # written after that round's changes, measured once on e00bb62, their claims never read
    # (late-c's two outcome rows were read: kubectl and Helm failure lines)
    ("heldout-late-a", 0.7, 0.9, 0.75, 0.85),
    ("heldout-late-b", 0.9, 0.75, 0.9, 0.8),
    ("heldout-late-c", 0.9, 0.8, 0.9, 0.7),
    # the last wave of that day, measured once on 0eb87a6; final-f was then read, d and e never
    ("heldout-final-d", 0.85, 0.9, 0.85, 0.85),
    ("heldout-final-e", 0.9, 0.7, 0.75, 0.75),
    ("heldout-final-f", 0.8, 0.8, 0.8, 0.7),
    # written at the end of the morning round, measured once on 9aaeec7, never read
    ("heldout-end-g", 0.9, 0.9, 0.9, 0.9),
    ("heldout-end-h", 0.6, 0.3, 0.75, 0.45),
    ("heldout-end-i", 0.9, 0.8, 0.9, 0.8),
    # written on 2026-12-02, measured once on d5385c8 (critical 0.875 / 0.724 pooled), then read
    ("heldout-longruns", 0.9, 0.55, 0.9, 0.65),
    ("heldout-backops", 0.9, 0.9, 0.9, 0.9),
    ("heldout-tongues", 0.9, 0.9, 0.9, 0.9),
    ("heldout-tangles", 0.9, 0.9, 0.9, 0.85),
    # written later on 2026-12-02, measured once on 71e64dc (critical 0.818 / 0.750 pooled);
    # buildops and customers then read, smalleu never
    ("heldout-buildops", 0.9, 0.9, 0.9, 0.9),
    ("heldout-customers", 0.9, 0.85, 0.85, 0.85),
    ("heldout-smalleu", 0.75, 0.9, 0.75, 0.9),
    # written at the end of the day, measured once on 8d242bd (critical 1.000 / 0.632 pooled)
    ("heldout-opsmix", 0.9, 0.75, 0.85, 0.85),
    ("heldout-pipelines", 0.9, 0.75, 0.9, 0.85),
    ("heldout-publicdesk", 0.9, 0.6, 0.8, 0.75),  # then read
]


# Sets whose outcomes were measured blind and left unread: their outcome misses stay as found.
OUTCOME_FLOORS = {"heldout-end-h": 0.9}


@pytest.mark.parametrize(("folder", "cp", "cr", "ap", "ar"), CLAIM_SETS)
def test_the_blind_claim_sets_stay_above_their_floors(folder, cp, cr, ap, ar):
    blind = evaluate(Path(__file__).parent / "data" / "blind" / folder)
    assert blind.findings["critical"].precision >= cp
    assert blind.findings["critical"].recall >= cr
    assert blind.findings["all"].precision >= ap
    assert blind.findings["all"].recall >= ar
    assert blind.outcome_accuracy >= OUTCOME_FLOORS.get(folder, 0.95)
