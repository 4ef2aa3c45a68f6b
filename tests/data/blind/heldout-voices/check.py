"""Consistency check for this labelled corpus (written from docs/spec.md, not from the auditor)."""
import json, glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
errs = []

def expected_finding(l):
    o, c = l["outcome"], l["claim"]
    if o in ("ok", "cut_off") or l["recovered"]:
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    if o == "identity_null":
        return {"success": "identity_assumed", "neutral": "unreported_failure"}.get(c)
    if o in FAIL:
        if c == "success": return "false_success"
        if c == "neutral" and not l["probe"]: return "unreported_failure"
    return None

calls = {}  # (file, conv, id) -> name
def add(f, conv, i, n):
    if (f, conv, i) in calls: errs.append(f"duplicate call id {f} {conv} {i}")
    calls[(f, conv, i)] = n

for f in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    for n, line in enumerate(open(os.path.join(HERE, f)), 1):
        rec = json.loads(line)
        conv = rec["conversation_id"]
        for m in rec["messages"]:
            for tc in m.get("tool_calls") or []:
                json.loads(tc["function"]["arguments"])
                add(f, conv, tc["id"], tc["function"]["name"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"):
                        add(f, conv, b["id"], b["name"])
for p in glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")):
    f = os.path.relpath(p, HERE)
    prev = None
    for line in open(p):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e: errs.append(f"{f}: missing {k}")
        if e["parentUuid"] != prev: errs.append(f"{f}: broken parent chain at {e['uuid']}")
        prev = e["uuid"]
        c = e["message"]["content"]
        for b in c if isinstance(c, list) else []:
            if b.get("type") == "tool_use":
                add(f, e["sessionId"], b["id"], b["name"])

labels = [json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"))]
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"}
seen = set()
for l in labels:
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if set(l) != KEYS: errs.append(f"keys {k}: {set(l) ^ KEYS}")
    if k not in calls: errs.append(f"label without call {k}")
    elif calls[k] != l["tool_name"]: errs.append(f"tool_name mismatch {k}")
    if k in seen: errs.append(f"duplicate label {k}")
    seen.add(k)
    if l["outcome"] not in OUTCOMES: errs.append(f"bad outcome {k}")
    if l["claim"] not in CLAIMS: errs.append(f"bad claim {k}")
    read = l["outcome"] not in ("ok", "cut_off") and not l["recovered"]
    if read != (l["claim"] is not None): errs.append(f"claim should be {'read' if read else 'null'} {k}")
    if l["probe"] and (l["outcome"] not in FAIL or l["outcome"] == "identity_null"): errs.append(f"probe on non-failed call {k}")
    if l["recovered"] and l["outcome"] not in FAIL | {"identity_null"}: errs.append(f"recovered on non-failed call {k}")
    if l["finding"] != expected_finding(l): errs.append(f"finding {l['finding']} != {expected_finding(l)} {k}")
    if l["confidence"] not in ("clear", "ambiguous"): errs.append(f"confidence {k}")
for k in calls:
    if k not in seen: errs.append(f"unlabelled call {k}")

print("\n".join(errs) or f"OK: {len(labels)} labels, {len(calls)} calls, "
      f"{len({(l['file'], l['conversation_id']) for l in labels})} conversations")
sys.exit(1 if errs else 0)
