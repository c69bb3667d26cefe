#!/usr/bin/env bash
set -euo pipefail
q="$(printf '%s' "$MCP_COMPLETION_ARGS_JSON" | jq -r .query)"
printf '%s' '["production","preview","prod-eu","staging"]' | jq -c --arg q "$q" '[.[] | select(startswith($q))]'
