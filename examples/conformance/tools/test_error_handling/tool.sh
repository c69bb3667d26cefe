#!/usr/bin/env bash
# Always returns an error result
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
printf '%s\n' '{"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],"isError":true}'
