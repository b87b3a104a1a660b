/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_STALE_H
#define IBEX_STALE_H

/**
 * @file
 * Unix socket files left behind by a process that died without removing
 * them (SIGKILL, a crash): the control socket and memif server sockets.
 * A socket file nobody listens on refuses connections (ECONNREFUSED);
 * that one is removed so the next start can bind the path again. One a
 * live process listens on is left alone and reported. No DPDK: the memif
 * paths must be cleared before rte_eal_init() probes the ports.
 */

#include <stdbool.h>
#include <stddef.h>

/**
 * Remove the socket file at @p path when no process listens on it.
 *
 * @param connect_probe  true: ask by connecting (works across network
 *   namespaces; for sockets whose server takes a bare connect and close,
 *   like ibex's own); false: look for a listener bound to @p path in
 *   /proc/net/unix without connecting (memif: DPDK's memif server aborts
 *   on a connection that closes without its handshake).
 * @return 0 when there is nothing at @p path, 1 when a stale socket was
 *   removed, -EADDRINUSE when a process listens there, -EEXIST when the
 *   path is not a socket, or another -errno; @p err says what happened
 *   (for 1 too: one line to log).
 */
int ibex_stale_socket_clear(const char *path, bool connect_probe,
			    char *err, size_t errlen);

/**
 * The socket file of a memif or vhost-user server port in a --vdev
 * argument ("net_memif0,role=server,socket=/run/x.sock,socket-abstract=no",
 * "net_vhost0,iface=/run/v.sock"). memif ports are servers unless
 * role=client, and a memif socket in the abstract namespace
 * (socket-abstract=yes, DPDK's default) has no file; vhost ports are
 * servers unless client=1.
 *
 * @return 1 with the path in @p path, 0 when @p devargs is not such a
 *   server with a socket file, -ENAMETOOLONG.
 */
int ibex_vdev_server_socket(const char *devargs, char *path, size_t len);

#endif /* IBEX_STALE_H */
