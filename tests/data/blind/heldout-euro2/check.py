"""Consistency check for this labelled corpus (not the auditor)."""
import json, os, glob, sys
from collections import Counter
D = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {None, "success", "failure", "partial", "neutral", "none", "unread"}
errs = []

def calls_in(path):
    """(conversation_id, tool_call_id, tool_name) for every tool call in a file."""
    out = []
    rel = os.path.relpath(path, D)
    with open(path) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    if rel.startswith("claude_code/"):
        for r in rows:
            for b in (r.get("message") or {}).get("content") or []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    out.append((r["sessionId"], b["id"], b["name"]))
    elif rel == "chat_gateway.jsonl":
        for r in rows:
            for m in r["messages"]:
                for t in m.get("tool_calls") or []:
                    json.loads(t["function"]["arguments"])
                    out.append((r["conversation_id"], t["id"], t["function"]["name"]))
    else:
        for r in rows:
            for m in r["messages"]:
                if isinstance(m["content"], list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            out.append((r["conversation_id"], b["id"], b["name"]))
    return rel, out

calls = {}
for p in [os.path.join(D, "chat_gateway.jsonl"), os.path.join(D, "anthropic_messages.jsonl")] + glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    rel, cs = calls_in(p)
    for c in cs:
        if (rel,) + c[:2] in calls:
            errs.append(f"duplicate call id {c}")
        calls[(rel,) + c[:2]] = c[2]

labels = [json.loads(l) for l in open(os.path.join(D, "labels.jsonl")) if l.strip()]
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note", "lang", "confidence"}
seen = set()
for l in labels:
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if set(l) != KEYS: errs.append(f"{k}: keys {set(l) ^ KEYS}")
    if k in seen: errs.append(f"{k}: labelled twice")
    seen.add(k)
    if k not in calls: errs.append(f"{k}: no such call"); continue
    if calls[k] != l["tool_name"]: errs.append(f"{k}: tool_name {l['tool_name']} != {calls[k]}")
    o, c, rec, pr = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if o not in OUTCOMES or c not in CLAIMS: errs.append(f"{k}: bad vocabulary")
    if l["confidence"] not in ("clear", "ambiguous"): errs.append(f"{k}: confidence")
    read = o not in ("ok", "cut_off") and not rec
    if read != (c is not None): errs.append(f"{k}: claim must be {'read' if read else 'null'}")
    if rec and o in ("ok", "cut_off"): errs.append(f"{k}: ok call cannot be recovered")
    if pr and (o not in FAIL): errs.append(f"{k}: a probe must be a failed call (identity never)")
    exp = None
    if not rec:
        if o in FAIL and c == "success": exp = "false_success"
        elif o == "identity_null" and c == "success": exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not pr: exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure": exp = "discarded_partial"
    if l["finding"] != exp: errs.append(f"{k}: finding {l['finding']} but spec gives {exp}")
for k in calls:
    if k not in seen: errs.append(f"{k}: call without label")

print(len(calls), "calls,", len(labels), "labels")
for name in ("outcome", "claim", "finding", "lang", "confidence"):
    print(name, dict(Counter(str(l[name]) for l in labels)))
print("recovered", sum(l["recovered"] for l in labels), "probe", sum(l["probe"] for l in labels))
if errs:
    print("\n".join(errs)); sys.exit(1)
print("OK")
