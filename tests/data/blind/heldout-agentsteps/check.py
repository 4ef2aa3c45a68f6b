"""Consistency check for the s9-agentsteps labelled corpus.

Run from anywhere: python3 check.py
Checks: every line parses; every tool call in the transcripts has exactly one label and every label
points at a real call in the named file and conversation; tool names match; claim is null where
the spec says it is not read; the finding follows from outcome / claim / recovered / probe as in
the spec's Finding table; outcome labels are consistent with what the transcript physically holds
(result present or not, is_error flag).
"""
import json, os, glob, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"ok", "cut_off", "identity_null", "graphql_partial"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"}
errors = []


def err(msg):
    errors.append(msg)


def load_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: bad JSON: {e}")
    return out


# calls[(file, conv, id)] = {"name":..., "has_result":bool, "is_error":bool|None}
calls = {}


def add_call(file, conv, cid, name):
    key = (file, conv, cid)
    if key in calls:
        err(f"duplicate call id {key}")
    calls[key] = {"name": name, "has_result": False, "is_error": None}


def add_result(file, conv, cid, is_error):
    key = (file, conv, cid)
    if key not in calls:
        err(f"result without call {key}")
        return
    calls[key]["has_result"] = True
    calls[key]["is_error"] = None if is_error is None else bool(is_error)


# --- chat_gateway (OpenAI Chat Completions)
F = "chat_gateway.jsonl"
for n, rec in load_jsonl(os.path.join(HERE, F)):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        for tc in m.get("tool_calls") or []:
            json.loads(tc["function"]["arguments"])
            add_call(F, conv, tc["id"], tc["function"]["name"])
        if m["role"] == "tool":
            add_result(F, conv, m["tool_call_id"], None)

# --- anthropic_messages
F = "anthropic_messages.jsonl"
for n, rec in load_jsonl(os.path.join(HERE, F)):
    conv = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add_call(F, conv, b["id"], b["name"])
            elif b["type"] in ("tool_result", "mcp_tool_result"):
                add_result(F, conv, b["tool_use_id"], b.get("is_error", False))

# --- claude_code sessions
for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    F = os.path.relpath(p, HERE)
    uuids, sids = set(), set()
    for n, e in load_jsonl(p):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                err(f"{F}:{n}: missing {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            err(f"{F}:{n}: parentUuid points to an unknown or later entry")
        uuids.add(e["uuid"])
        sids.add(e["sessionId"])
        conv = e["sessionId"]
        content = e["message"]["content"]
        if isinstance(content, str):
            continue
        for b in content:
            if b["type"] == "tool_use":
                add_call(F, conv, b["id"], b["name"])
            elif b["type"] == "tool_result":
                add_result(F, conv, b["tool_use_id"], b.get("is_error", False))
    if len(sids) != 1:
        err(f"{F}: more than one sessionId")
    if os.path.basename(p)[:-6] not in sids:
        err(f"{F}: file name is not the sessionId")

# --- labels
labels = [r for _, r in load_jsonl(os.path.join(HERE, "labels.jsonl"))]
seen = set()
for r in labels:
    key = (r["file"], r["conversation_id"], r["tool_call_id"])
    tag = f"label {r['tool_call_id']}"
    if set(r) != KEYS:
        err(f"{tag}: keys {sorted(set(r) ^ KEYS)}")
    if key in seen:
        err(f"{tag}: labelled twice")
    seen.add(key)
    c = calls.get(key)
    if c is None:
        err(f"{tag}: no such call in {r['file']} / {r['conversation_id']}")
        continue
    if c["name"] != r["tool_name"]:
        err(f"{tag}: tool_name {r['tool_name']} != {c['name']}")
    o, cl, rec, pr, fi = r["outcome"], r["claim"], r["recovered"], r["probe"], r["finding"]
    if o not in OUTCOMES:
        err(f"{tag}: bad outcome {o}")
    if r["confidence"] not in ("clear", "ambiguous"):
        err(f"{tag}: bad confidence")
    if not r["note"] or "\n" in r["note"]:
        err(f"{tag}: note must be one line")
    # physical consistency
    if o in ("cut_off",) and c["has_result"]:
        err(f"{tag}: cut_off but a result exists")
    if not c["has_result"] and o not in ("cut_off", "transport_error"):
        err(f"{tag}: no result but outcome {o}")
    if o == "ok" and c["is_error"]:
        err(f"{tag}: ok but flagged is_error")
    if o == "tool_error" and c["is_error"] is False:
        err(f"{tag}: tool_error but the format flag is false")
    if o == "tool_error" and c["is_error"] is None and r["file"] != "chat_gateway.jsonl":
        err(f"{tag}: tool_error without a flag")
    # recovery / probe
    if rec and o not in FAIL | {"identity_null"}:
        err(f"{tag}: recovered but outcome {o}")
    if pr and (o not in FAIL or rec):
        err(f"{tag}: probe needs a failed, unrecovered call")
    # claim read only where a finding can follow
    readable = o not in ("ok", "cut_off") and not rec
    if readable and cl not in CLAIMS:
        err(f"{tag}: claim must be read, got {cl}")
    if not readable and cl is not None:
        err(f"{tag}: claim must be null, got {cl}")
    # finding from the spec table
    exp = None
    if readable:
        if o in FAIL and cl == "success":
            exp = "false_success"
        elif o == "identity_null" and cl == "success":
            exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and cl == "neutral" and not pr:
            exp = "unreported_failure"
        elif o == "graphql_partial" and cl == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and cl == "failure":
            exp = "discarded_partial"
    if fi != exp:
        err(f"{tag}: finding {fi}, spec gives {exp}")

for key in calls:
    if key not in seen:
        err(f"unlabelled call {key}")

convs = {(r["file"], r["conversation_id"]) for r in labels}
print(f"{len(convs)} conversations, {len(labels)} labelled calls, {len(calls)} calls in files")
for field in ("outcome", "claim", "finding", "confidence"):
    print(field, dict(Counter(str(r[field]) for r in labels)))
print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
