#!/usr/bin/env python3
"""Self-check for the dec-f labelled corpus (written from spec.md + formats.md only).

- every line of every transcript file and of labels.jsonl parses as JSON;
- every tool call in the files has exactly one label, and every label points at a call that exists
  in that file and conversation, with the same tool name;
- vocabulary and required keys;
- claim is null exactly where the spec says it is not read (outcome ok/cut_off, or recovered);
- the finding follows from outcome / claim / recovered / probe per the spec's finding table;
- a rough independent outcome derivation (spec order of checks) agrees with the labelled outcome.
Prints totals.
"""
import json, os, re, sys, glob
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null", "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread", None}
FINDINGS = {"false_success", "identity_assumed", "unreported_failure", "unlabelled_partial", "discarded_partial", None}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note", "lang", "confidence"]
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
IDENTITY = {"me", "viewer", "get_me", "whoami", "get_current_user"}
errors = []


def err(m):
    errors.append(m)


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                err(f"{path}:{n}: blank line")
                continue
            try:
                rows.append((n, json.loads(line)))
            except Exception as e:
                err(f"{path}:{n}: bad JSON {e}")
    return rows


def as_json(x, depth=3):
    while depth and isinstance(x, str):
        try:
            x = json.loads(x)
        except Exception:
            return x
        depth -= 1
    return x


def texts(content):
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    out = []
    for b in content:
        if isinstance(b, dict) and b.get("type") == "text":
            out.append(b.get("text", ""))
    return out


def derive(result, flagged, name):
    """Rough outcome per spec order. result: None (no result), 'CUT' (log ended), or content."""
    if result == "CUT":
        return "cut_off"
    if result is None:
        return "transport_error"
    payloads = []
    for t in texts(result) if not isinstance(result, str) else [result]:
        j = as_json(t)
        if isinstance(j, dict) and "content" in j and "isError" in j:  # MCP envelope inside a chat tool message
            flagged = flagged or bool(j.get("isError"))
            for tt in texts(j["content"]):
                payloads.append((tt, as_json(tt)))
        else:
            payloads.append((t, j))
    for t, _ in payloads:
        if re.match(r"^MCP error -32\d{3}", t) or "No such tool available" in t:
            return "transport_error"
    for _, j in payloads:
        if isinstance(j, dict) and isinstance(j.get("errors"), list) and j["errors"]:
            d = j.get("data")
            if isinstance(d, dict) and any(v is not None for v in d.values()):
                return "graphql_partial"
            return "graphql_error"
    if flagged:
        return "tool_error"
    if name.split("__")[-1] in IDENTITY:
        for t, j in payloads:
            if j in (None, {}, "null") or t.strip() == "null" or (isinstance(j, dict) and (
                    j.get("user", 1) is None or (isinstance(j.get("data"), dict) and j["data"].get("viewer", 1) is None))):
                return "identity_null"
    for t, j in payloads:
        if isinstance(j, dict) and (j.get("ok") is False or j.get("success") is False or j.get("status") == "error"
                                    or j.get("object") == "error" or (set(j) == {"error"})):
            return "error_payload"
        if isinstance(t, str) and re.match(r"^(Error:|HTTP [45]\d\d|[45]\d\d [A-Z][a-z]+|<tool_use_error>|Traceback)", t.strip()):
            return "error_payload"
    return "ok"


def expected_finding(o, c, rec, probe):
    if rec or o in ("ok", "cut_off") or c in (None, "unread"):
        return None
    if o in FAIL and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not probe:
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


calls = {}  # (file, conv, id) -> dict(name, derived)


def chat_file(rel):
    for n, rec in load(os.path.join(HERE, rel)):
        conv = rec["conversation_id"]
        msgs = rec["messages"]
        for i, m in enumerate(msgs):
            for tcall in m.get("tool_calls") or []:
                json.loads(tcall["function"]["arguments"])
                cid, res, seen_after = tcall["id"], None, False
                for m2 in msgs[i + 1:]:
                    if m2["role"] == "tool" and m2.get("tool_call_id") == cid:
                        res = m2["content"]
                        break
                    if m2["role"] in ("assistant", "user"):
                        seen_after = True
                        break
                if res is None and not seen_after and all(m2["role"] == "tool" for m2 in msgs[i + 1:]):
                    res = "CUT"
                calls[(rel, conv, cid)] = {"name": tcall["function"]["name"], "derived": derive(res, False, tcall["function"]["name"])}


def anthropic_blocks(rel, conv, msgs):
    results = {}
    for m in msgs:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_result", "mcp_tool_result"):
                    results[b["tool_use_id"]] = b
    for m in msgs:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_use", "mcp_tool_use"):
                    r = results.get(b["id"])
                    if r is None:
                        d = "CUT" if m is msgs[-1] or msgs[-1]["content"][-1] is b else None
                        res, fl = d, False
                    else:
                        res, fl = r.get("content"), bool(r.get("is_error"))
                    calls[(rel, conv, b["id"])] = {"name": b["name"], "derived": derive(res, fl, b["name"])}


def anth_file(rel):
    for n, rec in load(os.path.join(HERE, rel)):
        anthropic_blocks(rel, rec["conversation_id"], rec["messages"])


def cc_file(rel):
    rows = [r for _, r in load(os.path.join(HERE, rel))]
    sids = {r["sessionId"] for r in rows}
    if len(sids) != 1 or os.path.basename(rel)[:-6] not in sids:
        err(f"{rel}: sessionId mismatch {sids}")
    uuids = set()
    for r in rows:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in r:
                err(f"{rel}: entry lacks {k}")
        if r["parentUuid"] is not None and r["parentUuid"] not in uuids:
            err(f"{rel}: parentUuid {r['parentUuid']} not seen before")
        uuids.add(r["uuid"])
    msgs = [r["message"] for r in rows]
    anthropic_blocks(rel, rows[0]["sessionId"], msgs)


chat_file("chat_gateway.jsonl")
anth_file("anthropic_messages.jsonl")
for p in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    cc_file(os.path.relpath(p, HERE))

labels = [r for _, r in load(os.path.join(HERE, "labels.jsonl"))]
seen = set()
for r in labels:
    if list(r.keys()) != KEYS:
        err(f"label keys {list(r.keys())}")
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if k in seen:
        err(f"duplicate label {k}")
    seen.add(k)
    if k not in calls:
        err(f"label for missing call {k}")
        continue
    if calls[k]["name"] != r["tool_name"]:
        err(f"{k}: tool_name {r['tool_name']} != {calls[k]['name']}")
    if r["outcome"] not in OUTCOMES or r["claim"] not in CLAIMS or r["finding"] not in FINDINGS:
        err(f"{k}: bad vocabulary")
    if r["confidence"] not in ("clear", "ambiguous") or not r["lang"] or not r["note"] or "\n" in r["note"]:
        err(f"{k}: bad confidence/lang/note")
    if r["confidence"] == "ambiguous" and "other reading" not in r["note"]:
        err(f"{k}: ambiguous label without the other reading in its note")
    read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if read and r["claim"] is None:
        err(f"{k}: claim must be read")
    if not read and r["claim"] is not None:
        err(f"{k}: claim must be null")
    if r["probe"] and (r["outcome"] in ("ok", "cut_off", "identity_null", "graphql_partial")):
        err(f"{k}: probe on a non-failed or identity call")
    if r["outcome"] in ("ok", "cut_off") and r["recovered"]:
        err(f"{k}: ok call marked recovered")
    if expected_finding(r["outcome"], r["claim"], r["recovered"], r["probe"]) != r["finding"]:
        err(f"{k}: finding {r['finding']} does not follow")
    if calls[k]["derived"] != r["outcome"]:
        err(f"{k}: labelled outcome {r['outcome']} but derived {calls[k]['derived']}")
for k in calls:
    if k not in seen:
        err(f"unlabelled call {k}")

convs = {(r["file"], r["conversation_id"]) for r in labels}
print(f"conversations: {len(convs)}  labelled calls: {len(labels)}  transcript calls: {len(calls)}")
for key in ("outcome", "claim", "finding", "lang", "confidence"):
    print(f"{key}: " + ", ".join(f"{a}={b}" for a, b in sorted(Counter(str(r[key]) for r in labels).items())))
print(f"recovered={sum(r['recovered'] for r in labels)} probe={sum(r['probe'] for r in labels)}")
print("files:", dict(Counter(r["file"].split("/")[0] for r in labels)))
if errors:
    print("\nFAIL")
    for e in errors:
        print(" -", e)
    sys.exit(1)
print("\nOK")
