#!/usr/bin/env bash
# Asks the user for a username and an email
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
msg="$(mcp_args_get ".message")"
schema='{"type":"object","properties":{"username":{"type":"string","description":"User'"'"'s response"},"email":{"type":"string","description":"User'"'"'s email address"}},"required":["username","email"]}'
answer="$(mcp_elicit "$msg" "$schema")" || true
echo "User response: $answer"
