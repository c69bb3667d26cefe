#!/usr/bin/env bash
# Returns audio content (a short silent WAV)
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
printf '%s\n' '{"content":[{"type":"audio","data":"UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==","mimeType":"audio/wav"}],"isError":false}'
