"""Scoring the auditor against a labelled corpus (layout in the spec: transcripts + labels.jsonl).

Rows are matched by (conversation_id, tool_call_id). Findings are scored per kind and all kinds
together (a finding counts as right only when its kind matches); outcome and claim by accuracy.
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

    def mismatches(self) -> pl.DataFrame:
        return self.joined.filter(
            (pl.col("finding") != pl.col("expected_finding"))
            | (pl.col("finding").is_null() != pl.col("expected_finding").is_null())
            | (pl.col("outcome") != pl.col("expected_outcome"))
            | (pl.col("claim") != pl.col("expected_claim"))
        )

    def claim_confusion(self) -> pl.DataFrame:
        order = [c.value for c in Claim]
        table = (
            self.joined.group_by("expected_claim", "claim")
            .len()
            .pivot(on="claim", index="expected_claim", values="len")
            .fill_null(0)
        )
        columns = ["expected_claim", *[c for c in order if c in table.columns]]
        return table.select(columns).sort(
            pl.col("expected_claim").replace_strict(order, list(range(len(order))), default=99)
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "findings": {k: v.as_dict() for k, v in self.findings.items()},
            "outcome_accuracy": round(self.outcome_accuracy, 4),
            "claim_accuracy": round(self.claim_accuracy, 4),
            "recovered_accuracy": round(self.recovered_accuracy, 4),
            "labelled_calls": self.joined.height,
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
    corpus = Path(corpus)
    labels = pl.read_ndjson(corpus / LABELS, infer_schema_length=None)
    inputs = [path for path, _ in expand([corpus])]
    result = scan(inputs, rules=rules)
    calls = result.calls.unique(subset=KEY, keep="first")
    expected = labels.select(
        *KEY,
        pl.col("outcome").alias("expected_outcome"),
        pl.col("claim").alias("expected_claim"),
        pl.col("recovered").alias("expected_recovered"),
        pl.col("finding").cast(pl.String).alias("expected_finding"),
        pl.col("note").alias("label_note")
        if "note" in labels.columns
        else pl.lit(None).alias("label_note"),
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

    def accuracy(column: str) -> float:
        if not joined.height:
            return 0.0
        return float((joined[column] == joined[f"expected_{column}"]).fill_null(False).mean())

    return Evaluation(
        joined=joined,
        findings=scores,
        outcome_accuracy=accuracy("outcome"),
        claim_accuracy=accuracy("claim"),
        recovered_accuracy=accuracy("recovered"),
        unmatched_labels=unmatched,
        unlabelled_calls=unlabelled,
    )
