# shellcheck shell=bash
# mcp-bash tool SDK for native mode (real bash). Implements the original framework's SDK
# functions (see docs/SDK.md) with the same output and exit statuses as the sandbox's Go
# builtins. Bash 3.2 syntax only: no associative arrays, no ${v,,}, no mapfile, no wait -n.
# JSON work goes through ${MCPBASH_JSON_TOOL_BIN} (mcp-bash jq when served by mcp-bash).
#
# jq programs are single-quoted on purpose ($name there is a jq variable):
# shellcheck disable=SC2016

# Sourcing turns on errexit, nounset and pipefail, as the original SDK does (COMPAT.md §3).
set -euo pipefail

__mcp_jq() { "${MCPBASH_JSON_TOOL_BIN:-jq}" "$@"; }

# Printable ASCII is escaped in bash (most strings, no process); anything else (control
# characters, UTF-8, invalid bytes) goes through jq, which decides those.
mcp_json_escape() {
	local s="$*" LC_ALL=C
	case "$s" in
	*[!\ -~]*) printf '%s' "$s" | __mcp_jq -Rs . ;;
	*)
		# Unquoted on purpose: backslashes in a quoted replacement differ between Bash 3.2
		# and 4.3+.
		s=${s//\\/\\\\}
		s=${s//\"/\\\"}
		printf '"%s"\n' "$s"
		;;
	esac
}

mcp_json_obj() {
	if [ $(($# % 2)) -ne 0 ]; then
		echo "mcp_json_obj: expected key/value pairs" >&2
		exit 1
	fi
	local out="{" sep="" k v
	while [ $# -gt 0 ]; do
		k="$(mcp_json_escape "$1")"
		v="$(mcp_json_escape "$2")"
		out="${out}${sep}${k}:${v}"
		sep=","
		shift 2
	done
	printf '%s}\n' "$out"
}

mcp_json_arr() {
	local out="[" sep="" a
	for a in "$@"; do
		out="${out}${sep}$(mcp_json_escape "$a")"
		sep=","
	done
	printf '%s]\n' "$out"
}

mcp_is_valid_json() {
	[ $# -gt 0 ] || return 1
	printf '%s' "$1" | __mcp_jq -se 'length == 1' >/dev/null 2>&1
}

mcp_byte_length() {
	local s="$*" LC_ALL=C
	echo "${#s}"
}

mcp_json_truncate() {
	local json="" max="" path="." pos=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--array-path) path="${2:-.}"; shift 2 ;;
		*) if [ "$pos" -eq 0 ]; then json="$1"; else max="$1"; fi; pos=$((pos + 1)); shift ;;
		esac
	done
	case "$max" in '' | *[!0-9]*) max="${MCPBASH_MAX_TEXT_BYTES:-102400}" ;; esac
	if ! mcp_is_valid_json "$json"; then
		echo '{"result":null,"truncated":false,"error":"invalid JSON"}'
		return 0
	fi
	local v
	v="$(printf '%s' "$json" | __mcp_jq -c .)"
	if [ "$(mcp_byte_length "$v")" -le "$max" ]; then
		printf '{"result":%s,"truncated":false}\n' "$v"
		return 0
	fi
	# Largest array prefix that fits, computed by jq; printed in the SDK's member order.
	local plan
	plan="$(printf '%s' "$v" | __mcp_jq -c --argjson max "$max" --arg path "$path" '
		def size: tojson | utf8bytelength;
		. as $v | ($path | ltrimstr(".") | if . == "" then [] else split(".") end) as $p
		| ($v | getpath($p)) as $arr
		| if ($arr | type) != "array" then {error: ("no array at " + $path + " to truncate")}
		  else (reduce range(0; ($arr | length) + 1) as $k (-1; if ($v | setpath($p; $arr[:$k]) | size) <= $max then $k else . end)) as $best
		  | if $best < 0 then {error: "does not fit even when empty"}
		    else {result: ($v | setpath($p; $arr[:$best])), kept: $best, total: ($arr | length)} end end')"
	if printf '%s' "$plan" | __mcp_jq -e 'has("error")' >/dev/null; then
		printf '{"result":null,"truncated":true,"error":%s}\n' "$(printf '%s' "$plan" | __mcp_jq -c .error)"
		return 0
	fi
	printf '{"result":%s,"truncated":true,"kept":%s,"total":%s}\n' "$(printf '%s' "$plan" | __mcp_jq -c .result)" \
		"$(printf '%s' "$plan" | __mcp_jq .kept)" "$(printf '%s' "$plan" | __mcp_jq .total)"
}

mcp_args_raw() {
	if [ -n "${MCP_TOOL_ARGS_FILE:-}" ] && [ -f "${MCP_TOOL_ARGS_FILE}" ]; then
		cat "${MCP_TOOL_ARGS_FILE}"
		echo
	elif [ -n "${MCP_TOOL_ARGS_JSON:-}" ]; then
		printf '%s\n' "${MCP_TOOL_ARGS_JSON}"
	else
		echo '{}'
	fi
}

mcp_args_get() {
	if [ $# -eq 0 ]; then
		echo "mcp_args_get: filter required" >&2
		return 2
	fi
	mcp_args_raw | __mcp_jq -rc "$1"
}

# __mcp_value FILTER: one string, "" for null or nothing.
__mcp_value() {
	local v
	v="$(mcp_args_raw | __mcp_jq -rc "$1" 2>/dev/null)" || v=""
	[ "$v" = "null" ] && v=""
	printf '%s' "$v"
}

mcp_fail() {
	local code="${1:-}" msg="${2:-}" data="${3:-}" json
	case "$code" in
	'' | *[!0-9-]* | -) code=-32603 ;;
	esac
	[ -n "$msg" ] || msg="Tool failed"
	if [ -n "$data" ]; then
		if mcp_is_valid_json "$data"; then
			data="$(printf '%s' "$data" | __mcp_jq -c .)"
		else
			data="$(mcp_json_escape "$data")"
		fi
		json="{\"code\":${code},\"message\":$(mcp_json_escape "$msg"),\"data\":${data}}"
	else
		json="{\"code\":${code},\"message\":$(mcp_json_escape "$msg")}"
	fi
	[ -n "${MCP_TOOL_ERROR_FILE:-}" ] && printf '%s\n' "$json" >"${MCP_TOOL_ERROR_FILE}"
	printf '%s\n' "$json"
	printf '%s\n' "$msg" >&2
	exit 1
}

mcp_fail_invalid_args() { mcp_fail -32602 "${1:-Invalid params}" "${2:-}"; }

mcp_args_require() {
	local v
	v="$(__mcp_value "$1")"
	if [ -z "$v" ]; then
		mcp_fail -32602 "${2:-$1 is required}"
	fi
	printf '%s\n' "$v"
}

mcp_args_bool() {
	local f="$1" def="" has_def=0 v
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--default) def="${2:-}"; has_def=1; shift 2 ;;
		*) shift ;;
		esac
	done
	v="$(__mcp_value "$f")"
	if [ -z "$v" ]; then
		[ "$has_def" -eq 1 ] || mcp_fail -32602 "$f is required"
		v="$def"
	fi
	if [ "$v" = "true" ] || [ "$v" = "1" ]; then echo true; else echo false; fi
}

mcp_args_int() {
	local f="$1" def="" has_def=0 lo="" hi="" v
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--default) def="${2:-}"; has_def=1; shift 2 ;;
		--min) lo="${2:-}"; shift 2 ;;
		--max) hi="${2:-}"; shift 2 ;;
		*) shift ;;
		esac
	done
	v="$(__mcp_value "$f")"
	if [ -z "$v" ]; then
		[ "$has_def" -eq 1 ] || mcp_fail -32602 "$f is required"
		v="$def"
	fi
	case "$v" in
	'' | - | *[!0-9-]* | ?*-*) mcp_fail -32602 "$f must be an integer" ;;
	esac
	v=$((10#${v#-} * (${v%%[0-9]*}1)))
	if [ -n "$lo" ] && [ "$v" -lt "$lo" ]; then mcp_fail -32602 "$f must be >= $lo"; fi
	if [ -n "$hi" ] && [ "$v" -gt "$hi" ]; then mcp_fail -32602 "$f must be <= $hi"; fi
	echo "$v"
}

mcp_meta_raw() {
	local m='{}'
	if [ -n "${MCP_TOOL_META_FILE:-}" ] && [ -f "${MCP_TOOL_META_FILE}" ]; then
		m="$(cat "${MCP_TOOL_META_FILE}")"
	elif [ -n "${MCP_TOOL_META_JSON:-}" ]; then
		m="${MCP_TOOL_META_JSON}"
	fi
	printf '%s' "$m" | __mcp_jq -c .
}

mcp_meta_get() { mcp_meta_raw | __mcp_jq -rc "$1"; }

mcp_is_cancelled() { [ -n "${MCP_CANCEL_FILE:-}" ] && [ -f "${MCP_CANCEL_FILE}" ]; }

mcp_progress() {
	[ -n "${MCP_PROGRESS_TOKEN:-}" ] && [ -n "${MCP_PROGRESS_STREAM:-}" ] || return 0
	local pct="${1:-0}" msg="${2:-}" total="${3:-}"
	pct="${pct%%.*}"
	case "$pct" in '' | *[!0-9-]*) pct=0 ;; esac
	[ "$pct" -lt 0 ] && pct=0
	[ "$pct" -gt 100 ] && pct=100
	case "$total" in '' | *[!0-9.]*) total=null ;; esac
	printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%s,"total":%s,"message":%s}}\n' \
		"$(mcp_json_escape "$MCP_PROGRESS_TOKEN")" "$pct" "$total" "$(mcp_json_escape "$msg")" >>"${MCP_PROGRESS_STREAM}"
}

__mcp_level() {
	case "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')" in
	debug | info | notice | warning | error | critical | alert | emergency) printf '%s' "$1" | tr '[:upper:]' '[:lower:]' ;;
	warn) echo warning ;;
	*) echo info ;;
	esac
}

mcp_log() {
	if [ $# -lt 3 ]; then
		echo "mcp_log: usage: mcp_log LEVEL LOGGER JSON" >&2
		return 1
	fi
	[ -n "${MCP_LOG_STREAM:-}" ] || return 0
	local data="$3"
	if mcp_is_valid_json "$data"; then data="$(printf '%s' "$data" | __mcp_jq -c .)"; else data="$(mcp_json_escape "$data")"; fi
	printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"%s","logger":%s,"data":%s}}\n' \
		"$(__mcp_level "$1")" "$(mcp_json_escape "$2")" "$data" >>"${MCP_LOG_STREAM}"
}

__mcp_log_string() {
	local level="$1" logger="${2:-}"
	shift 2 || shift $#
	[ -n "${MCP_LOG_STREAM:-}" ] || return 0
	printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"%s","logger":%s,"data":%s}}\n' \
		"$level" "$(mcp_json_escape "$logger")" "$(mcp_json_escape "$*")" >>"${MCP_LOG_STREAM}"
}
mcp_log_debug() { __mcp_log_string debug "$@"; }
mcp_log_info() { __mcp_log_string info "$@"; }
mcp_log_warn() { __mcp_log_string warning "$@"; }
mcp_log_error() { __mcp_log_string error "$@"; }

mcp_debug() {
	[ -n "${MCPBASH_DEBUG_LOG:-}" ] || return 0
	printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >>"${MCPBASH_DEBUG_LOG}"
}

mcp_emit_text() { printf '%s' "$*"; }

mcp_emit_json() {
	local in="$*" v
	# One jq run validates (exactly one value) and compacts.
	if ! v="$(printf '%s' "$in" | __mcp_jq -cs 'if length == 1 then .[0] else error("not one value") end' 2>/dev/null)" || [ -z "$v" ]; then
		echo "mcp_emit_json: invalid JSON" >&2
		return 1
	fi
	printf '%s\n' "$v"
}

# __mcp_result TEXT STRUCTURED_JSON IS_ERROR
__mcp_result() {
	printf '{"content":[{"type":"text","text":%s}],"structuredContent":%s,"isError":%s}\n' "$(mcp_json_escape "$1")" "$2" "$3"
}

mcp_result_success() {
	local in="${1:-null}" max="${2:-${MCPBASH_MAX_TEXT_BYTES:-102400}}" v text
	# One jq run both validates (exactly one JSON value) and compacts.
	if ! v="$(printf '%s' "$in" | __mcp_jq -cs 'if length == 1 then .[0] else error("not one value") end' 2>/dev/null)" || [ -z "$v" ]; then
		mcp_result_error '{"type":"internal_error","message":"mcp_result_success: invalid JSON input"}'
		return 0
	fi
	text="{\"success\":true,\"result\":${v}}"
	case "$max" in '' | *[!0-9]*) max=102400 ;; esac
	if [ "$(mcp_byte_length "$text")" -gt "$max" ]; then
		case "$(printf '%s' "$v" | __mcp_jq -r type)" in
		object) text="Success: object with $(printf '%s' "$v" | __mcp_jq length) keys" ;;
		array) text="Success: array with $(printf '%s' "$v" | __mcp_jq length) items" ;;
		*) text="$(printf '%s' "$v" | cut -c1-100)" ;;
		esac
	fi
	__mcp_result "$text" "{\"success\":true,\"result\":${v}}" false
}

mcp_result_error() {
	local in="${1:-{\}}" e
	if mcp_is_valid_json "$in"; then
		e="$(printf '%s' "$in" | __mcp_jq -c 'if type == "object" then . elif type == "string" then {message: .} else {} end')"
	elif [ -n "$in" ]; then
		e="{\"message\":$(mcp_json_escape "$in")}"
	else
		e='{}'
	fi
	e="$(printf '%s' "$e" | __mcp_jq -c '.type = (if (.type // "") == "" then "internal_error" else .type end) | .message = (if (.message // "") == "" then "Unknown error" else .message end)')"
	__mcp_result "$(printf '%s' "$e" | __mcp_jq -r .message)" "{\"success\":false,\"error\":${e}}" true
}

mcp_error() {
	if [ $# -lt 2 ]; then
		echo "mcp_error: usage: mcp_error TYPE MESSAGE [--hint H] [--data JSON]" >&2
		return 1
	fi
	local e
	e="{\"type\":$(mcp_json_escape "$1"),\"message\":$(mcp_json_escape "$2")}"
	shift 2
	while [ $# -gt 0 ]; do
		case "$1" in
		--hint) e="$(printf '%s' "$e" | __mcp_jq -c --arg h "${2:-}" '.hint = $h')"; shift 2 ;;
		--data)
			if mcp_is_valid_json "${2:-}"; then
				e="$(printf '%s' "$e" | __mcp_jq -c --argjson d "$2" '.data = $d')"
			else
				e="$(printf '%s' "$e" | __mcp_jq -c --arg d "${2:-}" '.data = {_invalid_json: $d}')"
			fi
			shift 2
			;;
		*) shift ;;
		esac
	done
	mcp_log error "${MCP_TOOL_NAME:-tool}" "$e"
	mcp_result_error "$e"
}

mcp_result_text_with_resource() {
	local data="${1:-}" refs="" path="" mime="" uri=""
	shift || true
	__mcp_flush_ref() {
		[ -n "$path" ] || return 0
		case "$path" in /*) ;; *) path="$PWD/$path" ;; esac
		refs="${refs}${refs:+,}{\"path\":$(mcp_json_escape "$path")${mime:+,\"mimeType\":$(mcp_json_escape "$mime")}${uri:+,\"uri\":$(mcp_json_escape "$uri")}}"
		path="" mime="" uri=""
	}
	while [ $# -gt 0 ]; do
		case "$1" in
		--path) __mcp_flush_ref; path="${2:-}"; shift 2 ;;
		--mime) mime="${2:-}"; shift 2 ;;
		--uri) uri="${2:-}"; shift 2 ;;
		*) shift ;;
		esac
	done
	__mcp_flush_ref
	[ -n "${MCP_TOOL_RESOURCES_FILE:-}" ] && printf '[%s]\n' "$refs" >"${MCP_TOOL_RESOURCES_FILE}"
	mcp_is_valid_json "$data" || data="$(mcp_json_escape "$data")"
	mcp_result_success "$data"
}

mcp_extract_cli_error() {
	local out="${1:-}" err="${2:-}" rc="${3:-1}" msg=""
	if mcp_is_valid_json "$out"; then
		msg="$(printf '%s' "$out" | __mcp_jq -r 'if type != "object" then empty
			elif (.error | type) == "object" and ((.error.message // "") != "") then .error.message
			elif (.error | type) == "string" and .error != "" then .error
			elif (.success == false or .ok == false) and ((.message // "") != "") then .message
			elif (.errors | type) == "array" and (.errors | length) > 0 and ((.errors[0].message // "") != "") then .errors[0].message
			else empty end' 2>/dev/null)" || msg=""
	fi
	if [ -n "$msg" ]; then
		printf '%s\n' "$msg"
	elif [ -n "$(printf '%s' "$err" | tr -d '[:space:]')" ]; then
		printf '%s\n' "${err%$'\n'}"
	else
		printf 'CLI exited with code %s\n' "${rc:-1}"
	fi
}

mcp_roots_list() { [ -n "${MCP_ROOTS_PATHS:-}" ] && printf '%s\n' "${MCP_ROOTS_PATHS}"; return 0; }
mcp_roots_count() { echo "${MCP_ROOTS_COUNT:-0}"; }

__mcp_physical() {
	local p="$1" d b
	case "$p" in /*) ;; *) p="$PWD/$p" ;; esac
	if [ -d "$p" ]; then (cd -P "$p" 2>/dev/null && pwd) && return 0; fi
	d="$(dirname "$p")" b="$(basename "$p")"
	if [ -d "$d" ]; then printf '%s/%s\n' "$(cd -P "$d" && pwd)" "$b" | sed 's#^//#/#'; else mcp_path_collapse "$p"; fi
}

__mcp_in_roots() {
	local p="$1" r
	[ -n "${MCP_ROOTS_PATHS:-}" ] || return 1
	while IFS= read -r r; do
		[ -n "$r" ] || continue
		if [ "$p" = "$r" ]; then return 0; fi
		case "$p" in "${r%/}"/*) return 0 ;; esac
	done <<EOF
${MCP_ROOTS_PATHS}
EOF
	return 1
}

mcp_roots_contains() {
	[ -n "${1:-}" ] || return 1
	__mcp_in_roots "$(__mcp_physical "$1")"
}

mcp_require_path() {
	local f="$1" single=0 allow_empty=0 v p
	shift
	for a in "$@"; do
		case "$a" in --default-to-single-root) single=1 ;; --allow-empty) allow_empty=1 ;; esac
	done
	v="$(__mcp_value "$f")"
	if [ -z "$v" ]; then
		if [ "$single" -eq 1 ] && [ "${MCP_ROOTS_COUNT:-0}" -eq 1 ]; then
			v="${MCP_ROOTS_PATHS}"
		elif [ "$allow_empty" -eq 1 ]; then
			echo
			return 0
		elif [ "$single" -eq 1 ]; then
			mcp_fail -32602 "$f is required when zero or multiple roots are configured"
		else
			mcp_fail -32602 "$f is required"
		fi
	fi
	p="$(__mcp_physical "$v")"
	if [ "${MCP_ROOTS_COUNT:-0}" -gt 0 ] && ! __mcp_in_roots "$p"; then
		mcp_fail -32602 "$f is outside configured MCP roots"
	fi
	printf '%s\n' "$p"
}

mcp_path_collapse() {
	local p="$1" out="" seg abs=""
	case "$p" in /*) abs=/ ;; esac
	local IFS=/
	set -f
	for seg in $p; do
		case "$seg" in
		'' | .) ;;
		..) if [ -n "$out" ] && [ "${out##*/}" != ".." ]; then case "$out" in */*) out="${out%/*}" ;; *) out="" ;; esac; elif [ -z "$abs" ]; then out="${out:+$out/}.."; fi ;;
		*) out="${out:+$out/}$seg" ;;
		esac
	done
	set +f
	if [ -n "$abs" ]; then printf '/%s\n' "$out"; else printf '%s\n' "${out:-.}"; fi
}

mcp_path_normalize() {
	local physical=1 p=""
	while [ $# -gt 0 ]; do
		case "$1" in --physical) physical=1 ;; --logical) physical=0 ;; *) p="$1" ;; esac
		shift
	done
	if [ -z "$p" ]; then
		echo "mcp_path_normalize: path required" >&2
		return 1
	fi
	if [ "$physical" -eq 1 ]; then __mcp_physical "$p"; return 0; fi
	case "$p" in /*) ;; *) p="$PWD/$p" ;; esac
	mcp_path_collapse "$p"
}

mcp_config_load() {
	local merged='{}' envvar="" file="" example="" defaults="" raw
	while [ $# -gt 0 ]; do
		case "$1" in
		--env) envvar="${2:-}"; shift 2 ;;
		--file) file="${2:-}"; shift 2 ;;
		--example) example="${2:-}"; shift 2 ;;
		--defaults) defaults="${2:-}"; shift 2 ;;
		*) shift ;;
		esac
	done
	__mcp_layer() {
		[ -n "$2" ] || return 0
		if printf '%s' "$2" | __mcp_jq -e 'type == "object"' >/dev/null 2>&1; then
			merged="$(printf '%s' "$merged" | __mcp_jq -c --argjson l "$2" '. + $l')"
		else
			echo "mcp_config_load: $1 is not a JSON object; ignored" >&2
		fi
	}
	__mcp_layer --defaults "$defaults"
	if [ -n "$example" ] && [ -f "$example" ]; then raw="$(cat "$example")"; __mcp_layer "$example" "$raw"; fi
	if [ -n "$file" ] && [ -f "$file" ]; then raw="$(cat "$file")"; __mcp_layer "$file" "$raw"; fi
	if [ -n "$envvar" ]; then eval "raw=\${$envvar:-}"; __mcp_layer "\$$envvar" "$raw"; fi
	MCP_CONFIG_JSON="$merged"
	export MCP_CONFIG_JSON
}

mcp_config_get() {
	local f="$1" def="" has_def=0 v
	shift
	while [ $# -gt 0 ]; do
		case "$1" in --default) def="${2:-}"; has_def=1; shift 2 ;; *) shift ;; esac
	done
	v="$(printf '%s' "${MCP_CONFIG_JSON:-{\}}" | __mcp_jq -rc "$f")" || return 5
	if [ -z "$v" ] || [ "$v" = "null" ]; then
		if [ "$has_def" -eq 1 ]; then v="$def"; else v=null; fi
	fi
	printf '%s\n' "$v"
}

mcp_with_retry() {
	local max="${1:-3}" delay="${2:-1}" attempt=1 rc=0 wait
	shift 2 || return 2
	if [ "${1:-}" = "--" ]; then shift; fi
	while :; do
		"$@" && return 0
		rc=$?
		if [ "$rc" -le 2 ] || [ "$attempt" -ge "$max" ]; then return "$rc"; fi
		wait="$(awk -v d="$delay" -v a="$attempt" 'BEGIN { srand(); s = d * 2 ^ (a - 1); printf "%.3f", s + s * 0.25 * rand() }')"
		sleep "$wait"
		attempt=$((attempt + 1))
	done
}

mcp_run_with_progress() {
	local pattern='([0-9]+(\.[0-9]+)?)%' extract=match1 total=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		case "$1" in
		--pattern) pattern="${2:-}"; shift 2 ;;
		--extract) extract="${2:-}"; shift 2 ;;
		--total) total="${2:-}"; shift 2 ;;
		*) echo "mcp_run_with_progress: unsupported option $1" >&2; return 2 ;;
		esac
	done
	if [ "${1:-}" != "--" ] || [ $# -lt 2 ]; then
		echo "mcp_run_with_progress: usage: mcp_run_with_progress --pattern RE [--extract match1|ratio|json] -- CMD..." >&2
		return 2
	fi
	shift
	local rc=0 fifo
	fifo="$(mktemp -u "${TMPDIR:-/tmp}/mcp-progress.XXXXXX")"
	mkfifo "$fifo"
	(
		while IFS= read -r line; do
			printf '%s\n' "$line" >&2
			if [[ "$line" =~ $pattern ]]; then
				case "$extract" in
				ratio) [ "${BASH_REMATCH[2]:-0}" != 0 ] && mcp_progress "$((BASH_REMATCH[1] * 100 / BASH_REMATCH[2]))" "$line" ;;
				json) mcp_progress "$(printf '%s' "$line" | __mcp_jq -r 'if .total then .progress * 100 / .total else .progress end')" "$(printf '%s' "$line" | __mcp_jq -r '.message // empty')" ;;
				*) v="${BASH_REMATCH[1]%%.*}"; [ -n "$total" ] && v=$((v * 100 / total)); mcp_progress "$v" "$line" ;;
				esac
			fi
		done <"$fifo"
	) &
	local reader=$!
	"$@" 2>"$fifo" || rc=$?
	wait "$reader" 2>/dev/null || true
	rm -f "$fifo"
	return "$rc"
}

# Elicitation: the request goes to MCP_ELICIT_REQUEST_FILE, the server writes the answer to
# MCP_ELICIT_RESPONSE_FILE.
mcp_elicit() {
	local msg="${1:-}" schema="${2:-}" timeout="${3:-30}" mode="${4:-form}" req waited=0 ticks
	if [ "${MCP_ELICIT_SUPPORTED:-0}" != 1 ] || [ -z "${MCP_ELICIT_REQUEST_FILE:-}" ]; then
		echo '{"action":"decline","content":null}'
		return 1
	fi
	timeout="${timeout%%.*}"
	case "$timeout" in '' | *[!0-9]*) timeout=30 ;; esac
	if [ "$mode" = url ]; then
		req="{\"message\":$(mcp_json_escape "$msg"),\"url\":$(mcp_json_escape "$schema"),\"mode\":\"url\",\"timeout\":${timeout}}"
	else
		req="{\"message\":$(mcp_json_escape "$msg"),\"schema\":$(printf '%s' "$schema" | __mcp_jq -c .),\"mode\":\"form\",\"timeout\":${timeout}}"
	fi
	rm -f "${MCP_ELICIT_RESPONSE_FILE}"
	printf '%s\n' "$req" >"${MCP_ELICIT_REQUEST_FILE}.tmp" && mv "${MCP_ELICIT_REQUEST_FILE}.tmp" "${MCP_ELICIT_REQUEST_FILE}"
	ticks=$((timeout * 10))
	while [ ! -s "${MCP_ELICIT_RESPONSE_FILE}" ]; do
		if [ "$waited" -ge "$ticks" ]; then
			echo '{"action":"cancel","content":null}'
			return 1
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
	local resp action
	resp="$(__mcp_jq -c '{action: (.action // "error"), content: (.content // null)}' "${MCP_ELICIT_RESPONSE_FILE}")"
	rm -f "${MCP_ELICIT_RESPONSE_FILE}"
	printf '%s\n' "$resp"
	action="$(printf '%s' "$resp" | __mcp_jq -r .action)"
	[ "$action" = accept ]
}
# Sampling: the arguments go to MCP_SAMPLE_REQUEST_FILE; the server asks the client's model and
# writes what mcp_sample prints and returns (the same Go code answers in both engines).
mcp_sample() {
	local req waited=0 resp status
	if [ "${MCP_SAMPLING_SUPPORTED:-0}" != 1 ] || [ -z "${MCP_SAMPLE_REQUEST_FILE:-}" ]; then
		echo "mcp_sample: the client does not support sampling" >&2
		return 1
	fi
	req="$(__mcp_jq -nc '{args: $ARGS.positional}' --args -- "$@")"
	rm -f "${MCP_SAMPLE_RESPONSE_FILE}"
	printf '%s\n' "$req" >"${MCP_SAMPLE_REQUEST_FILE}.tmp" && mv "${MCP_SAMPLE_REQUEST_FILE}.tmp" "${MCP_SAMPLE_REQUEST_FILE}"
	while [ ! -s "${MCP_SAMPLE_RESPONSE_FILE}" ]; do
		# The server bounds the wait (MCPBASH_SAMPLING_TIMEOUT) and then answers; this is a backstop.
		if [ "$waited" -ge 36000 ]; then
			echo "mcp_sample: no answer from the server" >&2
			return 1
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
	resp="$(cat "${MCP_SAMPLE_RESPONSE_FILE}")"
	rm -f "${MCP_SAMPLE_RESPONSE_FILE}"
	printf '%s' "$resp" | __mcp_jq -j '.stdout'
	printf '%s' "$resp" | __mcp_jq -j '.stderr' >&2
	status="$(printf '%s' "$resp" | __mcp_jq -r '.status')"
	return "$status"
}

mcp_elicit_url() { mcp_elicit "${1:-}" "${2:-}" "${3:-30}" url; }
mcp_elicit_string() { mcp_elicit "${1:-}" '{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}'; }
mcp_elicit_confirm() { mcp_elicit "${1:-}" '{"type":"object","properties":{"confirmed":{"type":"boolean"}},"required":["confirmed"]}'; }
mcp_elicit_choice() {
	local msg="$1"
	shift
	mcp_elicit "$msg" "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\",\"enum\":$(mcp_json_arr "$@")}},\"required\":[\"choice\"]}"
}
mcp_elicit_multi_choice() {
	local msg="$1"
	shift
	mcp_elicit "$msg" "{\"type\":\"object\",\"properties\":{\"choices\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":$(mcp_json_arr "$@")}}},\"required\":[\"choices\"]}"
}
__mcp_titled() {
	local out="[" sep="" o v t
	for o in "$@"; do
		v="${o%%:*}" t="${o#*:}"
		out="${out}${sep}{\"const\":$(mcp_json_escape "$v"),\"title\":$(mcp_json_escape "$t")}"
		sep=","
	done
	printf '%s]' "$out"
}
mcp_elicit_titled_choice() {
	local msg="$1"
	shift
	mcp_elicit "$msg" "{\"type\":\"object\",\"properties\":{\"choice\":{\"type\":\"string\",\"oneOf\":$(__mcp_titled "$@")}},\"required\":[\"choice\"]}"
}
mcp_elicit_titled_multi_choice() {
	local msg="$1"
	shift
	mcp_elicit "$msg" "{\"type\":\"object\",\"properties\":{\"choices\":{\"type\":\"array\",\"items\":{\"anyOf\":$(__mcp_titled "$@")}}},\"required\":[\"choices\"]}"
}

mcp_download_safe() {
	echo '{"success":false,"error":{"type":"unavailable","message":"downloads are not available in native mode"}}'
	return 0
}
mcp_download_safe_or_fail() { mcp_fail -32602 "Download failed (unavailable): downloads are not available in native mode"; }

# MCP Apps (the original's ui-sdk.sh). The page is declared in the tool's metadata
# (_meta.ui.resourceUri); a result only carries the data the page renders, so URI is ignored.
mcp_client_supports_ui() { [ "${MCPBASH_CLIENT_SUPPORTS_UI:-0}" = 1 ]; }

# mcp_result_with_ui URI TEXT [DATA] [WIDGET_META]: TEXT for every client; DATA as
# structuredContent and WIDGET_META as the result's _meta (for the page, not the model) for a
# client with the extension.
mcp_result_with_ui() {
	local text="${2:-}" data="${3:-null}" meta="${4:-null}" out f v
	[ -n "$data" ] || data=null
	[ -n "$meta" ] || meta=null
	if ! mcp_client_supports_ui; then
		if mcp_is_valid_json "$text"; then
			mcp_result_success "$text"
		else
			printf '{"content":[{"type":"text","text":%s}],"isError":false}\n' "$(mcp_json_escape "$text")"
		fi
		return 0
	fi
	out="{\"content\":[{\"type\":\"text\",\"text\":$(mcp_json_escape "$text")}]"
	for f in structuredContent _meta; do
		if [ "$f" = structuredContent ]; then v="$data"; else v="$meta"; fi
		if ! v="$(printf '%s' "$v" | __mcp_jq -c 'if type == "object" or . == null then . else error("not an object") end' 2>/dev/null)" || [ -z "$v" ]; then
			mcp_result_error "{\"type\":\"internal_error\",\"message\":\"mcp_result_with_ui: $f must be a JSON object\"}"
			return 0
		fi
		[ "$v" = null ] || out="$out,\"$f\":$v"
	done
	printf '%s,"isError":false}\n' "$out"
}
mcp_result_with_ui_data() { mcp_result_with_ui "$@"; }

# mcp_tool_meta_with_ui URI [VISIBILITY]: {"ui":{"resourceUri","visibility"}} for tool.meta.json.
mcp_tool_meta_with_ui() {
	__mcp_jq -n --arg uri "${1:-}" --arg v "${2:-model,app}" '{ui: {resourceUri: $uri, visibility: ($v | split(",") | map(gsub("^\\s+|\\s+$"; "")))}}'
}

# The page ui-templates.jq (next to this file, shared with the sandbox's builtins) builds from
# INPUT: {"template","args"} for the original's form and data-table templates.
__mcp_ui_page() {
	local dir=.
	case "${BASH_SOURCE[0]}" in */*) dir="${BASH_SOURCE[0]%/*}" ;; esac
	printf '%s' "$2" | __mcp_jq -r -f "$dir/ui-templates.jq" || return 1
}

# mcp_ui_form [--title T] [--field NAME[:TYPE[:OPT1,OPT2]]]... [--submit-tool TOOL]: the page
# of the original's form template. Other words are skipped, as the original's loop skips them.
mcp_ui_form() {
	local title="" tool="" fields="" sep=""
	while [ $# -gt 0 ]; do
		case "$1" in
		--title | --field | --submit-tool)
			if [ $# -lt 2 ]; then
				echo "mcp_ui_form: $1 needs a value" >&2
				return 2
			fi
			case "$1" in
			--title) title="$2" ;;
			--field)
				fields="${fields}${sep}$(mcp_json_escape "$2")"
				sep=,
				;;
			*) tool="$2" ;;
			esac
			shift 2
			;;
		*) shift ;;
		esac
	done
	__mcp_ui_page mcp_ui_form "{\"template\":\"form\",\"args\":{\"title\":$(mcp_json_escape "$title"),\"submitTool\":$(mcp_json_escape "$tool"),\"fields\":[$fields]}}"
}

# The original's lib/ui-templates.sh functions: the page of a template for CONFIG (JSON).
mcp_ui_generate_from_template() {
	if [ $# -eq 0 ]; then
		echo "mcp_ui_generate_from_template: usage: mcp_ui_generate_from_template TEMPLATE CONFIG_JSON" >&2
		return 2
	fi
	local config="${2:-}"
	[ -n "$config" ] || config='{}'
	if ! mcp_is_valid_json "$config"; then
		echo "mcp_ui_template: config is not valid JSON" >&2
		return 1
	fi
	__mcp_ui_page mcp_ui_template "{\"template\":$(mcp_json_escape "$1"),\"config\":$config}"
}
mcp_ui_template_form() { mcp_ui_generate_from_template form "${1:-}"; }
mcp_ui_template_data_table() { mcp_ui_generate_from_template data-table "${1:-}"; }
mcp_ui_template_progress() { mcp_ui_generate_from_template progress "${1:-}"; }
mcp_ui_template_diff_viewer() { mcp_ui_generate_from_template diff-viewer "${1:-}"; }
mcp_ui_template_tree_view() { mcp_ui_generate_from_template tree-view "${1:-}"; }
mcp_ui_template_kanban() { mcp_ui_generate_from_template kanban "${1:-}"; }

# mcp_ui_table --columns A,B [--title T]: the page of the original's data-table template; the
# rows reach the page in the tool's result, not on stdin.
mcp_ui_table() {
	local title=Data columns=""
	while [ $# -gt 0 ]; do
		case "$1" in
		--title | --columns)
			if [ $# -lt 2 ]; then
				echo "mcp_ui_table: $1 needs a value" >&2
				return 2
			fi
			if [ "$1" = --title ]; then title="$2"; else columns="$2"; fi
			shift 2
			;;
		*) shift ;;
		esac
	done
	__mcp_ui_page mcp_ui_table "{\"template\":\"data-table\",\"args\":{\"title\":$(mcp_json_escape "$title"),\"columns\":$(mcp_json_escape "$columns")}}"
}
