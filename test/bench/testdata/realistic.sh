#!/usr/bin/env bash
# A realistic tool script: functions, command substitutions, jq on the arguments, and a
# grep/sed/sort pipeline over a data file. Runs the same under /bin/bash and the sandbox.
set -euo pipefail
args="${MCP_TOOL_ARGS_JSON:-{\}}"

field() { printf '%s' "$args" | jq -r --arg k "$1" '.[$k] // empty'; }
upper() { printf '%s' "$1" | tr '[:lower:]' '[:upper:]'; }
count_lines() { wc -l < "$1" | tr -d ' '; }
trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

name="$(field name)"
limit="$(field limit)"
pattern="$(field pattern)"
name="$(trim "${name:-world}")"
limit="${limit:-3}"
pattern="${pattern:-error}"
shout="$(upper "$name")"
file="data/app.log"
total="$(count_lines "$file")"
matches="$(grep -c "$pattern" "$file" || true)"
first="$(grep "$pattern" "$file" | head -n 1 | sed 's/^[^ ]* //')"
top="$(grep "$pattern" "$file" | sed -E 's/.*module=([a-z]+).*/\1/' | sort | uniq -c | sort -rn | head -n "$limit" | sed 's/^ *//' | tr '\n' ';')"
modules="$(cut -d' ' -f3 "$file" | sed 's/module=//' | sort -u | tr '\n' ',' )"
modules="${modules%,}"
ratio="$(( matches * 100 / total ))"
stamp="$(date -u -d @0 +%Y-%m-%d)"
greeting="$(printf 'Hello, %s!' "$name")"
level="low"
if [ "$ratio" -gt 50 ]; then level="high"; elif [ "$ratio" -gt 20 ]; then level="medium"; fi
summary="$(printf '%s|%s|%s' "$shout" "$level" "$ratio")"
checksum="$(printf '%s' "$summary" | sha256sum | cut -c1-12)"
words="$(printf '%s\n' "$first" | wc -w | tr -d ' ')"
last="$(tail -n 1 "$file" | cut -d' ' -f1)"
jq -n \
  --arg greeting "$greeting" --arg level "$level" --arg top "$top" --arg modules "$modules" \
  --arg first "$first" --arg stamp "$stamp" --arg checksum "$checksum" --arg last "$last" \
  --argjson total "$total" --argjson matches "$matches" --argjson ratio "$ratio" --argjson words "$words" \
  '{greeting: $greeting, level: $level, top: $top, modules: $modules, first: $first, stamp: $stamp,
    checksum: $checksum, last: $last, total: $total, matches: $matches, ratio: $ratio, words: $words}'
