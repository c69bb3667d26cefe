#!/usr/bin/env bash
# Elicits with all five enum schema variants (SEP-1330)
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
schema='{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}'
answer="$(mcp_elicit "Test enum schema variants - please pick values" "$schema")" || true
echo "Elicitation completed: $answer"
