"""Scoring the auditor against a labelled corpus (layout in the spec: transcripts + labels.jsonl).

Rows are matched by (conversation_id, tool_call_id); rows marked ``"confidence": "ambiguous"``
(cases the spec does not settle) are not scored. Findings are scored per kind and all kinds
together (a finding counts as right only when its kind matches), with the false alarm rate
over the calls labelled with no finding; outcome accuracy over every scored call; claim
accuracy over the calls whose claim is read (failed or partial, not recovered, by the label).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from auditor.model import Claim, Finding
from auditor.rules_loader import RuleSet
from auditor.run.inputs import expand
from auditor.run.pipeline import scan

LABELS = "labels.jsonl"
KEY = ["conversation_id", "tool_call_id"]
NOT_READ = ("ok", "cut_off")  # outcomes whose claim the spec does not read
CAUSES = ("outcome_rule", "recovered_by", "probe", "claim_cue", "claim_sentence")


@dataclass
class Score:
    true_positive: int
    false_positive: int
    false_negative: int

    @property
    def precision(self) -> float:
        flagged = self.true_positive + self.false_positive
        return self.true_positive / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        expected = self.true_positive + self.false_negative
        return self.true_positive / expected if expected else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "tp": self.true_positive,
            "fp": self.false_positive,
            "fn": self.false_negative,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass
class Evaluation:
    joined: pl.DataFrame  # one row per labelled call, expected_* beside the auditor's columns
    findings: dict[str, Score]  # per kind, plus "all" and "critical"
    outcome_accuracy: float
    claim_accuracy: float
    recovered_accuracy: float
    unmatched_labels: int
    unlabelled_calls: int
    skipped_ambiguous: int = 0
    probe_accuracy: float | None = None  # when the labels say which calls are probes
    false_alarms: int = 0  # findings on calls labelled with no finding
    quiet_calls: int = 0  # calls labelled with no finding

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.quiet_calls if self.quiet_calls else 0.0

    def mismatches(self) -> pl.DataFrame:
        """Labelled calls where the finding, outcome, recovery, probe or (where it is read)
        claim differs from the label, with the columns that say why."""
        wrong = (
            pl.col("finding").ne_missing(pl.col("expected_finding"))
            | pl.col("outcome").ne_missing(pl.col("expected_outcome"))
            | pl.col("recovered").ne_missing(pl.col("expected_recovered"))
            | (pl.col("claim_read") & pl.col("claim").ne_missing(pl.col("expected_claim")))
        )
        if "expected_probe" in self.joined.columns:
            wrong = wrong | (
                pl.col("expected_probe").is_not_null()
                & pl.col("probe").ne_missing(pl.col("expected_probe"))
            )
        return self.joined.filter(wrong)

    def claim_confusion(self) -> pl.DataFrame:
        """Expected × read claims, over the calls whose claim is read."""
        order = [c.value for c in Claim]
        table = (
            self.joined.filter(pl.col("claim_read"))
            .with_columns(pl.col("claim").fill_null("(not read)"))
            .group_by("expected_claim", "claim")
            .len()
            .pivot(on="claim", index="expected_claim", values="len")
            .fill_null(0)
        )
        columns = ["expected_claim", *[c for c in [*order, "(not read)"] if c in table.columns]]
        return table.select(columns).sort(
            pl.col("expected_claim").replace_strict(order, list(range(len(order))), default=99)
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "findings": {k: v.as_dict() for k, v in self.findings.items()},
            "outcome_accuracy": round(self.outcome_accuracy, 4),
            "claim_accuracy": round(self.claim_accuracy, 4),
            "recovered_accuracy": round(self.recovered_accuracy, 4),
            "probe_accuracy": None
            if self.probe_accuracy is None
            else round(self.probe_accuracy, 4),
            "false_alarms": self.false_alarms,
            "quiet_calls": self.quiet_calls,
            "false_alarm_rate": round(self.false_alarm_rate, 4),
            "claims_read": int(self.joined["claim_read"].sum()),
            "labelled_calls": self.joined.height,
            "skipped_ambiguous": self.skipped_ambiguous,
            "unmatched_labels": self.unmatched_labels,
            "unlabelled_calls": self.unlabelled_calls,
        }


def _score(expected: pl.Series, got: pl.Series, kinds: set[str] | None) -> Score:
    tp = fp = fn = 0
    for want, have in zip(expected.to_list(), got.to_list(), strict=True):
        want_in = want is not None and (kinds is None or want in kinds)
        have_in = have is not None and (kinds is None or have in kinds)
        if want_in and have_in and want == have:
            tp += 1
        else:
            fp += have_in
            fn += want_in
    return Score(tp, fp, fn)


def evaluate(corpus: str | Path, *, rules: RuleSet | None = None) -> Evaluation:
    """Scan a labelled corpus and score the scan against its labels."""
    corpus = Path(corpus)
    labels = pl.read_ndjson(corpus / LABELS, infer_schema_length=None)
    skipped = 0
    if "confidence" in labels.columns:
        ambiguous = pl.col("confidence").eq_missing("ambiguous")
        skipped = labels.filter(ambiguous).height
        labels = labels.filter(~ambiguous)
    inputs = [path for path, _ in expand([corpus])]
    result = scan(inputs, rules=rules)
    calls = result.calls.unique(subset=KEY, keep="first")
    optional = [
        pl.col(name).alias(alias) if name in labels.columns else pl.lit(None).alias(alias)
        for name, alias in (("note", "label_note"), ("probe", "expected_probe"))
    ]
    expected = labels.select(
        *KEY,
        pl.col("outcome").alias("expected_outcome"),
        pl.col("claim").alias("expected_claim"),
        pl.col("recovered").alias("expected_recovered"),
        pl.col("finding").cast(pl.String).alias("expected_finding"),
        *optional,
    ).with_columns(
        claim_read=~pl.col("expected_outcome").is_in(NOT_READ)
        & ~pl.col("expected_recovered").fill_null(False)
    )
    joined = expected.join(calls, on=KEY, how="left")
    unlabelled = calls.join(expected, on=KEY, how="anti").height
    unmatched = joined.filter(pl.col("outcome").is_null()).height
    scores = {
        kind.value: _score(joined["expected_finding"], joined["finding"], {kind.value})
        for kind in Finding
    }
    scores["critical"] = _score(
        joined["expected_finding"],
        joined["finding"],
        {Finding.FALSE_SUCCESS.value, Finding.IDENTITY_ASSUMED.value},
    )
    scores["all"] = _score(joined["expected_finding"], joined["finding"], None)
    quiet = joined.filter(pl.col("expected_finding").is_null())

    def accuracy(frame: pl.DataFrame, column: str) -> float:
        if not frame.height:
            return 0.0
        return float(frame[column].eq_missing(frame[f"expected_{column}"]).mean())

    probed = joined.filter(pl.col("expected_probe").is_not_null())
    return Evaluation(
        joined=joined,
        findings=scores,
        outcome_accuracy=accuracy(joined, "outcome"),
        claim_accuracy=accuracy(joined.filter(pl.col("claim_read")), "claim"),
        recovered_accuracy=accuracy(joined, "recovered"),
        unmatched_labels=unmatched,
        unlabelled_calls=unlabelled,
        skipped_ambiguous=skipped,
        probe_accuracy=accuracy(probed, "probe") if probed.height else None,
        false_alarms=quiet.filter(pl.col("finding").is_not_null()).height,
        quiet_calls=quiet.height,
    )
