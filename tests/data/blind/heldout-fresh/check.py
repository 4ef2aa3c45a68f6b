"""Sanity check for this labelled corpus: parsing, label <-> call coverage, finding logic per spec."""
import json, os, sys, glob
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
problems = []


def calls_in(rel):
    """{(conversation_id, tool_call_id): tool_name} for one file."""
    out = {}
    with open(os.path.join(HERE, rel)) as fh:
        for n, line in enumerate(fh, 1):
            try:
                rec = json.loads(line)
            except ValueError as e:
                problems.append("%s:%d does not parse: %s" % (rel, n, e)); continue
            if rel.startswith("claude_code/"):
                conv = rec["sessionId"]
                for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
                    if k not in rec:
                        problems.append("%s:%d missing %s" % (rel, n, k))
                msgs = [rec["message"]] if rec.get("type") == "assistant" else []
            else:
                conv = rec["conversation_id"]
                msgs = rec["messages"]
            for m in msgs:
                for t in m.get("tool_calls") or []:
                    json.loads(t["function"]["arguments"])
                    out[(conv, t["id"])] = t["function"]["name"]
                if isinstance(m.get("content"), list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            out[(conv, b["id"])] = b["name"]
    return out


files = ["chat_gateway.jsonl", "anthropic_messages.jsonl"] + \
        ["claude_code/" + os.path.basename(p) for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")))]
calls = {f: calls_in(f) for f in files}
labels = [json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"))]
seen = set()
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
        return None
    if o in FAILED and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if o in FAILED | {"identity_null"} and not r["probe"] and c == "neutral":
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


for r in labels:
    key = (r["conversation_id"], r["tool_call_id"])
    if sorted(r) != sorted(KEYS):
        problems.append("keys %s" % key)
    if r["file"] not in calls or key not in calls[r["file"]]:
        problems.append("label without call %s" % (key,)); continue
    if calls[r["file"]][key] != r["tool_name"]:
        problems.append("tool_name mismatch %s" % (key,))
    if key in seen:
        problems.append("duplicate label %s" % (key,))
    seen.add(key)
    if r["outcome"] not in OUTCOMES or r["claim"] not in CLAIMS or r["confidence"] not in ("clear", "ambiguous"):
        problems.append("vocabulary %s" % (key,))
    must_read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if must_read != (r["claim"] is not None):
        problems.append("claim read/null wrong %s" % (key,))
    if r["probe"] and (r["outcome"] not in FAILED or r["recovered"]):
        problems.append("probe on non-failed or recovered call %s" % (key,))
    if r["finding"] != expected_finding(r):
        problems.append("finding %s != expected %s for %s" % (r["finding"], expected_finding(r), key))

for f, cs in calls.items():
    for key in cs:
        if key not in seen:
            problems.append("call without label %s %s" % (f, key))

convs = {(r["file"], r["conversation_id"]) for r in labels}
print("conversations:", len(convs), " labelled calls:", len(labels))
for k in ("outcome", "claim", "finding", "confidence"):
    print(k, dict(Counter(r[k] for r in labels)))
print("recovered:", sum(r["recovered"] for r in labels), " probes:", sum(r["probe"] for r in labels))
if problems:
    print("\n".join(problems)); sys.exit(1)
print("OK")
