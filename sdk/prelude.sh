# mcp-bash sandbox SDK prelude. SDK functions are Go builtins the engine runs directly (those
# that end the tool in the original, such as mcp_fail, exit the shell from there); only the two
# that need the shell itself are defined here: mcp_config_load sets MCP_CONFIG_JSON, and
# mcp_with_retry may retry a shell function.


mcp_config_load() {
  local __mcpbash_cfg
  __mcpbash_cfg="$(__mcpbash_sdk mcp_config_load "$@")" || return $?
  MCP_CONFIG_JSON="$__mcpbash_cfg"
  export MCP_CONFIG_JSON
}

# mcp_with_retry MAX DELAY -- CMD...: exit 1-2 is final, >= 3 is retried with exponential
# backoff and jitter. In shell so that CMD may be a function of the script.
mcp_with_retry() {
  local __max="${1:-3}" __delay="${2:-1}" __attempt=1 __rc=0
  shift 2 || return 2
  if [ "${1:-}" = "--" ]; then shift; fi
  while :; do
    "$@" && return 0
    __rc=$?
    if [ "$__rc" -le 2 ] || [ "$__attempt" -ge "$__max" ]; then return "$__rc"; fi
    __mcpbash_sdk __backoff_sleep "$__delay" "$__attempt" || return "$__rc"
    __attempt=$((__attempt + 1))
  done
}

# The interpreter is not GNU Bash; scripts that check the version see a Bash 5 (documented).
BASH_VERSION='5.2.0(1)-release'
BASH_VERSINFO=(5 2 0 1 release x86_64-pc-linux-gnu)
