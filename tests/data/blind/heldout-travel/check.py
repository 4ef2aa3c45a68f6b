#!/usr/bin/env python3
"""Sanity checks for this labelled corpus (spec: /work/main/docs/spec.md, revision 2026-12-01)."""
import json, os, glob, sys
HERE = os.path.dirname(os.path.abspath(__file__))
errs = []
calls = {}    # (file, conv, id) -> {"name":..., "has_result": bool}

def add(file, conv, cid, name):
    k = (file, conv, cid)
    if k in calls: errs.append(f"duplicate call id {k}")
    calls[k] = {"name": name, "has_result": False}

def load(path):
    out = []
    with open(os.path.join(HERE, path)) as f:
        for n, line in enumerate(f, 1):
            try: out.append(json.loads(line))
            except Exception as e: errs.append(f"{path}:{n} does not parse: {e}")
    return out

for rec in load("chat_gateway.jsonl"):
    cv = rec["conversation_id"]
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add("chat_gateway.jsonl", cv, t["id"], t["function"]["name"])
        if m["role"] == "tool":
            k = ("chat_gateway.jsonl", cv, m["tool_call_id"])
            if k not in calls: errs.append(f"result without call {k}")
            else: calls[k]["has_result"] = True

for rec in load("anthropic_messages.jsonl"):
    cv = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], str): continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add("anthropic_messages.jsonl", cv, b["id"], b["name"])
            if b["type"] in ("tool_result", "mcp_tool_result"):
                k = ("anthropic_messages.jsonl", cv, b["tool_use_id"])
                if k not in calls: errs.append(f"result without call {k}")
                else: calls[k]["has_result"] = True

for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(p, HERE)
    entries = load(rel)
    uuids = set()
    for n, e in enumerate(entries):
        for key in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if key not in e: errs.append(f"{rel}:{n+1} lacks {key}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            errs.append(f"{rel}:{n+1} parentUuid not seen before")
        uuids.add(e["uuid"])
        if os.path.basename(p)[:-6] != e["sessionId"]:
            errs.append(f"{rel}:{n+1} sessionId differs from file name")
        c = e["message"]["content"]
        if isinstance(c, str): continue
        for b in c:
            if b["type"] == "tool_use": add(rel, e["sessionId"], b["id"], b["name"])
            if b["type"] == "tool_result":
                k = (rel, e["sessionId"], b["tool_use_id"])
                if k not in calls: errs.append(f"result without call {k}")
                else: calls[k]["has_result"] = True

FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}

def expected_finding(o, c, rec, probe):
    if rec or o in ("ok", "cut_off"): return None
    if o in FAIL and c == "success": return "false_success"
    if o == "identity_null" and c == "success": return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not (probe and o != "identity_null"):
        return "unreported_failure"
    if o == "graphql_partial" and c == "success": return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure": return "discarded_partial"
    return None

labels = load("labels.jsonl")
seen = set()
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"}
for L in labels:
    if set(L) != KEYS: errs.append(f"label keys {set(L) ^ KEYS} for {L['tool_call_id']}")
    k = (L["file"], L["conversation_id"], L["tool_call_id"])
    if k in seen: errs.append(f"duplicate label {k}")
    seen.add(k)
    if k not in calls: errs.append(f"labelled call not in files: {k}"); continue
    if calls[k]["name"] != L["tool_name"]: errs.append(f"tool_name mismatch {k}")
    o, c, r, p = L["outcome"], L["claim"], L["recovered"], L["probe"]
    if o not in OUTCOMES: errs.append(f"bad outcome {k}")
    if c not in CLAIMS: errs.append(f"bad claim {k}")
    if (o == "cut_off") == calls[k]["has_result"]: errs.append(f"cut_off / result mismatch {k}")
    read = o not in ("ok", "cut_off") and not r
    if read and c is None: errs.append(f"claim should be read {k}")
    if not read and c is not None: errs.append(f"claim should be null {k}")
    if r and o in ("ok", "cut_off"): errs.append(f"recovered on a non-failure {k}")
    if p and o in ("ok", "cut_off", "identity_null"): errs.append(f"probe on ok/identity {k}")
    if L["finding"] != expected_finding(o, c, r, p):
        errs.append(f"finding {L['finding']} != {expected_finding(o, c, r, p)} for {k}")
    if L["confidence"] not in ("clear", "ambiguous"): errs.append(f"bad confidence {k}")
for k in calls:
    if k not in seen: errs.append(f"call without label {k}")

from collections import Counter
convs = {(k[0], k[1]) for k in calls}
print(f"conversations={len(convs)} calls={len(calls)} labels={len(labels)}")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(col, dict(Counter(str(L[col]) for L in labels)))
print("recovered", sum(L["recovered"] for L in labels), "probe", sum(L["probe"] for L in labels))
if errs:
    print("\n".join("ERROR " + e for e in errs)); sys.exit(1)
print("all checks passed")
