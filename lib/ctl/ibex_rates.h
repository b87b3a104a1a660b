/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_RATES_H
#define IBEX_RATES_H

/**
 * @file
 * "show rates" and "clear counters": rates over the interval between two
 * samples of the counters, taken by the control thread when it runs the
 * command (no periodic sampling, no thread of its own). The first
 * interval starts when the switch starts, or at the last "clear
 * counters"; each "show rates" starts the next, so "ibex-ctl -i 1 show
 * rates" shows one-second rates. The counters themselves are never reset
 * (the workers are their only writers): "clear counters" keeps a baseline
 * that "show ports" and "show rates" subtract.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_dp.h"

struct ibex_out;
struct ibex_conf;
struct ibex_rates;

/** A sampler, its first interval starting now. @return 0 or -ENOMEM. */
int ibex_rates_create(struct ibex_rates **rp, const struct ibex_dp *dp);
void ibex_rates_free(struct ibex_rates *r);

/** "clear counters": a new baseline and a new interval, from now. */
void ibex_rates_clear(struct ibex_rates *r, const struct ibex_dp *dp);

/** Port @p port's counters since the last "clear counters". */
void ibex_rates_port_since_clear(const struct ibex_rates *r,
				 const struct ibex_dp *dp, uint16_t port,
				 struct ibex_port_counters *c);

/**
 * Render the rates since the previous sample, per port and per lane, as a
 * table or JSON ({"rates": {...}}), and start the next interval.
 */
void ibex_rates_show(struct ibex_rates *r, const struct ibex_dp *dp,
		     const struct ibex_conf *conf, bool json,
		     struct ibex_out *o);

#endif /* IBEX_RATES_H */
