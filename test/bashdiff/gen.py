# Generates testdata/snippets.txt: bash idioms from real tool scripts, one per "### name" block.
# Run: python3 gen.py (the output is committed; the generator documents where snippets come from).
S = []
def add(name, body):
    S.append((name, body.strip('\n')))

vals = ['hello.world.txt', 'a/b/c.tar.gz', '', 'MiXeD Case', '  spaced  ']
for i, v in enumerate(vals):
    q = v.replace("'", "'\\''")
    for op in ['${v:-dflt}', '${v:+set}', '${#v}', '${v#*.}', '${v##*.}', '${v%.*}', '${v%%.*}', '${v/./_}', '${v//./_}', '${v:1:3}', '${v^^}', '${v,,}', '${v^}', '${v:-}']:
        add(f'param-{i}-{op}', f"v='{q}'\nprintf '[%s]\\n' \"{op}\"")
add('param-default-assign', "unset x; : ${x:=seven}; echo $x")
add('param-indirect', "name=target; target=found; echo ${!name}")
add('param-unset-check', "unset u; echo ${u-unset} ${u:-empty}")
add('param-negative-offset', "v=abcdef; echo ${v: -2} ${v:2}")
add('param-length-array', "a=(x yy zzz); echo ${#a[@]} ${#a[1]}")
for i, e in enumerate(['1+2*3', '10/3', '10%3', '2**10', '1<<4', '255>>2', '6&3', '6|3', '6^3', '~5', '!0', '!7', '3>2', '3<2', '2==2', '2!=2', '1&&0', '1||0', '5>3?10:20', '-7/2', '-7%3', '(1+2)*(3+4)', '0x1f', '010', '2#101']):
    add(f'arith-{i}', f"echo $(( {e} ))")
add('arith-vars', "a=5 b=7; echo $((a*b)) $((a+=2)) $a")
add('arith-incr', "i=0; ((i++)); ((i+=5)); echo $i")
add('arith-let', "let x=3*4 y=x+1; echo $x $y")
add('arith-cmd-status', "(( 0 )); echo $?; (( 2 )); echo $?")
add('arith-compare-loop', "n=0; while (( n < 5 )); do n=$((n+1)); done; echo $n")
# arrays
for i, body in enumerate([
    "a=(one two three); echo ${a[0]} ${a[2]} ${a[@]}",
    "a=(one two three); echo ${a[@]:1:2}",
    "a=(one two); a+=(three four); echo ${#a[@]} ${a[3]}",
    "a=(x y z); unset 'a[1]'; echo ${a[@]} ${#a[@]}",
    "a=(x y z); echo ${!a[@]}",
    "a=(a b c); IFS=,; echo \"${a[*]}\"",
    "a=(); echo ${#a[@]}",
    "a=(1 2 3); for x in \"${a[@]}\"; do echo item $x; done",
    "a[5]=five; a[2]=two; echo ${a[@]} ${!a[@]}",
    "s='a b  c'; a=($s); echo ${#a[@]}",
    "a=(\"with space\" other); echo ${#a[@]}; printf '<%s>' \"${a[@]}\"; echo",
    "a=(b a c); IFS=$'\\n' sorted=($(printf '%s\\n' \"${a[@]}\" | sort)); echo ${sorted[@]}",
    "a=(1 2 3); a[1]=20; echo ${a[*]}",
    "declare -a arr=(x y); arr+=(z); echo ${arr[-1]}",
    "a=(x y z); echo ${a[@]/y/Y}",
]):
    add(f'array-{i}', body)
for i, body in enumerate([
    "declare -A m; m[a]=1; m[b]=2; echo ${m[a]} ${m[b]}",
    "declare -A m=([k]=v); echo ${m[k]} ${m[missing]:-none}",
    "declare -A m=([x]=1 [y]=2); for k in $(printf '%s\\n' \"${!m[@]}\" | sort); do echo $k=${m[$k]}; done",
    "declare -A m; m[one]=1; unset 'm[one]'; echo \"[${m[one]:-gone}]\"",
    "declare -A m=([a]=1); [[ -v m[a] ]] && echo has-a; [[ -v m[b] ]] || echo no-b",
]):
    add(f'assoc-{i}', body)
# control flow
for i, (x, body) in enumerate([(x, b) for x in ['1', '5', '12'] for b in [
    "if [ $x -lt 3 ]; then echo small; elif [ $x -lt 10 ]; then echo medium; else echo large; fi",
    "case $x in 1) echo one;; [2-9]) echo digit;; *) echo other;; esac",
    "[[ $x == 1* ]] && echo starts-with-1 || echo no",
]]):
    add(f'flow-{i}', f"x={x}\n{body}")
for i, body in enumerate([
    "for i in 1 2 3; do echo $i; done",
    "for ((i=0; i<3; i++)); do echo c$i; done",
    "i=0; while [ $i -lt 3 ]; do echo w$i; i=$((i+1)); done",
    "i=3; until [ $i -eq 0 ]; do echo u$i; i=$((i-1)); done",
    "for i in 1 2 3 4; do [ $i -eq 3 ] && break; echo $i; done",
    "for i in 1 2 3 4; do [ $i -eq 2 ] && continue; echo $i; done",
    "for i in a b; do for j in 1 2; do [ $j -eq 2 ] && continue 2; echo $i$j; done; done",
    "f(){ return 3; }; f; echo $?",
    "f(){ local x=inner; echo $x; }; x=outer; f; echo $x",
    "f(){ echo \"args:$# first:$1 all:$*\"; }; f a b c",
    "f(){ shift; echo $@; }; f drop keep1 keep2",
    "f(){ echo ${1:-none}; }; f; f given",
    "g(){ echo g; }; f(){ g; echo f; }; f",
    "fact(){ if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 6",
    "f(){ x=global; }; f; echo $x",
    "case abc in a*c) echo glob;; esac",
    "case x in y|x) echo alt;; esac",
    "case '' in '') echo empty;; esac",
    "true && echo and; false || echo or",
    "! false && echo negated",
    "{ echo group1; echo group2; } | wc -l",
    "echo $(( $(echo 2) + $(echo 3) ))",
    "x=$(echo nested $(echo inner)); echo $x",
    "( exit 4 ); echo $?",
    "(cd /; pwd); pwd >/dev/null; echo sub",
    "x=1; (x=2); echo $x",
]):
    add(f'ctl-{i}', body)
# printf / echo
for i, body in enumerate([
    "printf '%s-%s\\n' a b c d", "printf '%5s|%-5s|\\n' ab cd", "printf '%05d\\n' 42", "printf '%.3f\\n' 3.14159",
    "printf '%x %X %o\\n' 255 255 8", "printf '%e\\n' 12345.678", "printf '%g %g\\n' 0.0001 1000000",
    "printf '%c\\n' hello", "printf '%%\\n'", "printf '%b\\n' 'a\\tb'", "printf '%q\\n' \"it's\"", "printf '%s\\n'",
    "printf '%d\\n' \"'a\"", "printf '%-10s|\\n' left", "printf '%+d %+d\\n' 5 -5", "printf '%*d|\\n' 6 42",
    "printf -v out '%03d' 9; echo $out", "printf 'no newline'; echo", "printf '%s\\n' 'multi' 'line'", "printf '%i\\n' 017",
    "echo -n a; echo b", "echo -e 'x\\ty'", "echo -E 'x\\ty'", "echo a  b   c", "echo \"a  b   c\"", "echo", "echo -ne 'p\\n'",
    "echo '$HOME'", "echo \\$x", "echo {1..5}", "echo {a,b,c}x", "echo {3..1}", "echo x{1..3}y",
]):
    add(f'print-{i}', body)
# quoting
for i, body in enumerate([
    "echo 'single $x'", "x=val; echo \"double $x\"", "echo $'tab\\there'", "echo \"a\\\"b\"", "echo 'it'\\''s'",
    "x='a b'; set -- $x; echo $#", "x='a b'; set -- \"$x\"; echo $#", "x='*'; echo \"$x\"", "IFS=:; x='a:b:c'; set -- $x; echo $2",
    "echo \"$(echo 'quoted $(inner)')\"", "a='x'; b=\"${a}y\"; echo $b", "echo \"${undefined:-def ault}\"",
]):
    add(f'quote-{i}', body)
# heredocs
for i, body in enumerate([
    "cat <<EOF\nline1\nline2\nEOF",
    "x=42; cat <<EOF\nvalue=$x\nEOF",
    "x=42; cat <<'EOF'\nvalue=$x\nEOF",
    "cat <<-EOF\n\tindented\n\tEOF",
    "read -r first <<< 'here string'; echo $first",
    "while read -r l; do echo \"got $l\"; done <<EOF\na\nb\nEOF",
    "wc -l <<< $'1\\n2\\n3'",
    "tr a-z A-Z <<< 'shout'",
]):
    add(f'heredoc-{i}', body)
# errexit / pipefail / nounset
for i, body in enumerate([
    "set -e; true; echo reached",
    "set -e; false || echo handled; echo after",
    "set -e; if false; then :; fi; echo after-if",
    "set -e; f(){ false; echo in-f; }; f || echo f-failed",
    "set -o pipefail; false | true; echo $?",
    "false | true; echo $?",
    "set -u; x=1; echo ${x}",
    "set -u; echo ${unset_var:-safe}",
    "set -e; (false); echo unreached",
    "set -e; x=$(false) || echo subst-failed",
    "set +e; false; echo continues $?",
    "set -euo pipefail; echo strict",
]):
    add(f'errexit-{i}', body)
# traps and subshells
for i, body in enumerate([
    "trap 'echo exiting' EXIT; echo main",
    "f(){ trap 'echo ret' RETURN 2>/dev/null; echo body; }; f",
    "trap 'echo cleanup' EXIT; exit 3",
    "x=$(exit 5); echo $?",
    "echo $(echo a; echo b)",
    "out=$( { echo o; echo e >&2; } 2>&1 ); echo \"$out\"",
    "{ echo err >&2; } 2>/dev/null; echo quiet",
    "echo stdout >&1",
]):
    add(f'trap-{i}', body)
# read loops and IFS
for i, body in enumerate([
    "printf 'a b c\\n' | { read -r x y z; echo $z$y$x; }",
    "IFS=, read -r a b <<< 'one,two'; echo $b $a",
    "while IFS=: read -r k v; do echo \"$k=>$v\"; done <<< $'x:1\\ny:2'",
    "read -r -a arr <<< 'p q r'; echo ${arr[1]}",
    "printf 'l1\\nl2\\n' | while read -r l; do echo \"[$l]\"; done",
    "n=0; while read -r _; do n=$((n+1)); done < data/lines.txt; echo $n",
    "mapfile -t lines < data/lines.txt; echo ${#lines[@]} ${lines[0]}",
    "readarray -t arr <<< $'x\\ny'; echo ${arr[1]}",
    "IFS= read -r raw <<< '  keep  '; echo \"[$raw]\"",
    "read -r line < data/lines.txt; echo $line",
]):
    add(f'read-{i}', body)
# tests
for i, body in enumerate([
    "[[ abc =~ ^a(b)c$ ]] && echo ${BASH_REMATCH[1]}",
    "[[ 'x y' == 'x y' ]] && echo eq",
    "[[ abc == a* ]] && echo glob",
    "[[ -z '' ]] && echo empty", "[[ -n x ]] && echo nonempty",
    "[[ 10 -gt 9 ]] && echo numgt", "[[ b > a ]] && echo strgt",
    "[ -f data/lines.txt ] && echo file", "[ -d data ] && echo dir", "[ -e nope ] || echo missing",
    "[ -s data/lines.txt ] && echo nonempty-file", "[[ -r data/lines.txt ]] && echo readable",
    "test 3 -eq 3 && echo test-eq", "[ abc = abc ] && echo single-eq", "[ 1 -lt 2 -a 2 -lt 3 ] && echo and",
    "[[ ! -e nope && -d data ]] && echo compound", "x=5; [[ $x -ge 5 && $x -le 10 ]] && echo range",
    "[[ 'a.b' =~ \\. ]] && echo escaped-dot", "re='^[0-9]+$'; [[ 123 =~ $re ]] && echo numeric",
    "[[ '' ]] || echo empty-false",
]):
    add(f'test-{i}', body)
for i, body in enumerate([
    "set -- -a -b val pos; while getopts 'ab:' o; do echo \"$o=${OPTARG:-}\"; done; shift $((OPTIND-1)); echo rest=$1",
    "set -- -x; while getopts 'y' o 2>/dev/null; do echo got=$o; done",
    "set -- a b c; echo $# $2; shift 2; echo $1",
    "set -- 'a b' c; for a in \"$@\"; do echo \"<$a>\"; done",
    "f(){ echo $0 >/dev/null; echo $#; }; f 1 2 3",
]):
    add(f'args-{i}', body)
# utilities on fixture files
for i, body in enumerate([
    "grep -c apple data/fruit.txt", "grep -n cherry data/fruit.txt", "grep -v apple data/fruit.txt | head -2",
    "grep -E 'an+a' data/fruit.txt", "grep -o 'an' data/fruit.txt | wc -l", "grep -i APPLE data/fruit.txt | sort -u",
    "sed 's/a/A/g' data/fruit.txt | head -1", "sed -n '2p' data/fruit.txt", "sed '/apple/d' data/fruit.txt",
    "sed -E 's/^(.)(.*)$/\\2\\1/' data/fruit.txt | tail -1", "sort data/fruit.txt | uniq -c | sort -rn | head -1",
    "sort -r data/fruit.txt | head -1", "cut -d, -f2 data/people.csv", "cut -d, -f1,3 data/people.csv | tail -1",
    "tr ',' '\\t' < data/people.csv | head -1", "wc -l < data/fruit.txt", "head -n 2 data/people.csv",
    "tail -n 1 data/people.csv", "sort -t, -k2 -n data/people.csv | head -2", "cat data/fruit.txt | sort | uniq",
    "jq -r '.name' data/obj.json", "jq -c '.items | length' data/obj.json", "jq -r '.items[] | select(. > 1)' data/obj.json",
    "jq -n --arg x 1 '{x: $x}' | jq -c .", "echo '{\"a\":[1,2]}' | jq '.a | add'", "jq -r '.nested.deep' data/obj.json",
    "printf '%s\\n' c a b | sort | tr '\\n' ' '; echo", "seq 1 5 | paste -sd+ 2>/dev/null || seq 1 5 | tr '\\n' '+'; echo",
    "basename /a/b/c.txt .txt; dirname /a/b/c.txt", "echo hello | rev 2>/dev/null || echo olleh",
    "ls data | sort", "mkdir -p tmpd/x && touch tmpd/x/f && ls tmpd/x", "echo content > out.txt; cat out.txt",
    "echo a >> app.txt; echo b >> app.txt; wc -l < app.txt", "cp data/fruit.txt copy.txt && wc -l < copy.txt",
    "printf 'b\\na\\n' > u.txt; sort u.txt", "echo 'x=1' | cut -d= -f2", "echo 'a:b:c' | awk -F: '{print $2}' 2>/dev/null || echo b",
    "grep -l apple data/*.txt", "grep -c '' data/lines.txt",
]):
    add(f'util-{i}', body)
with open('testdata/snippets.txt', 'w') as f:
    for name, body in S:
        f.write(f'### {name}\n{body}\n')
print(len(S))
