/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_DP_HARNESS_H
#define IBEX_DP_HARNESS_H

/*
 * What the data path tests share: EAL without hugepages, ports made of two
 * rings (the test enqueues on RX and reads what ibex sent from TX), and
 * starting and stopping the workers around a run.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ring.h>

#include "ibex_common.h"
#include "ibex_dp.h"

struct ibex_conf;
struct ibex_pkt_spec;

/** rte_eal_init with --no-huge -m @p mem_mb --no-pci --lcores @p lcores and
 * a file prefix unique to this process. @return 0 or -1. */
int dp_harness_eal(const char *prog, const char *mem_mb, const char *lcores);

/**
 * Create rings "<tag>rx<i>" (@p rx_size) and "<tag>tx<i>" (@p tx_size), an
 * ethdev over them named "<tag><i>", and add it to @p c as port "r<i>".
 * @return 0 or -1.
 */
int dp_harness_ring_port(struct ibex_conf *c, const char *tag, unsigned int i,
			 unsigned int rx_size, unsigned int tx_size,
			 struct rte_ring **rx, struct rte_ring **tx);

/**
 * The same with @p nb_rxq RX rings "<tag>rx<i>_<q>" (in @p rx[0..]) and
 * one multi-producer TX ring behind all @p nb_txq TX queues (one per
 * worker): what the workers send arrives on one ring, as on a wire.
 * @return 0 or -1.
 */
int dp_harness_ring_port_mq(struct ibex_conf *c, const char *tag,
			    unsigned int i, unsigned int nb_rxq,
			    unsigned int nb_txq, unsigned int rx_size,
			    unsigned int tx_size, struct rte_ring **rx,
			    struct rte_ring **tx);

/**
 * What every dp test group starts with: EAL (dp_harness_eal), a pool
 * "test_pool" of @p nb_mbufs default-size mbufs, and @p base initialised
 * (origin "test") with @p nb_ports ring ports (dp_harness_ring_port).
 * @return the pool, or NULL.
 */
struct rte_mempool *dp_harness_group_start(const char *prog,
		const char *mem_mb, unsigned int nb_mbufs,
		struct ibex_conf *base, const char *tag, unsigned int nb_ports,
		unsigned int rx_size, unsigned int tx_size,
		struct rte_ring **rx, struct rte_ring **tx);

/** Free every mbuf left on the rings of @p n ports. */
void dp_harness_rings_flush(struct rte_ring **rx, struct rte_ring **tx,
			    unsigned int n);

/**
 * Apply config @p c live, as lib/ctl does: finish a copy (defaults and
 * validation, once), then ibex_dp_reconfigure(). @p c is left as it is.
 * @return 0, or -1 with the reason in @p err.
 */
int dp_harness_apply(struct ibex_dp *dp, const struct ibex_conf *c,
		     char *err, size_t errlen);

/** Launch the data path's workers on their lcores. */
void dp_harness_workers_start(struct ibex_dp *dp);

/** Ask them to stop and wait until they have. */
void dp_harness_workers_stop(struct ibex_dp *dp);

/*
 * The verbs of a dp test: send frames, expect frames, run until a counter
 * reaches N, and counter deltas. Every wait is for a condition, polled,
 * with a deadline; none is a fixed sleep.
 */

/** Seconds a wait may last before the test fails: several times the
 * slowest run seen on a loaded 2-CPU machine (docs/testing.md), so a
 * machine twice as slow and busy still passes. */
#define DP_HARNESS_WAIT_S 60

/** The TSC @p seconds from now. */
uint64_t dp_harness_deadline(double seconds);

/** Whether @p deadline (a TSC) has passed. */
bool dp_harness_expired(uint64_t deadline);

/* --- send --- */

/** A frame built by ibex_pkt_build() from @p s (s->frame_len bytes) in an
 * mbuf of @p pool. @return it, or NULL. */
struct rte_mbuf *dp_harness_frame(struct rte_mempool *pool,
				  const struct ibex_pkt_spec *s);

/**
 * Enqueue @p n frames on a port's RX ring @p rx, waiting for room until
 * the deadline of DP_HARNESS_WAIT_S. Frames not enqueued by then are
 * freed. @return the frames enqueued.
 */
unsigned int dp_harness_send(struct rte_ring *rx, struct rte_mbuf **m,
			     unsigned int n);

/** @p n copies of the frame @p s describes, built in @p pool and sent on
 * @p rx (dp_harness_send). @return the frames sent. */
unsigned int dp_harness_send_spec(struct rte_ring *rx,
				  struct rte_mempool *pool,
				  const struct ibex_pkt_spec *s,
				  unsigned int n);

/* --- expect --- */

/** Which frames a test waits for: true when @p m is one (@p arg is the
 * caller's). NULL matches every frame. */
typedef bool (*dp_harness_match_t)(const struct rte_mbuf *m,
				   const void *arg);

/** A match: the destination MAC is the 6 bytes at @p mac. */
bool dp_harness_match_dst(const struct rte_mbuf *m, const void *mac);

/**
 * Take frames from a port's TX ring @p tx until @p n of them match (or
 * the deadline of @p seconds passes). Matching frames go to @p out (the
 * caller frees them) when it is not NULL, else are freed; the others are
 * freed and counted in @p others (may be NULL).
 * @return the matching frames taken: @p n, or fewer at the deadline.
 */
unsigned int dp_harness_expect(struct rte_ring *tx, unsigned int n,
			       dp_harness_match_t match, const void *arg,
			       struct rte_mbuf **out, unsigned int *others,
			       double seconds);

/**
 * Take every frame on @p tx now (after a run: nothing more comes) and free
 * them. @return the matching ones; the others in @p others (may be NULL).
 */
unsigned int dp_harness_drain(struct rte_ring *tx, dp_harness_match_t match,
			      const void *arg, unsigned int *others);

/* --- run until a counter reaches N --- */

/** A counter or any other monotonic figure the test waits on. */
typedef uint64_t (*dp_harness_read_t)(const void *arg);

/**
 * Poll @p read until it returns at least @p n or @p seconds pass.
 * @return 0, or -ETIMEDOUT (the last value read is in @p last, may be
 * NULL).
 */
int dp_harness_until(dp_harness_read_t read, const void *arg, uint64_t n,
		     double seconds, uint64_t *last);

/** Port @p port's counter at byte offset @p off of struct
 * ibex_port_counters, summed over the workers. */
uint64_t dp_harness_port_cnt(const struct ibex_dp *dp, uint16_t port,
			     size_t off);

/** Lane (@p port, @p vl)'s counter at byte offset @p off of struct
 * ibex_lane_counters, summed over the workers. */
uint64_t dp_harness_lane_cnt(const struct ibex_dp *dp, uint16_t port,
			     unsigned int vl, size_t off);

/** Wait until port @p port's counter at @p off reaches @p n (at most
 * @p seconds). @return 0 or -ETIMEDOUT (the value then in @p last). */
int dp_harness_until_port(const struct ibex_dp *dp, uint16_t port,
			  size_t off, uint64_t n, double seconds,
			  uint64_t *last);

/** The same for a lane counter. */
int dp_harness_until_lane(const struct ibex_dp *dp, uint16_t port,
			  unsigned int vl, size_t off, uint64_t n,
			  double seconds, uint64_t *last);

/** Port counter @p field (e.g. rx_pkts, drop[IBEX_R_RUNT]) of @p port. */
#define DP_PORT_CNT(dp, port, field) \
	dp_harness_port_cnt((dp), (uint16_t)(port), \
			    offsetof(struct ibex_port_counters, field))
#define DP_LANE_CNT(dp, port, vl, field) \
	dp_harness_lane_cnt((dp), (uint16_t)(port), (vl), \
			    offsetof(struct ibex_lane_counters, field))
/** Wait until port counter @p field reaches @p n: 0 or -ETIMEDOUT. */
#define DP_UNTIL_PORT(dp, port, field, n, seconds) \
	dp_harness_until_port((dp), (uint16_t)(port), \
			      offsetof(struct ibex_port_counters, field), \
			      (n), (seconds), NULL)
#define DP_UNTIL_LANE(dp, port, vl, field, n, seconds) \
	dp_harness_until_lane((dp), (uint16_t)(port), (vl), \
			      offsetof(struct ibex_lane_counters, field), \
			      (n), (seconds), NULL)

/** Wait until ring @p r holds at least @p n entries (a port's TX ring:
 * frames sent and not yet taken). @return 0 or -ETIMEDOUT. */
int dp_harness_until_ring(const struct rte_ring *r, unsigned int n,
			  double seconds);

/** Wait until every worker has finished two more loop iterations: what
 * any of them had taken from RX by now has been handed to TX or queued.
 * @return 0 or -ETIMEDOUT (DP_HARNESS_WAIT_S). */
int dp_harness_quiesce(const struct ibex_dp *dp);

/* --- counter deltas --- */

/** Every port's and lane's counters at one moment. */
struct dp_harness_snap {
	const struct ibex_dp *dp;
	uint16_t nb_ports;
	struct ibex_port_counters port[IBEX_MAX_PORTS];
	struct ibex_lane_counters lane[IBEX_MAX_PORTS][IBEX_VL_COUNT];
};

/** Take @p s now. */
void dp_harness_snap(const struct ibex_dp *dp, struct dp_harness_snap *s);

/** What port @p port counted since @p s, in @p d. */
void dp_harness_port_delta(const struct dp_harness_snap *s, uint16_t port,
			   struct ibex_port_counters *d);

/** What lane (@p port, @p vl) counted since @p s, in @p d; its gauges
 * (qlen_*) are the backlog now, not a difference. */
void dp_harness_lane_delta(const struct dp_harness_snap *s, uint16_t port,
			   unsigned int vl, struct ibex_lane_counters *d);

/** @p d = @p now - @p then, counter by counter. */
void dp_harness_port_diff(const struct ibex_port_counters *now,
			  const struct ibex_port_counters *then,
			  struct ibex_port_counters *d);
void dp_harness_lane_diff(const struct ibex_lane_counters *now,
			  const struct ibex_lane_counters *then,
			  struct ibex_lane_counters *d);

/** The sum of every drop reason of @p c. */
uint64_t dp_harness_drops(const struct ibex_port_counters *c);

/** Print every nonzero drop reason of every port (for a failure). */
void dp_harness_drops_show(const struct ibex_dp *dp);

#endif /* IBEX_DP_HARNESS_H */
