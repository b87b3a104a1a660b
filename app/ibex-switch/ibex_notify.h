/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_NOTIFY_H
#define IBEX_NOTIFY_H

/**
 * @file
 * The service manager's readiness protocol (systemd's sd_notify): one
 * datagram of "KEY=VALUE" lines to the AF_UNIX socket named by
 * $NOTIFY_SOCKET ("@..." for the abstract namespace). Nothing happens when
 * the variable is unset, so the switch behaves the same outside a unit.
 */

/** Send @p state ("READY=1\nSTATUS=..."). @return 0, 1 without
 * NOTIFY_SOCKET, or -errno. */
int ibex_notify(const char *state);

#endif /* IBEX_NOTIFY_H */
