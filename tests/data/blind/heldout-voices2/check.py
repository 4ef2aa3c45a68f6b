"""Consistency check for this labelled corpus (written blind from docs/spec.md and formats.md)."""
import json, os, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
errs = []


def calls_in(path):
    """(conversation_id, tool_call_id, tool_name) for every call in a file; checks every line parses."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except Exception as e:
                errs.append(f"{path}:{n} does not parse: {e}")
                continue
            cid = rec.get("conversation_id")
            for m in rec["messages"]:
                if m["role"] == "assistant" and isinstance(m.get("tool_calls"), list):
                    for t in m["tool_calls"]:
                        json.loads(t["function"]["arguments"])
                        out.append((cid, t["id"], t["function"]["name"]))
                if isinstance(m.get("content"), list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            out.append((cid, b["id"], b["name"]))
    return out


def expected_finding(l):
    o, c, r, p = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if r or o in ("ok", "cut_off"):
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


labels = [json.loads(x) for x in open(os.path.join(HERE, "labels.jsonl"))]
files = sorted({l["file"] for l in labels} | {"chat_gateway.jsonl", "anthropic_messages.jsonl"})
have = {}
for fn in files:
    for cid, tid, name in calls_in(os.path.join(HERE, fn)):
        key = (fn, cid, tid)
        if key in have:
            errs.append(f"duplicate call id {key}")
        have[key] = name

seen = set()
keys = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
for l in labels:
    if sorted(l) != sorted(keys):
        errs.append(f"keys of {l['tool_call_id']}: {sorted(l)}")
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if k in seen:
        errs.append(f"labelled twice {k}")
    seen.add(k)
    if k not in have:
        errs.append(f"label without call {k}")
    elif have[k] != l["tool_name"]:
        errs.append(f"tool_name mismatch {k}: {have[k]} vs {l['tool_name']}")
    if l["outcome"] not in OUTCOMES:
        errs.append(f"bad outcome {k}")
    read = l["outcome"] not in ("ok", "cut_off") and not l["recovered"]
    if read and l["claim"] not in CLAIMS:
        errs.append(f"claim must be read for {k}")
    if not read and l["claim"] is not None:
        errs.append(f"claim must be null for {k}")
    if l["probe"] and (l["outcome"] not in FAILED or l["tool_name"] in ("whoami", "get_me", "get_current_user", "me", "viewer")):
        errs.append(f"probe on a call that is not a failed non-identity call {k}")
    if l["recovered"] and l["outcome"] in ("ok", "cut_off"):
        errs.append(f"recovered on a call that did not fail {k}")
    if expected_finding(l) != l["finding"]:
        errs.append(f"finding {l['finding']} does not follow for {k}: expected {expected_finding(l)}")
    if l["confidence"] not in ("clear", "ambiguous"):
        errs.append(f"bad confidence {k}")
for k in have:
    if k not in seen:
        errs.append(f"call without label {k}")

if errs:
    print("\n".join(errs))
    sys.exit(1)
print(f"ok: {len(labels)} labelled calls, {len({(l['file'], l['conversation_id']) for l in labels})} conversations")
for col in ("outcome", "claim", "finding", "confidence", "file"):
    print(col, dict(Counter(str(l[col]) for l in labels)))
