#!/usr/bin/env bash
# Completes arg1/arg2 of test_prompt_with_arguments from a fixed list, by prefix.
set -euo pipefail
q="$(printf '%s' "$MCP_COMPLETION_ARGS_JSON" | jq -r '.query // ""')"
printf '%s' '["paris","park","party","test-value","testing"]' | jq -c --arg q "$q" '[.[] | select(startswith($q))]'
