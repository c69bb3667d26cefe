#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
for i in 25 50 75 100; do
  mcp_is_cancelled && exit 0
  mcp_progress "$i" "step $i"
done
echo counted
