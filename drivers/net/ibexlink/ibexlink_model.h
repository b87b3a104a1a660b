/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEXLINK_MODEL_H
#define IBEXLINK_MODEL_H

/**
 * @file
 * The wire model of the ibexlink PMD, free of DPDK so it is unit-tested
 * without EAL.
 *
 * One direction of a link is a wire with a line rate, a propagation delay
 * and optional faults. A frame of L bytes (as DPDK counts them: without
 * FCS) occupies the wire for
 *
 *     (max(L, 60) + 4 FCS + 8 preamble/SFD + 12 inter-frame gap) x 8 / rate
 *
 * seconds: short frames are padded to the 64-byte minimum as a MAC does.
 * Serialisation starts when the frame is handed to the wire or when the
 * previous frame's IFG ends, whichever is later. Its last bit arrives at the
 * peer one propagation delay (plus jitter, if any) after it left; only then
 * is it visible at the peer's RX.
 *
 * Time is in picoseconds. Serialisation times are exact over any number of
 * frames: the remainder of bits x 1e12 / rate is carried to the next frame
 * (as a Bresenham line), so rounding never accumulates.
 *
 * Faults come from a seeded generator (splitmix64), so one seed and one
 * sequence of frames give the same losses, corruptions and jitter again.
 * Jitter never reorders frames and never brings two arrivals closer than the
 * second one's serialisation time (a receiver cannot take bits faster than
 * the line rate).
 */

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBEXLINK_PS_PER_S      UINT64_C(1000000000000)
/** Minimum frame without FCS; shorter frames are padded on the wire. */
#define IBEXLINK_MIN_FRAME     60
#define IBEXLINK_FCS           4
/** Preamble and start-of-frame delimiter. */
#define IBEXLINK_PREAMBLE      8
/** Minimum inter-frame gap. */
#define IBEXLINK_IFG           12
/** Bytes a frame costs on the wire beyond its DPDK length. */
#define IBEXLINK_OVERHEAD      (IBEXLINK_FCS + IBEXLINK_PREAMBLE + IBEXLINK_IFG)
/** Highest rate accepted: 1.6 Tb/s (keeps bits x 1e12 + rate in 64 bits). */
#define IBEXLINK_RATE_MAX      UINT64_C(1600000000000)
/** Longest delay or jitter accepted: 1 s. */
#define IBEXLINK_DELAY_MAX     IBEXLINK_PS_PER_S
/** Longest frame the model times (a jumbo frame with margin). */
#define IBEXLINK_FRAME_MAX     65535

/** Parameters of one direction. */
struct ibexlink_params {
	uint64_t rate_bps;    /**< line rate, bits per second */
	uint64_t delay_ps;    /**< propagation delay */
	uint64_t jitter_ps;   /**< extra delay, uniform in [0, jitter_ps] */
	uint64_t loss_thr;    /**< P(loss) x 2^64 (0: never, UINT64_MAX: ~always) */
	uint64_t corrupt_thr; /**< P(corruption) x 2^64 */
	uint64_t seed;        /**< fault generator seed */
};

/** Sender-side state of one direction. One writer at a time. */
struct ibexlink_wire {
	struct ibexlink_params p;
	uint64_t free_ps;         /**< the wire is idle from this time on */
	uint64_t rem;             /**< carried serialisation remainder, < rate */
	uint64_t last_arrival_ps; /**< last bit of the previous frame arrived */
	uint64_t rng;             /**< splitmix64 state */
};

/** What happens to one frame. */
enum ibexlink_fate {
	IBEXLINK_DELIVER = 0,
	IBEXLINK_LOST,     /**< corrupted beyond use: the receiving MAC drops it */
	IBEXLINK_CORRUPT,  /**< one bit flipped, delivered (FCS not checked) */
};

/** Timing and fate of one frame. */
struct ibexlink_tx {
	uint64_t start_ps;   /**< first bit (of the preamble) leaves */
	uint64_t end_ps;     /**< IFG after it ends: the wire is free again */
	uint64_t arrival_ps; /**< last bit arrives at the peer */
	uint32_t flip_bit;   /**< bit to flip when IBEXLINK_CORRUPT */
	uint8_t fate;        /**< enum ibexlink_fate */
};

/** Bytes frame of @p len occupies on the wire, padding and overhead included. */
static inline uint32_t
ibexlink_wire_bytes(uint32_t len)
{
	return (len < IBEXLINK_MIN_FRAME ? IBEXLINK_MIN_FRAME : len) +
	       IBEXLINK_OVERHEAD;
}

/** splitmix64: small, fast, and every seed (zero too) gives a full sequence. */
static inline uint64_t
ibexlink_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/**
 * Set up a direction. @p p must have been checked by ibexlink_params_check.
 */
void ibexlink_wire_init(struct ibexlink_wire *w,
			const struct ibexlink_params *p);

/** 0, or -EINVAL for a rate of 0 or above the maximum, or a delay too long. */
int ibexlink_params_check(const struct ibexlink_params *p);

/**
 * Serialisation time of @p bytes on the wire, with the remainder carried in
 * @p rem (pass the same variable for consecutive frames).
 */
static inline uint64_t
ibexlink_ser_ps(uint64_t rate_bps, uint32_t bytes, uint64_t *rem)
{
	uint64_t num = (uint64_t)bytes * 8 * IBEXLINK_PS_PER_S + *rem;

	*rem = num % rate_bps;
	return num / rate_bps;
}

/**
 * Put a frame of @p len bytes on the wire at time @p now_ps (or when the
 * wire frees, if later). Advances the wire and the fault generator.
 */
static inline void
ibexlink_wire_send(struct ibexlink_wire *w, uint64_t now_ps, uint32_t len,
		   struct ibexlink_tx *tx)
{
	uint64_t start = w->free_ps > now_ps ? w->free_ps : now_ps;
	uint64_t ser = ibexlink_ser_ps(w->p.rate_bps, ibexlink_wire_bytes(len),
				       &w->rem);
	/* The IFG is the last 12 of the wire bytes: the frame's last bit
	 * leaves 12 byte times before the wire is free. */
	uint64_t ifg = (uint64_t)IBEXLINK_IFG * 8 * IBEXLINK_PS_PER_S /
		       w->p.rate_bps;
	uint64_t arrival = start + ser - ifg + w->p.delay_ps;
	uint64_t r;

	if (w->p.jitter_ps != 0)
		arrival += ibexlink_rand(&w->rng) % (w->p.jitter_ps + 1);
	/* No reordering, and no two arrivals closer than the line allows. */
	if (arrival < w->last_arrival_ps + ser)
		arrival = w->last_arrival_ps + ser;
	tx->start_ps = start;
	tx->end_ps = start + ser;
	tx->arrival_ps = arrival;
	tx->fate = IBEXLINK_DELIVER;
	tx->flip_bit = 0;
	if (w->p.loss_thr != 0 && ibexlink_rand(&w->rng) < w->p.loss_thr) {
		tx->fate = IBEXLINK_LOST;
	} else if (w->p.corrupt_thr != 0) {
		r = ibexlink_rand(&w->rng);
		if (r < w->p.corrupt_thr) {
			tx->fate = IBEXLINK_CORRUPT;
			tx->flip_bit = len == 0 ? 0 : (uint32_t)
				(ibexlink_rand(&w->rng) % ((uint64_t)len * 8));
		}
	}
	w->free_ps = start + ser;
	w->last_arrival_ps = arrival;
}

/* ---- time: TSC cycles to picoseconds ---- */

/** Conversion from a cycle counter to picoseconds since a base. */
struct ibexlink_clock {
	uint64_t base;     /**< counter value at time 0 */
	uint64_t ps_mult;  /**< picoseconds per cycle, 32.32 fixed point */
	/** IBEXLINK_PS_PER_NS for a nanosecond counter (the virtual clock),
	 * else 0: then a conversion is a multiply by a constant, not the
	 * 128-bit arithmetic (a division) of a TSC's. */
	uint64_t ps_per_cycle;
};

#define IBEXLINK_PS_PER_NS 1000

/** @return 0, or -EINVAL when @p hz is 0 or below 1 kHz. */
int ibexlink_clock_init(struct ibexlink_clock *c, uint64_t hz, uint64_t base);

static inline uint64_t
ibexlink_clock_ps(const struct ibexlink_clock *c, uint64_t cycles)
{
	unsigned __int128 v;

	if (c->ps_per_cycle == IBEXLINK_PS_PER_NS)
		return (cycles - c->base) * IBEXLINK_PS_PER_NS;
	v = (unsigned __int128)(cycles - c->base) * c->ps_mult;
	return (uint64_t)(v >> 32);
}

/** ibexlink_clock_cycles() of a counter of any rate. */
uint64_t ibexlink_clock_cycles_any(const struct ibexlink_clock *c,
				   uint64_t ps);

/** Smallest counter value at or after @p ps (for waiting until a time). */
static inline uint64_t
ibexlink_clock_cycles(const struct ibexlink_clock *c, uint64_t ps)
{
	if (c->ps_per_cycle == IBEXLINK_PS_PER_NS)
		return c->base + (ps + IBEXLINK_PS_PER_NS - 1) /
				 IBEXLINK_PS_PER_NS;
	return ibexlink_clock_cycles_any(c, ps);
}

/* ---- 802.1Qbb pause obeyed by the sending MAC ---- */

#define IBEXLINK_PRIOS 8

/** Pause state of one sending MAC: paused until, per priority. */
struct ibexlink_pause {
	_Atomic uint64_t until_ps[IBEXLINK_PRIOS];
};

/** Pause time of @p quanta (512 bit times each) at @p rate_bps, rounded up. */
static inline uint64_t
ibexlink_quanta_ps(uint32_t quanta, uint64_t rate_bps)
{
	/* 65535 quanta x 512 x 1e12 does not fit in 64 bits. */
	unsigned __int128 num = (unsigned __int128)quanta * 512 *
				IBEXLINK_PS_PER_S;

	return (uint64_t)((num + rate_bps - 1) / rate_bps);
}

/**
 * A PFC frame whose last bit arrived at @p arrival_ps: for each priority
 * enabled in @p cev, pause for its quanta from then on (quanta 0 is XON:
 * resume now). A zero vector changes nothing. One writer (the receive
 * side); the sending side reads with ibexlink_pause_until.
 * @return the priorities changed.
 */
uint8_t ibexlink_pause_apply(struct ibexlink_pause *st, uint64_t arrival_ps,
			     uint8_t cev, const uint16_t quanta[IBEXLINK_PRIOS],
			     uint64_t rate_bps);

static inline uint64_t
ibexlink_pause_until(const struct ibexlink_pause *st, unsigned int prio)
{
	return atomic_load_explicit(&st->until_ps[prio], memory_order_acquire);
}

/** True if @p prio may start a frame at @p t_ps. */
static inline bool
ibexlink_pause_open(const struct ibexlink_pause *st, unsigned int prio,
		    uint64_t t_ps)
{
	return ibexlink_pause_until(st, prio) <= t_ps;
}

/* ---- the wire: a single-producer single-consumer ring ---- */

/** One frame in flight: what and when its last bit arrives. */
struct ibexlink_slot {
	void *obj;
	uint64_t arrival_ps;
};

/**
 * Frames in flight from one sender to one receiver, in arrival order.
 * The producer owns head, the consumer owns tail; each publishes its index
 * with release and reads the other's with acquire.
 *
 * Each side finds what it needs on its own cache line: its index, a copy
 * of the mask, and (the producer) the tail it saw last, so that a frame
 * put touches two lines (that one and its slot's), not four. Under the
 * virtual clock, where thousands of rings take turns on one core, the
 * lines a frame touches are what a hop costs.
 */
struct ibexlink_ring {
	alignas(64) _Atomic uint32_t head; /**< next slot to fill */
	uint32_t prod_mask;                /**< mask, for the producer */
	/** The producer's last look at tail: room up to it is certain
	 * (tail only grows), so tail is read again only when it runs out. */
	uint32_t tail_seen;
	alignas(64) _Atomic uint32_t tail; /**< next slot to take */
	uint32_t cons_mask;                /**< mask, for the consumer */
	alignas(64) uint32_t mask;
	struct ibexlink_slot slot[];
};

/** Bytes of a ring of @p cap slots (a power of two). */
static inline size_t
ibexlink_ring_size(uint32_t cap)
{
	return sizeof(struct ibexlink_ring) +
	       (size_t)cap * sizeof(struct ibexlink_slot);
}

/** Initialise zeroed memory of ibexlink_ring_size(@p cap). */
int ibexlink_ring_init(struct ibexlink_ring *r, uint32_t cap);

/** Free slots, as the producer sees them. */
static inline uint32_t
ibexlink_ring_free(struct ibexlink_ring *r)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

	return r->prod_mask + 1 - (head - tail);
}

/** Producer: append one frame; false when full. */
static inline bool
ibexlink_ring_put(struct ibexlink_ring *r, void *obj, uint64_t arrival_ps)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct ibexlink_slot *s;

	if (head - r->tail_seen > r->prod_mask) {
		r->tail_seen = atomic_load_explicit(&r->tail,
						    memory_order_acquire);
		if (head - r->tail_seen > r->prod_mask)
			return false;
	}
	s = &r->slot[head & r->prod_mask];
	s->obj = obj;
	s->arrival_ps = arrival_ps;
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return true;
}

/**
 * Consumer: take up to @p n frames that have arrived by @p now_ps.
 * @param arrivals  if not NULL, the frames' arrival times
 * @param next_ps   if not NULL, set to the arrival of the first frame left
 *                  in the ring (UINT64_MAX when empty)
 * @return frames taken.
 */
static inline unsigned int
ibexlink_ring_take(struct ibexlink_ring *r, uint64_t now_ps, void **objs,
		   uint64_t *arrivals, unsigned int n, uint64_t *next_ps)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	unsigned int k = 0;

	while (k < n && tail != head &&
	       r->slot[tail & r->cons_mask].arrival_ps <= now_ps) {
		if (arrivals != NULL)
			arrivals[k] = r->slot[tail & r->cons_mask].arrival_ps;
		objs[k++] = r->slot[tail & r->cons_mask].obj;
		tail++;
	}
	if (next_ps != NULL)
		*next_ps = tail != head ? r->slot[tail & r->cons_mask].arrival_ps :
					  UINT64_MAX;
	atomic_store_explicit(&r->tail, tail, memory_order_release);
	return k;
}

/** Frames in the ring (in flight or arrived and not taken). */
static inline uint32_t
ibexlink_ring_count(struct ibexlink_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) -
	       atomic_load_explicit(&r->tail, memory_order_acquire);
}

/**
 * The arrival of the first frame in the ring that arrives after @p now_ps
 * (UINT64_MAX: none): the ring's next event for a discrete-event
 * executive. Arrivals are in order, so a binary search finds it.
 */
static inline uint64_t
ibexlink_ring_next_after(struct ibexlink_ring *r, uint64_t now_ps)
{
	uint32_t lo = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint32_t hi = atomic_load_explicit(&r->head, memory_order_acquire);

	/* invariant: slots before lo arrive by now_ps, hi is past the end */
	while (lo != hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->slot[mid & r->cons_mask].arrival_ps <= now_ps)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo != atomic_load_explicit(&r->head, memory_order_relaxed) ?
	       r->slot[lo & r->cons_mask].arrival_ps : UINT64_MAX;
}

/** Consumer: take everything regardless of time (teardown). */
unsigned int ibexlink_ring_drain(struct ibexlink_ring *r, void **objs,
				 unsigned int n);

/* ---- devargs values ---- */

/** "100G", "25g", "1.5G", "25Gbps", "10000000" (bits/s, the syntax of
 * ibex_parse_rate(), up to IBEXLINK_RATE_MAX): 0 or -EINVAL. */
int ibexlink_parse_rate(const char *s, uint64_t *bps);
/** "500ns", "1.5us", "2ms", "0", "1s", "250ps": 0 or -EINVAL. */
int ibexlink_parse_time(const char *s, uint64_t *ps);
/** A fault seed: a plain decimal integer 0..2^64-1 (no sign, no hex).
 * @return 0 or -EINVAL. */
int ibexlink_parse_seed(const char *s, uint64_t *seed);
/** "0.001", "1e-4", "0.5%": probability to x 2^64, 0 or -EINVAL. */
int ibexlink_parse_prob(const char *s, uint64_t *thr);
/** Format a rate as "100G", "2.5G", "400M" into @p buf. */
char *ibexlink_format_rate(uint64_t bps, char *buf, size_t len);

#endif /* IBEXLINK_MODEL_H */
