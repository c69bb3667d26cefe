#!/usr/bin/env bash
# Asks the client's model (sampling/createMessage) and reports its answer
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
prompt="$(mcp_args_get ".prompt")"
if ! answer="$(mcp_sample --max-tokens 100 "$prompt")"; then
	mcp_fail -32603 "Sampling failed (does the client support sampling?)"
fi
echo "LLM response: $(printf '%s' "$answer" | jq -r '.content.text // (.content | tostring)')"
