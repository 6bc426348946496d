#!/usr/bin/env bash
# Reads {"text": "..."} as JSON on stdin and prints the counts of the text as JSON.
set -euo pipefail

text_file="${TMPDIR:-/tmp}/word_count.$$"
trap 'rm -f "$text_file"' EXIT

# jsonstr.awk decodes the top-level "text" string of the JSON object on stdin
# into the file named by out, and prints 1 if the text ends with a newline, else 0.
ends_nl=$(LC_ALL=C awk -v out="$text_file" -f "$(dirname "$0")/jsonstr.awk")

read -r words chars bytes < <(LC_ALL=C.UTF-8 wc -w -m -c < "$text_file")
newlines=$(tr -cd '\n' < "$text_file" | wc -c)
lines=$newlines
if [ "$bytes" -gt 0 ] && [ "$ends_nl" = 0 ]; then
  lines=$((newlines + 1))
fi
printf '{"lines":%d,"words":%d,"chars":%d,"bytes":%d}\n' "$lines" "$words" "$chars" "$bytes"
