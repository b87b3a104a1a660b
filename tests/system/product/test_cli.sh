#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The command line of every program, held to one source of truth (no EAL,
# no hugepages, no switch):
#  - drift: each option the program's getopt_long table takes is in its
#    --help; each option of --help is in its man page's OPTIONS
#    (docs/man/PROG.1.md; ibex-gen's is made from its option table by
#    ibex-gen --help-man) and is offered by its bash completion
#    (contrib/bash-completion/ibex-ctl); each command word and show topic
#    of the switch's 'help' is known to ibex-ctl, its completion and its
#    man page. A failure says what to add where.
#  - exit status: 0 success, 1 a runtime failure, 2 a usage error (bad
#    option or value, unknown command), in every program.
#  - ibex-ctl --help names the program, not the path it was run by.
#
#   test_cli.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN IBEX_FABRIC IBEX_TOPO
set -euo pipefail
TEST_NAME=cli
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 pcapgen=$2 ctl=$3 gen=$4 fabric=$5 topoprog=$6
src=$(cd "$(dirname "$0")/../../.." && pwd)
comp=$src/contrib/bash-completion/ibex-ctl
tmp=$(mktemp -d /tmp/ibex-cli.XXXXXX)
on_exit rm -rf "$tmp"
# The programs by name, as a user runs them (completion is by name).
mkdir "$tmp/bin"
for p in "$sw" "$pcapgen" "$ctl" "$gen" "$fabric" "$topoprog"; do
	ln -s "$p" "$tmp/bin/$(basename "$p")"
done
export PATH=$tmp/bin:$PATH

# The options "$@" (a program's --help) lists: its "  -x, --name ARG"
# lines, up to the EAL hints and the example.
help_opts() {
	"$@" 2>&1 | awk '
		/^(Common EAL|Example)/ { exit }
		/^ +-/ && match($0, /^ +/) && RLENGTH <= 8 {
			n = split(substr($0, RLENGTH + 1), t, /,? +/)
			for (i = 1; i <= n; i++) {
				if (t[i] !~ /^--?[A-Za-z0-9]/)
					break
				sub(/[=[;].*/, "", t[i])
				print t[i]
			}
		}' | sort -u
}

# The long options of the getopt_long table(s) in app/PROG/main.c, but
# the hidden ones (for this test).
table_opts() {
	grep -oE '\{ "[a-z][a-z0-9-]*", *(no|required|optional)_argument' \
		"$src/app/$1/main.c" | sed -E 's/\{ "([^"]*)".*/--\1/' |
		grep -vxE -- '--(dump-commands|help-commands)' | sort -u
}

# The man page's OPTIONS section (up to the next "# " heading); a
# "<!-- OPTIONS: PROG --help-man -->" line in it is what the build puts
# there (docs/man/meson.build): PROG's own --help-man.
man_options() {
	awk '/^# OPTIONS/ { on = 1; next } /^# / { on = 0 } on' \
		"$src/docs/man/$1.1.md" >"$tmp/$1.mansrc"
	if grep -q "^<!-- OPTIONS: $1 --help-man -->" "$tmp/$1.mansrc"; then
		"$1" --help-man || fail "$1 --help-man"
	fi
	cat "$tmp/$1.mansrc"
}

# What bash completion offers for the words "$@" (the last one is being
# completed), one a line.
completes() {
	bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		f=$(complete -p "$1" | sed -E "s/.*-F ([^ ]+).*/\1/")
		"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@"
}

have_bc=0
[ -f /usr/share/bash-completion/bash_completion ] && have_bc=1
bash -n "$comp" || fail "$comp: syntax"

errors=0
drift() {
	echo "DRIFT: $*" >&2
	errors=$((errors + 1))
}

# ---- options: getopt table -> --help -> man page, completion ----
# $1 program, $2 its completion's words before the option ("--" for the
# EAL programs, whose own options go after it), $3 the table's source
# ("" for ibex-gen: its usage is printed from its own table).
check_prog() {
	local prog=$1 pre=$2 table=$3 o n=0 before=$errors
	help_opts "$prog" --help >"$tmp/$prog.help"
	[ -s "$tmp/$prog.help" ] || fail "$prog --help: no options parsed"
	if [ -n "$table" ]; then
		table_opts "$table" >"$tmp/$prog.table"
		for o in $(comm -23 "$tmp/$prog.table" "$tmp/$prog.help"); do
			drift "$prog: getopt_long takes $o but --help does not" \
				"list it: add a line for it to usage() in" \
				"app/$table/main.c"
		done
	fi
	man_options "$prog" >"$tmp/$prog.man"
	if [ "$have_bc" = 1 ] && ! bash -c '. "$1"; complete -p "$2"' sh \
		"$comp" "$prog" >/dev/null 2>&1; then
		drift "$prog: no bash completion: add a _${prog//-/_}() and" \
			"'complete -F _${prog//-/_} $prog' to $comp, and $prog to" \
			"the symlinks in contrib/meson.build"
		: >"$tmp/$prog.comp"
	elif [ "$have_bc" = 1 ]; then
		# shellcheck disable=SC2086
		completes "$prog" $pre - >"$tmp/$prog.comp"
	fi
	while read -r o; do
		n=$((n + 1))
		grep -qF -- "**$o**" "$tmp/$prog.man" ||
			drift "$prog: $o (in --help) is missing from the man" \
				"page: add '**$o**' with its argument and a ':' line" \
				"under '# OPTIONS' in docs/man/$prog.1.md"
		if [ "$have_bc" = 1 ] && [ "${o#--}" != "$o" ]; then
			grep -qxF -- "$o" "$tmp/$prog.comp" ||
				drift "$prog: bash completion does not offer $o" \
					"(in --help): _${prog//-/_}() in $comp" \
					"completes options from --help, see why it" \
					"misses this line"
		fi
	done <"$tmp/$prog.help"
	[ "$errors" -ne "$before" ] ||
		check_ok "$prog: $n options of --help in the man page and completion"
}
check_prog ibex-switch -- ibex-switch
check_prog ibex-gen -- ""
check_prog ibex-fabric -- ibex-fabric
check_prog ibex-pcapgen "" ibex-pcapgen
check_prog ibex-topo "" ibex-topo
check_prog ibex-ctl "" ibex-ctl

# ---- ibex-ctl's commands: the switch's 'help' is the reference ----
# (EAL args with a prefix of its own: a binary without the hidden option
# must not run EAL on the default one)
"$sw" --no-huge -m 64 --no-pci --file-prefix="ibex-cli-$$" -- --help-commands \
	>"$tmp/cmds" || fail "ibex-switch --help-commands"
"$ctl" --dump-commands >"$tmp/ctlwords" || fail "ibex-ctl --dump-commands"
# first words of the help's lines (not the placeholder STATEMENT, nor
# the indented continuations)
verbs=$(awk '/^[a-z]/ { print $1 }' "$tmp/cmds" | sort -u)
topics=$(awk '$1 == "show" { gsub(/\|/, " ", $2); print $2 }' "$tmp/cmds" |
	tr ' ' '\n' | sort -u)
statements=$(awk '$1 == "statement" { print $2 }' "$tmp/ctlwords")
[ -n "$verbs" ] && [ -n "$topics" ] && [ -n "$statements" ] ||
	fail "no commands parsed from the switch's help"
if [ "$have_bc" = 1 ]; then
	completes ibex-ctl "" >"$tmp/c.verbs"
	completes ibex-ctl show "" >"$tmp/c.topics"
	completes ibex-ctl set "" >"$tmp/c.stmts"
fi
man=$src/docs/man/ibex-ctl.1.md
for v in $verbs; do
	grep -qx "verb $v" "$tmp/ctlwords" ||
		drift "ibex-ctl: the switch's help has the command '$v', ibex-ctl" \
			"would refuse it as unknown: add \"$v\" to ctl_verbs[] in" \
			"app/ibex-ctl/main.c"
	grep -q "\*\*$v\*\*\|\*\*$v " "$man" ||
		drift "ibex-ctl: command '$v' is missing from the man page:" \
			"add a '**$v** ...' entry under '# COMMANDS' in $man"
	[ "$have_bc" = 0 ] || grep -qxF "$v" "$tmp/c.verbs" ||
		drift "ibex-ctl: completion does not offer the command '$v':" \
			"add it to verbs= in _ibex_ctl() in $comp"
done
for t in $topics; do
	grep -q "^\*\*show\b.*\b$t\*\*" "$man" ||
		drift "ibex-ctl: 'show $t' is missing from the man page: add" \
			"**$t** to a '**show** ...' line under '# COMMANDS' in $man"
	[ "$have_bc" = 0 ] || grep -qxF "$t" "$tmp/c.topics" ||
		drift "ibex-ctl: completion does not offer 'show $t': add $t to" \
			"topics= in _ibex_ctl() in $comp"
done
for s in $statements; do
	[ "$have_bc" = 0 ] || grep -qxF "$s" "$tmp/c.stmts" ||
		drift "ibex-ctl: completion does not offer 'set $s' (a" \
			"configuration statement): add $s to stmts= in" \
			"_ibex_ctl() in $comp"
done
[ "$errors" -ne 0 ] ||
	check_ok "ibex-ctl: $(wc -w <<<"$verbs") commands, $(wc -w <<<"$topics") show topics, $(wc -w <<<"$statements") statements in ibex-ctl, its man page and completion"
[ "$errors" -eq 0 ] || fail "$errors drift(s) between --help, the man pages and the completion (DRIFT lines above)"

# ---- exit status: 0 success, 1 runtime failure, 2 usage error ----
# $1 the status wanted, $2 a label, then the command.
status_is() {
	local want=$1 label=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>&1 </dev/null || rc=$?
	[ "$rc" -eq "$want" ] ||
		{ cat "$tmp/out"; fail "$label: exit $rc, want $want"; }
	! grep -q "EAL:" "$tmp/out" || { cat "$tmp/out"; fail "$label: EAL ran"; }
}
conf=$src/conf/lanes.conf
topo=$src/conf/fabric/leaf2-spine1.yaml
printf 'port p0 dev net_null0\nport p1 dev net_null1 speed fast\n' >"$tmp/bad.conf"
for p in ibex-switch ibex-gen ibex-fabric ibex-pcapgen ibex-ctl ibex-topo; do
	status_is 0 "$p --help" "$p" --help
done
# usage errors: 2
status_is 2 "ibex-switch: bad option" "$sw" --check-config "$conf" --bogus
status_is 2 "ibex-switch: bad value" "$sw" --check-config "$conf" --duration x
status_is 2 "ibex-switch: option before --" "$sw" --config "$conf"
status_is 2 "ibex-switch: --gen options that do not go together" "$sw" \
	--check-config "$conf" --gen "--engine ring --ranks 4097"
grep -q "ring: up to 4,096 ranks" "$tmp/out" ||
	{ cat "$tmp/out"; fail "--gen ring 4097: why"; }
status_is 2 "ibex-switch: bad --gen value" "$sw" --check-config "$conf" \
	--gen "--ranks 16385"
grep -q -- "--ranks: bad value '16385' (2..16384)" "$tmp/out" ||
	{ cat "$tmp/out"; fail "--gen --ranks 16385: no range"; }
status_is 2 "ibex-gen: option before --" "$gen" --ranks 4 --
status_is 2 "ibex-fabric: bad option" "$fabric" -- --check "$topo" --bogus
status_is 2 "ibex-fabric: bad value" "$fabric" -- --check "$topo" --fc x
status_is 2 "ibex-fabric: no topology" "$fabric" -- --check
status_is 2 "ibex-pcapgen: bad option" "$pcapgen" -o "$tmp/x.pcap" --bogus
status_is 2 "ibex-pcapgen: bad value" "$pcapgen" -o "$tmp/x.pcap" -s 10
status_is 2 "ibex-topo: bad option" "$topoprog" fattree 4 --bogus
status_is 2 "ibex-topo: bad value" "$topoprog" fattree 5
status_is 2 "ibex-topo: unknown shape" "$topoprog" torus --leaves 2
status_is 2 "ibex-topo: a size beyond a switch's ports" "$topoprog" leaf-spine \
	--leaves 4 --spines 2 --ranks-per-leaf 63
grep -q "IBEX_MAX_PORTS" "$tmp/out" || { cat "$tmp/out"; fail "ibex-topo: limit not named"; }
status_is 2 "ibex-ctl: bad option" "$ctl" --bogus
status_is 2 "ibex-ctl: bad value" "$ctl" -n 0 -i 1 show ports
status_is 2 "ibex-ctl: unknown command" "$ctl" -s "$tmp/none.sock" frobnicate
grep -q "unknown command 'frobnicate' (one of: show set" "$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-ctl: unknown command not named"; }
status_is 2 "ibex-ctl: unknown command, one word" "$ctl" -s "$tmp/none.sock" \
	" frob x y"
grep -q "unknown command 'frob' " "$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-ctl: unknown command in one word not named"; }
# runtime failures: 1
status_is 1 "ibex-switch: bad configuration" "$sw" --check-config "$tmp/bad.conf"
status_is 1 "ibex-fabric: missing topology" "$fabric" -- --check "$tmp/none.yaml"
status_is 1 "ibex-pcapgen: unwritable output" "$pcapgen" -o "$tmp/no/dir/x.pcap"
status_is 1 "ibex-topo: unwritable output" "$topoprog" fattree 4 -o "$tmp/no/dir/x.yaml"
status_is 1 "ibex-ctl: no switch" "$ctl" -s "$tmp/none.sock" show ports
status_is 1 "ibex-ctl: no switch, one word" "$ctl" -s "$tmp/none.sock" \
	"set port p0 admin down"
# success: 0
status_is 0 "ibex-switch --check-config" "$sw" --check-config "$conf"
status_is 0 "ibex-fabric --check" "$fabric" -- --check "$topo"
status_is 0 "ibex-pcapgen" "$pcapgen" -o "$tmp/x.pcap" -n 4
status_is 0 "ibex-topo" "$topoprog" fattree 4 -o "$tmp/x.yaml"
status_is 0 "ibex-topo partition" "$topoprog" partition "$tmp/x.yaml" -n 2
grep -q "^lookahead: 0.500 us" "$tmp/out" || { cat "$tmp/out"; fail "ibex-topo partition: no lookahead"; }
status_is 2 "ibex-topo partition: more processes than groups" "$topoprog" \
	partition "$tmp/x.yaml" -n 17
grep -q "at most 16 processes" "$tmp/out" || { cat "$tmp/out"; fail "ibex-topo partition: limit not named"; }
status_is 1 "ibex-topo partition: missing file" "$topoprog" partition "$tmp/none.yaml" -n 2
status_is 0 "ibex-topo agg" "$topoprog" agg "$tmp/x.yaml" --job a:1:0-15 \
	--job b:2:0-15:200
grep -q "^job a (id 1, 16 ranks, 64 slots): root core0, 3 levels, 13 switches" "$tmp/out" &&
	grep -q "^job b (id 2, 16 ranks, 200 slots): refused, runs as a ring" "$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-topo agg: not the plan"; }
status_is 2 "ibex-topo agg: a bad job" "$topoprog" agg "$tmp/x.yaml" --job a:1:0-16
grep -q "job a: rank 16: the fabric has ranks 0..15" "$tmp/out" || { cat "$tmp/out"; fail "ibex-topo agg: rank not named"; }
status_is 2 "ibex-topo agg: no job" "$topoprog" agg "$tmp/x.yaml"
status_is 1 "ibex-topo agg: missing file" "$topoprog" agg "$tmp/none.yaml" --job a:1:0
# ibex-fabric --agg: the same plan, given to the switches and validated
status_is 0 "ibex-fabric --agg" "$fabric" -- --check "$tmp/x.yaml" \
	--agg a:1:0-15 --agg b:2:0-15:200 --agg-capacity 256
grep -q "^ibex-fabric: --agg a (job 1): root core0, 3 levels, 13 switches" "$tmp/out" &&
	grep -q "^ibex-fabric: --agg b: refused, runs as a ring" "$tmp/out" ||
	{ cat "$tmp/out"; fail "ibex-fabric --agg: not the plan"; }
# (a job beyond the fabric is found with the topology, as its other
# errors: 1; ibex-topo agg says 2, its whole input being the command)
status_is 1 "ibex-fabric --agg: a job beyond the fabric" "$fabric" -- \
	--check "$tmp/x.yaml" --agg a:1:0-16
grep -q "job a: rank 16: the fabric has ranks 0..15" "$tmp/out" || { cat "$tmp/out"; fail "ibex-fabric --agg: rank not named"; }
status_is 2 "ibex-fabric --agg: a bad job spec" "$fabric" -- --check "$tmp/x.yaml" \
	--agg nonsense
check_ok "exit status: 0 success, 1 a runtime failure, 2 a usage error, in every program"

# ---- ibex-ctl --help names the program ----
"$ctl" --help >"$tmp/out"
head -1 "$tmp/out" | grep -q "^usage: ibex-ctl \[options\]" ||
	{ head -1 "$tmp/out"; fail "ibex-ctl --help: not its name"; }
! grep -qF "$(dirname "$ctl")" "$tmp/out" || fail "ibex-ctl --help prints its path"
check_ok "ibex-ctl --help prints 'ibex-ctl', not its path"
