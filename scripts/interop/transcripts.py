"""Checks of our client's `--json` transcripts in the interop run (run.sh, part b and c).

    python3 transcripts.py core FILE           `hello`, `permission`, `slow` (cancelled)
    python3 transcripts.py november FILE CAPS  `compact`, `notice`, `permission` against their
                                               stable server; CAPS: the client capabilities
                                               their agent saw (JSON)
    python3 transcripts.py fork FILE           `hello`, `:fork`, `hello` against their
                                               /unstable server

Prints what passed, or the problems, and exits 0 or 1.
"""

import json
import sys


def of(events, name):
    return [e for e in events if e.get("event") == name]


def updates(events, kind=None):
    found = [e["update"] for e in of(events, "update")]
    return [u for u in found if kind is None or u.get("sessionUpdate") == kind]


def core(events, _args):
    problems = []
    if not of(events, "initialized"):
        problems.append("no initialize")
    if not of(events, "session_new"):
        problems.append("no session/new")
    reasons = [e.get("stopReason") for e in of(events, "prompt_result")]
    if reasons != ["end_turn", "end_turn", "cancelled"]:
        problems.append(f"stop reasons {reasons}, not [end_turn, end_turn, cancelled]")
    chunks = updates(events, "agent_message_chunk")
    if len(chunks) < 3:
        problems.append(f"{len(chunks)} message chunks")
    answers = [e.get("optionId") for e in of(events, "permission_response")]
    if answers != ["allow"]:
        problems.append(f"permission answers {answers}")
    if not of(events, "cancel"):
        problems.append("no session/cancel sent")
    return problems, [f"{len(chunks)} chunks, permission allowed, turn cancelled"]


def november(events, args):
    session = (json.loads(args[0] or "{}") if args else {}).get("session") or {}
    texts = " ".join(u["content"].get("text", "") for u in updates(events, "agent_message_chunk"))
    problems, notes = [], []
    compaction = [u for u in updates(events) if u.get("sessionUpdate", "").startswith("compaction_")]
    if session.get("compaction") is not None:
        statuses = [u.get("status") for u in compaction if u["sessionUpdate"] == "compaction_update"]
        chunks = [u for u in compaction if u["sessionUpdate"] == "compaction_summary_chunk"]
        if statuses != ["in_progress", "completed"] or len(chunks) != 2:
            problems.append(f"compaction: statuses {statuses}, {len(chunks)} summary chunks")
        notes.append(f"compaction advertised: {len(compaction)} updates rendered")
    else:
        if compaction or "Compaction not advertised" not in texts:
            problems.append("compaction: their agent did not see our advertisement as expected")
        notes.append("compaction not advertised by our client")
    notices = updates(events, "notice")
    if session.get("notices") is not None:
        if len(notices) != 1 or notices[0].get("severity") != "warning" or notices[0].get("title") != "Disk almost full":
            problems.append(f"notices: {notices}")
        notes.append("notices advertised: the notice rendered")
    else:
        if notices or "Notices not advertised" not in texts:
            problems.append("notices: their agent did not see our advertisement as expected")
        notes.append("notices not advertised by our client")
    names = [u.get("name") for u in updates(events, "tool_call")]
    if names != ["touch_file"]:
        problems.append(f"tool-call names {names}, not ['touch_file']")
    else:
        notes.append("the tool call's name kept")
    reasons = [e.get("stopReason") for e in of(events, "prompt_result")]
    if reasons != ["end_turn"] * 3:
        problems.append(f"stop reasons {reasons}")
    return problems, notes


def fork(events, _args):
    problems = []
    forks = of(events, "session_fork")
    results = of(events, "prompt_result")
    if len(forks) != 1:
        return [f"{len(forks)} session_fork events"], []
    if [r.get("sessionId") for r in results] != [forks[0]["sessionId"], forks[0]["forkId"]]:
        problems.append(f"prompts in {[r.get('sessionId') for r in results]}, not the session then its fork")
    if [r.get("stopReason") for r in results] != ["end_turn", "end_turn"]:
        problems.append(f"stop reasons {[r.get('stopReason') for r in results]}")
    return problems, [f"forked {forks[0]['sessionId']} into {forks[0]['forkId']}, a prompt in each"]


def main(argv):
    kind, path, rest = argv[1], argv[2], argv[3:]
    with open(path, encoding="utf-8") as file:
        events = [json.loads(line) for line in file if line.strip()]
    problems, notes = {"core": core, "november": november, "fork": fork}[kind](events, rest)
    errors = [e.get("message") for e in of(events, "error")]
    if errors:
        problems.append(f"errors: {errors}")
    done = of(events, "done")
    if not done or not done[0].get("ok"):
        problems.append("not ok")
    print("; ".join(problems) if problems else "; ".join(notes))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
