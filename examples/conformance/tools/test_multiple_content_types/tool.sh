#!/usr/bin/env bash
# Returns text, image and resource content
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
printf '%s\n' '{"content":[{"type":"text","text":"Multiple content types test:"},{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC","mimeType":"image/png"},{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}],"isError":false}'
