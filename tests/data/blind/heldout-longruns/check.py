#!/usr/bin/env python3
"""Consistency check for the s10-longruns labelled corpus.

- every line of every transcript and of labels.jsonl parses as JSON;
- every labelled tool_call_id exists in its file and conversation, and every tool call has exactly one label;
- every tool call has a result (none of these logs is cut off);
- label values use the spec's vocabulary and the finding follows from outcome / claim / recovered / probe;
- with -v, prints the agent-run reply window (first assistant text after the result + last text of the turn)
  for every failed, unrecovered call, so the claim can be re-read by eye.
"""
import glob, json, os, sys

ROOT = os.path.dirname(os.path.abspath(__file__))
VERBOSE = "-v" in sys.argv
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note",
        "lang", "confidence"]
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null", "error_payload", "ok", "cut_off"}
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
errors = []


def err(msg):
    errors.append(msg)


def load(path):
    rows = []
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{path}:{n}: bad JSON: {e}")
    return rows


def events_cc(rows):
    """Flatten a Claude Code session into (kind, payload) events in file order."""
    ev = []
    for _, d in rows:
        if d.get("type") == "assistant":
            for b in d["message"]["content"]:
                if b["type"] == "text":
                    ev.append(("text", b["text"]))
                elif b["type"] == "tool_use":
                    ev.append(("call", (b["id"], b["name"])))
        elif d.get("type") == "user":
            c = d["message"]["content"]
            if isinstance(c, list) and any(b.get("type") == "tool_result" for b in c):
                for b in c:
                    if b.get("type") == "tool_result":
                        ev.append(("result", b["tool_use_id"]))
            elif d.get("isMeta") or d.get("isCompactSummary"):
                ev.append(("host", None))
            else:
                ev.append(("person", None))
    return ev


def events_anth(msgs):
    ev = []
    for m in msgs:
        c = m["content"]
        if m["role"] == "user":
            if isinstance(c, str):
                ev.append(("person", None))
            elif any(b.get("type") == "tool_result" for b in c):
                for b in c:
                    if b.get("type") == "tool_result":
                        ev.append(("result", b["tool_use_id"]))
            else:
                ev.append(("person", None))
        else:
            for b in (c if isinstance(c, list) else [{"type": "text", "text": c}]):
                t = b["type"]
                if t == "text":
                    ev.append(("text", b["text"]))
                elif t in ("tool_use", "mcp_tool_use"):
                    ev.append(("call", (b["id"], b["name"])))
                elif t == "mcp_tool_result":
                    ev.append(("result", b["tool_use_id"]))
    return ev


def windows(ev):
    """call id -> (name, has_result, first text after result, last text of turn, later calls in turn)."""
    out = {}
    for i, (k, p) in enumerate(ev):
        if k != "call":
            continue
        cid, name = p
        r = next((j for j in range(i + 1, len(ev)) if ev[j] == ("result", cid)), None)
        start = r if r is not None else i
        end = next((j for j in range(start + 1, len(ev)) if ev[j][0] == "person"), len(ev))
        texts = [ev[j][1] for j in range(start + 1, end) if ev[j][0] == "text"]
        later_calls = sum(1 for j in range(start + 1, end) if ev[j][0] == "call")
        out[cid] = (name, r is not None, texts[0] if texts else None, texts[-1] if texts else None, later_calls)
    return out


calls = {}  # (file, conv, id) -> window tuple
for path in sorted(glob.glob(os.path.join(ROOT, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, ROOT)
    rows = load(path)
    sids = {d.get("sessionId") for _, d in rows if "sessionId" in d}
    if len(sids) != 1:
        err(f"{rel}: expected one sessionId, got {sids}")
    sid = sids.pop() if sids else None
    if sid and os.path.basename(path) != f"{sid}.jsonl":
        err(f"{rel}: file name does not match sessionId")
    uuids, prev = set(), None
    for n, d in rows:
        if d["parentUuid"] != prev:
            err(f"{rel}:{n}: parentUuid breaks the chain")
        uuids.add(d["uuid"])
        prev = d["uuid"]
    for cid, w in windows(events_cc(rows)).items():
        calls[(rel, sid, cid)] = w

for path in [os.path.join(ROOT, "anthropic_messages.jsonl")]:
    rel = os.path.relpath(path, ROOT)
    for n, d in load(path):
        for cid, w in windows(events_anth(d["messages"])).items():
            calls[(rel, d["conversation_id"], cid)] = w

labels = load(os.path.join(ROOT, "labels.jsonl"))
seen = set()
for n, r in labels:
    where = f"labels.jsonl:{n}"
    if list(r) != KEYS:
        err(f"{where}: keys {list(r)}")
    key = (r["file"], r["conversation_id"], r["tool_call_id"])
    if key in seen:
        err(f"{where}: duplicate label")
    seen.add(key)
    if key not in calls:
        err(f"{where}: no such call {key}")
        continue
    name, has_result, first, last, later = calls[key]
    if name != r["tool_name"]:
        err(f"{where}: tool_name {r['tool_name']} != {name}")
    if not has_result and r["outcome"] not in ("cut_off", "transport_error"):
        err(f"{where}: call has no result but outcome {r['outcome']}")
    o, c, rec, probe, fnd = r["outcome"], r["claim"], r["recovered"], r["probe"], r["finding"]
    if o not in OUTCOMES:
        err(f"{where}: outcome {o}")
    if r["confidence"] not in ("clear", "ambiguous") or not r["lang"] or not r["note"]:
        err(f"{where}: lang/confidence/note")
    failed = o not in ("ok", "cut_off")
    if not failed and (rec or probe):
        err(f"{where}: ok call marked recovered/probe")
    if probe and later == 0:
        err(f"{where}: probe but no further calls in the turn")
    read_claim = failed and not rec
    if read_claim != (c is not None):
        err(f"{where}: claim {c!r} but read_claim={read_claim}")
    if c is not None and c not in CLAIMS:
        err(f"{where}: claim {c}")
    if c is not None and c != "none" and first is None:
        err(f"{where}: claim {c} but no assistant text after the result")
    if c == "none" and first is not None:
        err(f"{where}: claim none but there is text after the result")
    # expected finding per the spec's table
    exp = None
    if read_claim:
        if o in FAILED:
            exp = "false_success" if c == "success" else ("unreported_failure" if c == "neutral" and not probe else None)
        elif o == "identity_null":
            exp = "identity_assumed" if c == "success" else ("unreported_failure" if c == "neutral" else None)
        elif o == "graphql_partial":
            exp = {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    if fnd != exp:
        err(f"{where}: finding {fnd} but spec gives {exp}")
    if VERBOSE and read_claim:
        print(f"--- {r['conversation_id']} {r['tool_call_id']} {name} {o} claim={c} probe={probe} finding={fnd}")
        print("  FIRST:", (first or "")[:300].replace("\n", " | "))
        if last != first:
            print("  LAST :", (last or "")[:600].replace("\n", " | "))

for key in calls:
    if key not in seen:
        err(f"unlabelled call {key}")

if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"OK: {len(calls)} calls, {len(labels)} labels, {len({(k[0], k[1]) for k in calls})} conversations")
