#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
if answer="$(mcp_elicit_confirm 'Do you want to proceed with the demo?')"; then
  echo "answer: $answer"
else
  echo "not confirmed: $answer"
fi
