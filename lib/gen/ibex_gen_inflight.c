/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "ibex_gen_inflight.h"

int
ibex_inflight_init(struct ibex_inflight *q, struct ibex_inflight_ent *ent,
		   uint32_t slots, uint64_t rto)
{
	if (slots < 2 || slots > IBEX_INFLIGHT_MAX_SLOTS ||
	    (slots & (slots - 1)) != 0)
		return -1;
	memset(ent, 0, slots * sizeof(*ent));
	*q = (struct ibex_inflight){ .ent = ent, .mask = slots - 1, .rto = rto };
	return 0;
}

/* Free the acked frames at the head (the window moves on). */
static void
inflight_free_acked(struct ibex_inflight *q)
{
	while (q->head != q->tail) {
		struct ibex_inflight_ent *s = &q->ent[q->head & q->mask];

		if (s->state != IBEX_INFLIGHT_ACKED)
			break;
		s->state = IBEX_INFLIGHT_FREE;
		q->head++;
	}
	/* wrap-safe: the cursor fell behind the head */
	if ((int32_t)(q->scan - q->head) < 0)
		q->scan = q->head;
}

unsigned int
ibex_inflight_expired(struct ibex_inflight *q, uint64_t now, uint16_t *slot,
		      unsigned int max, unsigned int budget)
{
	unsigned int n = 0;

	inflight_free_acked(q);
	while (n < max && budget-- > 0) {
		struct ibex_inflight_ent *s;

		if (q->scan == q->tail) {
			q->scan = q->head;
			break;
		}
		s = &q->ent[q->scan & q->mask];
		/* Sent in order: this one and every later one were first
		 * sent less than an RTO ago. */
		if (s->first_tsc + q->rto > now) {
			q->scan = q->head;
			break;
		}
		if (s->state == IBEX_INFLIGHT_SENT && s->due <= now) {
			s->state = IBEX_INFLIGHT_QUEUED;
			slot[n++] = (uint16_t)(q->scan & q->mask);
		}
		q->scan++;
	}
	return n;
}
