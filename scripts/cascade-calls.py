#!/usr/bin/env python3
"""Measures the Stop judge's cascade on a labeled set: how many turns would cost an LLM call.

Every message goes through `agentguard judge --json` twice, with a throw-away HOME:
  1. with the `rules` backend alone: message-level precision and recall of the offline judge
     (a message blocks when any detector says violation);
  2. with a `command` backend that stands in for an LLM: it counts its calls in a file and
     answers "allow" (so only the calls are measured, not an LLM's quality).

Printed: the share of benign messages that cost no LLM call, and the share of must-block
messages that reach the LLM or are blocked offline by the rules judge.

Usage: cascade-calls.py AGENTGUARD_BIN CORPUS.jsonl [--include-unsure]
CORPUS lines carry either `labels` ({detector: "block"|"allow"}, optional "unsure": true; the
real-traffic format) or `blocks` ([detector, ...]; tests/corpus/messages.jsonl).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("corpus")
ap.add_argument("--include-unsure", action="store_true",
                help="keep the cases whose label is marked unsure (left out by default)")
args = ap.parse_args()

home = tempfile.mkdtemp(prefix="ag-cascade-")
config_dir = os.path.join(home, ".config", "agentguard")
os.makedirs(config_dir)
counter = os.path.join(home, "calls")
judge_script = os.path.join(home, "count-judge.sh")
with open(judge_script, "w") as f:
    f.write('#!/bin/sh\ncat >/dev/null\necho call >> "$AG_CALLS"\n'
            'echo \'{"new_proposal": false, "reason": "stand-in judge"}\'\n')
os.chmod(judge_script, 0o755)
config = os.path.join(config_dir, "config.toml")
with open(config, "w") as f:
    f.write(f'[judge]\ncommand.argv = ["{judge_script}"]\n[log]\nenabled = false\n')

env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home + "/.config",
           XDG_DATA_HOME=home + "/.local/share", XDG_STATE_HOME=home + "/.local/state",
           XDG_CACHE_HOME=home + "/.cache", AGENTGUARD_CONFIG=config, AG_CALLS=counter)
for var in ("AGENTGUARD_ROLE", "AGENTGUARD_DISABLE", "AGENTGUARD_JUDGE_ACTIVE", "AGENTGUARD_BACKEND"):
    env.pop(var, None)


def calls():
    try:
        with open(counter) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def judge(text, backend):
    run = subprocess.run([args.bin, "judge", "--json", "--backend", backend, "-"],
                         input=text.encode(), capture_output=True, timeout=120, env=env)
    if run.returncode not in (0, 1):
        sys.exit(f"judge failed ({run.returncode}): {run.stderr.decode()[:300]}")
    return json.loads(run.stdout)


def must_block(row):
    if "labels" in row:
        return any(v == "block" for v in row["labels"].values())
    return bool(row["blocks"])


rows = [json.loads(line) for line in open(args.corpus, encoding="utf-8") if line.strip()]
if not args.include_unsure:
    rows = [r for r in rows if not r.get("unsure")]
benign = benign_free = blocks = blocks_reached = 0
tp = fp = 0
for row in rows:
    offline = judge(row["text"], "rules")
    blocked_offline = offline["verdict"] == "violation"
    before = calls()
    cascade = judge(row["text"], "command")
    llm_calls = calls() - before
    decided = [d.get("decided_by") for d in cascade["detectors"]]
    assert (llm_calls > 0) == ("llm" in decided), (row.get("id"), llm_calls, decided)
    if must_block(row):
        blocks += 1
        blocks_reached += llm_calls > 0 or blocked_offline
        tp += blocked_offline
    else:
        benign += 1
        benign_free += llm_calls == 0
        fp += blocked_offline

pct = lambda a, b: a / max(1, b)
print(f"{os.path.basename(args.corpus)}: {len(rows)} messages"
      f"{'' if args.include_unsure else ' (labels marked unsure left out)'}")
print(f"benign with no LLM call: {benign_free}/{benign} = {pct(benign_free, benign):.3f}")
print(f"must-block reaching the LLM or blocked offline: {blocks_reached}/{blocks} = "
      f"{pct(blocks_reached, blocks):.3f}")
print(f"rules alone, message level: precision {pct(tp, tp + fp):.3f} recall {pct(tp, blocks):.3f}"
      f" (tp {tp}, fp {fp}, blocks {blocks})")
