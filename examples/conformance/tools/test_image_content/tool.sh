#!/usr/bin/env bash
# Returns image content (a 1x1 red PNG)
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
printf '%s\n' '{"content":[{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC","mimeType":"image/png"}],"isError":false}'
