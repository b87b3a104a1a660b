/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_PSYNC_H
#define IBEX_PSYNC_H

/**
 * @file
 * The conservative synchroniser of a simulation split over processes
 * (docs/simulation.md, "Beyond one machine"): barrier windows.
 *
 * Each process runs its events earlier than the window's end
 * (ibex_psync_window_end()). What it sends to another process during the
 * window (a frame that crosses a link between partitions) it posts
 * (ibex_psync_post()), stamped with the simulated time it arrives, which
 * the lookahead puts at or after the window's end. ibex_psync_window()
 * then closes the window: every process's posts are exchanged and handed
 * to the receiver in a fixed order (by sending process, then in the order
 * they were posted: a link's frames in the order its wire sent them), and
 * the processes agree on the next window: it begins at the earliest next
 * event of any process, and ends a lookahead later. A fabric with nothing
 * to do for a while jumps over it in one window.
 *
 * Pure: the processes are reached through a transport (its collective
 * operations: MPI's, threads' in the tests, or none for one process).
 * Time is a number passed in (the virtual clock's ns), never read here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A growing byte buffer: what a process sends to one other, or
 * received from it, in one window. */
struct ibex_psync_buf {
	uint8_t *data;
	size_t len, cap;
};

/**
 * The collective operations of the processes. Every process calls them in
 * the same order. @return 0, or a negative errno (the run cannot go on).
 * An exchange that fails on some processes only must still return on
 * every one (its own collectives completed or agreed on): the window's
 * agreement then tells the others.
 */
struct ibex_psync_transport {
	unsigned int rank;  /**< this process, 0..size-1 */
	unsigned int size;  /**< processes */
	/** Send out[i] to process i, for every i, and receive in[i] from
	 * each (in[i]'s buffer grown with ibex_psync_buf_reserve()). */
	int (*exchange)(void *ctx, const struct ibex_psync_buf *out,
			struct ibex_psync_buf *in);
	/** Replace v[0..n) with its element-wise minimum over processes. */
	int (*min_u64)(void *ctx, uint64_t *v, unsigned int n);
	void *ctx;
};

/** A record as it travels: this header, then len bytes, padded to 8. */
struct ibex_psync_rec {
	uint64_t arrival;   /**< simulated time the receiver sees it */
	uint32_t key;       /**< what it is for (a crossing link's end) */
	uint32_t len;       /**< payload bytes */
};

/** Most extra values a window agrees on (ibex_psync_window()). */
#define IBEX_PSYNC_MAX_EXTRA 15
/** Values every window's agreement reduces (min_u64's n), whatever the
 * caller's extra values: the next event, "no error", the failing
 * process, then the extra values (unused ones at UINT64_MAX), so that
 * ibex_psync_fail() and a window agree on the same shape. */
#define IBEX_PSYNC_AGREE_N (3 + IBEX_PSYNC_MAX_EXTRA)

struct ibex_psync {
	struct ibex_psync_transport t;
	uint64_t lookahead;
	uint64_t window_start, window_end;
	struct ibex_psync_buf *out, *in;   /**< [t.size] */
	/* counters */
	uint64_t windows;
	uint64_t posted, posted_bytes;     /**< records to other processes */
	uint64_t received, received_bytes;
	uint64_t early;    /**< posts that arrive before the window's end:
			       the lookahead was wrong, the run is not exact */
	unsigned int failed;  /**< after a window returned an error: the
				   lowest process that failed in it on its
				   own (UINT32_MAX: none said so) */
};

/**
 * Receive one record: its arrival time, key and payload (valid during
 * the call). @return 0, or a negative errno that ends the window.
 */
typedef int (*ibex_psync_deliver_fn)(void *arg, unsigned int from,
				     uint64_t arrival, uint32_t key,
				     const void *data, uint32_t len);

/**
 * Set up @p ps over @p t with @p lookahead (> 0, in the callers' time
 * unit). The first window is [0, lookahead).
 * @return 0, -EINVAL (no processes, rank out of range, no lookahead) or
 *   -ENOMEM.
 */
int ibex_psync_init(struct ibex_psync *ps,
		    const struct ibex_psync_transport *t, uint64_t lookahead);

void ibex_psync_fini(struct ibex_psync *ps);

/** Events earlier than this may run in the present window. */
static inline uint64_t
ibex_psync_window_end(const struct ibex_psync *ps)
{
	return ps->window_end;
}

/**
 * Post a record for process @p dest. One arriving before the window's
 * end is still sent, and counted in ps->early.
 * @return 0, -EINVAL (@p dest out of range, or this process) or -ENOMEM.
 */
int ibex_psync_post(struct ibex_psync *ps, unsigned int dest,
		    uint64_t arrival, uint32_t key, const void *data,
		    uint32_t len);

/**
 * Close the window: exchange the posts, deliver what came in (by sending
 * process, then in posting order) to @p fn, and agree on the next window.
 * @p next is this process's earliest event after the window, before the
 * records delivered (their arrivals count too); UINT64_MAX for none.
 * @p extra (n_extra values, at most IBEX_PSYNC_MAX_EXTRA) is replaced by
 * its minimum over the processes: a flag every process must agree on
 * (e.g. "done" as 1, so its minimum is 1 only if all are).
 * @return 0, or the first error of the exchange or of @p fn, or
 *   -ECANCELED when one failed on another process: every process
 *   returns an error from the same window, none waits, and every one
 *   has the lowest failing process in ps->failed. Afterwards
 *   the window is [earliest next event, that + lookahead), or empty at
 *   UINT64_MAX when no process has an event left.
 */
int ibex_psync_window(struct ibex_psync *ps, uint64_t next,
		      ibex_psync_deliver_fn fn, void *arg, uint64_t *extra,
		      unsigned int n_extra);

/**
 * End the run from this process: close the window with this process's
 * error @p err (a negative errno) instead of its events. The others'
 * ibex_psync_window() returns -ECANCELED with ps->failed naming this
 * process (or a lower one that failed in the same window).
 * @return @p err (-EINVAL if it was not negative), or the transport's.
 */
int ibex_psync_fail(struct ibex_psync *ps, int err);

/** Room for @p more bytes in @p b. @return 0 or -ENOMEM. */
int ibex_psync_buf_reserve(struct ibex_psync_buf *b, size_t more);

/** The transport of a single process: nothing to exchange. */
void ibex_psync_transport_self(struct ibex_psync_transport *t);

#endif /* IBEX_PSYNC_H */
