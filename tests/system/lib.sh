# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Shared helpers for the ibex system tests (sourced, not run).
#
# A test sets TEST_NAME, sources this file, and then:
#   - registers undo steps with `on_exit CMD...` as it creates things
#     (namespaces, links, files); they run in reverse order when the script
#     exits, whatever the reason;
#   - starts background processes with `start_bg VAR LOG CMD...`, which
#     remembers the PID; only those PIDs are ever signalled;
#   - reports with `info`, `check_ok`, `fail` (exit 1) and `skip` (exit 77,
#     which meson counts as skipped).

# WAIT_RC is set here and read by the test scripts.
# shellcheck disable=SC2034
TEST_NAME=${TEST_NAME:-system}

# Exit status meson reads as "skipped".
readonly SKIP_RC=77

_EXIT_STEPS=()
_STARTED_PIDS=()

info() {
	printf '%s: %s\n' "$TEST_NAME" "$*"
}

check_ok() {
	printf '%s: ok: %s\n' "$TEST_NAME" "$*"
}

fail() {
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	exit 1
}

skip() {
	printf '%s: SKIP: %s\n' "$TEST_NAME" "$*"
	exit $SKIP_RC
}

# Skip (not fail) when a tool the test depends on is not installed.
require_cmds() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "'$c' not found"
	done
}

# Print a file under a header, for diagnosis after a failure.
show_log() {
	local f=$1

	[ -f "$f" ] || return 0
	printf -- '----- %s -----\n' "$f" >&2
	tail -n "${2:-40}" "$f" >&2
	printf -- '----- end of %s -----\n' "$f" >&2
}

# on_exit CMD [ARGS...]: run this command when the script exits.
# Steps are stored as quoted strings and run last-registered first.
on_exit() {
	_EXIT_STEPS+=("$(printf '%q ' "$@")")
}

_run_exit_steps() {
	local rc=$? i

	trap - EXIT INT TERM
	kill_started
	for ((i = ${#_EXIT_STEPS[@]} - 1; i >= 0; i--))
	do
		eval "${_EXIT_STEPS[i]}" >/dev/null 2>&1 || true
	done
	exit $rc
}
trap _run_exit_steps EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_bg VAR LOG CMD [ARGS...]: run CMD in the background with stdin from
# /dev/null and stdout+stderr into LOG; store its PID in VAR. CMD is exec'd
# by the forked shell, so the PID is the command's own.
start_bg() {
	local __var=$1 log=$2

	shift 2
	"$@" </dev/null >"$log" 2>&1 &
	_STARTED_PIDS+=("$!")
	printf -v "$__var" '%s' "$!"
}

is_alive() {
	kill -0 "$1" 2>/dev/null
}

# wait_exit PID TIMEOUT_S: wait for a process we started to end; its exit
# status goes to WAIT_RC. Returns 1 if it is still running after TIMEOUT_S.
wait_exit() {
	local pid=$1 deadline=$((SECONDS + $2))

	while is_alive "$pid"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
	# Under set -e a bare `wait` for a process that failed would end the
	# test right here, silently, with that status (a peer tool that
	# crashed on its way out, say): callers judge WAIT_RC instead.
	WAIT_RC=0
	wait "$pid" 2>/dev/null || WAIT_RC=$?
	_forget_pid "$pid"
	return 0
}

# A reaped PID may be reused by an unrelated process: never signal it again.
_forget_pid() {
	local i

	for i in "${!_STARTED_PIDS[@]}"; do
		[ "${_STARTED_PIDS[i]}" != "$1" ] || unset '_STARTED_PIDS[i]'
	done
}

# stop_pid PID [SIG]: signal one process we started and wait for it (up to
# 60 s, then SIGKILL: a switch on a busy machine may need more than 10 s to
# stop, print and write its JSON). Its exit status goes to WAIT_RC.
stop_pid() {
	local pid=$1 sig=${2:-TERM}

	WAIT_RC=0
	if ! is_alive "$pid"; then
		wait "$pid" 2>/dev/null || WAIT_RC=$?
		_forget_pid "$pid"
		return 0
	fi
	kill -s "$sig" "$pid" 2>/dev/null
	if ! wait_exit "$pid" 60; then
		kill -s KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null || true
		WAIT_RC=137
		_forget_pid "$pid"
	fi
}

# Stop every process started with start_bg that is still running.
kill_started() {
	local pid

	for pid in "${_STARTED_PIDS[@]}"; do
		is_alive "$pid" && stop_pid "$pid" TERM
	done
	return 0
}

# wait_until TIMEOUT_S CMD [ARGS...]: retry CMD every 0.2 s until it
# succeeds; returns 1 on timeout.
wait_until() {
	local deadline=$((SECONDS + $1))

	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
	return 0
}

# wait_until_or_dead TIMEOUT_S PID CMD...: as wait_until, but give up at
# once when PID has exited (a server that died will never become ready).
wait_until_or_dead() {
	local deadline=$((SECONDS + $1)) pid=$2

	shift 2
	until "$@" >/dev/null 2>&1; do
		is_alive "$pid" || return 2
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
	return 0
}

# dpdk_prefix VAR TAG: store a unique DPDK --file-prefix in VAR and remove
# its run directory at exit. (Not a $(...) helper: on_exit must run in
# this shell, not in a subshell.)
dpdk_prefix() {
	local __p="ibex-$TEST_NAME-$$-$2"

	on_exit rm -rf "/var/run/dpdk/$__p"
	printf -v "$1" '%s' "$__p"
}

# Sum of one port's drop counters in an ibex JSON summary.
json_port_drops() {
	jq -e "[.ports[$2].drops[]] | add // 0" "$1"
}

json_port_field() {
	jq -e ".ports[$2].$3" "$1"
}
