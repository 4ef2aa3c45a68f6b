#!/usr/bin/env python3
"""Consistency check for this labelled corpus (no auditor code used)."""
import collections, glob, json, os, sys

ROOT = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
errors = []


def err(msg):
    errors.append(msg)


def load(path):
    out = []
    with open(path) as fh:
        for i, line in enumerate(fh, 1):
            try:
                out.append(json.loads(line))
            except Exception as e:
                err(f"{path}:{i} does not parse: {e}")
    return out


calls = {}  # (file, conv, id) -> tool name
for path in sorted(glob.glob(os.path.join(ROOT, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, ROOT)
    results = set()
    for e in load(path):
        sid = e.get("sessionId")
        if e.get("type") in ("user", "assistant") and sid != os.path.basename(path)[:-6]:
            err(f"{rel}: sessionId {sid} differs from file name")
        content = (e.get("message") or {}).get("content")
        if isinstance(content, list):
            for b in content:
                if b.get("type") == "tool_use":
                    calls[(rel, sid, b["id"])] = b["name"]
                if b.get("type") == "tool_result":
                    results.add(b["tool_use_id"])
    for k in [k for k in calls if k[0] == rel]:
        if k[2] not in results:
            err(f"{rel}: call {k[2]} has no result")

gw = os.path.join(ROOT, "chat_gateway.jsonl")
for rec in load(gw):
    conv = rec["conversation_id"]
    ids, res = {}, set()
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            ids[t["id"]] = t["function"]["name"]
            json.loads(t["function"]["arguments"])
        if m["role"] == "tool":
            res.add(m["tool_call_id"])
    for i, n in ids.items():
        calls[("chat_gateway.jsonl", conv, i)] = n
        if i not in res:
            err(f"gateway {conv}: call {i} has no result")

labels = load(os.path.join(ROOT, "labels.jsonl"))
seen = set()
for l in labels:
    key = (l["file"], l["conversation_id"], l["tool_call_id"])
    if list(l.keys()) != KEYS:
        err(f"{key}: keys {list(l.keys())}")
    if key in seen:
        err(f"{key}: labelled twice")
    seen.add(key)
    if key not in calls:
        err(f"{key}: no such call in the files")
    elif calls[key] != l["tool_name"]:
        err(f"{key}: tool_name {l['tool_name']} != {calls[key]}")
    o, c, r, p, f = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES or c not in CLAIMS:
        err(f"{key}: bad vocabulary {o}/{c}")
    if l["confidence"] not in ("clear", "ambiguous"):
        err(f"{key}: bad confidence")
    if l["confidence"] == "ambiguous" and "other reading" not in l["note"].lower():
        err(f"{key}: ambiguous label without the other reading in the note")
    read = (o not in ("ok", "cut_off")) and not r
    if read and c is None:
        err(f"{key}: claim must be read (failed, not recovered)")
    if not read and c is not None:
        err(f"{key}: claim must be null (ok/cut_off or recovered)")
    if r and o in ("ok", "cut_off"):
        err(f"{key}: only failed calls can be recovered")
    if p and (o not in FAILED or r):
        err(f"{key}: a probe is a failed, unrecovered read-only call")
    # finding per the spec's table
    exp = None
    if not r:
        if o in FAILED and c == "success":
            exp = "false_success"
        elif o == "identity_null" and c == "success":
            exp = "identity_assumed"
        elif (o in FAILED or o == "identity_null") and not p and c == "neutral":
            exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure":
            exp = "discarded_partial"
    if c == "unread":
        exp = None
    if f != exp:
        err(f"{key}: finding {f}, spec gives {exp}")

for k in calls:
    if k not in seen:
        err(f"{k}: call without a label")

convs = {l["conversation_id"] for l in labels}
print(f"{len(labels)} labelled calls in {len(convs)} conversations")
for field in ("outcome", "claim", "finding", "confidence"):
    print(f"  {field}: {dict(collections.Counter(str(l[field]) for l in labels))}")
print(f"  recovered: {sum(l['recovered'] for l in labels)}  probes: {sum(l['probe'] for l in labels)}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
