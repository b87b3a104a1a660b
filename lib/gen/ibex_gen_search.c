/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The binary search of the benchmark procedures: RFC 2544 section 26.1
 * throughput (no-drop rate, and partial-drop rate with a loss threshold)
 * and the RFC 8239 microburst search over the burst length.
 *
 *   trial 1 at max; pass -> answer max
 *   else lo = min, hi = max; trial at (lo + hi) / 2:
 *       pass -> lo = value, fail -> hi = value; until hi - lo <= res
 *   answer: lo (min when nothing passed)
 *
 * The trials themselves (sending, counting) are the caller's.
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "ibex_gen_search.h"

int
ibex_search_init(struct ibex_search *s, double min, double max, double res,
		 double loss_max, bool integer)
{
	if (!(max > min) || !(res > 0) || !(loss_max >= 0 && loss_max < 1) ||
	    (integer && res < 1))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->min = min;
	s->max = max;
	s->res = res;
	s->loss_max = loss_max;
	s->integer = integer;
	s->lo = min;
	s->hi = max * 2 + 1;
	return 0;
}

double
ibex_search_next(struct ibex_search *s)
{
	double v;

	if (s->trials == 0) {
		s->cur = s->max;
		return s->cur;
	}
	v = (s->lo + s->hi) / 2;
	if (s->integer) {
		v = floor(v);
		/* hi - lo >= 2 here, so lo < v < hi */
		if (v <= s->lo)
			v = s->lo + 1;
	}
	s->cur = v;
	return v;
}

bool
ibex_search_record(struct ibex_search *s, uint64_t offered, uint64_t received)
{
	double loss = ibex_search_loss(offered, received);
	bool pass = ibex_search_pass(s, offered, received);

	s->trials++;
	if (pass) {
		s->lo = s->cur;
		s->lo_loss = loss;
		s->passed_any = true;
	} else {
		s->hi = s->cur;
		s->hi_loss = loss;
	}
	if (pass && s->cur >= s->max)
		s->done = true;
	else if (s->hi - s->lo <= s->res)
		s->done = true;
	/* an integer search also ends when no whole value is left between */
	else if (s->integer && s->hi - s->lo < 2)
		s->done = true;
	return pass;
}
