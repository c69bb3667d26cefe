#!/usr/bin/env bash
# Answers after a short pause (the suite's SSE polling scenario calls it)
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
sleep 0.1
echo "Reconnection test completed successfully"
