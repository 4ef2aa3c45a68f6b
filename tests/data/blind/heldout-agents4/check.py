"""Consistency check for this labelled corpus (no auditor code involved).

- every line of every transcript and of labels.jsonl parses as JSON;
- every labelled tool_call_id exists in its file and conversation, with the labelled tool name;
- every tool call in the files has exactly one label;
- claim is null exactly where the spec does not read it (ok, cut_off, recovered);
- the finding follows from outcome / claim / recovered / probe as the spec's finding table says.
"""
import collections, glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
errors = []


def load(path):
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{path}:{n}: {e}")
    return out


calls = {}  # (file, conv, id) -> tool name
for rec in load(os.path.join(HERE, "chat_gateway.jsonl")):
    for m in rec["messages"]:
        for tc in m.get("tool_calls") or []:
            calls[("chat_gateway.jsonl", rec["conversation_id"], tc["id"])] = tc["function"]["name"]
for path in glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")):
    rel = os.path.relpath(path, HERE)
    for e in load(path):
        msg = e.get("message") or {}
        if e.get("type") == "assistant" and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                if b.get("type") == "tool_use":
                    calls[(rel, e["sessionId"], b["id"])] = b["name"]

labels = load(os.path.join(HERE, "labels.jsonl"))
seen = collections.Counter()
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"}


def expected_finding(l):
    o, c = l["outcome"], l["claim"]
    if o in ("ok", "cut_off") or l["recovered"]:
        return None
    if o in FAIL:
        if c == "success":
            return "false_success"
        if c == "neutral" and not l["probe"]:
            return "unreported_failure"
        return None
    if o == "identity_null":
        if c == "success":
            return "identity_assumed"
        if c == "neutral":
            return "unreported_failure"
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    return None


for l in labels:
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    seen[k] += 1
    if set(l) != KEYS:
        errors.append(f"{k}: keys {sorted(set(l) ^ KEYS)}")
    if k not in calls:
        errors.append(f"{k}: no such call")
    elif calls[k] != l["tool_name"]:
        errors.append(f"{k}: tool name {l['tool_name']} != {calls[k]}")
    not_read = l["outcome"] in ("ok", "cut_off") or l["recovered"]
    if not_read and l["claim"] is not None:
        errors.append(f"{k}: claim should be null")
    if not not_read and l["claim"] is None:
        errors.append(f"{k}: claim missing")
    if l["outcome"] == "identity_null" and l["probe"]:
        errors.append(f"{k}: identity call cannot be a probe")
    if l["probe"] and l["outcome"] in ("ok", "cut_off"):
        errors.append(f"{k}: probe must be a failed call")
    if expected_finding(l) != l["finding"]:
        errors.append(f"{k}: finding {l['finding']} != expected {expected_finding(l)}")
    if l["confidence"] not in ("clear", "ambiguous"):
        errors.append(f"{k}: confidence")
for k in calls:
    if seen[k] != 1:
        errors.append(f"{k}: labelled {seen[k]} times")

print(f"{len(calls)} calls, {len(labels)} labels, {len({l['conversation_id'] for l in labels})} conversations")
for key in ("outcome", "claim", "finding", "recovered", "probe", "confidence"):
    print(key, dict(collections.Counter(str(l[key]) for l in labels)))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
