#!/usr/bin/env python3
"""Consistency check for the s9-regions labelled corpus (does not run or read the auditor)."""
import json, os, sys, glob

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"}
errors = []


def load(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errors.append(f"{path}:{n}: blank line")
                continue
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errors.append(f"{path}:{n}: {e}")
    return rows


calls = {}  # (file, conv, id) -> name


def add(file, conv, cid, name):
    k = (file, conv, cid)
    if k in calls:
        errors.append(f"duplicate call id {k}")
    calls[k] = name


for rec in load(os.path.join(HERE, "chat_gateway.jsonl")):
    conv = rec["conversation_id"]
    results = set()
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add("chat_gateway.jsonl", conv, t["id"], t["function"]["name"])
        if m["role"] == "tool":
            results.add(m["tool_call_id"])
    for (f, c, i) in list(calls):
        if c == conv and f == "chat_gateway.jsonl" and i not in results:
            print(f"note: {conv} {i} has no tool result (cut_off or transport)")

for rec in load(os.path.join(HERE, "anthropic_messages.jsonl")):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"):
                    add("anthropic_messages.jsonl", conv, b["id"], b["name"])

for path in glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")):
    rel = os.path.relpath(path, HERE)
    uuids = set()
    for e in load(path):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                errors.append(f"{rel}: entry missing {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            errors.append(f"{rel}: dangling parentUuid {e['parentUuid']}")
        uuids.add(e["uuid"])
        c = e["message"].get("content")
        if e["type"] == "assistant" and isinstance(c, list):
            for b in c:
                if b["type"] == "tool_use":
                    add(rel, e["sessionId"], b["id"], b["name"])

labels = load(os.path.join(HERE, "labels.jsonl"))
seen = set()
for l in labels:
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    where = f"label {l['conversation_id']}/{l['tool_call_id']}"
    if set(l) != KEYS:
        errors.append(f"{where}: keys {sorted(set(l) ^ KEYS)}")
    if k not in calls:
        errors.append(f"{where}: no such call in {l['file']}")
    elif calls[k] != l["tool_name"]:
        errors.append(f"{where}: tool_name {l['tool_name']} != {calls[k]}")
    if k in seen:
        errors.append(f"{where}: labelled twice")
    seen.add(k)
    o, c, r, p = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if o not in OUTCOMES:
        errors.append(f"{where}: bad outcome {o}")
    if l["confidence"] not in ("clear", "ambiguous"):
        errors.append(f"{where}: bad confidence")
    # claim is read only for failed (non-ok, non-cut_off) calls that were not recovered
    read = o not in ("ok", "cut_off") and not r
    if read and c not in CLAIMS:
        errors.append(f"{where}: claim must be read, got {c}")
    if not read and c is not None:
        errors.append(f"{where}: claim must be null, got {c}")
    if r and o in ("ok", "cut_off"):
        errors.append(f"{where}: only failed calls can be recovered")
    if p and (o not in FAILED or l["tool_name"] in ("get_current_user", "whoami", "get_me", "me", "viewer")):
        errors.append(f"{where}: probe must be a failed non-identity call")
    # expected finding per spec
    exp = None
    if not r:
        if o in FAILED and c == "success":
            exp = "false_success"
        elif o == "identity_null" and c == "success":
            exp = "identity_assumed"
        elif (o in FAILED or o == "identity_null") and c == "neutral" and not p:
            exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure":
            exp = "discarded_partial"
    if l["finding"] != exp:
        errors.append(f"{where}: finding {l['finding']} but spec gives {exp}")

for k in calls:
    if k not in seen:
        errors.append(f"unlabelled call {k}")

from collections import Counter
print("conversations:", len({(f, c) for f, c, _ in calls}), "calls:", len(calls))
print("outcome:", dict(Counter(l["outcome"] for l in labels)))
print("claim:", dict(Counter(str(l["claim"]) for l in labels)))
print("finding:", dict(Counter(str(l["finding"]) for l in labels)))
print("lang:", dict(Counter(l["lang"] for l in labels)))
print("recovered:", sum(l["recovered"] for l in labels), "probe:", sum(l["probe"] for l in labels),
      "ambiguous:", sum(l["confidence"] == "ambiguous" for l in labels))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
