#!/usr/bin/env python3
"""Score an agentguard binary on the held-out sets in tests/heldout/ (written blind).

    python3 scripts/score-heldout.py stop     BINARY [-j N] [--show]
    python3 scripts/score-heldout.py stop2    BINARY [-j N] [--show]
    python3 scripts/score-heldout.py stop3    BINARY [-j N] [--show]
    python3 scripts/score-heldout.py stop4    BINARY [-j N] [--show]
    python3 scripts/score-heldout.py redact   BINARY [-j N] [--show]
    python3 scripts/score-heldout.py redact2  BINARY [-j N] [--show]
    python3 scripts/score-heldout.py redact3  BINARY [-j N] [--show]
    python3 scripts/score-heldout.py redact4  BINARY [-j N] [--show]
    python3 scripts/score-heldout.py commands BINARY [-j N] [--show]

stop      runs `BINARY judge --json --backend rules` on each message (stdin) and reports,
          per detector, Layer 1 recall/precision (`layer1 == "hit"`) and rules-judge
          recall/precision (`verdict == "violation"`), then message-level figures.
stop2     the same on the second blind set of final messages, stop2.jsonl.
stop3     the same on the third blind set, stop3.jsonl.
stop4     the same on the fourth blind set, stop4.jsonl.
redact    runs `BINARY redact` (text on stdin, redacted text on stdout) and reports leaks
          caught (every secret gone and no 8-char head/tail fragment of it left), partial
          leaks, missed leaks, and look-alikes touched (output differs from input).
redact2   the same on the second blind set, redact2.jsonl; its kinds are listed only with
          --show, so a plain run reveals nothing but the aggregates.
redact3   the same on the third blind set, redact3.jsonl (aggregates only, as redact2).
redact4   the same on the fourth blind set, redact4.jsonl (aggregates only, as redact2).
commands  runs `BINARY hook pre-tool` with a PreToolUse Bash payload per command, in an
          isolated HOME/XDG, with AGENTGUARD_ROLE=read-only for read-only rows; an empty
          stdout or permissionDecision "allow" = allowed, "ask"/"deny" (or exit 2) = held.

Every call runs with a fresh temporary HOME and XDG dirs, so nothing real is read or written.
Dependency-free: Python 3.8+ standard library only.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

DETECTORS = ["commit", "scope-check", "scope-change", "shallow-bugfix", "bugfix-without-reproduction"]
HERE = os.path.dirname(os.path.abspath(__file__))
HELDOUT = os.path.join(os.path.dirname(HERE), "tests", "heldout")
CALL_TIMEOUT_S = 60
FRAGMENT = 8

# Variables that would change what the binary does if inherited from the caller's shell.
SCRUBBED_ENV = [
    "AGENTGUARD_JUDGE_ACTIVE",  # recursion guard: the hook would allow everything
    "AGENTGUARD_DISABLE",
    "AGENTGUARD_CONFIG",
    "AGENTGUARD_BACKEND",
    "AGENTGUARD_ROLE",
    "CLAUDE_PROJECT_DIR",
]


class Sandbox:
    """A throwaway HOME + XDG tree and a work dir used as the hook's cwd."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="agentguard-heldout-")
        self.home = os.path.join(self.root, "home")
        self.cwd = os.path.join(self.root, "project")
        for d in (self.home, self.cwd):
            os.makedirs(d)
        self.env = {k: v for k, v in os.environ.items() if k not in SCRUBBED_ENV}
        self.env.update(
            HOME=self.home,
            XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
            XDG_DATA_HOME=os.path.join(self.home, ".local", "share"),
            XDG_STATE_HOME=os.path.join(self.home, ".local", "state"),
            XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
            NO_COLOR="1",
        )

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def run(binary, args, stdin_text, env, cwd):
    """Run the binary; return (exit code or None on timeout/launch failure, stdout, stderr)."""
    try:
        p = subprocess.run(
            [binary] + args,
            input=stdin_text.encode("utf-8"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            timeout=CALL_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return None, "", "timeout after %ss" % CALL_TIMEOUT_S
    except OSError as e:
        return None, "", "cannot run %s: %s" % (binary, e)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def load_jsonl(name):
    path = os.path.join(HELDOUT, name)
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit("%s:%d: not JSON: %s" % (path, n, e))
    return rows


def load_commands():
    path = os.path.join(HELDOUT, "commands.tsv")
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["role", "label", "command", "note"]:
            sys.exit("%s:1: unexpected header %r" % (path, header))
        for n, line in enumerate(f, 2):
            line = line.rstrip("\n")
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != 4:
                sys.exit("%s:%d: expected 4 tab-separated fields, got %d" % (path, n, len(parts)))
            role, label, cmd, note = parts
            if cmd.startswith("json:"):  # commands with newlines (here-documents) are JSON strings
                cmd = json.loads(cmd[5:])
            rows.append({"line": n, "role": role, "label": label, "command": cmd, "note": note})
    return rows


def parallel(fn, items, jobs):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        return list(ex.map(fn, items))


def ratio(num, den):
    return "%5.1f%%" % (100.0 * num / den) if den else "   n/a"


def prf(tp, fp, fn):
    return "recall %s (%d/%d)  precision %s (%d/%d)" % (
        ratio(tp, tp + fn), tp, tp + fn, ratio(tp, tp + fp), tp, tp + fp)


def short(text, n=90):
    text = text.replace("\n", "⏎")
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------- stop

def parse_judge(stdout):
    """{detector: (layer1, verdict)} from `judge --json` output, or raise ValueError."""
    doc = json.loads(stdout)
    entries = doc.get("detectors") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        raise ValueError("no detectors[] array in the JSON")
    out = {}
    for e in entries:
        if isinstance(e, dict) and isinstance(e.get("detector"), str):
            out[e["detector"]] = (e.get("layer1"), e.get("verdict"))
    return out


def score_stop(binary, jobs, show, name="stop.jsonl"):
    rows = load_jsonl(name)

    def one(row):
        box = Sandbox()
        try:
            code, out, err = run(binary, ["judge", "--json", "--backend", "rules"], row["text"], box.env, box.cwd)
        finally:
            box.close()
        if code is None or code not in (0, 1):
            return row, None, "exit %s: %s" % (code, short(err.strip() or out.strip()))
        try:
            return row, parse_judge(out), None
        except (ValueError, AttributeError) as e:
            return row, None, "unparseable output (%s): %s" % (e, short(out.strip()))

    results = parallel(one, rows, jobs)
    errors = [(r, e) for r, d, e in results if e]
    ok = [(r, d) for r, d, e in results if not e]
    print("stop: %d messages, %d judged, %d errors" % (len(rows), len(ok), len(errors)))
    missing = sum(1 for _, d in ok for det in DETECTORS if det not in d)
    if missing:
        print("  %d detector entries missing from the JSON (counted as miss/allow)" % missing)
    misses = []
    print("\n%-28s %-52s %s" % ("detector", "Layer 1 (layer1 == hit)", "rules judge (verdict == violation)"))
    for det in DETECTORS:
        c = {"l1": [0, 0, 0], "v": [0, 0, 0]}
        for r, d in ok:
            want = det in r["blocks"]
            layer1, verdict = d.get(det, ("miss", "allow"))
            for key, got in (("l1", layer1 == "hit"), ("v", verdict == "violation")):
                if got and want:
                    c[key][0] += 1
                elif got:
                    c[key][1] += 1
                elif want:
                    c[key][2] += 1
            if want and verdict != "violation":
                misses.append((r["id"], det, "missed (layer1=%s verdict=%s)" % (layer1, verdict)))
            elif not want and verdict == "violation":
                misses.append((r["id"], det, "false block (layer1=%s)" % layer1))
        print("%-28s %-52s %s" % (det, prf(*c["l1"]), prf(*c["v"])))

    # message level: blocked by anything vs should be blocked by anything
    tp = fp = fn = tn = exact = 0
    for r, d in ok:
        want = bool(r["blocks"])
        got_set = sorted(det for det in DETECTORS if d.get(det, (None, None))[1] == "violation")
        got = bool(got_set)
        exact += got_set == sorted(r["blocks"])
        tp += got and want
        fp += got and not want
        fn += want and not got
        tn += not got and not want
    print("\nmessage level (any violation): %s" % prf(tp, fp, fn))
    print("  innocent messages allowed: %s (%d/%d)" % (ratio(tn, tn + fp), tn, tn + fp))
    print("  exact label set matched:   %s (%d/%d)" % (ratio(exact, len(ok)), exact, len(ok)))
    by_lang = {}
    for r, d in ok:
        want = bool(r["blocks"])
        got = any(d.get(det, (None, None))[1] == "violation" for det in DETECTORS)
        s = by_lang.setdefault(r["lang"], [0, 0])
        s[0] += want == got
        s[1] += 1
    print("  message agreement by lang: " + "  ".join(
        "%s %d/%d" % (lang, a, n) for lang, (a, n) in sorted(by_lang.items())))
    if show:
        print("\ndisagreements:")
        for rid, det, what in misses:
            print("  %-28s %-28s %s" % (rid, det, what))
    for r, e in errors:
        print("  error %s: %s" % (r["id"], e))
    return 1 if errors else 0


# ---------------------------------------------------------------- redact

def leak_status(output, secrets):
    """'caught', 'partial' or 'missed' for one leak row."""
    left = 0
    for s in secrets:
        if s in output:
            left += 1
            continue
        pieces = [p for p in s.split() if len(p) >= FRAGMENT] or [s]
        if any(p[:FRAGMENT] in output or p[-FRAGMENT:] in output for p in pieces):
            left += 1
    if left == 0:
        return "caught"
    if left == len(secrets) and all(s in output for s in secrets):
        return "missed"
    return "partial"


def score_redact(binary, jobs, show, name="redact.jsonl"):
    rows = load_jsonl(name)

    def one(row):
        box = Sandbox()
        try:
            code, out, err = run(binary, ["redact"], row["text"], box.env, box.cwd)
        finally:
            box.close()
        if code is None or code not in (0, 1):
            return row, None, "exit %s: %s" % (code, short(err.strip()))
        return row, out, None

    results = parallel(one, rows, jobs)
    errors = [(r, e) for r, o, e in results if e]
    leaks = [(r, o) for r, o, e in results if not e and r["secrets"]]
    alikes = [(r, o) for r, o, e in results if not e and not r["secrets"]]
    status = {"caught": [], "partial": [], "missed": []}
    for r, o in leaks:
        status[leak_status(o, r["secrets"])].append(r)
    # A trailing newline added by the tool is not a change to the text.
    touched = [(r, o) for r, o in alikes if o != r["text"] and o != r["text"] + "\n"]
    n = len(leaks)
    print("redact: %d rows (%d leaks, %d look-alikes), %d errors" % (len(rows), n, len(alikes), len(errors)))
    print("  leaks caught:       %s (%d/%d)" % (ratio(len(status["caught"]), n), len(status["caught"]), n))
    print("  partial leaks:      %s (%d/%d)" % (ratio(len(status["partial"]), n), len(status["partial"]), n))
    print("  missed leaks:       %s (%d/%d)" % (ratio(len(status["missed"]), n), len(status["missed"]), n))
    print("  look-alikes touched: %s (%d/%d)" % (ratio(len(touched), len(alikes)), len(touched), len(alikes)))
    by_kind = {}
    for r, o in leaks:
        s = by_kind.setdefault(r["kind"], [0, 0])
        s[0] += leak_status(o, r["secrets"]) == "caught"
        s[1] += 1
    weak = sorted((k, c, t) for k, (c, t) in by_kind.items() if c < t)
    if weak and (show or name == "redact.jsonl"):
        print("  kinds not fully caught: " + ", ".join("%s %d/%d" % w for w in weak))
    if show:
        for label in ("partial", "missed"):
            for r in status[label]:
                print("  %-9s %s %-16s %s" % (label, r["id"], r["kind"], short(r["text"], 70)))
        for r, o in touched:
            print("  touched   %s %-16s %s" % (r["id"], r["kind"], short(o, 70)))
    for r, e in errors:
        print("  error %s: %s" % (r["id"], e))
    return 1 if errors else 0


# ---------------------------------------------------------------- commands

def hook_decision(code, stdout):
    """'allowed', 'held', or an error string."""
    if code == 2:
        return "held"  # Claude Code: exit 2 blocks the tool call
    if code != 0:
        return "error: exit %s" % code
    text = stdout.strip()
    if not text:
        return "allowed"
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return "error: stdout is not JSON: %s" % short(text)
    spec = doc.get("hookSpecificOutput") if isinstance(doc, dict) else None
    decision = spec.get("permissionDecision") if isinstance(spec, dict) else None
    if decision is None and isinstance(doc, dict) and doc.get("decision") == "block":
        return "held"
    if decision in (None, "allow"):
        return "allowed"
    if decision in ("ask", "deny"):
        return "held"
    return "error: unknown permissionDecision %r" % decision


def score_commands(binary, jobs, show):
    rows = load_commands()

    def one(row):
        box = Sandbox()
        try:
            env = dict(box.env)
            if row["role"] == "read-only":
                env["AGENTGUARD_ROLE"] = "read-only"
            payload = json.dumps({
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": row["command"]},
                "cwd": box.cwd,
                "session_id": "ho",
            })
            code, out, err = run(binary, ["hook", "pre-tool"], payload, env, box.cwd)
        finally:
            box.close()
        if code is None:
            return row, "error: " + err
        return row, hook_decision(code, out)

    results = parallel(one, rows, jobs)
    expected_held = {"block": True, "deny": True, "allow": False}
    table = {}
    disagreements = []
    errors = []
    for row, got in results:
        if got.startswith("error"):
            errors.append((row, got))
            continue
        key = (row["role"], row["label"])
        s = table.setdefault(key, [0, 0])
        agree = (got == "held") == expected_held[row["label"]]
        s[0] += agree
        s[1] += 1
        if not agree:
            disagreements.append((row, got))
    total = sum(t for _, t in table.values())
    agreed = sum(a for a, _ in table.values())
    print("commands: %d rows, %d decided, %d errors" % (len(rows), total, len(errors)))
    for (role, label), (a, t) in sorted(table.items()):
        want = "held" if expected_held[label] else "allowed"
        print("  %-9s %-5s (should be %-7s) agreement %s (%d/%d)" % (role, label, want, ratio(a, t), a, t))
    print("  overall agreement %s (%d/%d)" % (ratio(agreed, total), agreed, total))
    if show:
        for row, got in disagreements:
            print("  line %-4d %-9s want %-5s got %-7s %s" % (
                row["line"], row["role"], row["label"], got, short(row["command"])))
    for row, e in errors:
        print("  line %d: %s (%s)" % (row["line"], e, short(row["command"], 60)))
    return 1 if errors else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("set", choices=["stop", "stop2", "stop3", "stop4", "redact", "redact2", "redact3", "redact4", "commands"])
    ap.add_argument("binary", help="path to the agentguard binary")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel calls (default 2)")
    ap.add_argument("--show", action="store_true", help="list every disagreement")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary) if os.sep in args.binary else (shutil.which(args.binary) or args.binary)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        sys.exit("score-heldout: %s is not an executable file" % args.binary)
    if args.set == "commands":
        sys.exit(score_commands(binary, args.jobs, args.show))
    # Every other set is scored from the file of its own name.
    score = score_stop if args.set.startswith("stop") else score_redact
    sys.exit(score(binary, args.jobs, args.show, args.set + ".jsonl"))


if __name__ == "__main__":
    main()
