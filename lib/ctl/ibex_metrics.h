/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_METRICS_H
#define IBEX_METRICS_H

/**
 * @file
 * The Prometheus / OpenMetrics endpoint (docs/metrics.md): `--metrics
 * ADDR:PORT` serves GET /metrics over HTTP with libmicrohttpd, from one
 * thread of its own that blocks in epoll between requests (no periodic
 * wake-up). A scrape reads the counters the way /ibex/ telemetry does:
 * the workers' single-writer counters as whole 64-bit words, summed per
 * port and lane (ibex_dp_port_totals(), ibex_dp_lane_totals(),
 * ibex_dp_fc_view(), ibex_dp_residence()); it takes no lock a worker
 * waits on and adds no work to the data path. Counters are raw since
 * start: "clear counters" (a baseline of ibex-ctl's) does not move them,
 * as Prometheus wants of a counter.
 */

#include <stddef.h>

#include "ibex_emit.h"

struct ibex_dp;
struct ibex_metrics;

/**
 * Render the exposition of @p n switches into @p o. With @p names (one
 * per switch) every sample carries a switch="<name>" label (ibex-fabric's
 * one endpoint); NULL for one switch without it. @return 0 or -errno.
 */
int ibex_metrics_render(struct ibex_dp *const *dps, const char *const *names,
			unsigned int n, enum ibex_om_format fmt,
			struct ibex_out *o);

/**
 * Parse "PORT", "ADDR:PORT" or "[ADDR6]:PORT" (ADDR numeric; PORT 1..65535;
 * no address: 127.0.0.1) into @p ss. @return 0, or -EINVAL with a message
 * in @p err.
 */
struct sockaddr_storage;
int ibex_metrics_parse_addr(const char *s, struct sockaddr_storage *ss,
			    char *err, size_t len);

/**
 * Serve /metrics of @p n switches on @p addr (ibex_metrics_parse_addr())
 * from libmicrohttpd's own thread. @p names as for ibex_metrics_render().
 * The switches must outlive the endpoint. @return 0, -ENOTSUP when ibex
 * was built without libmicrohttpd, or -errno; @p err says why.
 */
int ibex_metrics_start(struct ibex_metrics **mp, struct ibex_dp *const *dps,
		       const char *const *names, unsigned int n,
		       const char *addr, char *err, size_t len);
/** Stop serving and free (NULL: nothing). Waits for a scrape in flight. */
void ibex_metrics_stop(struct ibex_metrics *m);

#endif /* IBEX_METRICS_H */
