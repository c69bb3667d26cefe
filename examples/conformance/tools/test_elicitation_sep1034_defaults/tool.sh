#!/usr/bin/env bash
# Elicits with a default for every primitive type (SEP-1034)
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
schema='{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}'
answer="$(mcp_elicit "Test client default value handling - please accept with defaults" "$schema")" || true
echo "Elicitation completed: $answer"
