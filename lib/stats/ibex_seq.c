/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-flow sequence checker, TRex semantics with an exact duplicate window.
 * The in-order path is ibex_seq_update() in the header; the rest is here.
 *
 * seen[] is a ring: bit n % IBEX_SEQ_WINDOW stands for sequence number n
 * while n is in [expected - span, expected). Advancing expected by one
 * reuses the bit of the number that just left the window.
 */

#include <string.h>

#include "ibex_seq.h"

static inline bool
seen_test(const struct ibex_seq *s, uint32_t n)
{
	uint32_t b = n % IBEX_SEQ_WINDOW;

	return (s->seen[b / 64] >> (b % 64)) & 1;
}

static inline void
seen_set(struct ibex_seq *s, uint32_t n)
{
	uint32_t b = n % IBEX_SEQ_WINDOW;

	s->seen[b / 64] |= UINT64_C(1) << (b % 64);
}

static inline void
seen_clear(struct ibex_seq *s, uint32_t n)
{
	uint32_t b = n % IBEX_SEQ_WINDOW;

	s->seen[b / 64] &= ~(UINT64_C(1) << (b % 64));
}

void
ibex_seq_init(struct ibex_seq *s, uint32_t first)
{
	memset(s, 0, sizeof(*s));
	s->expected = first;
}

void
ibex_seq_init_learn(struct ibex_seq *s)
{
	ibex_seq_init(s, 0);
	s->learn = true;
}

/* seq is gap numbers ahead of expected (gap >= 1): they are lost so far. */
static void
seq_ahead(struct ibex_seq *s, uint32_t seq, uint32_t gap)
{
	uint32_t n;

	IBEX_CNT_ADD(s->c.seq_too_high, 1);
	IBEX_CNT_ADD(s->c.lost, gap);
	/* The skipped numbers take over bits: mark them not seen. */
	if (gap >= IBEX_SEQ_WINDOW)
		memset(s->seen, 0, sizeof(s->seen));
	else
		for (n = s->expected; n != seq; n++)
			seen_clear(s, n);
	seen_set(s, seq);
	if (gap >= IBEX_SEQ_WINDOW - s->span)
		s->span = IBEX_SEQ_WINDOW;
	else
		s->span += gap + 1;
	s->expected = seq + 1;
}

/* seq is back numbers behind expected (back >= 1). */
static void
seq_behind(struct ibex_seq *s, uint32_t seq, uint32_t back)
{
	uint64_t lost = s->c.lost;

	IBEX_CNT_ADD(s->c.seq_too_low, 1);
	if (back <= s->span) {
		if (seen_test(s, seq)) {
			IBEX_CNT_ADD(s->c.duplicate, 1);
			return;
		}
		/* Counted lost when it was skipped: it was only late. */
		seen_set(s, seq);
		IBEX_CNT_ADD(s->c.out_of_order, 1);
		IBEX_CNT_SET(s->c.lost, lost - 1);
		return;
	}
	/* Beyond the window: late or duplicate cannot be told; assume late. */
	IBEX_CNT_ADD(s->c.stale, 1);
	IBEX_CNT_ADD(s->c.out_of_order, 1);
	if (lost > 0)
		IBEX_CNT_SET(s->c.lost, lost - 1);
}

void
ibex_seq_update_slow(struct ibex_seq *s, uint32_t seq)
{
	/* Serial-number arithmetic: the sign of the 32-bit difference. */
	int32_t diff = (int32_t)(seq - s->expected);

	if (diff > 0)
		seq_ahead(s, seq, (uint32_t)diff);
	else
		seq_behind(s, seq, s->expected - seq);
}

void
ibex_seq_read(const struct ibex_seq *s, struct ibex_seq_counters *out)
{
	out->rx = IBEX_CNT_READ(s->c.rx);
	out->lost = IBEX_CNT_READ(s->c.lost);
	out->out_of_order = IBEX_CNT_READ(s->c.out_of_order);
	out->duplicate = IBEX_CNT_READ(s->c.duplicate);
	out->seq_too_high = IBEX_CNT_READ(s->c.seq_too_high);
	out->seq_too_low = IBEX_CNT_READ(s->c.seq_too_low);
	out->stale = IBEX_CNT_READ(s->c.stale);
}

void
ibex_seq_counters_add(struct ibex_seq_counters *dst,
		      const struct ibex_seq_counters *src)
{
	dst->rx += src->rx;
	dst->lost += src->lost;
	dst->out_of_order += src->out_of_order;
	dst->duplicate += src->duplicate;
	dst->seq_too_high += src->seq_too_high;
	dst->seq_too_low += src->seq_too_low;
	dst->stale += src->stale;
}
