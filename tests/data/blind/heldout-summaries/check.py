#!/usr/bin/env python3
"""Consistency check for this labelled corpus (structure + spec-derived findings)."""
import json, glob, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
calls, results, errs = {}, set(), []

def add(file, conv, tid, name):
    key = (conv, tid)
    if key in calls:
        errs.append(f"duplicate call id {key}")
    calls[key] = (file, name)

for line_no, line in enumerate(open("chat_gateway.jsonl"), 1):
    rec = json.loads(line)
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add("chat_gateway.jsonl", rec["conversation_id"], t["id"], t["function"]["name"])
        if m["role"] == "tool":
            results.add((rec["conversation_id"], m["tool_call_id"]))

for line in open("anthropic_messages.jsonl"):
    rec = json.loads(line)
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add("anthropic_messages.jsonl", rec["conversation_id"], b["id"], b["name"])
            if b["type"] in ("tool_result", "mcp_tool_result"):
                results.add((rec["conversation_id"], b["tool_use_id"]))

for path in sorted(glob.glob("claude_code/*.jsonl")):
    uuids = set()
    for line in open(path):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                errs.append(f"{path}: missing {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            errs.append(f"{path}: dangling parentUuid")
        uuids.add(e["uuid"])
        if os.path.basename(path) != e["sessionId"] + ".jsonl":
            errs.append(f"{path}: file name != sessionId")
        c = e["message"]["content"]
        if isinstance(c, list):
            for b in c:
                if b["type"] == "tool_use":
                    add(path, e["sessionId"], b["id"], b["name"])
                if b["type"] == "tool_result":
                    results.add((e["sessionId"], b["tool_use_id"]))

for k in calls:
    if k not in results:
        errs.append(f"call without result (would be cut_off/transport): {k}")

FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def expected(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
        return None
    if o in FAIL:
        if c == "success": return "false_success"
        if c == "neutral" and not r["probe"]: return "unreported_failure"
        return None
    if o == "identity_null":
        if c == "success": return "identity_assumed"
        if c == "neutral": return "unreported_failure"
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    errs.append(f"unknown outcome {o}")

KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
labelled = set()
rows = [json.loads(l) for l in open("labels.jsonl")]
for r in rows:
    if sorted(r) != sorted(KEYS):
        errs.append(f"keys {r.get('tool_call_id')}: {sorted(r)}")
    k = (r["conversation_id"], r["tool_call_id"])
    if k in labelled: errs.append(f"duplicate label {k}")
    labelled.add(k)
    if k not in calls:
        errs.append(f"label without call {k}"); continue
    f, name = calls[k]
    if f != r["file"]: errs.append(f"file mismatch {k}: {f} vs {r['file']}")
    if name != r["tool_name"]: errs.append(f"name mismatch {k}: {name} vs {r['tool_name']}")
    read = not r["recovered"] and r["outcome"] not in ("ok", "cut_off")
    if read and r["claim"] is None: errs.append(f"claim must be read for {k}")
    if not read and r["claim"] is not None: errs.append(f"claim must be null for {k}")
    if r["probe"] and r["outcome"] in ("ok", "identity_null", "cut_off"): errs.append(f"bad probe {k}")
    if expected(r) != r["finding"]:
        errs.append(f"finding {k}: labelled {r['finding']} expected {expected(r)}")
    if r["confidence"] not in ("clear", "ambiguous"): errs.append(f"confidence {k}")
for k in calls:
    if k not in labelled: errs.append(f"unlabelled call {k}")

convs = {r["conversation_id"] for r in rows}
print(f"conversations {len(convs)}, calls {len(calls)}, labels {len(rows)}")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(col, dict(Counter(str(r[col]) for r in rows)))
print("recovered", sum(r["recovered"] for r in rows), "probe", sum(r["probe"] for r in rows))
if errs:
    print("\n".join("ERROR " + e for e in errs)); sys.exit(1)
print("OK")
