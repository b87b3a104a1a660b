/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_MEMIF_SOCK_H
#define IBEX_MEMIF_SOCK_H

/**
 * @file
 * Where memif ports listen. DPDK 22.11's memif PMD puts its socket in the
 * abstract namespace unless told otherwise (socket-abstract=yes is its
 * default, the name /run/memif.sock): an abstract socket has no
 * permissions, so any local process in the network namespace could attach
 * to a memif server port and inject frames (on an fc credit port, grant
 * credits as the peer). ibex rewrites each net_memif --vdev before EAL
 * sees it (docs/configuration.md, "memif sockets"):
 *
 *   - no socket=: socket=DIR/NAME.sock,socket-abstract=no, NAME the
 *     vdev's name (net_memif0), DIR a runtime directory only the switch's
 *     user may enter (ibex_memif_dir()): a socket per port, so ports need
 *     no distinct id= (two servers of id 0 on one socket are refused);
 *   - socket=PATH without socket-abstract=: socket-abstract=no added, a
 *     socket file at PATH (its directory says who may open it);
 *   - socket-abstract=yes given: left as it is, and a server is reported
 *     (the caller warns loudly);
 *   - socket-abstract=no given: left as it is.
 *
 * Clients get the same rewrite, so ibex's own clients and servers meet at
 * the same file. No DPDK: this runs before rte_eal_init().
 */

#include <stddef.h>

/** What ibex_memif_devargs() made of a --vdev argument. */
enum ibex_memif_fix {
	IBEX_MEMIF_KEEP = 0,   /**< not memif, or left as given */
	IBEX_MEMIF_DEFAULT,    /**< no socket=: the owner-only default */
	IBEX_MEMIF_FILE,       /**< socket=PATH: socket-abstract=no added */
	IBEX_MEMIF_ABSTRACT,   /**< a server with socket-abstract=yes: open
				    to every local process (left as given) */
};

/**
 * Rewrite the --vdev argument @p devargs as above into @p out (@p len
 * bytes), @p dir being the owner-only directory for the default socket
 * (only read for IBEX_MEMIF_DEFAULT; may be NULL when the caller knows
 * there is none, which then yields -ENOENT for such a vdev).
 *
 * @return an enum ibex_memif_fix (@p out holds the argument to use, the
 *   given one for KEEP and ABSTRACT), or -ENAMETOOLONG, -ENOENT.
 */
int ibex_memif_devargs(const char *devargs, const char *dir, char *out,
		       size_t len);

/**
 * The directory for default memif sockets, made if missing and checked:
 * $IBEX_MEMIF_DIR if set; else /run/ibex/memif for root,
 * $XDG_RUNTIME_DIR/ibex/memif for other users, /tmp/ibex-UID/memif without
 * XDG_RUNTIME_DIR. Directories it makes get mode 0700. The directory must
 * be owned by the effective user with no access for group or others, and
 * its parent must be owned by that user or root and writable by no one
 * else (so nobody can swap the directory): otherwise it is refused.
 *
 * @return 0 with the path in @p buf, or -errno with one line in @p err.
 */
int ibex_memif_dir(char *buf, size_t len, char *err, size_t errlen);

/**
 * Apply ibex_memif_devargs() to every --vdev of an EAL command line
 * (@p argc, @p argv up to "--"), in place: a rewritten argument is a new
 * string that lives as long as the process. Says on stderr, prefixed with
 * @p prog, where a defaulted socket is and warns about each abstract
 * server socket. The directory is made only when some vdev needs it.
 *
 * @return 0, or -errno after saying why on stderr.
 */
int ibex_memif_fix_argv(int argc, char **argv, const char *prog);

#endif /* IBEX_MEMIF_SOCK_H */
