/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CAPTURE_H
#define IBEX_CAPTURE_H

/**
 * @file
 * Packet capture from inside the switch into a pcapng file (rte_pcapng),
 * for switches dpdk-dumpcap cannot attach to (--no-huge: no shared
 * hugepage memory for a secondary process). docs/control.md, "capture".
 *
 * Who does what:
 *  - the control thread starts a capture (opens the file, compiles the
 *    filter, makes a mempool and one single-producer ring per worker),
 *    publishes it with one atomic pointer, drains the rings on a
 *    millisecond timer while it runs (ibex_capture_poll()), and ends it:
 *    unpublished, then freed after every worker passed a quiescent state
 *    (the tables' rte_rcu_qsbr);
 *  - a worker reads the pointer once per iteration. NULL (no capture):
 *    one test per RX burst and per TX flush, nothing per frame. Capturing:
 *    the frames of a captured port (after the filter) are copied with
 *    rte_pcapng_copy() and put on the worker's ring; a copy that finds no
 *    mbuf or no room on the ring is counted as a capture drop, never
 *    waited for.
 * One capture at a time.
 */

#include <stdbool.h>
#include <stdint.h>

struct ibex_dp;
struct rte_mbuf;

/** Directions of a capture (bits). */
#define IBEX_CAPTURE_RX 1u
#define IBEX_CAPTURE_TX 2u

/** What to capture: ibex_capture_start(). */
struct ibex_capture_params {
	uint16_t port;           /**< ibex port index */
	unsigned int dir;        /**< IBEX_CAPTURE_RX | IBEX_CAPTURE_TX */
	uint64_t count;          /**< frames to write, 0: until stopped */
	uint32_t snaplen;        /**< bytes kept per frame, 0: the port's
				      longest frame */
	const char *path;        /**< absolute path the switch writes */
	const char *filter;      /**< pcap filter expression, NULL/"": all */
};

/** Longest snapshot length (a copy must fit one mbuf's 16-bit room). */
#define IBEX_CAPTURE_SNAPLEN_MAX 65000u

/** States of the capture the view shows. */
enum ibex_capture_state {
	IBEX_CAPTURE_NONE,       /**< none since start */
	IBEX_CAPTURE_RUNNING,
	IBEX_CAPTURE_STOPPING,   /**< unpublished, waiting for the workers */
	IBEX_CAPTURE_DONE,       /**< file closed */
};

/** The running capture, or the last one, as the control plane shows it. */
struct ibex_capture_view {
	enum ibex_capture_state state;
	uint32_t id;             /**< 1, 2, ... per capture started */
	uint16_t port;
	unsigned int dir;
	uint64_t count;
	uint32_t snaplen;
	char path[256];
	char filter[256];
	char end[96];            /**< why it ended ("count reached", ...) */
	uint64_t copied;         /**< frames the workers copied */
	uint64_t written;        /**< frames written to the file */
	uint64_t bytes;          /**< bytes written to the file */
	uint64_t dropped;        /**< frames not captured: no mbuf or no room
				      on a ring */
	uint64_t filtered;       /**< frames the filter left out */
	uint64_t past_count;     /**< copied after COUNT was reached */
	uint64_t started_ns;     /**< CLOCK_REALTIME */
	uint64_t duration_ns;    /**< so far, or until it ended */
	int error;               /**< 0 or -errno of a failed write */
};

/**
 * Start a capture (control thread). Refused while one runs (-EBUSY), for
 * an unknown port (-ENOENT), a relative or unwritable path, a filter
 * pcap_compile() refuses (-EINVAL), with a message in @p err; the switch
 * forwards on either way. @return 0 or -errno.
 */
int ibex_capture_start(struct ibex_dp *dp, const struct ibex_capture_params *p,
		       char *err, size_t errlen);

/** Ask the running capture to end, recording @p why. @return 0, or
 * -ENOENT when none runs. */
int ibex_capture_stop(struct ibex_dp *dp, const char *why);

/**
 * Control-loop tick while a capture runs: write what the rings hold,
 * end the capture at COUNT, finish one that is stopping once no worker
 * can touch it. @return true while a capture runs or stops (call again in
 * IBEX_CAPTURE_POLL_MS).
 */
bool ibex_capture_poll(struct ibex_dp *dp);

/** How often the control thread drains the rings while capturing: a
 * worker's ring holds what it copies in this long at ~400 kframes/s. */
#define IBEX_CAPTURE_POLL_MS 10

/** A capture runs or is stopping. */
bool ibex_capture_active(const struct ibex_dp *dp);

/** Read the running or last capture (control thread: it sums the
 * workers' counters now). */
void ibex_capture_view(const struct ibex_dp *dp, struct ibex_capture_view *v);

/**
 * Read the running or last capture from any thread (telemetry): the view
 * the control thread published last, at every ring drain while a capture
 * runs (IBEX_CAPTURE_POLL_MS), at its start, stop and end; so its counters
 * are at most one drain old. Copied under dp->cap_lock, which the control
 * thread takes only to publish, never per frame.
 */
void ibex_capture_view_shared(const struct ibex_dp *dp,
			      struct ibex_capture_view *v);

/** End a capture for good (workers stopped): ibex_dp_destroy(). */
void ibex_capture_shutdown(struct ibex_dp *dp);

/* ---- the worker's half (lib/dp only) ---- */

struct ibex_capture;

/**
 * Copy the frames of a burst of @p port (ibex index, ethdev queue
 * @p queue) seen at @p tsc in direction @p dir (one IBEX_CAPTURE_ bit),
 * those the capture takes, into worker @p wi's scratch; then
 * ibex_capture_commit() puts the copies of the first @p sent frames on
 * its ring (RX: all of them; TX: those the PMD took, so a frame TX
 * refused is captured once, when it leaves) and frees the others.
 */
void ibex_capture_copy(struct ibex_capture *cap, uint16_t wi, uint16_t port,
		       uint16_t queue, struct rte_mbuf *const *pkts,
		       uint16_t n, unsigned int dir, uint64_t tsc);
void ibex_capture_commit(struct ibex_capture *cap, uint16_t wi, uint16_t sent);

/** The port's direction is captured (workers: cap != NULL). */
bool ibex_capture_takes(const struct ibex_capture *cap, uint16_t port,
			unsigned int dir);

#endif /* IBEX_CAPTURE_H */
