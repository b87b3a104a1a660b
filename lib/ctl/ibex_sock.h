/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_SOCK_H
#define IBEX_SOCK_H

/**
 * @file
 * The control plane's user side, run by the control thread: the control
 * socket that ibex-ctl talks to and the commands it runs. The control
 * thread is the only writer of the running config and the FDB, so
 * everything here is driven from its loop by ibex_sock_poll(), which waits
 * on the descriptors ibex_sock_fds() names: no thread of its own.
 *
 * The running config is not kept here: each socket has its owner
 * (ibex_running.h: the config, its text and history, its lock, and the one
 * commit path of a change, a reload and SIGHUP), made by ibex_sock_create()
 * and driven by ibex_sock_poll() (a pending SIGHUP reload).
 *
 * The socket is a Unix stream socket, mode 0600, in a directory only its
 * owner may enter (by default the DPDK runtime directory of the process,
 * ibex_sock_default_path()); a peer whose uid is neither ours nor root's is
 * refused as well (SO_PEERCRED). The protocol is in ibex_cmd.h and
 * docs/control.md.
 */

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

struct ibex_conf;
struct ibex_dp;
struct ibex_out;
struct ibex_sock;

struct ibex_sock_params {
	struct ibex_dp *dp;
	const struct ibex_conf *conf; /**< running config at start (copied) */
	const char *config_path;      /**< file "reload" re-reads; NULL: none */
	/** Socket path: NULL = conf->ctl_socket, or the default when that
	 * is ""; "" or "none" = no socket (SIGHUP reloads still work). */
	const char *path;
};

/**
 * Take over the running config (ibex_running_create()), open the socket
 * (non-blocking) and register the /ibex/lanes and /ibex/latency telemetry
 * commands.
 * A socket file left by a switch that died is replaced; a live one is not.
 * @return 0 or -errno with a message in @p err.
 */
int ibex_sock_create(struct ibex_sock **sp, const struct ibex_sock_params *p,
		     char *err, size_t errlen);

/** Close the connections, remove the socket file, free everything. */
void ibex_sock_destroy(struct ibex_sock *s);

/**
 * One control-loop tick: act on a pending reload request
 * (ibex_running_poll()), accept connections, run the complete command lines
 * they sent, write replies. Never blocks on a client.
 */
void ibex_sock_poll(struct ibex_sock *s);

/**
 * The descriptors the control loop should wait on before the next
 * ibex_sock_poll(): the listening socket and every client, each with the
 * events that would let it progress (POLLIN, or POLLOUT while a reply is
 * being written). Sets *@p more when work is pending that no descriptor
 * will announce (a reload request, a complete line not yet run): then the
 * caller must not block. @return the number of entries filled, at most
 * @p max (IBEX_SOCK_MAX_FDS is enough for all).
 */
unsigned int ibex_sock_fds(const struct ibex_sock *s, struct pollfd *pfd,
			   unsigned int max, bool *more);

/** Entries ibex_sock_fds() may fill: the listener and every client. */
#define IBEX_SOCK_MAX_FDS 17

/**
 * Run one command line and append its reply (output lines, then "OK" or
 * "ERR <command>: <reason>") to @p reply. This is the single entry point
 * for changes: the socket and reloads both come here.
 * @return 0, or -errno of a refused command.
 */
int ibex_sock_exec(struct ibex_sock *s, const char *line,
		   struct ibex_out *reply);

/** The socket's path, or "" when there is none. */
const char *ibex_sock_path(const struct ibex_sock *s);

/**
 * The default socket path: "ibex-ctl.sock" in the DPDK runtime directory of
 * this process (/var/run/dpdk/<file-prefix>/ for root, else under
 * $XDG_RUNTIME_DIR or /tmp), which EAL creates with mode 0700.
 * @return 0 or -ENAMETOOLONG.
 */
int ibex_sock_default_path(char *buf, size_t len);

/**
 * The members the final --json adds to the ports and FDB: "lanes",
 * "latency", "ecn", "pfc", "credits", "drops", each as "show X
 * --json" renders it, comma-separated, appended to @p o. @return 0 or
 * -errno.
 */
struct ibex_out;
int ibex_sock_json_sections(struct ibex_sock *s, struct ibex_out *o);

#endif /* IBEX_SOCK_H */
