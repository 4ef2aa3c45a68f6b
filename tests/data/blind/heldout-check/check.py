#!/usr/bin/env python3
"""Consistency check for this labelled corpus (stdlib only).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every labelled tool_call_id exists in its file and conversation, with the labelled tool name;
- every tool call in the files has exactly one label;
- label values use the spec's vocabularies, and the finding follows from outcome/claim/recovered/probe.
"""
import glob, json, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {None, "success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial", "discarded_partial"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
errors = []


def load(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{path}:{n}: bad JSON: {e}")
    return out


def calls_in_files():
    """{(file, conversation_id, tool_call_id): tool_name}"""
    calls = {}
    cg = os.path.join(HERE, "chat_gateway.jsonl")
    if os.path.exists(cg):
        for rec in load(cg):
            cid = rec["conversation_id"]
            for m in rec["messages"]:
                for t in m.get("tool_calls") or []:
                    calls[("chat_gateway.jsonl", cid, t["id"])] = t["function"]["name"]
    am = os.path.join(HERE, "anthropic_messages.jsonl")
    if os.path.exists(am):
        for rec in load(am):
            cid = rec["conversation_id"]
            for m in rec["messages"]:
                if isinstance(m["content"], list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            calls[("anthropic_messages.jsonl", cid, b["id"])] = b["name"]
    for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
        rel = os.path.relpath(p, HERE)
        for e in load(p):
            for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
                if k not in e:
                    errors.append(f"{rel}: entry without {k}")
            c = e.get("message", {}).get("content")
            if e.get("type") == "assistant" and isinstance(c, list):
                for b in c:
                    if b.get("type") == "tool_use":
                        calls[(rel, e["sessionId"], b["id"])] = b["name"]
    return calls


def expected_finding(l):
    o, c, r, p = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if r or o in ("ok", "cut_off") or c in (None, "unread"):
        return None
    if o in FAILED and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAILED or o == "identity_null") and c == "neutral" and not p:
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


def main():
    calls = calls_in_files()
    labels = load(os.path.join(HERE, "labels.jsonl"))
    seen = Counter()
    for i, l in enumerate(labels, 1):
        where = f"labels.jsonl:{i}"
        if list(l.keys()) != KEYS:
            errors.append(f"{where}: keys {list(l.keys())}")
        key = (l["file"], l["conversation_id"], l["tool_call_id"])
        seen[key] += 1
        if key not in calls:
            errors.append(f"{where}: {key} not found in files")
        elif calls[key] != l["tool_name"]:
            errors.append(f"{where}: tool_name {l['tool_name']} != {calls[key]}")
        if l["outcome"] not in OUTCOMES:
            errors.append(f"{where}: outcome {l['outcome']}")
        if l["claim"] not in CLAIMS:
            errors.append(f"{where}: claim {l['claim']}")
        if l["finding"] not in FINDINGS:
            errors.append(f"{where}: finding {l['finding']}")
        if l["confidence"] not in ("clear", "ambiguous"):
            errors.append(f"{where}: confidence {l['confidence']}")
        # claim is read only for failed (not ok / cut_off), unrecovered calls
        should_read = l["outcome"] not in ("ok", "cut_off") and not l["recovered"]
        if should_read and l["claim"] is None:
            errors.append(f"{where}: claim should be read")
        if not should_read and l["claim"] is not None:
            errors.append(f"{where}: claim should be null")
        if l["recovered"] and l["outcome"] in ("ok", "cut_off"):
            errors.append(f"{where}: ok call marked recovered")
        if l["probe"] and l["outcome"] in ("ok", "cut_off", "identity_null"):
            errors.append(f"{where}: probe on an ok/identity call")
        if l["finding"] != expected_finding(l):
            errors.append(f"{where}: finding {l['finding']} but spec gives {expected_finding(l)}")
        if not l["note"] or "\n" in l["note"]:
            errors.append(f"{where}: note must be one line")
    for k in calls:
        if seen[k] == 0:
            errors.append(f"unlabelled call {k}")
    for k, n in seen.items():
        if n > 1:
            errors.append(f"duplicate label {k}")
    for e in errors:
        print("ERROR", e)
    convs = {(l["file"], l["conversation_id"]) for l in labels}
    print(f"{len(calls)} calls in files, {len(labels)} labels, {len(convs)} conversations")
    for field in ("outcome", "claim", "finding", "lang", "confidence"):
        print(field, dict(Counter(str(l[field]) for l in labels)))
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
