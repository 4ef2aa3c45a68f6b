"""Consistency check for the s7-home labelled corpus.

- every line of every transcript file and of labels.jsonl parses as JSON;
- every labelled (file, conversation_id, tool_call_id) exists, with the same tool name;
- every tool call in the files has exactly one label;
- every call has a result (none of these calls is cut off);
- a rough outcome sanity check from the stored result (flag / envelope / GraphQL shape);
- claim is null exactly where the spec says it is not read;
- the finding follows from outcome / claim / recovered / probe per spec.md.
Run: python3 check.py  (exit 1 on any problem)
"""
import glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
IDENTITY = {"me", "viewer", "get_me", "whoami", "get_current_user"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
problems = []


def load(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                problems.append(f"{path}:{n}: {e}")
    return rows


def text_of(content):
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


calls = {}  # (file, conv, id) -> dict(name, result_text, flagged)


def add(file, conv, cid, name):
    key = (file, conv, cid)
    if key in calls:
        problems.append(f"duplicate call id {key}")
    calls[key] = {"name": name, "text": None, "flag": False}


def result(file, conv, cid, content, flag):
    key = (file, conv, cid)
    if key not in calls:
        problems.append(f"result without call {key}")
        return
    calls[key]["text"] = text_of(content)
    calls[key]["flag"] = bool(flag)


# chat gateway
for conv in load(os.path.join(HERE, "chat_gateway.jsonl")):
    cid = conv["conversation_id"]
    for m in conv["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            add("chat_gateway.jsonl", cid, t["id"], t["function"]["name"])
        if m["role"] == "tool":
            result("chat_gateway.jsonl", cid, m["tool_call_id"], m["content"], False)

# anthropic messages
for conv in load(os.path.join(HERE, "anthropic_messages.jsonl")):
    cid = conv["conversation_id"]
    for m in conv["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                add("anthropic_messages.jsonl", cid, b["id"], b["name"])
            elif b["type"] in ("tool_result", "mcp_tool_result"):
                result("anthropic_messages.jsonl", cid, b["tool_use_id"], b.get("content", ""), b.get("is_error"))

# claude code
for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, HERE)
    rows = load(path)
    uuids = set()
    for n, e in enumerate(rows, 1):
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                problems.append(f"{rel}:{n}: missing {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            problems.append(f"{rel}:{n}: parentUuid not seen before")
        uuids.add(e["uuid"])
        if os.path.basename(path) != e["sessionId"] + ".jsonl":
            problems.append(f"{rel}:{n}: sessionId does not match file name")
        c = e["message"]["content"]
        if isinstance(c, str):
            continue
        for b in c:
            if b["type"] == "tool_use":
                add(rel, e["sessionId"], b["id"], b["name"])
            elif b["type"] == "tool_result":
                result(rel, e["sessionId"], b["tool_use_id"], b.get("content", ""), b.get("is_error"))


def rough_outcome(name, text, flag):
    """Only what this corpus needs; mirrors spec.md's order of checks."""
    if text is None:
        return "transport_error"
    if text.startswith("MCP error -32"):
        return "transport_error"
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        obj = text
    if isinstance(obj, dict) and "content" in obj and "isError" in obj:
        flag = flag or obj["isError"]
        obj = text_of(obj["content"])
    if isinstance(obj, dict) and obj.get("errors"):
        data = obj.get("data") or {}
        return "graphql_partial" if any(v is not None for v in data.values()) else "graphql_error"
    if flag:
        return "tool_error"
    short = name.split("__")[-1]
    if short in IDENTITY and obj in (None, {}, "null", {"user": None}, {"data": {"viewer": None}}):
        return "identity_null"
    if isinstance(obj, dict) and (obj.get("ok") is False or obj.get("success") is False
                                  or obj.get("status") == "error" or set(obj) == {"error"}):
        return "error_payload"
    if isinstance(obj, str) and obj.startswith("Error:"):
        return "error_payload"
    return "ok"


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
        return None
    if o in FAILS:
        if c == "success":
            return "false_success"
        if c == "neutral" and not r["probe"]:
            return "unreported_failure"
        return None
    if o == "identity_null":
        return {"success": "identity_assumed", "neutral": "unreported_failure"}.get(c)
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    return None


labels = load(os.path.join(HERE, "labels.jsonl"))
seen = set()
for r in labels:
    key = (r.get("file"), r.get("conversation_id"), r.get("tool_call_id"))
    if list(r) != KEYS:
        problems.append(f"label keys {list(r)} for {key}")
    if key in seen:
        problems.append(f"duplicate label {key}")
    seen.add(key)
    if key not in calls:
        problems.append(f"label for unknown call {key}")
        continue
    call = calls[key]
    if call["name"] != r["tool_name"]:
        problems.append(f"tool name {r['tool_name']} != {call['name']} for {key}")
    if call["text"] is None:
        problems.append(f"no result stored for {key}")
    ro = rough_outcome(call["name"], call["text"], call["flag"])
    if ro != r["outcome"]:
        problems.append(f"outcome {r['outcome']} but rough check says {ro} for {key}")
    claim_read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if claim_read != (r["claim"] is not None):
        problems.append(f"claim {r['claim']} but read={claim_read} for {key}")
    if r["probe"] and (r["outcome"] in ("ok", "identity_null") or r["recovered"]):
        problems.append(f"probe set on a call that cannot be a probe {key}")
    if r["finding"] != expected_finding(r):
        problems.append(f"finding {r['finding']} != expected {expected_finding(r)} for {key}")
    if r["confidence"] not in ("clear", "ambiguous") or not r["lang"]:
        problems.append(f"bad confidence/lang for {key}")
for key in calls:
    if key not in seen:
        problems.append(f"unlabelled call {key}")

if problems:
    print("\n".join(problems))
    sys.exit(1)


def tally(k):
    out = {}
    for r in labels:
        out[str(r[k])] = out.get(str(r[k]), 0) + 1
    return dict(sorted(out.items()))


print(f"OK: {len({(r['file'], r['conversation_id']) for r in labels})} conversations, {len(labels)} labelled calls")
for k in ("outcome", "claim", "finding", "recovered", "probe", "confidence"):
    print(f"  {k}: {tally(k)}")
