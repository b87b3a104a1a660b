/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_VLQ_H
#define IBEX_VLQ_H

/**
 * @file
 * One (egress port, VL) queue: a FIFO of frames waiting for the VL arbiter,
 * bounded in 64-byte blocks (the unit of credits and buffer accounting), not
 * in frames, so a lane holds the same bytes whatever its frame sizes.
 *
 * Pure: entries are opaque pointers with the frame's length and RX time;
 * the data path stores mbufs. One writer (the worker owning the queue);
 * the depth gauges may be read by another thread with relaxed loads.
 *
 * The ring has a power-of-two number of slots, at least the block bound:
 * a frame costs at least one block, so the block bound is reached before
 * the slots run out.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ibex_common.h"
#include "ibex_counter.h"

/** A waiting frame. */
struct ibex_vlq_ent {
	void *frame;
	uint64_t rx_tsc;   /**< when it was received (residence time) */
	uint32_t len;      /**< bytes */
	uint16_t src;      /**< caller's (e.g. where the blocks are charged) */
	uint8_t meta;      /**< caller's (e.g. the frame's ECN codepoint) */
};

/** A lane queue. Initialise with ibex_vlq_init(). */
struct ibex_vlq {
	uint32_t head;         /**< next to dequeue (free-running) */
	uint32_t tail;         /**< next free slot (free-running) */
	uint32_t mask;         /**< slots - 1 */
	uint32_t max_blocks;   /**< bound; 0 = none but the slots */
	uint64_t blocks;       /**< blocks queued (gauge) */
	uint64_t bytes;        /**< bytes queued (gauge) */
	struct ibex_vlq_ent *ent;
};

/** Slots needed for a bound of @p max_blocks: the next power of two. */
static inline uint32_t
ibex_vlq_slots(uint32_t max_blocks)
{
	uint32_t n = 1;

	while (n < max_blocks)
		n <<= 1;
	return n;
}

/**
 * Attach @p ent (ibex_vlq_slots(max_blocks) entries, caller-owned) and
 * empty the queue.
 */
static inline void
ibex_vlq_init(struct ibex_vlq *q, struct ibex_vlq_ent *ent, uint32_t slots,
	      uint32_t max_blocks)
{
	q->head = q->tail = 0;
	q->mask = slots - 1;
	q->max_blocks = max_blocks;
	q->blocks = q->bytes = 0;
	q->ent = ent;
}

/** Frames waiting. */
static inline uint32_t
ibex_vlq_count(const struct ibex_vlq *q)
{
	return q->tail - q->head;
}

static inline bool
ibex_vlq_empty(const struct ibex_vlq *q)
{
	return q->tail == q->head;
}

/** Would a frame of @p len bytes fit? */
static inline bool
ibex_vlq_fits(const struct ibex_vlq *q, uint32_t len)
{
	return ibex_vlq_count(q) <= q->mask &&
	       (q->max_blocks == 0 ||
		q->blocks + ibex_blocks(len) <= q->max_blocks);
}

/* Append without checking; the caller did. */
static inline void
ibex_vlq_put(struct ibex_vlq *q, void *frame, uint32_t len, uint64_t rx_tsc,
	     uint8_t meta, uint16_t src)
{
	struct ibex_vlq_ent *e = &q->ent[q->tail & q->mask];

	e->frame = frame;
	e->rx_tsc = rx_tsc;
	e->len = len;
	e->meta = meta;
	e->src = src;
	IBEX_CNT_ADD(q->tail, 1);
	IBEX_CNT_ADD(q->blocks, ibex_blocks(len));
	IBEX_CNT_ADD(q->bytes, len);
}

/**
 * Append a frame whose room was already granted elsewhere (a lossless
 * frame admitted by the buffer): only the slots bound it.
 * @return false when the slots are full.
 */
static inline bool
ibex_vlq_push_admitted(struct ibex_vlq *q, void *frame, uint32_t len,
		       uint64_t rx_tsc, uint8_t meta, uint16_t src)
{
	if (ibex_vlq_count(q) > q->mask)
		return false;
	ibex_vlq_put(q, frame, len, rx_tsc, meta, src);
	return true;
}

/**
 * Append a frame. @return false (nothing changes) when it does not fit:
 * the caller decides whether that is a tail drop or a violation.
 */
static inline bool
ibex_vlq_push(struct ibex_vlq *q, void *frame, uint32_t len, uint64_t rx_tsc,
	      uint8_t meta, uint16_t src)
{
	if (!ibex_vlq_fits(q, len))
		return false;
	ibex_vlq_put(q, frame, len, rx_tsc, meta, src);
	return true;
}

/** The oldest frame; the queue must not be empty. */
static inline const struct ibex_vlq_ent *
ibex_vlq_head(const struct ibex_vlq *q)
{
	return &q->ent[q->head & q->mask];
}

/** Remove the oldest frame into @p out; the queue must not be empty. */
static inline void
ibex_vlq_pop(struct ibex_vlq *q, struct ibex_vlq_ent *out)
{
	*out = q->ent[q->head & q->mask];
	IBEX_CNT_ADD(q->head, 1);
	IBEX_CNT_SUB(q->blocks, ibex_blocks(out->len));
	IBEX_CNT_SUB(q->bytes, out->len);
}

#endif /* IBEX_VLQ_H */
