/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 3550 interarrival jitter and RFC 5481 PDV. The per-packet update is
 * ibex_jitter_update() in the header.
 */

#include <string.h>

#include "ibex_jitter.h"

void
ibex_jitter_init(struct ibex_jitter *j)
{
	memset(j, 0, sizeof(*j));
}

double
ibex_jitter_rfc3550(const struct ibex_jitter *j)
{
	/* j16 holds 16 x J (RFC 3550 A.8); dividing here keeps the fraction. */
	return (double)IBEX_CNT_READ(j->j16) / 16.0;
}

uint64_t
ibex_pdv_quantile(const struct ibex_hist *delay, double q)
{
	/*
	 * PDV(i) = D(i) - D_min is D shifted by a constant, so its quantiles
	 * are D's quantiles shifted by the same constant. The quantile is
	 * clamped to [min, max], so the difference never goes negative.
	 */
	if (ibex_hist_count(delay) == 0)
		return 0;
	return ibex_hist_quantile(delay, q) - ibex_hist_min(delay);
}
