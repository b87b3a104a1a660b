/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's lcore: every rank of every port in one loop.
 *
 * One iteration of the loop: RX a burst from each port (probe frames feed
 * the measurement and the collective's dependencies, PFC, credit and CBFC
 * frames the senders' flow-control state), then per port TX what the
 * engine has for its ranks, as far as flow control, the DCQCN rate and
 * the pacer allow, in one burst; what the port does not take stays queued
 * and goes first next time (the generator never drops its own frames).
 * Housekeeping (credit and CBFC frames, DCQCN timers) runs every HK_NS
 * nanoseconds.
 * Per frame there is no lock, syscall, allocation (mbufs come in bulk from
 * the pool) or log.
 */

#include <errno.h>
#include <inttypes.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_cbfc.h"
#include "ibex_credit.h"
#include "ibex_fcframe.h"
#include "ibex_gen_coll.h"
#include "ibex_gen_dcqcn.h"
#include "ibex_gen_inflight.h"
#include "ibex_gen_engine.h"
#include "ibex_gen_frame.h"
#include "ibex_gen_inc.h"
#include "ibex_gen_meas.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_pace.h"
#include "ibex_gen_report.h"
#include "ibex_gen_run.h"
#include "ibex_gen_search.h"
#include "ibex_gen_slots.h"
#include "ibex_pfc.h"
#include "ibex_unmap_guard.h"

RTE_LOG_REGISTER(ibex_gen_logtype, ibex.gen, INFO);
#define GEN_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, ibex_gen_logtype, "ibex.gen: " __VA_ARGS__)

#define BURST 32
#define PEND_MAX (2 * BURST)
/* Housekeeping period. A credit peer's window lasts ~150 us at full rate
 * (2048 blocks of 128-byte frames at 6.7 Mpps): credit frames every few
 * dozen loops (tens of microseconds) would starve it, every loop would
 * cost the sender its rate. */
#define HK_NS 1000
#define RX_DESC 4096
#define TX_DESC 4096
/* The pool covers every port's queues up to 14 ports; beyond (a fabric's
 * ranks, one port each) frames in flight are bounded by the switches'
 * buffers, not by the ports' rings. */
#define POOL_MAX (16383u + 14u * (RX_DESC + TX_DESC))
/* Credit frames: on change at most every 1 us, at least every 20 us. */
#define CREDIT_MIN_NS 1000
#define CREDIT_PERIOD_NS 20000
/* After the last iteration, listen this long for stragglers of traffic. */
#define DRAIN_MS 5
/* After a trial: listen until every frame sent has arrived, or the ports
 * were quiet this long (every queue in the device under test has emptied),
 * at most DRAIN_MAX_MS. A switch on a shared host is descheduled for tens
 * of ms with frames queued (10 ms cut off 2,104 frames of a lossy incast
 * beside a CPU hog, counted as lost): 50 ms. */
#define DRAIN_QUIET_MS 50
#define DRAIN_MAX_MS 500
/* The same with flow control: a lossless device under test still holds
 * what has not arrived, and on a shared host its lcore may be descheduled
 * for tens of milliseconds with frames queued (measured: up to ~70 ms). */
#define DRAIN_QUIET_FC_MS 200
#define DRAIN_MAX_FC_MS 2000

/* Frames a port's retransmission queue holds (NACKs of trimmed frames
 * not yet answered). */
#define RETX_MAX 1024
/* Frames a port may have in flight with --rto (its window): 16384 of
 * 1 KiB are 16 MiB, more than any path here holds. */
#define INFLIGHT_SLOTS 16384u
/* The timeout scan, per port and poll: frames it looks at, and most it
 * queues. */
#define RTO_SCAN_BUDGET 64
#define RTO_SCAN_MAX 32

/* A frame to send again: its trimmed original came back as a NACK, or
 * (--rto) it timed out. */
struct retx_ent {
	uint32_t sf;             /**< sub-flow (flow and QP) */
	uint32_t seq, psn, tag, len;
	uint8_t opcode;
	uint8_t flags;           /**< IBEX_GEN_HEAD_RETX or _RTO */
	uint16_t slot;           /**< in the port's in-flight record (--rto) */
	uint16_t src, dst;
	uint64_t tsc;            /**< the original's send time */
	uint64_t nack_tsc;       /**< when the NACK came in, or it timed out */
};

struct gen_port {
	uint16_t pid;
	uint8_t mac[6];
	uint32_t mbps;           /**< its speed: PFC quanta, DCQCN line rate */
	uint8_t prio_mask;       /**< PFC priorities of the frames it sends */
	uint16_t nranks;
	uint16_t next_rank;      /**< round-robin start among its ranks */
	uint16_t *rank;          /**< [nranks], in ibex_gen_run's port_rank */
	uint16_t npend;
	struct rte_mbuf *pend[PEND_MAX];
	struct ibex_pfc_rx pfc;
	struct ibex_pfc_rx_params pfc_par;
	struct ibex_pfc_rx_stats pfc_st;
	struct ibex_credit_port credit;
	struct ibex_credit_params credit_par;
	struct ibex_credit_stats credit_st;
	/* --fc cbfc: both directions of the port, as a NIC's */
	struct ibex_cbfc_port cbfc;
	bool cbfc_link_up;       /**< the link at the last look */
	bool cbfc_link_seen;     /**< a look told */
	uint64_t cbfc_link_ns;   /**< the next look */
	uint64_t tx_full;
	uint16_t nrf;            /**< open-loop flows sent from this port */
	uint16_t next_rf;
	uint16_t rfi[IBEX_GEN_MAX_RFLOWS];
	/* retransmissions of its ranks' trimmed frames, FIFO */
	uint16_t retx_head, retx_n;
	struct retx_ent retx[RETX_MAX];
	/* --rto: the frames its ranks sent that have not arrived yet */
	struct ibex_inflight infl;
	struct ibex_inflight_ent *infl_ent;
};

/* An open-loop flow (rate engine) while it runs. */
struct rflow_st {
	uint16_t src;
	uint16_t dst;
	uint32_t f;              /**< slot of its rank pair */
	double weight;           /**< share of a search trial's total rate */
	bool paced;
	uint64_t left;           /**< frames still to send this trial */
	struct ibex_pacer pacer;
};

/*
 * How the loop drives an engine (the model is DPDK testpmd's struct
 * fwd_engine): a collective (closed loop, every rank waiting for its
 * input) or the open-loop rate engine. Chosen once, at create; called per
 * poll and per port burst, never per frame.
 */
struct gen_driver {
	/* checks and state of the engine, at create */
	int (*setup)(struct ibex_gen_run *r, char *err, size_t errlen);
	/* RX a burst from every port; @return frames received */
	unsigned int (*rx)(struct ibex_gen_run *r, uint64_t now);
	/* build and send one burst on a port */
	void (*tx)(struct ibex_gen_run *r, struct gen_port *p, uint64_t now,
		   uint64_t now_ns);
	/* the whole scenario (sweep, trial or searches) */
	void (*run)(struct ibex_gen_run *r);
};

struct ibex_gen_run {
	struct ibex_gen_opts opts;
	const struct gen_driver *drv;
	/* a collective's size and iteration in progress
	 * (ibex_gen_run_progress()) */
	unsigned int coll_si;
	uint32_t coll_it;
	/* A received chained frame, made contiguous to be checked (switches
	 * and PMDs deliver jumbo frames as chains of segments). */
	uint8_t rx_lin[16384];
	uint64_t hz;
	uint64_t tsc0;
	double ns_per_tick;
	uint64_t cnp_gap;
	unsigned int nports;
	unsigned int nstarted;
	/* Allocated at create for the run's ports and ranks. */
	struct gen_port *port;           /**< [nports] */
	struct ibex_gen_rank *rank;      /**< [nranks] */
	uint16_t *port_rank;             /**< [nranks]: each port's ranks in
					      turn (gen_port.rank) */
	/* The (source, destination) pairs the run uses, one slot each: the
	 * per-flow tables below are [npairs], the measurement's per-QP
	 * ones [qps x npairs] (ibex_gen_subflow()). */
	struct ibex_gen_slots sl;
	uint16_t *slot_src;              /**< [npairs]: a slot's source */
	uint32_t *tx_slot;               /**< [nranks]: slot of the rank's
					      last destination (tx_dst) */
	uint16_t *tx_dst;                /**< [nranks] */
	struct ibex_gen_tmpl *tmpl;      /**< [npairs] */
	uint32_t payload_max;
	struct ibex_gen_meas *meas;
	struct ibex_hist *lat_size;      /**< per message size (sweeps) */
	struct ibex_gen_report rep;
	struct ibex_coll *coll;
	/* --engine inc: its ranks (lib/gen/ibex_gen_inc.h), and the
	 * elements of the contribution being built */
	struct ibex_inc *inc;
	uint8_t inc_elems[4 * IBEX_AGG_MAX_ELEMS];
	bool measuring;
	/* senders */
	struct rflow_st rf[IBEX_GEN_MAX_RFLOWS];
	unsigned int nrf;
	int16_t *rf_of;          /**< [npairs]: slot -> rf index, -1 */
	uint8_t *next_qp;        /**< [npairs]: slot -> its next QP */
	/* classes (--flow S:D@C): per slot the PFC priority and credit VL
	 * of its frames, per PCP the credit VL frames arrive on */
	uint8_t *flow_prio;      /**< [npairs] */
	uint8_t *flow_vl;        /**< [npairs] */
	uint8_t class_vl[16];    /**< by a received frame's PCP, or DSCP
				      (--class-by) */
	unsigned int nvls;       /**< credit VLs: the highest used + 1 */
	uint32_t trial;          /**< open loop: current trial, in the tag */
	uint32_t frame_len;      /**< open loop: frame bytes without FCS */
	uint32_t full_min;       /**< smallest frame with the full trailer */
	uint32_t head_min;       /**< smallest one with the head probe too */
	struct ibex_dcqcn *dcq;          /**< [nranks] */
	double *tick_per_byte;           /**< [nranks] */
	uint64_t *rank_next;             /**< [nranks] */
	uint64_t hk_last;        /**< tick of the previous housekeeping */
	uint64_t hk_ticks;       /**< HK_NS in TSC ticks */
	uint64_t stall_ticks;    /**< IBEX_GEN_STALL_US in TSC ticks */
	struct rte_mempool *pool;
	bool rto;                /**< --rto: loss recovery by timeout */
	_Atomic bool stop;
	const _Atomic bool *watch;
	bool finished;
	bool said_fail;          /**< the first failed iteration was said */
	/* a receive that would find nothing, skipped (virtual clock) */
	ibex_gen_rx_idle_fn rx_idle;
	void *rx_idle_arg;
	/* Sparse turns (virtual clock, a collective): a bit per port to
	 * visit; the executive sets a port's at each of its events
	 * (ibex_gen_run_port_wake()), a visit clears it when the port has
	 * nothing left to do without one (port_has_work()). NULL: a turn
	 * visits every port. */
	uint64_t *awake;
	unsigned int awake_words;
	/* The run's lcore reports a quiescent state between bursts, so a
	 * memif peer's disconnect waits before it unmaps the rings
	 * (ibex_unmap_guard.h). */
	struct rte_rcu_qsbr *qsbr;
};

static const struct gen_driver coll_driver, rate_driver, inc_driver;

static atomic_uint pool_seq;

static inline bool
should_stop(const struct ibex_gen_run *r)
{
	return atomic_load_explicit(&r->stop, memory_order_relaxed) ||
	       (r->watch != NULL &&
		atomic_load_explicit(r->watch, memory_order_relaxed));
}

static inline uint64_t
tick_ns(const struct ibex_gen_run *r, uint64_t now)
{
	return (uint64_t)((double)(now - r->tsc0) * r->ns_per_tick);
}

/* Credits (ibex's or CBFC's): the peer's arrive as frames, and ours go
 * out from housekeeping, on every port, on a timer. */
static inline bool
fc_credits(const struct ibex_gen_run *r)
{
	return r->opts.fc == IBEX_GEN_FC_CREDIT ||
	       r->opts.fc == IBEX_GEN_FC_CBFC;
}

/* ---- sparse turns (struct ibex_gen_run's awake) ---- */

static inline void
port_wake(struct ibex_gen_run *r, unsigned int pi)
{
	if (r->awake != NULL && pi < r->nports)
		r->awake[pi / 64] |= UINT64_C(1) << (pi % 64);
}

static void
wake_all(struct ibex_gen_run *r)
{
	unsigned int pi;

	for (pi = 0; pi < r->nports; pi++)
		port_wake(r, pi);
}

/* The first port from @p pi on that a turn visits; r->nports: none. */
static inline unsigned int
visit_next(const struct ibex_gen_run *r, unsigned int pi)
{
	unsigned int w;
	uint64_t b;

	if (r->awake == NULL || pi >= r->nports)
		return pi;
	w = pi / 64;
	b = r->awake[w] & (~UINT64_C(0) << (pi % 64));
	while (b == 0) {
		if (++w >= r->awake_words)
			return r->nports;
		b = r->awake[w];
	}
	return w * 64 + (unsigned int)__builtin_ctzll(b);
}

/* Every port a turn visits, in order. */
#define FOREACH_VISIT(r, pi) \
	for ((pi) = visit_next((r), 0); (pi) < (r)->nports; \
	     (pi) = visit_next((r), (pi) + 1))

void
ibex_gen_run_stop(struct ibex_gen_run *r)
{
	atomic_store_explicit(&r->stop, true, memory_order_relaxed);
}

void
ibex_gen_run_watch(struct ibex_gen_run *r, const _Atomic bool *flag)
{
	r->watch = flag;
}

const struct ibex_gen_meas *
ibex_gen_run_meas(const struct ibex_gen_run *r)
{
	return r->meas;
}

const struct ibex_gen_report *
ibex_gen_run_rep(const struct ibex_gen_run *r)
{
	return &r->rep;
}

void
ibex_gen_run_set_rx_idle(struct ibex_gen_run *r, ibex_gen_rx_idle_fn fn,
			 void *arg)
{
	r->rx_idle = fn;
	r->rx_idle_arg = arg;
	/* a collective without credits has no per-port timer but the
	 * ones port_has_work() keeps awake for; credits are granted by
	 * housekeeping on every port */
	if (fn == NULL || r->drv != &coll_driver || fc_credits(r))
		return;
	r->awake_words = (r->nports + 63) / 64;
	r->awake = calloc(r->awake_words, sizeof(*r->awake));
	if (r->awake != NULL)
		wake_all(r);
}

void
ibex_gen_run_port_wake(struct ibex_gen_run *r, unsigned int pi)
{
	port_wake(r, pi);
}

int32_t
ibex_gen_run_subflow(const struct ibex_gen_run *r, unsigned int src,
		     unsigned int dst)
{
	return ibex_gen_slot(&r->sl, src, dst);
}

/* ---- setup ---- */

/* --fc cbfc: the port's CBFC, both directions (ibex_gen_cbfc_conf(), which
 * ibex_gen_opts_check() has passed). */
static int
cbfc_setup(struct ibex_gen_run *r, struct gen_port *p, char *err,
	   size_t errlen)
{
	struct ibex_cbfc_conf c;
	char why[200];

	if (ibex_gen_cbfc_conf(&r->opts, &c, why, sizeof(why)) < 0 ||
	    ibex_cbfc_port_init(&p->cbfc, &c,
				tick_ns(r, ibex_clock_now())) < 0) {
		snprintf(err, errlen, "generator port %u: --fc cbfc: %s",
			 p->pid, why);
		return -EINVAL;
	}
	return 0;
}

static int
port_setup(struct ibex_gen_run *r, struct gen_port *p, char *err, size_t errlen)
{
	struct rte_eth_conf econf;
	struct rte_ether_addr ea;
	struct rte_eth_link link;
	uint16_t nb_rxd = RX_DESC, nb_txd = TX_DESC;
	int socket = ibex_pdev_socket_id(p->pid), ret;
	uint64_t mbps = r->opts.link_mbps;

	if (socket < 0)
		socket = (int)rte_socket_id();
	memset(&econf, 0, sizeof(econf));
	ret = ibex_pdev_configure(p->pid, 1, 1, &econf);
	if (ret < 0)
		goto fail;
	ret = ibex_pdev_adjust_nb_rx_tx_desc(p->pid, &nb_rxd, &nb_txd);
	if (ret < 0)
		goto fail;
	ret = ibex_pdev_rx_queue_setup(p->pid, 0, nb_rxd, socket, NULL, r->pool);
	if (ret < 0)
		goto fail;
	ret = ibex_pdev_tx_queue_setup(p->pid, 0, nb_txd, socket, NULL);
	if (ret < 0)
		goto fail;
	ret = ibex_pdev_start(p->pid);
	if (ret < 0)
		goto fail;
	r->nstarted++;
	/* The ranks' MACs are not the port's: receive everything. */
	ret = ibex_pdev_promiscuous_enable(p->pid);
	if (ret < 0 && ret != -ENOTSUP)
		goto fail;
	if (ibex_pdev_macaddr_get(p->pid, &ea) == 0)
		memcpy(p->mac, ea.addr_bytes, 6);
	if (ibex_pdev_link_get_nowait(p->pid, &link) == 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN &&
	    r->opts.link_mbps == 100000)
		mbps = link.link_speed;
	p->mbps = (uint32_t)mbps;
	ret = ibex_pfc_rx_params_set(&p->pfc_par, mbps, IBEX_PFC_WD_OFF, 0, 0);
	if (ret < 0)
		goto fail;
	ibex_pfc_rx_init(&p->pfc);
	ret = ibex_credit_params_set(&p->credit_par, CREDIT_MIN_NS,
				     CREDIT_PERIOD_NS);
	if (ret == 0)
		ret = ibex_credit_port_init(&p->credit, r->nvls);
	if (ret < 0)
		goto fail;
	if (r->opts.fc == IBEX_GEN_FC_CBFC)
		return cbfc_setup(r, p, err, errlen);
	return 0;
fail:
	snprintf(err, errlen, "generator port %u: setup failed: %s", p->pid,
		 rte_strerror(-ret));
	return ret;
}

/* The open-loop flows: --flow, or rank r -> r + 1 for every rank. */
static void
rflows_setup(struct ibex_gen_run *r)
{
	const struct ibex_gen_opts *o = &r->opts;
	double sum = 0;
	bool all_given = o->nrflows > 0;
	unsigned int i;

	memset(r->rf_of, 0xff, sizeof(*r->rf_of) * r->sl.npairs);
	r->nrf = o->nrflows > 0 ? o->nrflows : o->nranks;
	for (i = 0; i < r->nrf; i++) {
		struct rflow_st *fl = &r->rf[i];

		if (o->nrflows > 0) {
			fl->src = o->rflow[i].src;
			fl->dst = o->rflow[i].dst;
			sum += o->rflow[i].pps;
			if (!(o->rflow[i].pps > 0))
				all_given = false;
		} else {
			fl->src = (uint16_t)i;
			fl->dst = (uint16_t)((i + 1) % o->nranks);
		}
		/* every open-loop flow's pair has a slot (run_slots()) */
		fl->f = (uint32_t)ibex_gen_slot(&r->sl, fl->src, fl->dst);
		r->rf_of[fl->f] = (int16_t)i;
		r->rep.rflow[i].src = fl->src;
		r->rep.rflow[i].dst = fl->dst;
	}
	r->rep.nrflows = (uint16_t)r->nrf;
	/* a search scales the flows' given rates together, else equal shares */
	for (i = 0; i < r->nrf; i++)
		r->rf[i].weight = all_given ? o->rflow[i].pps / sum :
				  1.0 / r->nrf;
}

/*
 * Classes: a --flow S:D@C flow's frames carry PCP C (or DSCP C with
 * --class-by dscp), obey PFC priority C and take credit VL C (the switch
 * is to map PCP or DSCP C to VL C); the others the run's --pcp, --dscp,
 * --prio and --vl. A received frame's credit blocks go to the VL of its
 * PCP, or DSCP.
 */
static int
classes_setup(struct ibex_gen_run *r, char *err, size_t errlen)
{
	const struct ibex_gen_opts *o = &r->opts;
	unsigned int i;

	memset(r->flow_prio, o->prio, r->sl.npairs);
	memset(r->flow_vl, o->vl, r->sl.npairs);
	memset(r->class_vl, o->vl, sizeof(r->class_vl));
	r->nvls = o->vl + 1u;
	for (i = 0; i < o->nrflows; i++) {
		const struct ibex_gen_rflow *fl = &o->rflow[i];
		int32_t f = ibex_gen_slot(&r->sl, fl->src, fl->dst);
		struct ibex_gen_frame_opts fo = o->frame;
		uint8_t c = (uint8_t)fl->cls;

		if (fl->cls < 0 || f < 0)
			continue;
		if (o->class_by == IBEX_GEN_CLASS_DSCP)
			fo.dscp = c;
		else
			fo.pcp = c;
		if (ibex_gen_tmpl_build(&r->tmpl[f], &r->rank[fl->src],
					&r->rank[fl->dst], &fo) < 0) {
			snprintf(err, errlen, "cannot build frame headers");
			return -EINVAL;
		}
		/* PFC's priority (a class above 7 is refused with PFC; the
		 * mask keeps the port's priority mask in 8 bits) */
		r->flow_prio[f] = c & 7;
		r->flow_vl[f] = r->class_vl[c] = c;
		if (c + 1u > r->nvls)
			r->nvls = c + 1u;
	}
	return 0;
}

/* The PFC priorities each port's frames use (it holds them all while one
 * is paused, as one TX queue does). */
static void
classes_ports(struct ibex_gen_run *r)
{
	unsigned int i;

	for (i = 0; i < r->nports; i++)
		r->port[i].prio_mask = r->nrf != 0 ? 0 :
				       (uint8_t)(1u << r->opts.prio);
	for (i = 0; i < r->nrf; i++) {
		struct gen_port *p = &r->port[r->rank[r->rf[i].src].port];

		p->prio_mask |= (uint8_t)(1u << r->flow_prio[r->rf[i].f]);
	}
}

/* --rto: a record of the frames in flight per port. Frames too short for
 * the head probe cannot name their slot, so the sizes must have room. */
static int
rto_setup(struct ibex_gen_run *r, char *err, size_t errlen)
{
	const struct ibex_gen_opts *o = &r->opts;
	uint32_t len = ibex_gen_open_loop(o->engine) ? r->frame_len : o->mtu;
	unsigned int i;

	/* (inc: its ranks time their contributions out themselves) */
	if (o->rto_us <= 0 || o->engine->inc)
		return 0;
	if (len < r->head_min) {
		snprintf(err, errlen, "--rto needs frames of at least %u bytes "
			 "(the head probe names each frame), not %u",
			 r->head_min, len);
		return -EINVAL;
	}
	r->rto = true;
	for (i = 0; i < r->nports; i++) {
		struct gen_port *p = &r->port[i];

		p->infl_ent = calloc(INFLIGHT_SLOTS, sizeof(*p->infl_ent));
		if (p->infl_ent == NULL) {
			snprintf(err, errlen, "out of memory for --rto");
			return -ENOMEM;
		}
		ibex_inflight_init(&p->infl, p->infl_ent, INFLIGHT_SLOTS,
				   (uint64_t)(o->rto_us * (double)r->hz / 1e6));
	}
	return 0;
}

/*
 * The rank pairs the run uses, a slot each (ibex_gen_slots.h), and the
 * per-slot tables: a collective's pairs from its algorithm (the same for
 * every message size), the open-loop flows' from --flow or r -> r + 1.
 */
static int
run_slots(struct ibex_gen_run *r, char *err, size_t errlen)
{
	const struct ibex_gen_opts *o = &r->opts;
	unsigned int i, n = o->nranks;
	uint32_t np, pairs[IBEX_GEN_MAX_RFLOWS];
	int ret;

	if (ibex_gen_open_loop(o->engine)) {
		np = o->nrflows != 0 ? o->nrflows : n;
		for (i = 0; i < np; i++)
			pairs[i] = o->nrflows != 0 ?
				   (uint32_t)o->rflow[i].src << 16 | o->rflow[i].dst :
				   (uint32_t)i << 16 | (i + 1) % n;
		ret = ibex_gen_slots_pairs(&r->sl, n, pairs, np,
					   IBEX_GEN_MAX_PAIRS);
	} else {
		struct ibex_coll_cfg cfg = { .algo = o->engine->coll,
			.nranks = (uint16_t)n, .root = (uint16_t)o->root,
			.bytes = 1, .payload_max = 1, .straggler.rank = -1 };

		ret = ibex_gen_slots_coll(&r->sl, &cfg, IBEX_GEN_MAX_PAIRS);
	}
	if (ret == -E2BIG) {
		snprintf(err, errlen, "--engine %s over %u ranks uses more than "
			 "%u rank pairs (docs/generator.md, \"Limits and memory\")",
			 o->engine->name, n, IBEX_GEN_MAX_PAIRS);
		return ret;
	}
	if (ret < 0 || r->sl.npairs == 0) {
		snprintf(err, errlen, "cannot list the run's rank pairs: %s",
			 ret < 0 ? strerror(-ret) : "none");
		return ret < 0 ? ret : -EINVAL;
	}
	np = r->sl.npairs;
	r->slot_src = rte_zmalloc("ibex_gen_slot_src",
				  sizeof(*r->slot_src) * np, 0);
	r->tmpl = rte_zmalloc("ibex_gen_tmpl", sizeof(*r->tmpl) * np,
			      RTE_CACHE_LINE_SIZE);
	r->rf_of = rte_zmalloc("ibex_gen_rf_of", sizeof(*r->rf_of) * np, 0);
	r->next_qp = rte_zmalloc("ibex_gen_next_qp", np, 0);
	r->flow_prio = rte_zmalloc("ibex_gen_flow_prio", np, 0);
	r->flow_vl = rte_zmalloc("ibex_gen_flow_vl", np, 0);
	r->tx_slot = rte_zmalloc("ibex_gen_tx_slot",
				 sizeof(*r->tx_slot) * n, 0);
	r->tx_dst = rte_zmalloc("ibex_gen_tx_dst", sizeof(*r->tx_dst) * n, 0);
	if (r->slot_src == NULL || r->tmpl == NULL || r->rf_of == NULL ||
	    r->next_qp == NULL || r->flow_prio == NULL || r->flow_vl == NULL ||
	    r->tx_slot == NULL || r->tx_dst == NULL) {
		snprintf(err, errlen, "out of memory for the generator's %u "
			 "rank pairs", np);
		return -ENOMEM;
	}
	memset(r->rf_of, 0xff, sizeof(*r->rf_of) * np);
	for (i = 0; i < n; i++) {
		uint32_t k;

		for (k = r->sl.base[i]; k < r->sl.base[i + 1]; k++)
			r->slot_src[k] = (uint16_t)i;
		/* no destination yet: the first frame looks its slot up */
		r->tx_dst[i] = UINT16_MAX;
	}
	return 0;
}

/* One reader, the run's lcore; registered with the unmap guard. */
static int
qsbr_create(struct ibex_gen_run *r)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);

	r->qsbr = rte_zmalloc("ibex_gen_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (r->qsbr == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(r->qsbr, 1) != 0 ||
	    rte_rcu_qsbr_thread_register(r->qsbr, 0) != 0)
		return -EINVAL;
	return ibex_unmap_guard_add(r->qsbr);
}

int
ibex_gen_run_create(struct ibex_gen_run **rp, const struct ibex_gen_opts *o,
		    const uint16_t *port_ids, unsigned int nports, char *err,
		    size_t errlen)
{
	struct ibex_gen_run *r;
	unsigned int i, s, d, n = o->nranks;
	uint32_t room;
	char name[64];
	int ret;

	*rp = NULL;
	ret = ibex_gen_opts_check(o, err, errlen);
	if (ret < 0)
		return ret;
	if (nports == 0 || nports > IBEX_GEN_MAX_PORTS) {
		snprintf(err, errlen, "the generator needs 1..%u ports, got %u "
			 "(give them to EAL with --vdev or -a)",
			 IBEX_GEN_MAX_PORTS, nports);
		return -EINVAL;
	}
	r = rte_zmalloc("ibex_gen_run", sizeof(*r), RTE_CACHE_LINE_SIZE);
	if (r == NULL)
		goto nomem;
	*rp = r;
	r->opts = *o;
	if (r->opts.qps == 0)   /* options not from ibex_gen_opts_default() */
		r->opts.qps = 1;
	r->hz = ibex_clock_hz();
	r->ns_per_tick = 1e9 / (double)r->hz;
	r->cnp_gap = (uint64_t)((double)r->hz * IBEX_GEN_CNP_INTERVAL_NS / 1e9 *
				(o->dcqcn_scale > 0 ? o->dcqcn_scale : 1));
	r->tsc0 = ibex_clock_now();
	/* 50 KB a port (its retransmission queue): 1,024 ports are 50 MB,
	 * from the process's heap, not EAL's (which the switches of a
	 * fabric share) */
	r->port = calloc(nports, sizeof(*r->port));
	r->rank = rte_zmalloc("ibex_gen_rank", sizeof(*r->rank) * n,
			      RTE_CACHE_LINE_SIZE);
	r->port_rank = rte_zmalloc("ibex_gen_port_rank",
				   sizeof(*r->port_rank) * n, 0);
	r->dcq = rte_zmalloc("ibex_gen_dcq", sizeof(*r->dcq) * n,
			     RTE_CACHE_LINE_SIZE);
	r->tick_per_byte = rte_zmalloc("ibex_gen_tpb",
				       sizeof(*r->tick_per_byte) * n, 0);
	r->rank_next = rte_zmalloc("ibex_gen_rank_next",
				   sizeof(*r->rank_next) * n, 0);
	if (r->port == NULL || r->rank == NULL || r->port_rank == NULL ||
	    r->dcq == NULL || r->tick_per_byte == NULL || r->rank_next == NULL) {
		snprintf(err, errlen, "out of memory for the generator's %u "
			 "ports and %u ranks", nports, n);
		return -ENOMEM;
	}
	r->nports = nports;
	ret = qsbr_create(r);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create the RCU state");
		return ret;
	}
	ret = run_slots(r, err, errlen);
	if (ret < 0)
		return ret;
	r->meas = rte_zmalloc("ibex_gen_meas", sizeof(*r->meas),
			      RTE_CACHE_LINE_SIZE);
	r->coll = rte_zmalloc("ibex_gen_coll", sizeof(*r->coll),
			      RTE_CACHE_LINE_SIZE);
	if (r->meas == NULL || r->coll == NULL) {
		snprintf(err, errlen, "out of memory for the generator's "
			 "measurement");
		return -ENOMEM;
	}
	if (ibex_gen_meas_init(r->meas, r->opts.qps * r->sl.npairs) < 0) {
		rte_free(r->meas);
		r->meas = NULL;
		goto nomem;
	}
	ret = ibex_gen_report_init(&r->rep, &r->opts, r->hz, r->meas);
	if (ret < 0)
		goto nomem;
	/* A latency histogram per message size, on the generator's node:
	 * the lcore switches between them, never allocates. */
	if (r->rep.nsizes != 0) {
		r->lat_size = rte_zmalloc_socket("ibex_gen_lat_size",
				sizeof(*r->lat_size) * r->rep.nsizes,
				RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
		if (r->lat_size == NULL)
			goto nomem;
		ibex_gen_meas_sizes(r->meas, r->lat_size, r->rep.nsizes);
	}
	/* a latency histogram per open-loop flow (--flow, else r -> r+1) */
	if (ibex_gen_open_loop(o->engine)) {
		unsigned int nf = o->nrflows != 0 ? o->nrflows : n;

		r->rep.rflow_lat = rte_zmalloc_socket("ibex_gen_lat_flow",
				sizeof(*r->rep.rflow_lat) * nf,
				RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
		if (r->rep.rflow_lat == NULL)
			goto nomem;
		for (i = 0; i < nf; i++)
			ibex_hist_init(&r->rep.rflow_lat[i]);
	}
	/* ranks and the headers of every flow */
	for (i = 0; i < n; i++) {
		ibex_gen_rank_addr(i, &r->rank[i]);
		if (o->rank_mac != NULL)
			memcpy(r->rank[i].mac, o->rank_mac[i], 6);
		r->rank[i].port = (uint16_t)(i % nports);
	}
	for (s = 0; s < r->sl.npairs; s++) {
		d = ibex_gen_slot_dst(&r->sl, s);
		ret = ibex_gen_tmpl_build(&r->tmpl[s], &r->rank[r->slot_src[s]],
					  &r->rank[d], &o->frame);
		if (ret < 0) {
			snprintf(err, errlen, "cannot build frame headers");
			return ret;
		}
	}
	ret = classes_setup(r, err, errlen);
	if (ret < 0)
		return ret;
	/* every pair's headers have slot 0's geometry */
	r->full_min = ibex_gen_frame_len(&r->tmpl[0], 0);
	r->head_min = ibex_gen_frame_len(&r->tmpl[0], IBEX_GEN_HEAD_LEN);
	r->frame_len = o->frame_size;
	r->drv = o->engine->inc ? &inc_driver :
		 ibex_gen_open_loop(o->engine) ? &rate_driver : &coll_driver;
	ret = r->drv->setup(r, err, errlen);
	if (ret < 0)
		return ret;
	r->payload_max = ibex_gen_payload_max(&r->tmpl[0], o->mtu);
	if (r->payload_max == 0) {
		snprintf(err, errlen, "--mtu %u leaves no room for payload",
			 o->mtu);
		return -EINVAL;
	}
	/* Mbufs hold a whole frame: one segment up to the MTU. */
	room = RTE_PKTMBUF_HEADROOM + (o->mtu > 2048 ? o->mtu : 2048);
	/* Mempool names are short (RTE_MEMPOOL_NAMESIZE): a counter, not
	 * the address, keeps several runs in one process apart. */
	snprintf(name, sizeof(name), "ibex_gen_%u",
		 atomic_fetch_add_explicit(&pool_seq, 1, memory_order_relaxed));
	r->pool = ibex_pdev_pool_create(name, RTE_MIN(16383 + nports *
					(RX_DESC + TX_DESC), POOL_MAX),
					256, (uint16_t)room,
					(int)rte_socket_id());
	if (r->pool == NULL) {
		snprintf(err, errlen, "cannot create the generator's mbuf pool: "
			 "%s%s", rte_strerror(rte_errno), rte_errno == ENOMEM ?
			 " (give EAL more memory with -m)" : "");
		return -ENOMEM;
	}
	for (i = 0; i < nports; i++) {
		r->port[i].pid = port_ids[i];
		ret = port_setup(r, &r->port[i], err, errlen);
		if (ret < 0)
			return ret;
	}
	ret = rto_setup(r, err, errlen);
	if (ret < 0)
		return ret;
	/* each port's ranks, in one array: port 0's, port 1's ... */
	for (i = 0, s = 0; i < nports; i++) {
		r->port[i].rank = r->port_rank + s;
		s += n / nports + (i < n % nports ? 1 : 0);
	}
	for (i = 0; i < n; i++) {
		struct gen_port *p = &r->port[r->rank[i].port];

		p->rank[p->nranks++] = (uint16_t)i;
	}
	for (i = 0; i < r->nrf; i++) {
		struct gen_port *p = &r->port[r->rank[r->rf[i].src].port];

		p->rfi[p->nrf++] = (uint16_t)i;
	}
	classes_ports(r);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the generator");
	return -ENOMEM;
}

void
ibex_gen_run_free(struct ibex_gen_run *r)
{
	unsigned int i;

	if (r == NULL)
		return;
	if (r->qsbr != NULL)
		ibex_unmap_guard_del(r->qsbr);
	rte_free(r->qsbr);
	free(r->awake);
	for (i = 0; i < r->nports; i++)
		if (r->port[i].npend > 0)
			rte_pktmbuf_free_bulk(r->port[i].pend, r->port[i].npend);
	for (i = 0; i < r->nstarted; i++) {
		ibex_pdev_stop(r->port[i].pid);
		ibex_pdev_close(r->port[i].pid);
	}
	ibex_gen_report_free(&r->rep);
	rte_mempool_free(r->pool);
	rte_free(r->tmpl);
	rte_free(r->slot_src);
	rte_free(r->rf_of);
	rte_free(r->next_qp);
	rte_free(r->flow_prio);
	rte_free(r->flow_vl);
	rte_free(r->tx_slot);
	rte_free(r->tx_dst);
	ibex_gen_slots_free(&r->sl);
	if (r->coll != NULL)
		ibex_coll_fini(r->coll);
	rte_free(r->coll);
	if (r->inc != NULL)
		ibex_inc_fini(r->inc);
	free(r->inc);
	rte_free(r->lat_size);
	rte_free(r->rep.rflow_lat);
	r->rep.rflow_lat = NULL;
	if (r->meas != NULL)
		ibex_gen_meas_fini(r->meas);
	rte_free(r->meas);
	if (r->port != NULL)
		for (i = 0; i < r->nports; i++)
			free(r->port[i].infl_ent);
	free(r->port);
	rte_free(r->rank);
	rte_free(r->port_rank);
	rte_free(r->dcq);
	rte_free(r->tick_per_byte);
	rte_free(r->rank_next);
	rte_free(r);
}

/* ---- RX ---- */

/*
 * A CBFC message frame (--fc cbfc): the peer's CF_Update frees our
 * sender's credits, per VC it carries; its CC_Update frees in our receiver
 * what the peer sent and we never got. Another 0x88B5 frame (an ibex
 * credit frame) is not ours.
 */
static void
rx_cbfc(struct gen_port *p, const uint8_t *d, uint32_t len)
{
	struct ibex_fcf_cbfc m;
	struct ibex_cbfc_cf_update cf;
	struct ibex_cbfc_cc_update cc;
	uint32_t vcs;
	unsigned int vc;

	if (ibex_fcf_cbfc_parse(d, len, &m) != IBEX_FCF_OK)
		return;
	if (m.type == IBEX_FCF_CBFC_CF) {
		for (vcs = m.vcs; vcs != 0; vcs &= vcs - 1) {
			cf.vc = (uint8_t)__builtin_ctz(vcs);
			cf.cf = m.count[cf.vc];
			/* one that cannot be is counted (cf_update_bad) */
			ibex_cbfc_cf_apply(&p->cbfc, &cf);
		}
		return;
	}
	cc.vcs = m.vcs;
	for (vcs = m.vcs; vcs != 0; vcs &= vcs - 1) {
		vc = (unsigned int)__builtin_ctz(vcs);
		cc.cc[vc] = m.count[vc];
	}
	ibex_cbfc_cc_apply(&p->cbfc, &cc);
}

/* A data frame on a CBFC port: stored and, the rank consuming it as it
 * arrives, freed at once (the next CF_Update returns its credits). */
static inline void
rx_cbfc_data(struct gen_port *p, unsigned int vc, uint32_t len)
{
	uint32_t n = ibex_cbfc_credits(&p->cbfc, len);

	ibex_cbfc_rx_stored(&p->cbfc, vc, n);
	ibex_cbfc_rx_freed(&p->cbfc, vc, n);
}

static inline void
rx_fc(struct ibex_gen_run *r, struct gen_port *p, const uint8_t *d,
      uint32_t len, uint16_t et, uint64_t now)
{
	r->meas->fc_frames++;
	if (et == IBEX_ETHERTYPE_MACCTL) {
		struct ibex_fcf_pfc m;

		if (r->opts.fc == IBEX_GEN_FC_PFC &&
		    ibex_fcf_pfc_parse(d, len, &m) == IBEX_FCF_OK) {
			ibex_pfc_rx_frame(&p->pfc_par, &p->pfc, &p->pfc_st, &m,
					  tick_ns(r, now));
			r->rep.pfc_rx++;
		}
	} else if (r->opts.fc == IBEX_GEN_FC_CBFC) {
		rx_cbfc(p, d, len);
	} else {
		struct ibex_fcf_credit m;

		if (r->opts.fc == IBEX_GEN_FC_CREDIT &&
		    ibex_fcf_credit_parse(d, len, &m) == IBEX_FCF_OK) {
			ibex_credit_fc_apply(&p->credit, &p->credit_st, &m);
			r->rep.credit_rx++;
		}
	}
}

/*
 * A frame a switch trimmed (UEC: headers and the first bytes kept, the
 * trailer cut off) is a NACK: its head probe names the frame, and its
 * sender, in this process, queues it for retransmission at once. The
 * NACK does not cut the sender's rate: DCQCN reacts to CNPs only, so a
 * run with trimming and one without differ in how fast a loss is known,
 * not in congestion control.
 * @return true when it was one (counted, whatever became of it).
 */
static bool
rx_trimmed(struct ibex_gen_run *r, unsigned int pi, const uint8_t *d,
	   uint32_t len, uint64_t now)
{
	const struct ibex_gen_tmpl *t0 = &r->tmpl[0];
	struct ibex_gen_head h;
	struct gen_port *sp;
	struct retx_ent *e;
	uint32_t src, dst, qp, sf;
	int32_t slot;

	if (!ibex_gen_head_get(d, len, t0->bth_off, &h) || h.len <= len)
		return false;
	src = ibex_gen_wire_src(h.t.flow);
	dst = ibex_gen_wire_dst(h.t.flow);
	qp = ibex_gen_wire_qp(h.t.flow);
	if (qp >= r->opts.qps || src >= r->opts.nranks ||
	    dst >= r->opts.nranks || r->rank[dst].port != pi)
		return false;
	slot = ibex_gen_slot(&r->sl, src, dst);
	if (slot < 0)
		return false;
	sf = ibex_gen_subflow(&r->sl, (uint32_t)slot, qp);
	r->meas->trimmed_rx++;
	sp = &r->port[r->rank[src].port];
	/* With --rto, a NACK of a frame already queued again, or already
	 * arrived (a copy of it), asks for nothing. */
	if (r->rto && !ibex_inflight_nack(&sp->infl, h.slot, sf, h.t.seq)) {
		r->meas->nack_dup++;
		return true;
	}
	if (sp->retx_n == RETX_MAX) {
		r->meas->nack_lost++;
		if (r->rto)   /* its timeout will recover it */
			ibex_inflight_unqueue(&sp->infl, h.slot);
		return true;
	}
	r->meas->retx_pending++;
	e = &sp->retx[(sp->retx_head + sp->retx_n++) % RETX_MAX];
	*e = (struct retx_ent){ .sf = sf, .seq = h.t.seq,
		.psn = (uint32_t)(d[t0->bth_off + 9] << 16 |
				  d[t0->bth_off + 10] << 8 | d[t0->bth_off + 11]),
		.tag = h.t.tag, .len = h.len, .opcode = h.opcode,
		.flags = IBEX_GEN_HEAD_RETX, .slot = h.slot,
		.src = (uint16_t)src, .dst = (uint16_t)dst, .tsc = h.t.tsc,
		.nack_tsc = now };
	return true;
}

/*
 * The head probe of a whole frame: a retransmission's arrival (the
 * recovery time of a trimmed frame's loss) and, with --rto, the ack of
 * its slot. @return false for a copy of a frame that had arrived (a
 * duplicate: counted once, here).
 */
static inline bool
rx_head(struct ibex_gen_run *r, const uint8_t *d,
	const struct ibex_gen_tmpl *tp, const struct ibex_gen_trailer *t,
	unsigned int src, uint64_t now)
{
	struct ibex_gen_head h;

	memcpy(&h, d + ibex_gen_head_off(tp->bth_off), sizeof(h));
	if (h.t.magic != IBEX_GEN_HEAD_MAGIC)
		return true;
	if (r->rto && !ibex_inflight_ack(&r->port[r->rank[src].port].infl,
					 h.slot, t->flow, t->seq)) {
		r->meas->dup_rx++;
		return false;
	}
	if (h.flags & IBEX_GEN_HEAD_RETX) {
		r->meas->retx_rx++;
		ibex_hist_record(&r->meas->recovery, now - h.nack_tsc);
	} else if (h.flags & IBEX_GEN_HEAD_RTO) {
		r->meas->rto_rx++;
	}
	return true;
}

/* The credit VL a received frame came on: its PCP's, or its DSCP's
 * (--class-by dscp; a frame that is not IPv4, or a DSCP beyond the
 * classes, on the run's --vl). */
static inline unsigned int
rx_vl(const struct ibex_gen_run *r, const uint8_t *d, uint16_t et)
{
	unsigned int l3 = 14, dscp;

	if (r->opts.class_by == IBEX_GEN_CLASS_PCP)
		return et == IBEX_ETHERTYPE_VLAN ? r->class_vl[d[14] >> 5] :
		       r->opts.vl;
	if (et == IBEX_ETHERTYPE_VLAN) {
		et = (uint16_t)(d[16] << 8 | d[17]);
		l3 = 18;
	}
	if (et != IBEX_ETHERTYPE_IPV4)
		return r->opts.vl;
	dscp = d[l3 + 1] >> 2;
	return dscp < RTE_DIM(r->class_vl) ? r->class_vl[dscp] : r->opts.vl;
}

/*
 * --engine inc: a result for one of the port's ranks, UDP to port 0xBEF0
 * (untagged or one tag, IPv4 without options), its rank by destination
 * MAC: every element is checked (ibex_inc_rx()). Anything else is
 * foreign.
 */
static void
rx_inc(struct ibex_gen_run *r, const struct gen_port *p, const uint8_t *d,
       uint32_t len, uint64_t now)
{
	uint32_t l3 = IBEX_ETHER_HDR_LEN, ulen;
	uint16_t et = (uint16_t)(d[12] << 8 | d[13]);
	unsigned int k;

	if (et == IBEX_ETHERTYPE_VLAN && len >= IBEX_ETHER_HDR_LEN + 4) {
		et = (uint16_t)(d[16] << 8 | d[17]);
		l3 += IBEX_VLAN_HDR_LEN;
	}
	if (et != IBEX_ETHERTYPE_IPV4 || len < l3 + 28 || d[l3] != 0x45 ||
	    d[l3 + 9] != 17 ||
	    (uint16_t)(d[l3 + 22] << 8 | d[l3 + 23]) != IBEX_UDP_PORT_AGG)
		goto foreign;
	ulen = (uint32_t)(d[l3 + 24] << 8 | d[l3 + 25]);
	if (ulen < 8 || l3 + 20 + ulen > len)
		goto foreign;
	for (k = 0; k < p->nranks; k++)
		if (memcmp(d, r->rank[p->rank[k]].mac, 6) == 0)
			break;
	/* (no job yet: the drain before the sweep) */
	if (k == p->nranks || r->inc->rank == NULL)
		goto foreign;
	/* A chunk's result counts once, as its contribution does in
	 * tx_inc(): late copies and refusals are the # inc: line's. */
	switch (ibex_inc_rx(r->inc, p->rank[k], d + l3 + 28, ulen - 8, now)) {
	case IBEX_INC_RX_OK:
		r->meas->rx_payload += ulen - 8 - IBEX_AGG_HDR_LEN;
		/* fall through */
	case IBEX_INC_RX_WRONG:
		r->meas->rx_frames++;
		r->meas->rx_bytes += len;
		break;
	default:
		break;
	}
	return;
foreign:
	r->meas->foreign++;
}

/* Per frame. @p open_loop is a constant in each caller, so the compiler
 * builds one copy per kind of engine and no frame asks which it is. */
static __rte_always_inline void
rx_one(struct ibex_gen_run *r, struct gen_port *p, unsigned int pi,
       struct rte_mbuf *m, uint64_t now, const bool open_loop)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, f, src, dst, payload;
	int32_t slot;
	struct ibex_gen_trailer t;
	const struct ibex_gen_tmpl *tp;
	bool short_probe = false;
	uint16_t et;
	uint8_t ecn;
	int k;

	if (ibex_unlikely(m->nb_segs > 1)) {
		d = m->pkt_len <= sizeof(r->rx_lin) ?
		    rte_pktmbuf_read(m, 0, m->pkt_len, r->rx_lin) : NULL;
		if (d == NULL) {
			r->meas->no_trailer++;
			return;
		}
		len = m->pkt_len;
	}
	if (ibex_unlikely(len < IBEX_ETHER_MIN_LEN)) {
		r->meas->no_trailer++;
		return;
	}
	et = (uint16_t)(d[12] << 8 | d[13]);
	if (ibex_unlikely(et == IBEX_ETHERTYPE_MACCTL ||
			  et == IBEX_ETHERTYPE_IBEXFC)) {
		rx_fc(r, p, d, len, et, now);
		return;
	}
	if (r->opts.fc == IBEX_GEN_FC_CREDIT)
		ibex_credit_rx_data(&p->credit, rx_vl(r, d, et),
				    ibex_blocks(len));
	else if (r->opts.fc == IBEX_GEN_FC_CBFC)
		rx_cbfc_data(p, rx_vl(r, d, et), len);
	if (r->inc != NULL) {
		rx_inc(r, p, d, len, now);
		return;
	}
	if (ibex_unlikely(!ibex_gen_trailer_get(d, len, &t))) {
		if (rx_trimmed(r, pi, d, len, now))
			return;
		if (!open_loop ||
		    !ibex_gen_short_get(d, len, r->tmpl[0].udp_off, now, &t)) {
			r->meas->no_trailer++;
			return;
		}
		short_probe = true;
	}
	src = ibex_gen_wire_src(t.flow);
	dst = ibex_gen_wire_dst(t.flow);
	/* A flooded copy reaches ports whose ranks it is not for. */
	if (ibex_unlikely(ibex_gen_wire_qp(t.flow) >= r->opts.qps ||
			  src >= r->opts.nranks || dst >= r->opts.nranks ||
			  r->rank[dst].port != pi ||
			  memcmp(d, r->rank[dst].mac, 6) != 0)) {
		r->meas->foreign++;
		return;
	}
	/* A pair the run does not use (a stray frame): foreign too. */
	slot = ibex_gen_slot(&r->sl, src, dst);
	if (ibex_unlikely(slot < 0)) {
		r->meas->foreign++;
		return;
	}
	/* from here on the sub-flow's index, as the tables take it */
	f = (uint32_t)slot;
	t.flow = ibex_gen_subflow(&r->sl, f, ibex_gen_wire_qp(t.flow));
	tp = &r->tmpl[f];
	if (ibex_unlikely((r->rto || r->meas->retx_tx != 0) &&
			  len >= r->head_min && !short_probe) &&
	    !rx_head(r, d, tp, &t, src, now))
		return;
	ecn = ibex_gen_frame_ecn(d, tp->ip_off);
	payload = short_probe ? 0 :
		  len - tp->hdr_len - IBEX_GEN_TRAILER_LEN - IBEX_ICRC_LEN;
	if (open_loop) {
		if (ibex_unlikely((t.tag >> 16) != (r->trial & 0xffff))) {
			/* late from an earlier trial: not this trial's
			 * frame, and its delay is not this trial's */
			r->rep.stale_rx++;
			r->meas->rx_frames++;
			r->meas->rx_bytes += len;
			ibex_seq_update(&r->meas->seq[t.flow], t.seq);
			return;
		}
		k = r->rf_of[f];
		if (k >= 0) {
			r->rep.rflow_rx[k]++;
			ibex_hist_record(&r->rep.rflow_lat[k], now - t.tsc);
		}
	}
	r->meas->rx_payload += payload;
	if (ibex_gen_meas_rx(r->meas, &t, len, ecn, now, r->cnp_gap) &&
	    r->opts.dcqcn) {
		/* The sender is in this process: its CNP arrives at once. */
		ibex_dcqcn_cnp(&r->dcq[src], now);
		r->tick_per_byte[src] = (double)r->hz / r->dcq[src].rc;
	}
	if (!open_loop)
		ibex_coll_rx(r->coll, dst, t.tag & 0xffff, t.tag >> 16, payload,
			     now);
}

static __rte_always_inline unsigned int
rx_burst(struct ibex_gen_run *r, uint64_t now, const bool open_loop)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int pi, total = 0;
	uint16_t n, i;

	/* Between bursts: see struct ibex_gen_run's qsbr. */
	rte_rcu_qsbr_quiescent(r->qsbr, 0);
	FOREACH_VISIT(r, pi) {
		struct gen_port *p = &r->port[pi];

		/* 1,024 ports of a fabric, most of them idle at any step */
		if (r->rx_idle != NULL && r->rx_idle(r->rx_idle_arg, pi))
			continue;
		n = ibex_pdev_rx_burst(p->pid, 0, pkts, BURST);
		if (n == 0)
			continue;
		/* The loop's clock was read before the poll: an lcore held
		 * off its CPU in between would stamp these frames early. */
		now = ibex_clock_now();
		for (i = 0; i < n; i++) {
			if (i + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
			rx_one(r, p, pi, pkts[i], now, open_loop);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		total += n;
	}
	return total;
}

static unsigned int
rx_coll(struct ibex_gen_run *r, uint64_t now)
{
	return rx_burst(r, now, false);
}

static unsigned int
rx_rate(struct ibex_gen_run *r, uint64_t now)
{
	return rx_burst(r, now, true);
}

/* ---- TX ---- */

/* May this port send a frame of @p len bytes of flow @p f now (PFC on
 * its priority, credits or CBFC's send rule on its VL)? */
static inline bool
fc_allows(struct ibex_gen_run *r, struct gen_port *p, uint32_t len,
	  uint32_t f, uint64_t now_ns)
{
	switch (r->opts.fc) {
	case IBEX_GEN_FC_PFC:
		return ibex_pfc_rx_lane(&p->pfc_par, &p->pfc, r->flow_prio[f],
					now_ns) !=
		       IBEX_PFC_PAUSED;
	case IBEX_GEN_FC_CREDIT:
		if (ibex_credit_tx_ok(&p->credit, r->flow_vl[f], ibex_blocks(len)))
			return true;
		r->rep.credit_stalls++;
		return false;
	case IBEX_GEN_FC_CBFC:
		if (ibex_cbfc_tx_ok(&p->cbfc, r->flow_vl[f],
				    ibex_cbfc_credits(&p->cbfc, len)))
			return true;
		r->rep.cbfc.stalls++;
		return false;
	default:
		return true;
	}
}

/* The head probe of a full frame (ibex_gen_frame.h). */
static inline void
head_put(uint8_t *d, const struct ibex_gen_tmpl *tp,
	 const struct ibex_gen_trailer *t, uint32_t len, uint8_t opcode,
	 uint8_t flags, uint16_t slot, uint64_t nack_tsc)
{
	struct ibex_gen_head h = { .t = *t, .len = len, .opcode = opcode,
				   .flags = flags, .slot = slot,
				   .nack_tsc = nack_tsc };

	h.t.magic = IBEX_GEN_HEAD_MAGIC;
	memcpy(d + ibex_gen_head_off(tp->bth_off), &h, IBEX_GEN_HEAD_LEN);
}

/* --rto: record a frame in its port's flight (the window has room). */
static inline uint16_t
inflight_note(struct gen_port *p, const struct ibex_gen_trailer *t,
	      uint32_t sf, uint32_t psn, uint32_t len, uint8_t opcode)
{
	struct ibex_inflight_ent e = { .sf = sf, .seq = t->seq,
		.psn = psn, .tag = t->tag, .len = (uint16_t)len,
		.opcode = opcode, .first_tsc = t->tsc };

	return ibex_inflight_push(&p->infl, &e);
}

/* May port @p p send a new frame? With --rto, not while its window of
 * frames in flight is full. */
static inline bool
window_open(struct ibex_gen_run *r, struct gen_port *p)
{
	if (ibex_likely(!r->rto) || ibex_inflight_room(&p->infl))
		return true;
	r->meas->window_full++;
	return false;
}

static inline void
frame_fill(struct ibex_gen_run *r, struct gen_port *p, struct rte_mbuf *m,
	   unsigned int src, unsigned int dst, uint32_t f, uint32_t len,
	   uint8_t opcode, uint32_t tag, uint64_t now)
{
	uint32_t qp = r->next_qp[f], sf = ibex_gen_subflow(&r->sl, f, qp),
		 psn = 0;
	struct ibex_gen_trailer t = {
		.magic = IBEX_GEN_MAGIC, .flow = ibex_gen_wire_flow(src, dst, qp),
		.seq = r->meas->tx_seq[sf]++,
		.tag = tag, .tsc = now,
	};
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	bool full = len >= r->full_min;
	uint16_t slot = 0;

	/* A connection's frames take its queue pairs in turn, as NCCL
	 * spreads a message over NCCL_IB_QPS_PER_CONNECTION QPs. */
	r->next_qp[f] = (uint8_t)(qp + 1 == r->opts.qps ? 0 : qp + 1);
	if (ibex_unlikely(!full)) {
		ibex_gen_short_write(d, &r->tmpl[f], len, &t);
	} else {
		psn = r->meas->tx_psn[sf]++ & 0xffffff;
		ibex_gen_frame_write(d, &r->tmpl[f], len, opcode, psn, &t);
	}
	if (qp != 0)
		ibex_gen_frame_set_qp(d, &r->tmpl[f], qp, full);
	if (len >= r->head_min) {
		if (r->rto)
			slot = inflight_note(p, &t, sf, psn, len, opcode);
		head_put(d, &r->tmpl[f], &t, len, opcode, 0, slot, 0);
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	r->meas->tx_frames++;
	r->meas->tx_bytes += len;
}

static inline void
sent_frame(struct ibex_gen_run *r, struct gen_port *p, unsigned int src,
	   uint32_t f, uint32_t len, uint64_t now)
{
	if (r->opts.fc == IBEX_GEN_FC_CREDIT)
		ibex_credit_tx_sent(&p->credit, r->flow_vl[f], ibex_blocks(len));
	else if (r->opts.fc == IBEX_GEN_FC_CBFC)
		/* fc_allows() passed for this frame or a longer one */
		(void)ibex_cbfc_tx_take(&p->cbfc, r->flow_vl[f],
					ibex_cbfc_credits(&p->cbfc, len));
	if (r->opts.dcqcn) {
		uint64_t base = r->rank_next[src] > now ? r->rank_next[src] : now;

		r->rank_next[src] = base + (uint64_t)(len * r->tick_per_byte[src]);
		ibex_dcqcn_sent(&r->dcq[src], len);
	}
}

/* Is one of the PFC priorities of the port's frames paused? */
static inline bool
port_paused(struct gen_port *p, uint64_t now_ns)
{
	unsigned int m = p->prio_mask, prio;

	for (prio = 0; m != 0; prio++, m >>= 1)
		if ((m & 1) && ibex_pfc_rx_lane(&p->pfc_par, &p->pfc, prio,
						now_ns) == IBEX_PFC_PAUSED)
			return true;
	return false;
}

/*
 * Sparse turns: has port @p pi work that no event of the executive will
 * announce: frames to hand to TX or to send again, frames in flight under
 * --rto, a pause to wait out, frames arrived and not yet read, or a rank
 * that may send (or sends when its straggler delay is over)?
 */
static bool
port_has_work(struct ibex_gen_run *r, unsigned int pi, uint64_t now_ns)
{
	struct gen_port *p = &r->port[pi];
	unsigned int i;

	if (p->npend != 0 || p->retx_n != 0 ||
	    (r->rto && ibex_inflight_count(&p->infl) != 0) ||
	    (r->opts.fc == IBEX_GEN_FC_PFC && port_paused(p, now_ns)) ||
	    !r->rx_idle(r->rx_idle_arg, pi))
		return true;
	for (i = 0; i < p->nranks; i++) {
		enum ibex_coll_state st;

		if (r->inc != NULL) {
			if (ibex_inc_next_due(r->inc, p->rank[i]) != UINT64_MAX)
				return true;
			continue;
		}
		st = r->coll->rank[p->rank[i]].state;
		if (st == IBEX_COLL_SEND || st == IBEX_COLL_DELAYED)
			return true;
	}
	return false;
}

/* After a sparse turn's visit: port @p pi sleeps until its next event
 * unless it has work of its own. */
static inline void
port_settle(struct ibex_gen_run *r, unsigned int pi, uint64_t now_ns)
{
	if (r->awake != NULL && !port_has_work(r, pi, now_ns))
		r->awake[pi / 64] &= ~(UINT64_C(1) << (pi % 64));
}

/*
 * Hand the port's queued frames to TX. With --tx-drop what the port does
 * not take is dropped (and, its sequence numbers used, counted lost at the
 * receiver), as a wire delivers into a full receive queue; otherwise it
 * stays queued. Under PFC the queue holds while a priority of its frames
 * is paused, as a NIC's per-priority TX queue does: the frames were built
 * before the pause came in and are not on the wire yet (a port whose ranks
 * send several classes holds them all: one queue). @return true when none
 * is left.
 */
static inline bool
tx_flush(struct ibex_gen_run *r, struct gen_port *p, uint64_t now_ns)
{
	uint16_t n;

	if (p->npend == 0)
		return true;
	if (r->opts.fc == IBEX_GEN_FC_PFC && port_paused(p, now_ns))
		return false;
	n = ibex_pdev_tx_burst(p->pid, 0, p->pend, p->npend);
	if (n < p->npend) {
		p->tx_full++;
		if (r->opts.tx_drop) {
			rte_pktmbuf_free_bulk(p->pend + n, p->npend - n);
			r->rep.tx_dropped += p->npend - n;
			p->npend = 0;
			return true;
		}
		memmove(p->pend, p->pend + n, (p->npend - n) * sizeof(p->pend[0]));
	}
	p->npend -= n;
	return p->npend == 0;
}

/*
 * Retransmissions first: the port's queued NACKs, each frame rebuilt as
 * it was (its sub-flow, sequence number, PSN, tag and send time) with the
 * head probe marked a retransmission. @return the mbufs of @p mb used.
 */
static unsigned int
tx_retx(struct ibex_gen_run *r, struct gen_port *p, struct rte_mbuf **mb,
	unsigned int room, uint64_t now, uint64_t now_ns)
{
	unsigned int built = 0;

	while (p->retx_n != 0 && built < room) {
		const struct retx_ent *e = &p->retx[p->retx_head];
		uint32_t f = ibex_gen_subflow_slot(&r->sl, e->sf);
		unsigned int qp = ibex_gen_subflow_qp(&r->sl, e->sf);
		struct ibex_gen_trailer t = { .magic = IBEX_GEN_MAGIC,
			.flow = ibex_gen_wire_flow(e->src, e->dst, qp),
			.seq = e->seq, .tag = e->tag,
			.tsc = e->tsc };
		uint8_t *d = rte_pktmbuf_mtod(mb[built], uint8_t *);

		/* a retransmission is paced as its sender's new frames are:
		 * unpaced, a burst of timeouts would refill the queue that
		 * dropped them */
		if ((r->opts.dcqcn && r->rank_next[e->src] > now) ||
		    !fc_allows(r, p, e->len, f, now_ns))
			break;
		ibex_gen_frame_write(d, &r->tmpl[f], e->len, e->opcode, e->psn,
				     &t);
		if (qp != 0)
			ibex_gen_frame_set_qp(d, &r->tmpl[f], qp, true);
		head_put(d, &r->tmpl[f], &t, e->len, e->opcode, e->flags,
			 e->slot, e->nack_tsc);
		if (r->rto)
			ibex_inflight_resent(&p->infl, e->slot, now);
		mb[built]->data_len = (uint16_t)e->len;
		mb[built]->pkt_len = e->len;
		r->meas->tx_frames++;
		r->meas->tx_bytes += e->len;
		if (e->flags & IBEX_GEN_HEAD_RTO)
			r->meas->rto_tx++;
		else
			r->meas->retx_tx++;
		sent_frame(r, p, e->src, f, e->len, now);
		built++;
		p->retx_head = (uint16_t)((p->retx_head + 1) % RETX_MAX);
		p->retx_n--;
		r->meas->retx_pending--;
	}
	return built;
}

/*
 * --rto: queue the port's frames whose timeout passed, to be sent again
 * ahead of new frames (as NACKed ones are). A frame the full queue cannot
 * take stays due and is found on a later turn.
 */
static void
rto_scan(struct ibex_gen_run *r, struct gen_port *p, uint64_t now)
{
	uint16_t slot[RTO_SCAN_MAX];
	unsigned int n, i;

	n = ibex_inflight_expired(&p->infl, now, slot, RTO_SCAN_MAX,
				  RTO_SCAN_BUDGET);
	for (i = 0; i < n; i++) {
		const struct ibex_inflight_ent *s = &p->infl.ent[slot[i]];
		uint32_t f = ibex_gen_subflow_slot(&r->sl, s->sf);
		struct retx_ent *e;

		if (p->retx_n == RETX_MAX) {
			ibex_inflight_unqueue(&p->infl, slot[i]);
			continue;
		}
		r->meas->retx_pending++;
		e = &p->retx[(p->retx_head + p->retx_n++) % RETX_MAX];
		*e = (struct retx_ent){ .sf = s->sf, .seq = s->seq,
			.psn = s->psn, .tag = s->tag, .len = s->len,
			.opcode = s->opcode, .flags = IBEX_GEN_HEAD_RTO,
			.slot = slot[i],
			.src = r->slot_src[f],
			.dst = (uint16_t)ibex_gen_slot_dst(&r->sl, f),
			.tsc = s->first_tsc, .nack_tsc = now };
	}
}

/* --rto, after an iteration failed: forget what was in flight, as a
 * NIC's QP in error flushes its send queue; the next iteration starts
 * with an empty window. */
static void
rto_flush(struct ibex_gen_run *r)
{
	unsigned int pi;

	for (pi = 0; pi < r->nports; pi++) {
		struct gen_port *p = &r->port[pi];

		ibex_inflight_init(&p->infl, p->infl_ent, INFLIGHT_SLOTS,
				   p->infl.rto);
	}
}

/*
 * An mbuf for frame @p built of a burst: @p have of @p mb are allocated;
 * when none is spare, allocate as many again (1, 1, 2, 4 ... up to BURST),
 * so a turn with nothing due allocates nothing and one with one frame due
 * one mbuf (under the virtual clock a turn comes per simulation step, and
 * a whole BURST allocated and freed per port per turn was a sixth of the
 * process). @return false: the pool is empty.
 */
static inline bool
mb_more(struct ibex_gen_run *r, struct rte_mbuf **mb, unsigned int built,
	unsigned int *have)
{
	unsigned int n;

	if (built < *have)
		return true;
	n = *have == 0 ? 1 : *have;
	if (n > BURST - *have)
		n = BURST - *have;
	if (rte_pktmbuf_alloc_bulk(r->pool, mb + *have, n) != 0)
		return false;
	*have += n;
	return true;
}

/* Collective: the port's ranks, round robin, as much as they have. */
static void
tx_coll(struct ibex_gen_run *r, struct gen_port *p, uint64_t now,
	uint64_t now_ns)
{
	struct rte_mbuf *mb[BURST];
	struct ibex_gen_pkt k;
	unsigned int built = 0, have = 0, idle = 0, ri = p->next_rank;
	uint32_t f, max_len = r->opts.mtu, tagi = (r->coll->iter & 0xffff) << 16;

	if (!tx_flush(r, p, now_ns) || p->nranks == 0)
		return;
	if (ibex_unlikely(p->retx_n != 0)) {
		if (rte_pktmbuf_alloc_bulk(r->pool, mb, BURST) != 0)
			return;
		have = BURST;
		built = tx_retx(r, p, mb, BURST, now, now_ns);
	}
	while (built < BURST && idle < p->nranks) {
		unsigned int src = p->rank[ri];
		uint32_t len;

		if (++ri == p->nranks)
			ri = 0;
		/* a collective's flows are all of the run's class: flow 0's */
		if ((r->opts.dcqcn && r->rank_next[src] > now) ||
		    !fc_allows(r, p, max_len, 0, now_ns) || !window_open(r, p) ||
		    !ibex_coll_may_tx(r->coll, src, now)) {
			idle++;
			continue;
		}
		if (!mb_more(r, mb, built, &have))
			break;
		if (!ibex_coll_tx(r->coll, src, now, &k)) {
			idle++;
			continue;
		}
		idle = 0;
		/* a rank sends to one peer for a whole transfer: its slot is
		 * looked up when the peer changes */
		if (ibex_unlikely(r->tx_dst[src] != k.dst)) {
			r->tx_dst[src] = k.dst;
			r->tx_slot[src] = (uint32_t)ibex_gen_slot(&r->sl, src,
								  k.dst);
		}
		f = r->tx_slot[src];
		len = ibex_gen_frame_len(&r->tmpl[f], k.payload);
		frame_fill(r, p, mb[built], src, k.dst, f, len, k.opcode,
			   tagi | k.step, now);
		r->meas->tx_payload += k.payload;
		sent_frame(r, p, src, f, len, now);
		built++;
	}
	p->next_rank = (uint16_t)ri;
	if (built < have)
		rte_pktmbuf_free_bulk(mb + built, have - built);
	if (built == 0)
		return;
	memcpy(p->pend, mb, built * sizeof(mb[0]));
	p->npend = (uint16_t)built;
	tx_flush(r, p, now_ns);
}

/*
 * Open loop: the port's flows in turn, each paced (or flat out) and, in a
 * bounded trial, up to its frame budget. Frames carry the trial number in
 * the tag so the receiver counts each trial's own frames.
 */
static void
tx_rate(struct ibex_gen_run *r, struct gen_port *p, uint64_t now,
	uint64_t now_ns)
{
	struct rte_mbuf *mb[BURST];
	unsigned int built = 0, have = 0, i, want;
	bool no_mb = false;
	uint32_t len = r->frame_len, tag = (r->trial & 0xffff) << 16,
		 payload = len >= r->full_min ? len - r->tmpl[0].hdr_len -
			   IBEX_GEN_TRAILER_LEN - IBEX_ICRC_LEN : 0;

	if (!tx_flush(r, p, now_ns) || p->nrf == 0)
		return;
	if (ibex_unlikely(p->retx_n != 0)) {
		if (rte_pktmbuf_alloc_bulk(r->pool, mb, BURST) != 0)
			return;
		have = BURST;
		built = tx_retx(r, p, mb, BURST, now, now_ns);
	}
	for (i = 0; i < p->nrf && built < BURST && !no_mb; i++) {
		unsigned int k = p->rfi[(p->next_rf + i) % p->nrf];
		struct rflow_st *fl = &r->rf[k];
		unsigned int src = fl->src;

		want = BURST - built;
		if (fl->left < want)
			want = (unsigned int)fl->left;
		if (fl->paced)
			want = ibex_pacer_due(&fl->pacer, now, want);
		while (want > 0) {
			if ((r->opts.dcqcn && r->rank_next[src] > now) ||
			    !fc_allows(r, p, len, fl->f, now_ns) ||
			    !window_open(r, p) ||
			    (no_mb = !mb_more(r, mb, built, &have))) {
				if (fl->paced)
					ibex_pacer_unsend(&fl->pacer, want);
				break;
			}
			frame_fill(r, p, mb[built], src, fl->dst, fl->f, len,
				   IBEX_GEN_OP_ONLY, tag, now);
			r->meas->tx_payload += payload;
			sent_frame(r, p, src, fl->f, len, now);
			r->rep.rflow_tx[k]++;
			fl->left--;
			built++;
			want--;
		}
	}
	p->next_rf = (uint16_t)((p->next_rf + 1) % p->nrf);
	if (built < have)
		rte_pktmbuf_free_bulk(mb + built, have - built);
	if (built == 0)
		return;
	memcpy(p->pend, mb, built * sizeof(mb[0]));
	p->npend = (uint16_t)built;
	tx_flush(r, p, now_ns);
}

/* ---- housekeeping ---- */

/* Link byte times since the run started at the port's speed, what
 * CF_Update spacing counts: ns x Mb/s / 8000, split so that no product
 * leaves 64 bits (hours at 10 Tb/s). */
static inline uint64_t
link_bytes(const struct gen_port *p, uint64_t ns)
{
	return ns / 8000 * p->mbps + ns % 8000 * p->mbps / 8000;
}

/* Send one CBFC message, in frames of up to 12 VCs. A frame the pool or
 * the port refuses (a wire busy under the virtual clock) ends it,
 * counted: the message is due again at the next housekeeping. */
static bool
cbfc_send(struct ibex_gen_run *r, struct gen_port *p,
	  const struct ibex_fcf_cbfc *msg)
{
	uint32_t left = msg->vcs;
	struct rte_mbuf *m;
	int len;

	while (left != 0) {
		m = rte_pktmbuf_alloc(r->pool);
		if (m == NULL)
			goto failed;
		len = ibex_fcf_cbfc_build(rte_pktmbuf_mtod(m, void *),
					  rte_pktmbuf_tailroom(m), p->mac, msg,
					  &left);
		if (len < 0) {
			rte_pktmbuf_free(m);
			goto failed;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		if (ibex_pdev_tx_burst(p->pid, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			goto failed;
		}
	}
	return true;
failed:
	r->rep.cbfc.tx_failed++;
	return false;
}

/* How often a CBFC port looks at its link (real clock): a memory read
 * on the PMDs that tell (memif, ibexlink), one non-blocking recv() on
 * virtio-user. */
#define CBFC_LINK_LOOK_NS (10 * 1000 * 1000)

/*
 * --fc cbfc, a port whose link went down: UE starts both ends' counters
 * at 0 when a link comes up, and the peer (a switch that restarted, or
 * reconnected) does; so does the port, as a switch's does
 * (ibex_cbfc_link_reset()). The frames it holds were charged to the
 * counters just gone and are dropped (the new peer would count them, the
 * port not), counted in reset_dropped. A look every CBFC_LINK_LOOK_NS, on
 * the real clock only: ibex-fabric's links never go down. A link down
 * and up between two looks is not seen, nor is one on a PMD that never
 * says down (af_packet, pcap, net_ring: docs/cbfc.md). @return whether
 * the port may send its CBFC messages: not while its link is down.
 */
static bool
cbfc_link_look(struct ibex_gen_run *r, struct gen_port *p, uint64_t now_ns)
{
	struct rte_eth_link link;
	bool up;

	if (now_ns < p->cbfc_link_ns || ibex_clock_is_virtual())
		return !p->cbfc_link_seen || p->cbfc_link_up;
	p->cbfc_link_ns = now_ns + CBFC_LINK_LOOK_NS;
	if (ibex_pdev_link_get_nowait(p->pid, &link) != 0)
		return true;
	up = link.link_status == RTE_ETH_LINK_UP;
	if (p->cbfc_link_up && !up) {
		ibex_cbfc_link_reset(&p->cbfc, now_ns);
		GEN_LOG(NOTICE, "port %u: link down: CBFC counters start again "
			"at 0, %u frames held dropped\n", p->pid, p->npend);
		rte_pktmbuf_free_bulk(p->pend, p->npend);
		r->rep.cbfc.reset_dropped += p->npend;
		p->npend = 0;
	}
	p->cbfc_link_up = up;
	p->cbfc_link_seen = true;
	return up;
}

/* --fc cbfc, a port: our receiver's CF_Updates as they fall due (spaced
 * in link byte times), our sender's CC_Update on its timer. */
static void
cbfc_housekeeping(struct ibex_gen_run *r, struct gen_port *p, uint64_t now_ns)
{
	struct ibex_fcf_cbfc msg = { .type = IBEX_FCF_CBFC_CF };
	struct ibex_cbfc_cf_update cf;
	struct ibex_cbfc_cc_update cc;
	unsigned int vc;

	/* no message a down link would refuse, a million a second */
	if (!cbfc_link_look(r, p, now_ns))
		return;
	while (ibex_cbfc_cf_next(&p->cbfc, link_bytes(p, now_ns), &cf)) {
		msg.vcs = UINT32_C(1) << cf.vc;
		msg.count[cf.vc] = cf.cf;
		if (!cbfc_send(r, p, &msg)) {
			ibex_cbfc_cf_unsent(&p->cbfc, &cf);
			break;
		}
	}
	/* Never ahead of frames it counts: those the port refused wait in
	 * pend, and the receiver would free their credits as leaked, then
	 * count them again as they arrive. */
	if (!ibex_cbfc_cc_due(&p->cbfc, now_ns) || p->npend != 0)
		return;
	ibex_cbfc_cc_build(&p->cbfc, now_ns, &cc);
	msg.type = IBEX_FCF_CBFC_CC;
	msg.vcs = cc.vcs;
	for (vc = 0; vc < IBEX_CBFC_MAX_VCS; vc++)
		msg.count[vc] = cc.cc[vc];
	if (!cbfc_send(r, p, &msg))
		ibex_cbfc_cc_unsent(&p->cbfc, now_ns);
}

static void
housekeeping(struct ibex_gen_run *r, uint64_t now, uint64_t now_ns)
{
	uint32_t free_blocks[IBEX_CREDIT_MAX_VLS];
	unsigned int pi, i;

	if (r->opts.fc == IBEX_GEN_FC_CREDIT) {
		/* The generator consumes on arrival: always a full window. */
		for (i = 0; i < IBEX_CREDIT_MAX_VLS; i++)
			free_blocks[i] = IBEX_CREDIT_WINDOW;
		for (pi = 0; pi < r->nports; pi++) {
			struct gen_port *p = &r->port[pi];
			struct ibex_fcf_credit msg;
			struct rte_mbuf *m;
			int len;

			if (!ibex_credit_fc_due(&p->credit_par, &p->credit,
						now_ns, free_blocks))
				continue;
			m = rte_pktmbuf_alloc(r->pool);
			if (m == NULL)
				continue;
			ibex_credit_fc_fill(&p->credit, &p->credit_st, now_ns,
					    free_blocks, &msg);
			len = ibex_fcf_credit_build(rte_pktmbuf_mtod(m, void *),
						    rte_pktmbuf_tailroom(m),
						    p->mac, &msg);
			if (len < 0) {
				rte_pktmbuf_free(m);
				continue;
			}
			m->data_len = (uint16_t)len;
			m->pkt_len = (uint32_t)len;
			if (ibex_pdev_tx_burst(p->pid, 0, &m, 1) != 1) {
				rte_pktmbuf_free(m);
				continue;
			}
			r->rep.credit_tx++;
		}
	}
	if (r->opts.fc == IBEX_GEN_FC_CBFC)
		for (pi = 0; pi < r->nports; pi++)
			cbfc_housekeeping(r, &r->port[pi], now_ns);
	/* sparse turns: a paused port is awake */
	if (r->opts.fc == IBEX_GEN_FC_PFC)
		FOREACH_VISIT(r, pi)
			if (ibex_pfc_rx_lane(&r->port[pi].pfc_par,
					     &r->port[pi].pfc, r->opts.prio,
					     now_ns) == IBEX_PFC_PAUSED)
				r->rep.pfc_paused_ticks += now - r->hk_last;
	/* how long the loop was away since the last pass: on a shared CPU
	 * the emulation falls behind the wire by that much (a simulated
	 * loop is never away: the clock jumped over time it had promised
	 * to be idle) */
	if (!ibex_clock_is_virtual()) {
		if (now - r->hk_last > r->rep.stall_max)
			r->rep.stall_max = now - r->hk_last;
		if (now - r->hk_last >= r->stall_ticks)
			r->rep.stalls++;
	}
	r->hk_last = now;
	if (r->opts.dcqcn)
		for (i = 0; i < r->opts.nranks; i++) {
			ibex_dcqcn_tick(&r->dcq[i], now);
			r->tick_per_byte[i] = (double)r->hz / r->dcq[i].rc;
			if (r->rep.dcqcn_min_rate < 0 ||
			    r->dcq[i].rc < r->rep.dcqcn_min_rate)
				r->rep.dcqcn_min_rate = r->dcq[i].rc;
		}
}

/* One turn of the loop. */
static inline void
poll_once(struct ibex_gen_run *r)
{
	uint64_t now = ibex_clock_poll(), now_ns = tick_ns(r, now);
	unsigned int pi;

	r->drv->rx(r, now);
	FOREACH_VISIT(r, pi) {
		if (ibex_unlikely(r->rto))
			rto_scan(r, &r->port[pi], now);
		r->drv->tx(r, &r->port[pi], now, now_ns);
		port_settle(r, pi, now_ns);
	}
	if (now - r->hk_last >= r->hk_ticks)
		housekeeping(r, now, now_ns);
}

/* After the traffic: answer the NACKs (its senders' trimmed frames) and,
 * with --rto, the timeouts still queued at port @p p. @return true when
 * none is left and, with --rto, none of its frames is in flight. */
static bool
retx_drain(struct ibex_gen_run *r, struct gen_port *p, uint64_t now,
	   uint64_t now_ns)
{
	struct rte_mbuf *mb[BURST];
	unsigned int built;

	if (r->rto)
		rto_scan(r, p, now);
	if (p->retx_n == 0)
		return !r->rto || ibex_inflight_count(&p->infl) == 0;
	if (!tx_flush(r, p, now_ns) ||
	    rte_pktmbuf_alloc_bulk(r->pool, mb, BURST) != 0)
		return false;
	built = tx_retx(r, p, mb, BURST, now, now_ns);
	if (built < BURST)
		rte_pktmbuf_free_bulk(mb + built, BURST - built);
	if (built != 0) {
		memcpy(p->pend, mb, built * sizeof(mb[0]));
		p->npend = (uint16_t)built;
		tx_flush(r, p, now_ns);
	}
	return p->retx_n == 0 && (!r->rto || ibex_inflight_count(&p->infl) == 0);
}

/*
 * Under the virtual clock: may a waiting loop promise the executive that
 * it has nothing to do until its deadline, unless a frame arrives
 * (ibex_clock_idle_until())? Not while a port holds frames or is paused
 * (the pause ends on a timer of ours), nor with the timers housekeeping
 * keeps: credit updates (CF_Update, CC_Update) to send, DCQCN's rate
 * recovery.
 */
static bool
idle_until_frame(struct ibex_gen_run *r, uint64_t now_ns)
{
	unsigned int pi;

	if (!ibex_clock_is_virtual() || fc_credits(r) || r->opts.dcqcn)
		return false;
	FOREACH_VISIT(r, pi) {
		struct gen_port *p = &r->port[pi];

		if (p->npend != 0 || p->retx_n != 0 ||
		    (r->rto && ibex_inflight_count(&p->infl) != 0) ||
		    (r->opts.fc == IBEX_GEN_FC_PFC && port_paused(p, now_ns)))
			return false;
	}
	return true;
}

/* Listen (and flush) for @p ms more, so late frames are counted. */
static void
drain(struct ibex_gen_run *r, unsigned int ms)
{
	uint64_t end = ibex_clock_now() + r->hz * ms / 1000, now;
	unsigned int pi;

	while ((now = ibex_clock_poll()) < end) {
		uint64_t now_ns = tick_ns(r, now);
		unsigned int got = r->drv->rx(r, now);

		FOREACH_VISIT(r, pi) {
			tx_flush(r, &r->port[pi], now_ns);
			retx_drain(r, &r->port[pi], now, now_ns);
			port_settle(r, pi, now_ns);
		}
		/* Keep granting credit: a credit peer sends the tail only
		 * when our receive side frees room. */
		if (now - r->hk_last >= r->hk_ticks)
			housekeeping(r, now, now_ns);
		/* a simulated wait costs its frames, not its length */
		if (got == 0 && idle_until_frame(r, now_ns))
			ibex_clock_idle_until(end);
	}
}

/* Every rank says hello once (broadcast), so a learning switch knows
 * where each rank is before the measured traffic starts. On a credit port
 * the hello goes before any credit was exchanged (one block into an empty
 * buffer) but counts in FCTBS like every frame: the switch counts it in
 * its ABR, and a sender whose FCTBS leaves a frame out is a block behind
 * the limit the switch advertises for ever, where several workers never
 * reset ABR to it (that offset put the limit beyond a window and stopped
 * the senders). */
static void
announce(struct ibex_gen_run *r)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned int i;

	if (r->opts.no_hello)
		return;
	for (i = 0; i < r->opts.nranks; i++) {
		struct gen_port *p = &r->port[r->rank[i].port];
		struct rte_mbuf *m = rte_pktmbuf_alloc(r->pool);
		struct ibex_pkt_spec s = { .vlan = r->opts.frame.vlan,
			.pcp = r->opts.frame.pcp, .l3 = IBEX_L3_NONE,
			.ether_type = 0x88B6, .frame_len = 60 };
		uint32_t credits = 0;
		int len;

		if (m == NULL)
			continue;
		memcpy(s.dst, bcast, 6);
		memcpy(s.src, r->rank[i].mac, 6);
		len = ibex_pkt_build(rte_pktmbuf_mtod(m, void *), 64, &s);
		if (len < 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		/* CBFC: a hello is a frame like any other, under the send
		 * rule (a port of many ranks may run out before the last) */
		if (r->opts.fc == IBEX_GEN_FC_CBFC) {
			credits = ibex_cbfc_credits(&p->cbfc, (uint32_t)len);
			if (!ibex_cbfc_tx_ok(&p->cbfc, r->opts.vl, credits)) {
				r->rep.cbfc.stalls++;
				rte_pktmbuf_free(m);
				continue;
			}
		}
		if (ibex_pdev_tx_burst(p->pid, 0, &m, 1) != 1)
			rte_pktmbuf_free(m);
		else if (r->opts.fc == IBEX_GEN_FC_CREDIT)
			ibex_credit_tx_sent(&p->credit, r->opts.vl,
					    ibex_blocks((uint32_t)len));
		else if (r->opts.fc == IBEX_GEN_FC_CBFC)
			(void)ibex_cbfc_tx_take(&p->cbfc, r->opts.vl, credits);
	}
	drain(r, 20);
}

/*
 * Progress on stderr (--progress, or stdout on a terminal): sweeps and
 * searches run for minutes. Between sizes and trials only, never while
 * frames are in flight.
 */
static bool
progress_on(const struct ibex_gen_run *r)
{
	return r->opts.progress || isatty(STDOUT_FILENO);
}

static void
progress_size(const struct ibex_gen_run *r, unsigned int si)
{
	const struct ibex_gen_size_res *s = &r->rep.size[si];
	double t = 0, factor;
	unsigned int k;

	if (!progress_on(r) || s->iters == 0)
		return;
	for (k = 0; k < s->iters; k++)
		t += (double)s->ct[k];
	t /= s->iters;
	factor = ibex_gen_busbw_factor(r->opts.engine, r->opts.nranks);
	fprintf(stderr, "# [%u/%u] %10" PRIu64 " B: time %.2f us, busbw %.3f "
		"GB/s, %u failed\n", si + 1, r->rep.nsizes, s->bytes, t / 1e3,
		t > 0 ? (double)s->bytes / t * factor : 0, s->failed);
}

double
ibex_gen_run_progress(const struct ibex_gen_run *r)
{
	const struct ibex_coll *c = r->coll;
	uint32_t n = r->opts.warmup + r->opts.iters;
	double total = 0, done = 0, steps = 0;
	unsigned int si, k;

	if (r->opts.engine->coll == NULL || c == NULL ||
	    c->rank == NULL || c->nsteps == 0 || n == 0)
		return -1;
	/* an iteration's time grows with its bytes: weigh by them */
	for (si = 0; si < r->rep.nsizes; si++) {
		double b = (double)r->rep.size[si].bytes * n;

		total += b;
		if (si < r->coll_si)
			done += b;
	}
	for (k = 0; k < c->cfg.nranks; k++)
		steps += c->rank[k].state == IBEX_COLL_DONE ? c->nsteps :
			 c->rank[k].step;
	done += (double)r->rep.size[r->coll_si].bytes *
		(r->coll_it + steps / ((double)c->cfg.nranks * c->nsteps));
	return total > 0 ? RTE_MIN(done / total, 1.0) : -1;
}

/*
 * After a failed iteration: should the sweep go on? Not when --fail-stop
 * N iterations in a row received no frame at all (nothing gets through:
 * a dead link, a lane that drops, flow control that never lets a sender
 * go; waiting out every timeout of the sweep only hides it), nor when
 * every iteration of a size failed (its frames arrive but some never do:
 * the next, larger, sizes fare no better). @p dry counts the failed
 * iterations in a row without a frame. @return true to stop, with the
 * reason in the report.
 */
static bool
coll_fail_stop(struct ibex_gen_run *r, unsigned int si, uint32_t it,
	       uint32_t dry)
{
	const struct ibex_gen_opts *o = &r->opts;
	const struct ibex_gen_size_res *sr = &r->rep.size[si];
	const struct ibex_gen_meas *m = r->meas;
	uint32_t n = o->warmup + o->iters;
	char *why = r->rep.stop_reason;
	size_t len = sizeof(r->rep.stop_reason);

	if (!r->said_fail) {
		/* say it at once: a sweep with timeouts runs for minutes */
		r->said_fail = true;
		fprintf(stderr, "ibex-gen: %" PRIu64 " B: iteration %u did not "
			"complete within --timeout-ms %u (so far: tx %" PRIu64
			" rx %" PRIu64 " frames)%s\n", sr->bytes, it + 1,
			o->timeout_ms, m->tx_frames, m->rx_frames,
			o->fail_stop != 0 ? "" : "; --fail-stop 0: the sweep "
			"goes on whatever fails");
	}
	if (o->fail_stop == 0)
		return false;
	if (dry >= o->fail_stop)
		snprintf(why, len, "%u iterations in a row failed (--timeout-ms "
			 "%u) without a single frame received, at %" PRIu64
			 " B, iteration %u of %u; the generator sent %" PRIu64
			 " frames and received %" PRIu64 " in all", dry,
			 o->timeout_ms, sr->bytes, it + 1, n, m->tx_frames,
			 m->rx_frames);
	else if (it + 1 == n && sr->failed + sr->warm_failed == n)
		snprintf(why, len, "every iteration of %" PRIu64 " B failed "
			 "(%u of %u past --timeout-ms %u; frames arrive, but "
			 "not all of them); the generator sent %" PRIu64
			 " frames and received %" PRIu64 " in all", sr->bytes, n,
			 n, o->timeout_ms, m->tx_frames, m->rx_frames);
	else
		return false;
	fprintf(stderr, "ibex-gen: stopping early: %s\n", why);
	return true;
}

static void
run_coll(struct ibex_gen_run *r)
{
	const struct ibex_gen_opts *o = &r->opts;
	uint64_t timeout = r->hz * o->timeout_ms / 1000;
	unsigned int si;
	uint32_t it, dry = 0;
	bool reset_done = false;

	for (si = 0; si < r->rep.nsizes && !should_stop(r); si++) {
		struct ibex_coll_cfg cfg = {
			.algo = o->engine->coll, .nranks = o->nranks, .root = o->root,
			.bytes = r->rep.size[si].bytes,
			.payload_max = r->payload_max,
			.straggler = o->straggler,
			.seed = o->seed + si,
		};
		struct ibex_gen_size_res *sr = &r->rep.size[si];

		cfg.straggler.delay = (uint64_t)(o->straggler_us * (double)r->hz /
						 1e6);
		ibex_coll_fini(r->coll);
		if (ibex_coll_init(r->coll, &cfg) < 0) {
			GEN_LOG(ERR, "bad collective configuration\n");
			return;
		}
		/* this size's frames into this size's histogram */
		ibex_gen_meas_size_select(r->meas, si);
		for (it = 0; it < o->warmup + o->iters && !should_stop(r); it++) {
			uint64_t start, rx0 = r->meas->rx_frames;

			r->coll_si = si;
			r->coll_it = it;

			if (it == o->warmup) {
				/* latency of measured traffic only: every
				 * size's warm-up is left out */
				ibex_gen_meas_size_restart(r->meas);
				if (!reset_done) /* jitter: once */
					ibex_gen_meas_reset_latency(r->meas);
				reset_done = true;
			}
			start = ibex_clock_now();
			sr->tried++;
			ibex_coll_start(r->coll, start);
			wake_all(r);
			while (!ibex_coll_done(r->coll) && !should_stop(r)) {
				poll_once(r);
				if (ibex_unlikely(ibex_clock_now() - start > timeout))
					break;
			}
			if (!ibex_coll_done(r->coll)) {
				/* told to stop: not a failure of the network */
				if (should_stop(r))
					break;
				if (it >= o->warmup)
					sr->failed++;
				else
					sr->warm_failed++;
				/* let what is in flight come in and be
				 * counted as stale, not as the next one's */
				drain(r, DRAIN_MS);
				if (r->rto)
					rto_flush(r);
				dry = r->meas->rx_frames == rx0 ? dry + 1 : 0;
				if (coll_fail_stop(r, si, it, dry)) {
					sr->late = r->coll->rank[o->straggler.rank >= 0 ?
						o->straggler.rank : 0].late;
					progress_size(r, si);
					return;
				}
				continue;
			}
			dry = 0;
			if (it >= o->warmup)
				ibex_gen_report_iter(&r->rep, si, r->coll);
		}
		sr->late = r->coll->rank[o->straggler.rank >= 0 ?
					 o->straggler.rank : 0].late;
		progress_size(r, si);
	}
}

/* Has every frame of this trial's flows arrived? */
static bool
trial_all_in(const struct ibex_gen_run *r)
{
	uint64_t tx = 0, rx = 0;
	unsigned int i;

	for (i = 0; i < r->nrf; i++) {
		tx += r->rep.rflow_tx[i];
		rx += r->rep.rflow_rx[i];
	}
	return rx >= tx;
}

/* Listen (and flush) until every frame of the trial has arrived, or the
 * ports were quiet for DRAIN_QUIET_MS (DRAIN_QUIET_FC_MS with flow
 * control), at most DRAIN_MAX_MS (DRAIN_MAX_FC_MS): what the device under
 * test still held has arrived. A port still holding frames (paused, or TX
 * full) is not quiet. */
static void
drain_quiet(struct ibex_gen_run *r)
{
	bool fc = r->opts.fc != IBEX_GEN_FC_NONE;
	uint64_t t0 = ibex_clock_now(), last = t0, now = t0, now_ns;
	uint64_t quiet = r->hz * (r->opts.drain_quiet_ms != 0 ?
				  r->opts.drain_quiet_ms : fc ? DRAIN_QUIET_FC_MS :
				  DRAIN_QUIET_MS) / 1000,
		 max = r->hz * (r->opts.drain_max_ms != 0 ? r->opts.drain_max_ms :
				fc ? DRAIN_MAX_FC_MS : DRAIN_MAX_MS) / 1000;
	unsigned int pi;

	/* --rto: the trial's last losses are due again an RTO after they
	 * were sent; wait for two more */
	if (r->rto)
		max += 2 * r->port[0].infl.rto;
	while (now - last < quiet && now - t0 < max && !trial_all_in(r)) {
		uint64_t prev = now;

		now_ns = tick_ns(r, now);
		if (r->drv->rx(r, now) > 0)
			last = now;
		for (pi = 0; pi < r->nports; pi++)
			if (!tx_flush(r, &r->port[pi], now_ns) ||
			    !retx_drain(r, &r->port[pi], now, now_ns))
				last = now;
		if (now - r->hk_last >= r->hk_ticks)
			housekeeping(r, now, now_ns);
		if (now != last && idle_until_frame(r, now_ns))
			ibex_clock_idle_until(RTE_MIN(last + quiet, t0 + max));
		now = ibex_clock_poll();
		/* a pass that took over a ms: this lcore was off its CPU and
		 * could not listen meanwhile, so that time was not quiet (a
		 * virtual clock jumps over quiet time instead) */
		if (now - prev > r->hz / 1000 && !ibex_clock_is_virtual())
			last += now - prev;
	}
}

/* Counts of one trial, summed over the flows. */
struct trial_res {
	uint64_t tx;
	uint64_t rx;
	double secs;
	double offered_pps;
	double p50_ns, p99_ns, max_ns;
};

/* Have this trial's flows sent @p budget frames (0: no budget)? */
static bool
trial_budget_spent(const struct ibex_gen_run *r, uint64_t budget)
{
	uint64_t sent = 0;
	unsigned int i;

	if (budget == 0)
		return false;
	for (i = 0; i < r->nrf; i++)
		sent += r->rep.rflow_tx[i];
	return sent >= budget;
}

/*
 * One trial: every flow at its share of @p total_pps (0: flat out), for
 * @p secs, or, with @p frames > 0, @p frames per flow flat out (a burst);
 * a @p budget > 0 ends it once the flows sent that many frames together
 * (--frames). Then listen until the device under test is empty.
 */
static void
trial(struct ibex_gen_run *r, double total_pps, double secs, uint64_t frames,
      uint64_t budget, struct trial_res *res)
{
	const struct ibex_gen_opts *o = &r->opts;
	uint64_t start = ibex_clock_now(), now = start, end, left, lost = 0;
	const struct ibex_hist *h = &r->meas->lat;
	double offered = 0;
	unsigned int i;

	r->trial++;
	memset(r->rep.rflow_tx, 0, sizeof(r->rep.rflow_tx));
	memset(r->rep.rflow_rx, 0, sizeof(r->rep.rflow_rx));
	ibex_gen_meas_reset_latency(r->meas);
	for (i = 0; i < r->nrf; i++)
		ibex_hist_reset(&r->rep.rflow_lat[i]);
	for (i = 0; i < r->nrf; i++) {
		struct rflow_st *fl = &r->rf[i];
		double pps = 0;

		if (frames == 0 && o->search != IBEX_GEN_SEARCH_NONE)
			pps = total_pps * fl->weight;
		else if (frames == 0)
			pps = o->nrflows > 0 && o->rflow[i].pps > 0 ?
			      o->rflow[i].pps : total_pps / r->nrf;
		fl->left = frames > 0 ? frames : UINT64_MAX;
		fl->paced = pps > 0 &&
			    ibex_pacer_init(&fl->pacer, r->hz, pps, o->burst,
					    o->poisson, o->seed + i, start) == 0;
		offered += fl->paced ? pps : 0;
	}
	r->rep.offered_pps = offered;
	end = start + (uint64_t)(secs * (double)r->hz);
	while (!should_stop(r)) {
		poll_once(r);
		now = ibex_clock_now();
		if (frames > 0) {
			for (i = 0, left = 0; i < r->nrf; i++)
				left += r->rf[i].left;
			if (left == 0 || now >= end)
				break;
		} else if (now >= end || trial_budget_spent(r, budget)) {
			break;
		}
	}
	/* stop sending: nothing more is due in this trial */
	for (i = 0; i < r->nrf; i++)
		r->rf[i].left = 0;
	res->secs = (double)(now - start) / (double)r->hz;
	drain_quiet(r);
	res->tx = res->rx = 0;
	for (i = 0; i < r->nrf; i++) {
		res->tx += r->rep.rflow_tx[i];
		res->rx += r->rep.rflow_rx[i];
		r->rep.pacer_resync += r->rf[i].paced ? r->rf[i].pacer.resync : 0;
		if (r->rf[i].paced)
			lost = RTE_MAX(lost, r->rf[i].pacer.lost);
	}
	r->rep.pacer_lost_s = (double)lost / (double)r->hz;
	res->offered_pps = res->secs > 0 ? res->tx / res->secs : 0;
	res->p50_ns = (double)ibex_hist_quantile(h, 0.5) * r->ns_per_tick;
	res->p99_ns = (double)ibex_hist_quantile(h, 0.99) * r->ns_per_tick;
	res->max_ns = (double)ibex_hist_max(h) * r->ns_per_tick;
}

static void
note_latency(struct ibex_gen_search_res *sr, const struct trial_res *t)
{
	sr->lat_p50_ns = t->p50_ns;
	sr->lat_p99_ns = t->p99_ns;
	sr->lat_max_ns = t->max_ns;
}

static void
progress_trial(const struct ibex_gen_run *r, const struct ibex_gen_search_res *sr,
	       double pps, uint64_t frames, const struct trial_res *t, bool pass)
{
	if (!progress_on(r))
		return;
	if (frames > 0)
		fprintf(stderr, "# search %u B: trial %u, burst %" PRIu64 ": tx %"
			PRIu64 " rx %" PRIu64 " %s\n", sr->size, sr->trials,
			frames, t->tx, t->rx, pass ? "pass" : "loss");
	else
		fprintf(stderr, "# search %u B: trial %u at %.0f pps: tx %" PRIu64
			" rx %" PRIu64 " %s\n", sr->size, sr->trials, pps, t->tx,
			t->rx, pass ? "pass" : "loss");
}

/* Shortfall of a paced trial's offered rate below its target beyond which
 * the trial did not test the target: the search resolution, at least 2 %
 * (the pacer's own error at the generator's limit stays below that). */
static bool
trial_short(const struct ibex_gen_run *r, double target_pps,
	    const struct trial_res *t)
{
	double tol = RTE_MAX(r->opts.resolution, 0.02);

	return target_pps > 0 && t->offered_pps < target_pps * (1.0 - tol);
}

/*
 * The trial of search @p s at its current value; a failed trial runs again
 * up to --retries times (a shared host preempts the device under test now
 * and then: a loss it causes is not the device's), and so does one the
 * generator could not offer at the target rate (preempted itself, its
 * pacer resynchronised): a pass at a lower rate says nothing of the
 * target. When the retries run out the last trial stands, at the rate it
 * offered. @return pass.
 */
static bool
search_trial(struct ibex_gen_run *r, struct ibex_search *s, uint64_t frames,
	     struct trial_res *t, struct ibex_gen_search_res *sr)
{
	unsigned int k;
	bool pass = false, short_of;

	for (k = 0; k <= r->opts.retries && !should_stop(r); k++) {
		if (frames > 0)
			/* a burst never takes longer than this to leave */
			trial(r, 0, 10.0, frames, 0, t);
		else
			trial(r, s->cur, r->opts.trial_s, 0, 0, t);
		sr->trials++;
		pass = ibex_search_pass(s, t->tx, t->rx);
		short_of = frames == 0 && trial_short(r, s->cur, t);
		sr->short_trials += short_of;
		progress_trial(r, sr, s->cur, frames, t, pass);
		if (pass && !short_of)
			break;
	}
	return ibex_search_record(s, t->tx, t->rx);
}

/*
 * RFC 2544 throughput for one frame size. A flat-out trial measures what
 * the device forwards when overloaded; the upper end of the searches is
 * that received rate + 5 % (not above what was offered), or --max-rate.
 * NDR: binary search with zero loss; PDR: loss <= --pdr-loss, between NDR
 * and the upper end.
 */
static void
search_rate(struct ibex_gen_run *r, struct ibex_gen_search_res *sr)
{
	const struct ibex_gen_opts *o = &r->opts;
	struct trial_res top, t;
	struct ibex_search ndr, pdr;
	double ndr_off = 0, pdr_off = 0;

	trial(r, 0, o->trial_s, 0, 0, &top);
	sr->trials = 1;
	sr->flat_tx_pps = top.offered_pps;
	sr->flat_rx_pps = top.secs > 0 ? top.rx / top.secs : 0;
	sr->max_pps = o->max_pps > 0 ? o->max_pps :
		      RTE_MIN(sr->flat_rx_pps * 1.05, sr->flat_tx_pps);
	if (ibex_search_init(&ndr, 0, sr->max_pps, o->resolution * sr->max_pps,
			     0, false) < 0)
		return;
	while (!ndr.done && !should_stop(r)) {
		ibex_search_next(&ndr);
		if (search_trial(r, &ndr, 0, &t, sr)) {
			ndr_off = t.offered_pps;
			note_latency(sr, &t);
		}
	}
	sr->ndr_pps = ndr_off;
	sr->pdr_pps = ndr_off;
	sr->pdr_loss = 0;
	if (ndr.lo >= sr->max_pps ||
	    ibex_search_init(&pdr, ndr.lo, sr->max_pps,
			     o->resolution * sr->max_pps, o->pdr_loss,
			     false) < 0)
		return;
	while (!pdr.done && !should_stop(r)) {
		ibex_search_next(&pdr);
		if (search_trial(r, &pdr, 0, &t, sr))
			pdr_off = t.offered_pps;
	}
	if (pdr.lo > ndr.lo) {
		sr->pdr_pps = pdr_off;
		sr->pdr_loss = pdr.lo_loss;
	}
}

/*
 * RFC 8239 microburst: every flow sends one burst of B frames flat out at
 * the same time; the largest B with no loss, by binary search.
 */
static void
search_burst(struct ibex_gen_run *r, struct ibex_gen_search_res *sr)
{
	const struct ibex_gen_opts *o = &r->opts;
	struct ibex_search s;
	struct trial_res t;

	if (ibex_search_init(&s, 0, o->burst_max, 1, 0, true) < 0)
		return;
	while (!s.done && !should_stop(r)) {
		ibex_search_next(&s);
		if (search_trial(r, &s, (uint64_t)s.cur, &t, sr)) {
			note_latency(sr, &t);
		} else if (s.hi == s.cur) {
			sr->fail_tx = t.tx;
			sr->fail_rx = t.rx;
		}
	}
	sr->burst = (uint32_t)s.lo;
	sr->fail_burst = s.hi <= o->burst_max ? (uint32_t)s.hi : 0;
	sr->fail_loss = sr->fail_burst ? s.hi_loss : 0;
}

static void
run_rate(struct ibex_gen_run *r)
{
	const struct ibex_gen_opts *o = &r->opts;
	struct trial_res t;
	unsigned int i, n;

	if (o->search == IBEX_GEN_SEARCH_NONE) {
		trial(r, o->rate_pps, o->duration_s, 0, o->max_frames, &t);
		r->rep.elapsed_s = t.secs;
		return;
	}
	n = o->nsizes > 0 ? o->nsizes : 1;
	if (o->search == IBEX_GEN_SEARCH_BURST)
		n = 1;
	for (i = 0; i < n && !should_stop(r); i++) {
		struct ibex_gen_search_res *sr = &r->rep.search[i];

		sr->size = o->nsizes > 0 ? o->sizes[i] : o->frame_size + 4;
		r->frame_len = sr->size - 4;
		r->rep.nsearch = i + 1;
		if (o->search == IBEX_GEN_SEARCH_RATE)
			search_rate(r, sr);
		else
			search_burst(r, sr);
	}
}

/* Every frame size must hold at least the short probe. */
static int
rate_setup(struct ibex_gen_run *r, char *err, size_t errlen)
{
	const struct ibex_gen_opts *o = &r->opts;
	uint32_t smin = ibex_gen_short_min(&r->tmpl[0]), k;

	for (k = 0; k <= o->nsizes; k++) {
		uint32_t len = k < o->nsizes ? o->sizes[k] - 4 :
			       o->frame_size;

		if (len < smin) {
			snprintf(err, errlen, "frame size %u (without "
				 "FCS): a probe frame needs at least %u "
				 "bytes", len, smin);
			return -EINVAL;
		}
	}
	rflows_setup(r);
	return 0;
}

static int
coll_setup(struct ibex_gen_run *r, char *err, size_t errlen)
{
	(void)r;
	(void)err;
	(void)errlen;
	return 0;
}

/* ---- --engine inc: the ranks of an in-network all-reduce ---- */

/* inc's RTO without --rto, microseconds: a lost contribution or result
 * would otherwise stop the job (its slot never completes). */
#define INC_RTO_US 1000

/*
 * Build rank @p src's contribution @p h (its elements in r->inc_elems) in
 * @p m: from the rank's MAC and IPv4 address to the job's (the switch
 * takes it whatever the destination: docs/aggregation.md), UDP to port
 * 0xBEF0, the run's tag, DSCP and ECN. @return its length, or 0.
 */
static uint32_t
inc_frame(struct ibex_gen_run *r, struct rte_mbuf *m, unsigned int src,
	  const struct ibex_agg_hdr *h)
{
	const struct ibex_gen_opts *o = &r->opts;
	const struct ibex_gen_rank *rk = &r->rank[src];
	uint32_t l3 = IBEX_ETHER_HDR_LEN +
		      (o->frame.vlan >= 0 ? IBEX_VLAN_HDR_LEN : 0);
	uint32_t len = l3 + 28 + ibex_agg_pkt_len(h->count);
	struct ibex_pkt_spec sp = {
		.dst = { 0x02, 0, 0, 0x0e, 0xff, 0xff }, .vlan = o->frame.vlan,
		.pcp = o->frame.pcp, .l3 = IBEX_L3_IPV4, .dscp = o->frame.dscp,
		.ecn = o->frame.ecn, .src_ip4 = rk->ip4,
		.dst_ip4 = 0x0a0effff, .udp = true,
		.sport = (uint16_t)(0xc000 | (src & 0x3fff)),
		.dport = IBEX_UDP_PORT_AGG, .frame_len = len,
	};
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	memcpy(sp.src, rk->mac, 6);
	if (len > rte_pktmbuf_tailroom(m) ||
	    ibex_pkt_build(d, len, &sp) != (int)len ||
	    ibex_agg_build(d + l3 + 28, len - l3 - 28, h, r->inc_elems) !=
	    (int)(len - l3 - 28))
		return 0;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return len;
}

/* The port's ranks in turn: each contribution they may send now (a new
 * chunk, or one past its RTO), as flow control lets the port. */
static void
tx_inc(struct ibex_gen_run *r, struct gen_port *p, uint64_t now,
       uint64_t now_ns)
{
	struct rte_mbuf *mb[BURST];
	struct ibex_agg_hdr h;
	unsigned int built = 0, have = 0, idle = 0, ri = p->next_rank;
	uint32_t len, max_len = r->opts.mtu;

	if (!tx_flush(r, p, now_ns) || p->nranks == 0)
		return;
	while (built < BURST && idle < p->nranks) {
		unsigned int src = p->rank[ri];

		if (++ri == p->nranks)
			ri = 0;
		if (!fc_allows(r, p, max_len, 0, now_ns) ||
		    ibex_inc_next_due(r->inc, (uint16_t)src) > now) {
			idle++;
			continue;
		}
		if (!mb_more(r, mb, built, &have))
			break;
		if (!ibex_inc_next(r->inc, (uint16_t)src, now, &h,
				   r->inc_elems)) {
			idle++;
			continue;
		}
		idle = 0;
		len = inc_frame(r, mb[built], src, &h);
		if (len == 0)
			continue;
		/* each chunk once, whichever copy its result answers (as
		 * --rto counts a collective's frames); resends are the
		 * # inc: line's "again" */
		if (!(h.flags & IBEX_AGG_F_RETX)) {
			r->meas->tx_frames++;
			r->meas->tx_bytes += len;
			r->meas->tx_payload += 4u * h.count;
		}
		sent_frame(r, p, src, 0, len, now);
		built++;
	}
	p->next_rank = (uint16_t)ri;
	if (built < have)
		rte_pktmbuf_free_bulk(mb + built, have - built);
	if (built == 0)
		return;
	memcpy(p->pend, mb, built * sizeof(mb[0]));
	p->npend = (uint16_t)built;
	tx_flush(r, p, now_ns);
}

/* The report's inc counters: the ranks', summed. */
static void
inc_totals(struct ibex_gen_run *r)
{
	struct ibex_gen_inc_figs *f = &r->rep.inc;
	uint16_t k;

	memset(f, 0, sizeof(*f));
	if (r->inc->rank == NULL)
		return;
	f->njobs = r->inc->njobs;
	for (k = 0; k < r->inc->njobs; k++) {
		f->job[k].id = r->inc->job[k].id;
		f->job[k].ranks = r->inc->job[k].nranks;
		f->job[k].slots = r->inc->job[k].slots;
	}
	for (k = 0; k < r->inc->cfg.nranks; k++) {
		const struct ibex_inc_rank_stats *st = ibex_inc_stats(r->inc, k);

		f->sent += st->sent;
		f->resent += st->resent;
		f->results += st->results;
		f->wrong += st->wrong;
		f->elems_wrong += st->elems_wrong;
		f->stale += st->stale;
		f->bad += st->bad;
	}
}

/* Size @p si's job: its ranks for that message. @return 0 or -EINVAL. */
static int
inc_size(struct ibex_gen_run *r, unsigned int si)
{
	const struct ibex_gen_opts *o = &r->opts;
	struct ibex_inc_cfg cfg = {
		.nranks = o->nranks, .job = o->agg_job,
		.dtype = o->agg_int32 ? IBEX_AGG_INT32 : IBEX_AGG_FP32,
		.elems = (r->rep.size[si].bytes + 3) / 4,
		.chunk = (uint16_t)o->agg_elements,
		.slots = (uint16_t)o->agg_slots,
		.rto = (uint64_t)((o->rto_us > 0 ? o->rto_us : INC_RTO_US) *
				  (double)r->hz / 1e6),
		.seed = o->seed + si, .child = o->agg_child,
		.straggler = o->straggler, .rank_job = o->agg_rank_job,
		.rank_slots = o->agg_rank_slots,
	};

	cfg.straggler.delay = (uint64_t)(o->straggler_us * (double)r->hz / 1e6);

	/* One job for the whole sweep: the switches' slots number their
	 * uses on from size to size. */
	if (r->inc->rank != NULL)
		return ibex_inc_resize(r->inc, cfg.elems, cfg.seed);
	return ibex_inc_init(r->inc, &cfg) < 0 ? -EINVAL : 0;
}

/* Under the virtual clock: nothing to send before the ranks' next due
 * instant (a straggler's delay, an RTO) unless a result arrives; say so,
 * so that the executive wakes the ranks then and not on its next tick.
 * Nothing due: until @p until (the iteration's timeout). */
static void
inc_promise(struct ibex_gen_run *r, uint64_t until)
{
	uint64_t now = ibex_clock_now(), next = until, t;
	uint16_t k;

	if (!ibex_clock_is_virtual() || !idle_until_frame(r, tick_ns(r, now)))
		return;
	for (k = 0; k < r->inc->cfg.nranks; k++) {
		t = ibex_inc_next_due(r->inc, k);
		if (t <= now)
			return;
		if (t < next)
			next = t;
	}
	ibex_clock_idle_until(next);
}

/* The straggler's late starts so far (the job's counters run on across
 * sizes). */
static uint64_t
inc_late(const struct ibex_gen_run *r)
{
	int k = r->opts.straggler.rank;

	return k >= 0 && r->inc->rank != NULL ?
	       ibex_inc_stats(r->inc, (uint16_t)k)->late : 0;
}

/* An inc iteration past --timeout-ms ends the sweep, saying why. */
static void
inc_stop(struct ibex_gen_run *r, unsigned int si, uint32_t it, uint64_t rx0)
{
	const struct ibex_gen_opts *o = &r->opts;

	/* (at most 214 bytes of the 256) */
	snprintf(r->rep.stop_reason, sizeof(r->rep.stop_reason),
		 "inc: iteration %u of %u at %" PRIu64 " B past --timeout-ms "
		 "%u, %" PRIu64 " frames in it (a loss past --rto? --agg-* not "
		 "the switches' job?); its slots are out of step",
		 it + 1, o->warmup + o->iters, r->rep.size[si].bytes,
		 o->timeout_ms, r->meas->rx_frames - rx0);
	fprintf(stderr, "ibex-gen: stopping early: %s\n", r->rep.stop_reason);
}

/* Each size in turn, its iterations as a collective's (warm-up,
 * timeout): an iteration ends when every rank holds every result. One
 * with a wrong element is failed; one past the timeout ends the sweep. */
static void
run_inc(struct ibex_gen_run *r)
{
	const struct ibex_gen_opts *o = &r->opts;
	uint64_t timeout = r->hz * o->timeout_ms / 1000;
	unsigned int si;
	uint32_t it;
	bool stop = false;

	for (si = 0; si < r->rep.nsizes && !should_stop(r) && !stop; si++) {
		struct ibex_gen_size_res *sr = &r->rep.size[si];
		uint64_t late0;

		if (inc_size(r, si) < 0) {
			GEN_LOG(ERR, "bad in-network all-reduce configuration\n");
			return;
		}
		late0 = inc_late(r);
		ibex_gen_meas_size_select(r->meas, si);
		for (it = 0; it < o->warmup + o->iters && !should_stop(r); it++) {
			uint64_t start, rx0 = r->meas->rx_frames;
			uint64_t wrong0 = r->rep.inc.wrong;

			r->coll_si = si;
			r->coll_it = it;
			start = ibex_clock_now();
			sr->tried++;
			ibex_inc_start(r->inc, start);
			wake_all(r);
			while (!ibex_inc_done(r->inc) && !should_stop(r)) {
				poll_once(r);
				if (ibex_unlikely(ibex_clock_now() - start >
						  timeout))
					break;
				inc_promise(r, start + timeout);
			}
			/* (a promise left by a stopped loop is not the
			 * drain's) */
			ibex_clock_idle_until(0);
			inc_totals(r);
			if (ibex_inc_done(r->inc) && r->rep.inc.wrong == wrong0) {
				if (it >= o->warmup)
					ibex_gen_report_iter_inc(&r->rep, si,
								 r->inc);
				continue;
			}
			if (should_stop(r))
				break;
			if (it >= o->warmup)
				sr->failed++;
			else
				sr->warm_failed++;
			if (ibex_inc_done(r->inc))
				continue;   /* wrong sums: counted, go on */
			/* Its unfinished slots hold uses the switches may
			 * have moved past: the job is out of step, no later
			 * iteration could be trusted. */
			drain(r, DRAIN_MS);
			inc_stop(r, si, it, rx0);
			stop = true;
			break;
		}
		inc_totals(r);
		sr->late = inc_late(r) - late0;
		progress_size(r, si);
	}
}

static int
inc_setup(struct ibex_gen_run *r, char *err, size_t errlen)
{
	const struct ibex_gen_opts *o = &r->opts;
	uint32_t frame = IBEX_ETHER_HDR_LEN +
			 (o->frame.vlan >= 0 ? IBEX_VLAN_HDR_LEN : 0) + 28 +
			 ibex_agg_pkt_len(o->agg_elements);
	/* (ibex-fabric sets the elements after the options' checks; the
	 * pool's mbufs hold --mtu) */
	if (frame > o->mtu) {
		snprintf(err, errlen, "--engine inc: a packet of %u elements "
			 "takes %u bytes, more than --mtu %u", o->agg_elements,
			 frame, o->mtu);
		return -EINVAL;
	}
	r->inc = calloc(1, sizeof(*r->inc));
	if (r->inc == NULL) {
		snprintf(err, errlen, "out of memory for --engine inc");
		return -ENOMEM;
	}
	return 0;
}

static const struct gen_driver inc_driver = {
	.setup = inc_setup, .rx = rx_coll, .tx = tx_inc, .run = run_inc,
};

static const struct gen_driver coll_driver = {
	.setup = coll_setup, .rx = rx_coll, .tx = tx_coll, .run = run_coll,
};

static const struct gen_driver rate_driver = {
	.setup = rate_setup, .rx = rx_rate, .tx = tx_rate, .run = run_rate,
};

/* DCQCN's parameters for a line of @p mbps, its times scaled by
 * --dcqcn-scale (an emulated fabric slowed down that much). */
static void
dcqcn_params(const struct ibex_gen_run *r, uint32_t mbps,
	     struct ibex_dcqcn_params *dp)
{
	double k = r->opts.dcqcn_scale > 0 ? r->opts.dcqcn_scale : 1;

	ibex_dcqcn_defaults(dp, mbps * 1e6 / 8, r->hz);
	dp->alpha_period = (uint64_t)((double)dp->alpha_period * k);
	dp->inc_period = (uint64_t)((double)dp->inc_period * k);
}

/* The ports' CBFC counters, summed into the report (SAI's names). */
static void
cbfc_totals(struct ibex_gen_run *r)
{
	struct ibex_gen_cbfc_figs *c = &r->rep.cbfc;
	unsigned int pi, vc;

	for (pi = 0; pi < r->nports; pi++) {
		const struct ibex_cbfc_stats *st = &r->port[pi].cbfc.st;

		c->cc_update_tx += st->cc_update_tx;
		c->cc_update_rx += st->cc_update_rx;
		c->cf_update_tx += st->cf_update_tx;
		c->cf_update_rx += st->cf_update_rx;
		c->cf_update_bad += st->cf_update_bad;
		c->cc_update_bad += st->cc_update_bad;
		c->link_resets += st->link_resets;
		for (vc = 0; vc < IBEX_CBFC_MAX_VCS; vc++)
			c->leaked_recovered += st->vc[vc].leaked_recovered;
	}
}

int
ibex_gen_run_main(void *arg)
{
	struct ibex_gen_run *r = arg;
	struct ibex_dcqcn_params dp;
	uint64_t now = ibex_clock_now();
	unsigned int i;

	rte_rcu_qsbr_thread_online(r->qsbr, 0);
	r->hk_last = now;
	r->hk_ticks = r->hz / (1000000000 / HK_NS);
	r->stall_ticks = r->hz / 1000000 * IBEX_GEN_STALL_US;
	for (i = 0; i < r->opts.nranks; i++) {
		/* each rank's line rate is its port's */
		dcqcn_params(r, r->port[r->rank[i].port].mbps, &dp);
		ibex_dcqcn_init(&r->dcq[i], &dp, now);
		r->tick_per_byte[i] = (double)r->hz / r->dcq[i].rc;
	}
	if (r->opts.fc == IBEX_GEN_FC_CREDIT) {
		/* tell the peer our limits before anything else */
		housekeeping(r, now, tick_ns(r, now));
	}
	announce(r);
	r->drv->run(r);
	r->rep.run_s = (double)(ibex_clock_now() - now) / (double)r->hz;
	drain(r, DRAIN_MS);
	/* every frame is in: the whole run is the sum of the sizes */
	ibex_gen_meas_sizes_fold(r->meas);
	for (i = 0; i < r->nports; i++)
		r->rep.tx_full += r->port[i].tx_full;
	if (r->opts.fc == IBEX_GEN_FC_CBFC)
		cbfc_totals(r);
	for (i = 0; i < r->opts.nranks; i++)
		r->rep.dcqcn_cuts += r->dcq[i].cuts;
	rte_rcu_qsbr_thread_offline(r->qsbr, 0);
	r->finished = true;
	return 0;
}

void
ibex_gen_run_set_meta(struct ibex_gen_run *r, const char *meta)
{
	r->opts.meta = meta;
}

int
ibex_gen_run_report(struct ibex_gen_run *r, FILE *f)
{
	const struct ibex_gen_opts *o = &r->opts;
	struct ibex_seq_counters sc;
	unsigned int i;
	int ret, clean = 1;

	ibex_gen_report_print(f, &r->rep);
	if (o->json != NULL && (ret = ibex_gen_report_json(&r->rep, o->json)) < 0) {
		fprintf(stderr, "ibex-gen: %s: %s\n", o->json, strerror(-ret));
		return ret;
	}
	if (o->csv != NULL && (ret = ibex_gen_report_csv(&r->rep, o->csv)) < 0) {
		fprintf(stderr, "ibex-gen: %s: %s\n", o->csv, strerror(-ret));
		return ret;
	}
	if (o->plot_dir != NULL) {
		ret = ibex_gen_report_plot(&r->rep, o->plot_dir);
		if (ret == IBEX_GEN_PLOT_NO_GNUPLOT)
			fprintf(stderr, "ibex-gen: gnuplot not found: data and "
				"script only in %s\n", o->plot_dir);
		else if (ret < 0)
			fprintf(stderr, "ibex-gen: plots in %s: %s\n",
				o->plot_dir, strerror(-ret));
		else
			fprintf(f, "# plots: %s/latency_cdf.{png,svg}%s\n",
				o->plot_dir, r->rep.nsizes ?
				", completion_cdf.{png,svg}" : "");
	}
	ibex_gen_meas_seq_total(r->meas, &sc);
	if (sc.lost != 0 || sc.duplicate != 0 || !r->finished)
		clean = 0;
	/* a search loses frames on purpose: done is clean */
	if (o->search != IBEX_GEN_SEARCH_NONE)
		clean = r->finished && r->rep.nsearch ==
			(o->search == IBEX_GEN_SEARCH_RATE && o->nsizes > 0 ?
			 o->nsizes : 1);
	for (i = 0; i < r->rep.nsizes; i++)
		if (r->rep.size[i].failed != 0 ||
		    r->rep.size[i].iters != o->iters)
			clean = 0;
	/* inc: a result with a wrong element, or refused, is a failure
	 * whatever the iterations say */
	if (r->inc != NULL &&
	    (r->rep.inc.wrong != 0 || r->rep.inc.bad != 0))
		clean = 0;
	return clean ? 0 : 1;
}
