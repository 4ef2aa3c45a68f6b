"""Consistency check for this labelled corpus (does not run or read the auditor)."""
import json, os, glob, collections

HERE = os.path.dirname(os.path.abspath(__file__))
calls = {}  # (file, cid, tid) -> name


def add(file, cid, tid, name):
    k = (file, cid, tid)
    assert k not in calls, f"duplicate call id {k}"
    calls[k] = name


def lines(path):
    with open(path) as f:
        for i, l in enumerate(f, 1):
            assert l.strip(), f"{path}:{i} blank line"
            yield json.loads(l)


for rec in lines(os.path.join(HERE, "chat_gateway.jsonl")):
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add("chat_gateway.jsonl", rec["conversation_id"], t["id"], t["function"]["name"])

for rec in lines(os.path.join(HERE, "anthropic_messages.jsonl")):
    for m in rec["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"):
                    add("anthropic_messages.jsonl", rec["conversation_id"], b["id"], b["name"])

for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(p, HERE)
    prev = None
    for e in lines(p):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            assert k in e, f"{rel} missing {k}"
        assert e["parentUuid"] == prev, f"{rel} broken parent chain"
        prev = e["uuid"]
        c = e["message"].get("content")
        if e["type"] == "assistant" and isinstance(c, list):
            for b in c:
                if b["type"] == "tool_use":
                    add(rel, e["sessionId"], b["id"], b["name"])

FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"ok", "cut_off", "identity_null", "graphql_partial"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}


def expected(l):
    o, c, r, p = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if r or o in ("ok", "cut_off"):
        return None
    if o in FAIL and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAIL or o == "identity_null") and not p and c == "neutral":
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


seen = set()
labels = list(lines(os.path.join(HERE, "labels.jsonl")))
keys = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"}
for l in labels:
    assert set(l) == keys, l
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    assert k in calls, f"label for unknown call {k}"
    assert k not in seen, f"duplicate label {k}"
    seen.add(k)
    assert calls[k] == l["tool_name"], k
    assert l["outcome"] in OUTCOMES, k
    read = l["outcome"] not in ("ok", "cut_off") and not l["recovered"]
    assert (l["claim"] is not None) == read, f"claim read/null mismatch {k}"
    assert l["claim"] is None or l["claim"] in CLAIMS, k
    assert not (l["probe"] and l["outcome"] in ("ok", "cut_off", "identity_null")), k
    assert l["finding"] == expected(l), f"finding mismatch {k}: {l['finding']} vs {expected(l)}"
    assert l["confidence"] in ("clear", "ambiguous") and "\n" not in l["note"]
missing = set(calls) - seen
assert not missing, f"unlabelled calls {missing}"

convs = {(k[0], k[1]) for k in calls}
print(f"{len(labels)} labelled calls in {len(convs)} conversations")
for col in ("outcome", "claim", "finding"):
    print(col, dict(collections.Counter(str(l[col]) for l in labels)))
print("recovered", sum(l["recovered"] for l in labels), "probes", sum(l["probe"] for l in labels))
print("by file", dict(collections.Counter(l["file"].split("/")[0] for l in labels)))
print("OK")
