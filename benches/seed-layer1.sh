#!/usr/bin/env bash
# The seed article's Layer 1 as a shell Stop hook: the speed anchor of benches/run.sh.
# jq takes the assistant text since the last real user turn from the transcript (the last
# 4000 bytes of it), grep looks for the seed's commit patterns, then for its skip patterns.
# Prints `hit` when the judge would be called; prints nothing on the common no-hit stop.
set -euo pipefail
input=$(cat)
transcript=$(jq -r '.transcript_path' <<<"$input")
text=$(jq -rs '
  (to_entries
   | map(select(.value.type == "user" and (.value.isMeta != true)
       and ((.value.message.content | type) == "string"
            or ([.value.message.content[]?.type] | index("tool_result") | not))))
   | last | .key // -1) as $start
  | .[$start + 1:][]
  | select(.type == "assistant") | .message.content[]?
  | select(.type == "text") | .text' "$transcript" | tail -c 4000)
triggers='Next task.*([Cc]ommit|コミット)|([Cc]ommit|コミット).*(leave it to you|shall I|what should I do|is necessary|let'"'"'s do it)|(okay to proceed|shall I proceed|is it alright).*(commit|[Cc]ommit|push|deploy|デプロイ)|(commit|[Cc]ommit).*(proceed to|do|will do)'
skips='committed|commit[:：] ?[0-9a-f]{7,}|Q[0-9]+[:：]|Which is|A[[:space:]]*or[[:space:]]*B|test PASS|All PASS|cmp match|CI ✅|smoke test complete|pipeline PASS|rc=0|workflow success|build PASS|sequential execution|end-to-end|(commit|push) after|verifier verdict|complete the flow'
if grep -qE "$triggers" <<<"$text" && ! grep -qE "$skips" <<<"$text"; then
  echo hit
fi
