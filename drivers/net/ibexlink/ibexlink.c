/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ibexlink: a pair of ethdev ports joined by an emulated wire.
 *
 *   --vdev net_ibexlink0,rate=100G,delay=500ns
 *   --vdev net_ibexlink1,peer=net_ibexlink0
 *
 * Each direction is a wire (ibexlink_model.h): frames get a departure and an
 * arrival time when the sending MAC puts them on the wire, travel in a
 * lock-free single-producer single-consumer ring, and the receiver's RX
 * returns a frame only once its last bit has arrived.
 *
 * Sending MAC. A port's TX queues (one per worker, as ibex configures them)
 * share one wire. Whichever thread holds the port's MAC flag (an atomic
 * test-and-set, tried once per burst, never waited on) commits frames to the
 * wire; a TX queue that finds the flag taken parks its burst in its own
 * staging ring, which the holder drains. Without PFC a frame is committed at
 * once while fewer than the TX ring's descriptors are waiting for the wire,
 * and refused beyond that, as a full NIC TX ring refuses. With pfc=on every
 * TX queue has a staging ring per priority (802.1Q PCP; untagged is 0), the
 * MAC consumes received PFC frames and commits frames of unpaused
 * priorities, round robin, at most pfc_window ahead of the present: a pause
 * stops everything not yet committed.
 *
 * Link-level retry (llr=, docs/llr.md): the sending MAC numbers each frame
 * with lib/llr, keeps a reference to it until the peer acknowledges it and
 * replays what the library names ahead of new frames; a frame the wire
 * loses or corrupts reaches the receiving MAC as a bad FCS, which asks for
 * it again. ACK, NACK, INIT and INIT_ECHO travel back as control ordered
 * sets on a queue of their own with arrival times, taking no frame slot.
 *
 * Locking: the MAC flag (acquire on taking, release on clearing) orders all
 * wire state, its counters and the staging rings' consumer side; under LLR
 * it also guards the port's LLR state, receiving side included (lib/llr
 * keeps both directions in one struct). Rings publish with
 * release/acquire; counters read by stats_get are relaxed atomics.
 * Primary process only.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_kvargs.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "ibex_clock.h"
#include "ibex_llr.h"
#include "ibex_pdev.h"
#include "ibexlink_sdk.h"
#include "ibexlink_model.h"
#include "ibex_fcframe.h"
#include "ibexlink.h"

RTE_LOG_REGISTER(ibexlink_logtype, pmd.net.ibexlink, INFO);
#define LINK_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ibexlink_logtype, "ibexlink: " fmt "\n", \
		##__VA_ARGS__)

#define IBEXLINK_MAX_TXQ   16
/* Staging rings of a TX queue: one per priority and one for MAC control
 * frames (PFC the host sends), which a pause does not hold. */
#define IBEXLINK_CTRL      IBEXLINK_PRIOS
#define IBEXLINK_STAGES    (IBEXLINK_PRIOS + 1)
#define IBEXLINK_DESC_MAX  4096
#define IBEXLINK_DESC_DEF  1024
#define IBEXLINK_BURST     32
/* The largest frame carried between processes (a 9,216-byte jumbo and
 * room to spare). */
#define IBEXLINK_CARRY_MAX 16384
/** Frames the wire ring holds beyond those in flight: committed frames not
 * yet started and arrived frames not yet polled (a receiver that stops
 * polling loses frames past this: counted as its imissed). */
#define IBEXLINK_RING_SLACK (2 * IBEXLINK_DESC_MAX)
#define IBEXLINK_RING_MAX  (UINT32_C(1) << 22)

static const char *const valid_args[] = {
	IBEXLINK_ARG_PEER, IBEXLINK_ARG_RATE, IBEXLINK_ARG_DELAY,
	IBEXLINK_ARG_JITTER, IBEXLINK_ARG_LOSS, IBEXLINK_ARG_CORRUPT,
	IBEXLINK_ARG_SEED, IBEXLINK_ARG_PFC, IBEXLINK_ARG_PFC_WINDOW,
	IBEXLINK_ARG_TX_WINDOW, IBEXLINK_ARG_RING_SLACK, IBEXLINK_ARG_LLR,
	IBEXLINK_ARG_LLR_FRAMES, IBEXLINK_ARG_LLR_BYTES, IBEXLINK_ARG_LLR_TIMER,
	IBEXLINK_ARG_LLR_COUNT, IBEXLINK_ARG_LLR_AGE, IBEXLINK_ARG_LLR_SPACING,
	IBEXLINK_ARG_LLR_INIT, IBEXLINK_ARG_LLR_FLUSH, IBEXLINK_ARG_CBFC_OS,
	NULL,
};

/* Which parameters a device's devargs gave (the rest come from its peer). */
enum {
	GAVE_RATE = 1 << 0, GAVE_DELAY = 1 << 1, GAVE_JITTER = 1 << 2,
	GAVE_LOSS = 1 << 3, GAVE_CORRUPT = 1 << 4, GAVE_SEED = 1 << 5,
	GAVE_PFC = 1 << 6, GAVE_WINDOW = 1 << 7, GAVE_TX_WINDOW = 1 << 8,
	GAVE_LLR = 1 << 9,
};

/* The LLR profile's attributes a device may override (llr_*=), in the
 * order of llr_keys[]; bit i of a port's llr_gave. */
enum {
	LLR_OV_FRAMES, LLR_OV_BYTES, LLR_OV_TIMER, LLR_OV_COUNT, LLR_OV_AGE,
	LLR_OV_SPACING, LLR_OV_INIT, LLR_OV_FLUSH, LLR_OV_N,
};

struct ibexlink_port;

/* Counters of one direction, each with one writer at a time. */
struct ibexlink_dir_stats {
	_Atomic uint64_t frames, bytes;   /* committed to the wire */
	_Atomic uint64_t lost;            /* dropped by the receiving MAC */
	_Atomic uint64_t corrupted;       /* delivered with a bit flipped */
	_Atomic uint64_t overflow;        /* receiver's ring full */
	_Atomic uint64_t link_down;       /* refused: peer not started */
	_Atomic uint64_t cf_os, cf_os_lost; /* CF_Update ordered sets */
	_Atomic uint64_t q_frames[IBEXLINK_MAX_TXQ], q_bytes[IBEXLINK_MAX_TXQ];
};

/* One direction: the sending port's MAC and the wire to its peer. */
struct ibexlink_dir {
	atomic_flag mac_busy;
	bool llr;                 /* LLR tags frames: a fault is a bad FCS */
	struct ibexlink_wire wire;
	struct ibexlink_ring *ring;
	struct ibexlink_ring *ctl; /* LLR CtlOS to the peer, by arrival */
	/* CBFC CF_Update ordered sets to the peer, by arrival: made at the
	 * first one (most links never carry any) */
	struct ibexlink_ring *_Atomic cf;
	atomic_flag cf_busy;      /* the queue's producer (not the MAC's flag:
				     the wire's frames do not hold it back) */
	uint64_t cf_last_ps;      /* arrival of the last one sent */
	uint64_t cf_rng;          /* their fault generator */
	uint64_t *started;        /* start times of the last `desc` frames */
	uint32_t desc, next;      /* TX descriptors; next history slot */
	uint32_t rr;              /* round-robin position over staging rings */
	bool tx_windowed;         /* tx_window given: commit only near the wire */
	uint64_t tx_window_ps;
	struct ibexlink_pause pause; /* written by the sender's own RX */
	struct ibexlink_dir_stats st;
} __rte_cache_aligned;

struct ibexlink_txq {
	struct ibexlink_port *port;
	uint16_t qid;
	uint16_t nb_desc;
	_Atomic uint64_t parked;  /* frames parked while another queue sent */
	/* per priority, then MAC control frames (never paused) */
	struct rte_ring *stage[IBEXLINK_STAGES];
};

struct ibexlink_rxq {
	struct ibexlink_port *port;
	struct rte_mempool *mp;
	int ts_off;               /* RX timestamp dynfield, -1 if off */
	uint64_t ts_flag;
	_Atomic uint64_t frames, bytes, pfc_frames;
	_Atomic uint64_t cf_os;   /* CF_Update ordered sets delivered */
	_Atomic uint64_t cf_os_nobuf; /* ... not, for want of an mbuf */
} __rte_cache_aligned;

/*
 * Link-level retry of one port: lib/llr's state machines of its sending
 * direction (frames it protects) and its receiving one (frames its peer
 * protects), the frames it keeps for a replay, and what it needs to send
 * control ordered sets. Under the port's MAC flag; the counters are read
 * by stats with relaxed loads.
 */
struct ibexlink_llr {
	struct ibex_llr_port l;
	struct rte_mbuf **buf;    /* replay buffer, by seq % max_frames */
	uint32_t kept;            /* oldest sequence buf still holds */
	bool tx_on;               /* this port's sending direction protected */
	bool rx_on;               /* the peer's */
	bool held;                /* a frame was held: wake when ACKs come */
	_Atomic bool restart;     /* the peer started again: INIT again */
	uint64_t rng;             /* fault generator of the CtlOS */
	uint64_t ctl_last_ps;     /* arrival of the last CtlOS sent */
	uint64_t wake_ps;         /* virtual clock: the wake last asked for */
	uint64_t seen_ps;         /* TSC: the port's last burst */
	uint64_t ctl_lost;        /* CtlOS sent and lost on the wire */
	uint64_t replay_nobuf;    /* replays without an mbuf for the clone */
};

struct ibexlink_port {
	char name[RTE_ETH_NAME_MAX_LEN];
	char peer_name[RTE_ETH_NAME_MAX_LEN];
	unsigned int gave;
	struct ibexlink_params p;
	/* llr= as given (NULL: off) and resolved with the peer's */
	const struct ibex_llr_profile *llr_preset;
	unsigned int llr_gave;    /* LLR_OV_* bits given */
	uint64_t llr_ov[LLR_OV_N];
	struct ibex_llr_profile llr_p;
	bool pfc;
	bool cf_frames;           /* cbfc_os=off: CF_Update stays a frame */
	uint64_t window_ps;
	uint64_t tx_window_ps;    /* tx_window: this end's own, not its peer's */
	uint32_t owner;           /* virtual clock: who polls it (ibex_clock_wake) */
	uint32_t ring_slack;      /* ring_slack: this end's own; 0: default */
	struct rte_eth_dev *eth;  /* NULL for an in-process device */
	uint16_t port_id;         /* ethdev id, or ibex_pdev id */
	struct ibexlink_port *peer;
	struct ibexlink_dir *tx;  /* this port -> peer (owned by this port) */
	struct ibexlink_llr *llr; /* NULL: no LLR either way */
	_Atomic bool started;
	_Atomic bool staged;      /* a staging ring may hold frames */
	uint16_t nb_txq;
	struct ibexlink_txq *txq[IBEXLINK_MAX_TXQ];
	struct ibexlink_rxq rxq;
	struct rte_ether_addr mac;
	uint64_t *base;           /* counters at the last reset (C_COUNT) */
	TAILQ_ENTRY(ibexlink_port) next;
};

/* Every ibexlink port, for pairing at probe time (EAL probes and removes
 * devices from one thread). */
static TAILQ_HEAD(, ibexlink_port) ports = TAILQ_HEAD_INITIALIZER(ports);
static struct ibexlink_clock link_clock;
static bool link_clock_set;

static inline uint64_t
now_ps(void)
{
	return ibexlink_clock_ps(&link_clock, ibex_clock_now());
}

/* Under the virtual clock: what the executive asks (ibexlink.h). One
 * lcore runs every port then, so plain counters do. */
static uint64_t virt_commits, virt_takes, virt_ctl;

uint64_t
ibexlink_activity(void)
{
	/* a CtlOS taken may let held frames go at this very instant */
	return virt_commits + virt_takes + virt_ctl;
}

uint64_t
ibexlink_frame_hops(void)
{
	return virt_commits;
}

/* ---- frames ---- */

/* 802.1Q PCP of a frame; untagged frames are priority 0. */
static inline unsigned int
frame_prio(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	const struct rte_vlan_hdr *vh;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*vh))
		return 0;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN) &&
	    eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_QINQ))
		return 0;
	vh = (const struct rte_vlan_hdr *)(eh + 1);
	return rte_be_to_cpu_16(vh->vlan_tci) >> 13;
}

/* Staging ring of a frame: MAC control (EtherType 0x8808, untagged, as
 * PFC is sent) or its priority. */
static inline unsigned int
frame_stage(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;

	if (rte_pktmbuf_data_len(m) >= sizeof(*eh)) {
		eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		if (eh->ether_type == RTE_BE16(0x8808))
			return IBEXLINK_CTRL;
	}
	return frame_prio(m);
}

/* Flip one bit of a frame; a shared or indirect mbuf is copied first so no
 * other port's copy changes. Returns the frame to send. */
static struct rte_mbuf *
frame_corrupt(struct rte_mbuf *m, uint32_t bit)
{
	struct rte_mbuf *seg;
	uint32_t off = bit / 8;

	if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) > 1) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);

		if (c == NULL)
			return m; /* no buffer: send it unchanged */
		rte_pktmbuf_free(m);
		m = c;
	}
	for (seg = m; seg != NULL; seg = seg->next) {
		if (off < seg->data_len) {
			*rte_pktmbuf_mtod_offset(seg, uint8_t *, off) ^=
				(uint8_t)(1u << (bit % 8));
			break;
		}
		off -= seg->data_len;
	}
	return m;
}

/*
 * LLR on the wire. A frame's sequence travels in an mbuf dynfield (its
 * 19 bits, and LLR_TAG_PROT when the frame is protected), written by the
 * sending MAC before each send. A frame the wire loses or corrupts under
 * LLR is replaced on the wire by a marker, an odd pointer (mbufs are
 * aligned) saying whether it was protected: the receiving MAC sees a
 * frame with a bad FCS, and the sender still has the frame itself.
 */
#define LLR_TAG_PROT      (UINT32_C(1) << 31)
#define LLR_BAD           ((uintptr_t)1)
#define LLR_BAD_PROT      ((uintptr_t)2)

static int llr_tag_off = -1;

static inline uint32_t *
llr_tag(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, llr_tag_off, uint32_t *);
}

static inline bool
obj_is_bad(const void *obj)
{
	return ((uintptr_t)obj & LLR_BAD) != 0;
}

/* Free what the wire carries: a frame, or nothing for a marker. */
static inline void
obj_free(void *obj)
{
	if (!obj_is_bad(obj))
		rte_pktmbuf_free(obj);
}

/* ---- the sending MAC (caller holds the MAC flag) ---- */

static inline void
count_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) +
			      v, memory_order_relaxed);
}

/* Room for one more frame in the TX ring (no PFC): fewer than `desc`
 * committed frames have not started; with tx_window, also the wire frees
 * within the window (a switch's egress, whose frames wait in its own
 * queues, not in a FIFO after the scheduler). */
static inline bool
window_open(const struct ibexlink_dir *d, uint64_t now)
{
	return d->started[d->next] < now &&
	       (!d->tx_windowed || d->wire.free_ps <= now + d->tx_window_ps);
}

/* Link-level flow control: MAC control (PFC, 0x8808) or ibex's credit
 * frames (0x88B5), which a link sends ahead of its data. */
static inline bool
frame_link_ctrl(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh))
		return false;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	return eh->ether_type == RTE_BE16(0x8808) ||
	       eh->ether_type == RTE_BE16(0x88B5);
}

/* Whether the MAC takes frame @p m now (no PFC): flow-control frames go
 * in the next gap whatever tx_window says, as a link sends them ahead of
 * the data (a switch's PFC, credit updates). */
static inline bool
mac_takes(const struct ibexlink_dir *d, const struct rte_mbuf *m,
	  uint64_t now)
{
	if (likely(!d->tx_windowed))
		return d->started[d->next] < now;
	return window_open(d, now) ||
	       (d->started[d->next] < now && frame_link_ctrl(m));
}

/* A frame the wire loses or corrupts: what arrives instead (NULL:
 * nothing). Under LLR the receiving MAC finds its FCS bad and asks for it
 * again: a marker goes instead, and the sender keeps the frame in its
 * replay buffer. Without it a lost frame is gone and a corrupted one
 * arrives with a bit flipped. */
static void *
mac_fault(struct ibexlink_dir *d, struct rte_mbuf *m,
	  const struct ibexlink_tx *tx)
{
	uintptr_t bad;

	count_add(tx->fate == IBEXLINK_LOST ? &d->st.lost : &d->st.corrupted,
		  1);
	if (d->llr) {
		bad = LLR_BAD |
		      ((*llr_tag(m) & LLR_TAG_PROT) ? LLR_BAD_PROT : 0);
		rte_pktmbuf_free(m);
		return (void *)bad;
	}
	if (tx->fate == IBEXLINK_LOST) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return frame_corrupt(m, tx->flip_bit);
}

/* Put one frame on the wire at @p t (or when the wire frees). */
static void
mac_commit(struct ibexlink_port *pt, struct ibexlink_dir *d,
	   struct rte_mbuf *m, uint16_t qid, uint64_t t)
{
	struct ibexlink_port *peer = pt->peer;
	struct ibexlink_tx tx;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	void *obj = m;

	ibexlink_wire_send(&d->wire, t, len, &tx);
	if (unlikely(ibex_clock_is_virtual()))
		virt_commits++;
	d->started[d->next] = tx.start_ps;
	d->next = d->next + 1 == d->desc ? 0 : d->next + 1;
	count_add(&d->st.frames, 1);
	count_add(&d->st.bytes, len);
	count_add(&d->st.q_frames[qid], 1);
	count_add(&d->st.q_bytes[qid], len);
	if (unlikely(tx.fate != IBEXLINK_DELIVER)) {
		obj = mac_fault(d, m, &tx);
		if (obj == NULL)
			return;
	}
	if (peer == NULL ||
	    !atomic_load_explicit(&peer->started, memory_order_acquire) ||
	    !ibexlink_ring_put(d->ring, obj, tx.arrival_ps)) {
		count_add(&d->st.overflow, 1);
		obj_free(obj);
		return;
	}
	/* The receiver has work when the last bit is in. */
	if (unlikely(ibex_clock_is_virtual()))
		ibex_clock_wake(peer->owner, ibexlink_clock_cycles(&link_clock,
							  tx.arrival_ps));
}

/* Without PFC: drain the staging rings (frames parked while another queue
 * held the flag) in queue order, while the TX ring has room. */
static bool
mac_drain_plain(struct ibexlink_port *pt, struct ibexlink_dir *d, uint64_t now)
{
	bool left = false;
	uint16_t i;

	for (i = 0; i < pt->nb_txq; i++) {
		struct ibexlink_txq *q = pt->txq[(d->rr + i) % pt->nb_txq];
		void *m;

		if (q == NULL)
			continue;
		/* (a parked control frame waits for the window too) */
		while (window_open(d, now) &&
		       rte_ring_sc_dequeue(q->stage[0], &m) == 0)
			mac_commit(pt, d, m, q->qid, now);
		if (!rte_ring_empty(q->stage[0]))
			left = true;
	}
	d->rr++;
	return left;
}

/* With PFC: commit frames of unpaused priorities, one at a time round robin
 * over (priority, queue), while the wire frees within the window. A
 * priority whose pause ends inside the window starts at its end. */
static bool
mac_drain_pfc(struct ibexlink_port *pt, struct ibexlink_dir *d, uint64_t now)
{
	unsigned int nrings = IBEXLINK_PRIOS * pt->nb_txq;
	uint64_t horizon = now + pt->window_ps;

	for (;;) {
		uint64_t t = d->wire.free_ps > now ? d->wire.free_ps : now;
		uint64_t wake = UINT64_MAX;
		unsigned int i;
		bool any = false, sent = false;

		if (t > horizon)
			return true;
		/* MAC control frames first, paused or not. */
		for (i = 0; i < pt->nb_txq && !sent; i++) {
			struct ibexlink_txq *q = pt->txq[i];
			void *m;

			if (q != NULL &&
			    rte_ring_sc_dequeue(q->stage[IBEXLINK_CTRL], &m) == 0) {
				mac_commit(pt, d, m, q->qid, t);
				sent = true;
			}
		}
		for (i = 0; i < nrings && !sent; i++) {
			unsigned int k = (d->rr + i) % nrings;
			unsigned int prio = k % IBEXLINK_PRIOS;
			struct ibexlink_txq *q = pt->txq[k / IBEXLINK_PRIOS];
			uint64_t until;
			void *m;

			if (q == NULL || rte_ring_empty(q->stage[prio]))
				continue;
			any = true;
			until = ibexlink_pause_until(&d->pause, prio);
			if (until > t) {
				wake = RTE_MIN(wake, until);
				continue;
			}
			if (rte_ring_sc_dequeue(q->stage[prio], &m) != 0)
				continue;
			mac_commit(pt, d, m, q->qid, t);
			d->rr = k + 1;
			sent = true;
		}
		if (sent)
			continue;
		if (!any)
			return false;
		if (wake > horizon)
			return true;
		/* Nothing open at t: the wire idles until the first pause
		 * ends, inside the window. */
		d->wire.free_ps = RTE_MAX(d->wire.free_ps, wake);
	}
}

/* Whether staging rings may hold frames, for the RX path's look. A parking
 * queue enqueues, fences and sets the hint; the MAC clears it, fences and
 * looks again, so one of the two always sees the other (as Dekker's). */
static void
staged_set(struct ibexlink_port *pt)
{
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&pt->staged, true, memory_order_relaxed);
}

static void
staged_clear(struct ibexlink_port *pt)
{
	unsigned int q, prio;

	atomic_store_explicit(&pt->staged, false, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	for (q = 0; q < pt->nb_txq; q++) {
		for (prio = 0; pt->txq[q] != NULL && prio < IBEXLINK_STAGES;
		     prio++) {
			if (!rte_ring_empty(pt->txq[q]->stage[prio])) {
				atomic_store_explicit(&pt->staged, true,
						      memory_order_relaxed);
				return;
			}
		}
	}
}

/* Run the MAC if no other thread is: returns false if it was busy. */
static bool
mac_run(struct ibexlink_port *pt, uint64_t now)
{
	struct ibexlink_dir *d = pt->tx;
	bool left;

	if (atomic_flag_test_and_set_explicit(&d->mac_busy,
					      memory_order_acquire))
		return false;
	left = pt->pfc ? mac_drain_pfc(pt, d, now) :
			 mac_drain_plain(pt, d, now);
	if (!left)
		staged_clear(pt);
	atomic_flag_clear_explicit(&d->mac_busy, memory_order_release);
	return true;
}

/* ---- the virtual clock's events ---- */

/* The first instant after @p now_ps at which port @p pt's sending side
 * can take more: a TX descriptor frees, the wire comes within tx_window,
 * a pause ends or the PFC window reaches frames that wait. UINT64_MAX:
 * none. */
static uint64_t
tx_next_event(const struct ibexlink_port *pt, uint64_t now_ps)
{
	const struct ibexlink_dir *d = pt->tx;
	uint64_t next = UINT64_MAX;
	unsigned int prio;

	if (d->started == NULL)
		return next;
	if (!pt->pfc) {
		if (d->started[d->next] >= now_ps)
			next = d->started[d->next] + 1;
		if (d->tx_windowed && d->wire.free_ps > now_ps + d->tx_window_ps)
			next = RTE_MAX(next == UINT64_MAX ? 0 : next,
				       d->wire.free_ps - d->tx_window_ps);
		return next;
	}
	if (d->wire.free_ps > now_ps + pt->window_ps)
		next = d->wire.free_ps - pt->window_ps;
	for (prio = 0; prio < IBEXLINK_PRIOS; prio++) {
		uint64_t until = ibexlink_pause_until(&d->pause, prio);

		if (until > now_ps)
			next = RTE_MIN(next, until);
	}
	return next;
}

/* Under the virtual clock, frames wait at @p pt's sending side: tell its
 * owner when it can take more. */
static void
tx_wake(const struct ibexlink_port *pt, uint64_t now_ps)
{
	uint64_t t = tx_next_event(pt, now_ps);

	if (t != UINT64_MAX)
		ibex_clock_wake(pt->owner, ibexlink_clock_cycles(&link_clock, t));
}

/* ---- burst functions ---- */

static uint16_t
tx_refuse(struct ibexlink_port *pt, struct rte_mbuf **bufs, uint16_t n)
{
	/* No carrier: a MAC with the link down drops what it is given. */
	count_add(&pt->tx->st.link_down, n);
	rte_pktmbuf_free_bulk(bufs, n);
	return n;
}

static inline bool
link_up(const struct ibexlink_port *pt)
{
	return pt->peer != NULL &&
	       atomic_load_explicit(&pt->peer->started, memory_order_acquire);
}

/* ---- link-level retry (llr=, docs/llr.md; the caller holds the MAC flag) */

/* CtlOS on their queue: kind << LLR_CTL_SHIFT | sequence. */
#define LLR_CTL_SHIFT     20
/* CtlOS a queue holds (on their way, or arrived and not taken): at one
 * per ctlos_spacing they fill only when the peer stops polling; past it
 * they are lost, which the replay timer repairs. */
#define LLR_CTL_SLOTS     1024
#define LLR_RNG_SALT      UINT64_C(0x6c6c725f63746c73)

static inline uint64_t
llr_ns(uint64_t ps)
{
	return ps / IBEXLINK_PS_PER_NS;
}

/* The link's byte times at @p ps: what ctlos_spacing counts. */
static inline uint64_t
llr_bytes(const struct ibexlink_port *pt, uint64_t ps)
{
	return (uint64_t)((unsigned __int128)ps * pt->tx->wire.p.rate_bps /
			  (8 * IBEXLINK_PS_PER_S));
}

/* The first instant at which the link has counted @p bytes byte times. */
static inline uint64_t
llr_bytes_ps(const struct ibexlink_port *pt, uint64_t bytes)
{
	uint64_t rate = pt->tx->wire.p.rate_bps;

	return (uint64_t)(((unsigned __int128)bytes * 8 * IBEXLINK_PS_PER_S +
			   rate - 1) / rate);
}

/* A reference on every segment: rte_pktmbuf_free() frees segment by
 * segment, so the head's alone would not keep a chain. */
static inline void
mbuf_ref(struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		rte_mbuf_refcnt_update(m, 1);
}

/* Let go of the frames the library no longer keeps (acknowledged, or
 * given up by a flush): its oldest moved past them. */
static void
llr_release(struct ibexlink_llr *x)
{
	const struct ibex_llr_tx *t = &x->l.tx;

	while (x->kept != t->oldest) {
		struct rte_mbuf **b = &x->buf[x->kept % t->p.max_frames];

		rte_pktmbuf_free(*b);
		*b = NULL;
		x->kept = ibex_llr_seq(x->kept + 1);
	}
}

/* Take every CtlOS on @p r (a reset, a stop: what was said before no
 * longer applies). */
static void
llr_ctl_flush(struct ibexlink_ring *r)
{
	void *objs[IBEXLINK_BURST];

	if (r != NULL)
		while (ibexlink_ring_drain(r, objs, RTE_DIM(objs)) != 0)
			;
}

/* Start the port's LLR again at @p now: INIT at the sequence after the
 * last one used (frames on their way carry numbers the peer's receiver
 * has passed). The frames kept are given up (lib/llr counts them in
 * tx_discard); the counters carry on. */
static void
llr_reset(struct ibexlink_port *pt, struct ibexlink_llr *x, uint64_t now)
{
	ibex_llr_port_reset(&x->l, x->l.tx.next_seq, llr_ns(now));
	llr_release(x);
	/* A port whose own direction is not protected sends no INIT. */
	if (!x->tx_on)
		x->l.tx.init_due = false;
	x->held = false;
	x->wake_ps = 0;
	if (pt->peer != NULL)
		llr_ctl_flush(pt->peer->tx->ctl);
}

/* Take the CtlOS that have arrived from the peer by @p now; @return how
 * many. */
static unsigned int
llr_ctl_take(struct ibexlink_port *pt, struct ibexlink_llr *x, uint64_t now)
{
	struct ibexlink_ring *r = pt->peer->tx->ctl;
	void *objs[IBEXLINK_BURST];
	uint64_t arr[IBEXLINK_BURST];
	unsigned int k, i, n = 0;

	do {
		k = ibexlink_ring_take(r, now, objs, arr, RTE_DIM(objs), NULL);
		for (i = 0; i < k; i++) {
			uint32_t v = (uint32_t)(uintptr_t)objs[i];

			ibex_llr_ctl_rx(&x->l,
					(enum ibex_llr_ctl)(v >> LLR_CTL_SHIFT),
					v & IBEX_LLR_SEQ_MASK, llr_ns(arr[i]));
		}
		n += k;
	} while (k == RTE_DIM(objs));
	return n;
}

/*
 * On the TSC the timers run in wall time, but a port's MAC runs only in
 * its bursts: after a gap of a replay timer or more since the last one
 * (the thread was descheduled, or its loop is slow) the peer's receiver
 * has likely not had its turn either, and its ACKs are not late but
 * unsent. Such a burst leaves the timers to the next one, which comes
 * after the peer's turn in a loop that polls both: a stall of the
 * emulation is not a silent link. The virtual clock has no stalls (a
 * port idles until the wake of its own timer).
 */
static inline bool
llr_stalled(const struct ibexlink_llr *x, uint64_t now)
{
	return !ibex_clock_is_virtual() &&
	       now - x->seen_ps >= (uint64_t)x->l.tx.p.replay_timer_ns *
				   IBEXLINK_PS_PER_NS;
}

/* The MAC's LLR work first in a burst: a restart the peer asked for, the
 * CtlOS that arrived, then the timers (replay, data age, INIT again). */
static void
llr_in(struct ibexlink_port *pt, struct ibexlink_llr *x, uint64_t now)
{
	unsigned int n;

	if (unlikely(atomic_load_explicit(&x->restart, memory_order_acquire))) {
		atomic_store_explicit(&x->restart, false, memory_order_relaxed);
		/* Only a port in step with the peer's last start: one that
		 * still waits for its first echo and its first INIT is new
		 * already (the peer's INIT may be on its way: kept). */
		if (x->l.tx.state != IBEX_LLR_TX_INIT || x->l.rx.synced)
			llr_reset(pt, x, now);
	}
	n = llr_ctl_take(pt, x, now);
	if (x->tx_on && !llr_stalled(x, now))
		ibex_llr_tx_tick(&x->l, llr_ns(now));
	x->seen_ps = now;
	llr_release(x);
	if (unlikely(ibex_clock_is_virtual()) && n != 0) {
		virt_ctl += n;
		/* An ACK may have made room for held frames: their owner
		 * tries again at once. */
		if (x->held) {
			x->held = false;
			ibex_clock_wake(pt->owner, ibexlink_clock_cycles(
					&link_clock, now));
		}
	}
}

/* Send the buffered frame @p seq again. The frame goes itself when the
 * replay buffer's reference is its only one (the wire's copy was
 * dropped), else as a clone: one mbuf is never in two places. */
static void
llr_resend(struct ibexlink_port *pt, struct ibexlink_dir *d,
	   struct ibexlink_llr *x, uint32_t seq, uint64_t now)
{
	struct rte_mbuf *m = x->buf[seq % x->l.tx.p.max_frames];

	if (rte_mbuf_refcnt_read(m) == 1) {
		mbuf_ref(m);
	} else {
		m = rte_pktmbuf_clone(m, m->pool);
		if (m == NULL) {
			/* as if the wire lost it: the receiver NACKs the gap */
			x->replay_nobuf++;
			return;
		}
	}
	*llr_tag(m) = LLR_TAG_PROT | seq;
	mac_commit(pt, d, m, 0, now);
}

/* Offer new frame @p m to the sender. @return false when it is held: it
 * stays where it is (the caller's burst or a staging ring), and so do
 * the frames behind it. */
static bool
llr_offer(struct ibexlink_port *pt, struct ibexlink_dir *d,
	  struct ibexlink_llr *x, struct rte_mbuf *m, uint16_t qid,
	  uint64_t now)
{
	uint32_t seq = 0;

	if (!x->tx_on) {
		mac_commit(pt, d, m, qid, now);
		return true;
	}
	switch (ibex_llr_tx_frame(&x->l, rte_pktmbuf_pkt_len(m), llr_ns(now),
				  &seq)) {
	case IBEX_LLR_SEND:
		x->buf[seq % x->l.tx.p.max_frames] = m;
		mbuf_ref(m);
		*llr_tag(m) = LLR_TAG_PROT | seq;
		break;
	case IBEX_LLR_SEND_PLAIN:
		*llr_tag(m) = 0;
		break;
	case IBEX_LLR_DROP:        /* counted in tx_discard */
		rte_pktmbuf_free(m);
		return true;
	default:
		x->held = true;
		return false;
	}
	mac_commit(pt, d, m, qid, now);
	return true;
}

/* Parked frames (another queue held the MAC), looked at before being
 * taken, so that one the sender holds stays first in its ring. @return
 * whether frames are left. */
static bool
llr_drain_parked(struct ibexlink_port *pt, struct ibexlink_dir *d,
		 struct ibexlink_llr *x, uint64_t now)
{
	bool left = false;
	uint16_t i;

	for (i = 0; i < pt->nb_txq; i++) {
		struct ibexlink_txq *q = pt->txq[(d->rr + i) % pt->nb_txq];
		struct rte_mbuf *m;
		bool sent = true;

		if (q == NULL)
			continue;
		while (sent && window_open(d, now) &&
		       rte_ring_dequeue_bulk_start(q->stage[0], (void **)&m, 1,
						   NULL) == 1) {
			sent = llr_offer(pt, d, x, m, q->qid, now);
			rte_ring_dequeue_finish(q->stage[0], sent ? 1 : 0);
		}
		if (!rte_ring_empty(q->stage[0]))
			left = true;
		/* held: every new frame is, until an ACK or a timer */
		if (!sent)
			break;
	}
	d->rr++;
	return left;
}

/* The MAC's sending: replays ahead of anything new, then parked frames.
 * @return whether parked frames are left (as eth_tx_plain's hint). */
static bool
llr_out(struct ibexlink_port *pt, struct ibexlink_dir *d,
	struct ibexlink_llr *x, uint64_t now)
{
	uint32_t seq;

	while (x->tx_on && window_open(d, now) &&
	       ibex_llr_tx_replay_next(&x->l, llr_ns(now), &seq))
		llr_resend(pt, d, x, seq, now);
	if (!atomic_load_explicit(&pt->staged, memory_order_relaxed))
		return false;
	if (!llr_drain_parked(pt, d, x, now))
		staged_clear(pt);
	return atomic_load_explicit(&pt->staged, memory_order_relaxed);
}

/* The port's next CtlOS, when one is due and the spacing allows: to the
 * peer one propagation delay from now, in no frame's slot. The wire
 * loses it as it loses frames; a queue the peer does not empty too. One
 * a call: the spacing lets no second one go at the same instant. */
static void
llr_emit(struct ibexlink_port *pt, struct ibexlink_llr *x, uint64_t now)
{
	struct ibexlink_dir *d = pt->tx;
	struct ibexlink_port *peer = pt->peer;
	enum ibex_llr_ctl k;
	uint32_t seq = 0;
	uint64_t arr;

	k = ibex_llr_ctl_next(&x->l, llr_bytes(pt, now), &seq);
	if (k == IBEX_LLR_CTL_NONE)
		return;
	arr = RTE_MAX(now + d->wire.p.delay_ps, x->ctl_last_ps);
	if (!atomic_load_explicit(&peer->started, memory_order_acquire) ||
	    (d->wire.p.loss_thr != 0 &&
	     ibexlink_rand(&x->rng) < d->wire.p.loss_thr) ||
	    !ibexlink_ring_put(d->ctl, (void *)(uintptr_t)
			       ((uint32_t)k << LLR_CTL_SHIFT | seq), arr)) {
		x->ctl_lost++;
		return;
	}
	x->ctl_last_ps = arr;
	if (unlikely(ibex_clock_is_virtual()))
		ibex_clock_wake(peer->owner,
				ibexlink_clock_cycles(&link_clock, arr));
}

/* The next instant after @p now at which the port's LLR has work of its
 * own: a timer of the sender, a CtlOS the spacing holds back, a replay
 * waiting for the TX ring. UINT64_MAX: none. (CtlOS arriving are their
 * sender's to announce.) */
static uint64_t
llr_next(const struct ibexlink_port *pt, const struct ibexlink_llr *x,
	 uint64_t now)
{
	const struct ibex_llr_tx *t = &x->l.tx;
	const struct ibex_llr_rx *r = &x->l.rx;
	uint64_t next = UINT64_MAX, ns = UINT64_MAX;

	if (x->tx_on && t->state != IBEX_LLR_TX_ACTIVE && !t->init_due) {
		ns = t->init_ns + t->p.replay_timer_ns;
	} else if (x->tx_on && t->state == IBEX_LLR_TX_ACTIVE &&
		   t->frames != 0) {
		if (t->replaying)
			next = tx_next_event(pt, now);
		else
			ns = t->progress_ns + t->p.replay_timer_ns;
		if (t->p.data_age_ns != 0)
			ns = RTE_MIN(ns, t->slot[t->oldest % t->p.max_frames].
					 sent_ns + t->p.data_age_ns);
	}
	if (ns != UINT64_MAX)
		next = RTE_MIN(next, ns * IBEXLINK_PS_PER_NS);
	if (t->init_due || r->echo_due || r->nack_due || r->ack_due)
		next = RTE_MIN(next, llr_bytes_ps(pt, r->last_ctlos_bytes +
						  t->p.ctlos_spacing));
	return next;
}

/* Under the virtual clock: put the port's next LLR event on its owner's
 * calendar, once. */
static void
llr_wake(const struct ibexlink_port *pt, struct ibexlink_llr *x,
	 uint64_t now)
{
	uint64_t t = llr_next(pt, x, now);

	if (t == UINT64_MAX || (t == x->wake_ps && t > now))
		return;
	x->wake_ps = t;
	ibex_clock_wake(pt->owner, ibexlink_clock_cycles(&link_clock, t));
}

/* First instant of the queue @p r's head, UINT64_MAX: empty. */
static uint64_t
ring_head_ps(struct ibexlink_ring *r)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (tail == atomic_load_explicit(&r->head, memory_order_acquire))
		return UINT64_MAX;
	return r->slot[tail & r->cons_mask].arrival_ps;
}

/*
 * ---- CBFC's CF_Update as an ordered set (cbfc_os=, docs/cbfc.md) ----
 *
 * UEC sends CF_Update in an 8-byte control ordered set below the frame
 * layer: it takes no frame's slot, waits for no frame and no pause. ibex's
 * data path and generator build the shim frame they send on every other
 * port kind (lib/pkt, one VC a frame); the sending MAC here takes such a
 * frame at the head of a burst and sends each of its counts as an ordered
 * set instead, to arrive one propagation delay later, lost with the
 * wire's loss and corruption (a damaged ordered set is dropped by the
 * receiving PCS). The receiving MAC gives its host the same shim frame
 * back, before the frames of its burst: the host's CBFC code is the same
 * on every port kind.
 */
#define CF_OS_SLOTS       256
#define CF_OS_TAG         (UINT32_C(1) << 31)
#define CF_OS_VC_SHIFT    20
#define CF_OS_COUNT_MASK  ((UINT32_C(1) << CF_OS_VC_SHIFT) - 1)
#define CF_OS_RNG_SALT    UINT64_C(0x63665f6f735f7267)

/* Whether @p m is a CF_Update shim frame (ibex_fcf_cbfc_build()'s 60
 * bytes): the length alone turns nearly every data frame away. */
static inline bool
cf_os_frame(const struct rte_mbuf *m)
{
	const uint8_t *b;

	if (likely(rte_pktmbuf_pkt_len(m) != IBEX_FCF_CBFC_LEN) ||
	    rte_pktmbuf_data_len(m) != IBEX_FCF_CBFC_LEN)
		return false;
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	return b[12] == 0x88 && b[13] == 0xB5 && b[14] == IBEX_FCF_CBFC_MAGIC &&
	       b[16] == IBEX_FCF_CBFC_CF;
}

/* The queue of @p d's ordered sets, made at the first (under its flag:
 * one producer). NULL without memory: the shims go as frames. */
static struct ibexlink_ring *
cf_os_ring(struct ibexlink_dir *d)
{
	struct ibexlink_ring *r = atomic_load_explicit(&d->cf,
						       memory_order_relaxed);

	if (likely(r != NULL))
		return r;
	r = rte_zmalloc("ibexlink_cf_os", ibexlink_ring_size(CF_OS_SLOTS),
			RTE_CACHE_LINE_SIZE);
	if (r == NULL)
		return NULL;
	ibexlink_ring_init(r, CF_OS_SLOTS);
	atomic_store_explicit(&d->cf, r, memory_order_release);
	return r;
}

/* The queue of @p d's ordered sets, gone with the link. */
static void
cf_os_free(struct ibexlink_dir *d)
{
	rte_free(atomic_exchange_explicit(&d->cf, NULL, memory_order_acq_rel));
	d->cf_last_ps = 0;
}

/* One ordered set: VC @p vc's count @p cf, sent at @p now. The wire
 * loses it as it loses a frame, and drops it damaged as a PCS does: the
 * two faults drawn in turn, as for a frame. */
static void
cf_os_put(struct ibexlink_port *pt, struct ibexlink_ring *r, unsigned int vc,
	  uint32_t cf, uint64_t now)
{
	struct ibexlink_dir *d = pt->tx;
	struct ibexlink_port *peer = pt->peer;
	const struct ibexlink_params *wp = &d->wire.p;
	uint64_t arr = RTE_MAX(now + wp->delay_ps, d->cf_last_ps);

	if (peer == NULL ||
	    !atomic_load_explicit(&peer->started, memory_order_acquire) ||
	    (wp->loss_thr != 0 && ibexlink_rand(&d->cf_rng) < wp->loss_thr) ||
	    (wp->corrupt_thr != 0 &&
	     ibexlink_rand(&d->cf_rng) < wp->corrupt_thr) ||
	    !ibexlink_ring_put(r, (void *)(uintptr_t)(CF_OS_TAG |
			       (uint32_t)vc << CF_OS_VC_SHIFT | cf), arr)) {
		count_add(&d->st.cf_os_lost, 1);
		return;
	}
	d->cf_last_ps = arr;
	count_add(&d->st.cf_os, 1);
	if (unlikely(ibex_clock_is_virtual()))
		ibex_clock_wake(peer->owner,
				ibexlink_clock_cycles(&link_clock, arr));
}

/* The message of CF_Update shim frame @p m, when the receiving MAC would
 * give its host the same bytes back: one VC, from this port's MAC, to
 * ibex's address (as lib/dp and lib/gen build them). */
static bool
cf_os_parse(const struct ibexlink_port *pt, struct rte_mbuf *m,
	    struct ibex_fcf_cbfc *msg)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t again[IBEX_FCF_CBFC_LEN];
	uint32_t left;

	if (ibex_fcf_cbfc_parse(b, IBEX_FCF_CBFC_LEN, msg) != IBEX_FCF_OK ||
	    __builtin_popcount(msg->vcs) != 1)
		return false;
	left = msg->vcs;
	return ibex_fcf_cbfc_build(again, sizeof(again), pt->mac.addr_bytes,
				   msg, &left) == IBEX_FCF_CBFC_LEN &&
	       memcmp(again, b, IBEX_FCF_CBFC_LEN) == 0;
}

/* The CF_Update shim frames at the head of @p bufs, sent as ordered
 * sets. @return how many were taken (0 when another queue is sending
 * ordered sets, or without memory for their queue: they go as frames). */
static uint16_t
cf_os_tx(struct ibexlink_port *pt, struct rte_mbuf **bufs, uint16_t n)
{
	struct ibexlink_dir *d = pt->tx;
	struct ibexlink_ring *r;
	uint64_t now = now_ps();
	uint16_t k = 0;

	if (atomic_flag_test_and_set_explicit(&d->cf_busy,
					      memory_order_acquire))
		return 0;
	r = cf_os_ring(d);
	for (; r != NULL && k < n && cf_os_frame(bufs[k]); k++) {
		struct ibex_fcf_cbfc msg = { .vcs = 0 };

		if (!cf_os_parse(pt, bufs[k], &msg))
			break; /* not one ibex built: it goes as it is */
		cf_os_put(pt, r, (unsigned int)__builtin_ctz(msg.vcs),
			  msg.count[__builtin_ctz(msg.vcs)], now);
		rte_pktmbuf_free(bufs[k]);
	}
	atomic_flag_clear_explicit(&d->cf_busy, memory_order_release);
	return k;
}

/* Whether the sending MAC of @p pt takes the head of @p bufs as ordered
 * sets: a port that did not turn them off, with its link up. */
static inline bool
cf_os_head(const struct ibexlink_port *pt, struct rte_mbuf **bufs,
	   uint16_t n)
{
	return !pt->cf_frames && n != 0 && unlikely(cf_os_frame(bufs[0])) &&
	       link_up(pt);
}

/* The ordered sets that arrived from the peer by @p now, as shim frames
 * into @p bufs (at most @p n). */
static uint16_t
cf_os_rx(struct ibexlink_port *pt, struct ibexlink_rxq *rq,
	 struct rte_mbuf **bufs, uint16_t n, uint64_t now)
{
	struct ibexlink_ring *r = atomic_load_explicit(&pt->peer->tx->cf,
						       memory_order_acquire);
	void *objs[IBEXLINK_BURST];
	uint64_t arr[IBEXLINK_BURST];
	unsigned int k, i;
	uint16_t got = 0;

	if (likely(r == NULL))
		return 0;
	k = ibexlink_ring_take(r, now, objs, arr,
			       RTE_MIN(n, (uint16_t)IBEXLINK_BURST), NULL);
	for (i = 0; i < k; i++) {
		uint32_t v = (uint32_t)(uintptr_t)objs[i], left;
		unsigned int vc = (v & ~CF_OS_TAG) >> CF_OS_VC_SHIFT;
		struct ibex_fcf_cbfc msg = { .type = IBEX_FCF_CBFC_CF };
		struct rte_mbuf *m = rte_pktmbuf_alloc(rq->mp);

		msg.vcs = left = UINT32_C(1) << vc;
		msg.count[vc] = v & CF_OS_COUNT_MASK;
		if (m == NULL || ibex_fcf_cbfc_build(rte_pktmbuf_mtod(m, void *),
						     rte_pktmbuf_tailroom(m),
						     pt->peer->mac.addr_bytes,
						     &msg, &left) < 0) {
			rte_pktmbuf_free(m);
			count_add(&rq->cf_os_nobuf, 1);
			continue;
		}
		m->data_len = IBEX_FCF_CBFC_LEN;
		m->pkt_len = IBEX_FCF_CBFC_LEN;
		m->port = pt->port_id;
		if (rq->ts_off >= 0) {
			*RTE_MBUF_DYNFIELD(m, rq->ts_off,
					   rte_mbuf_timestamp_t *) = arr[i];
			m->ol_flags |= rq->ts_flag;
		}
		bufs[got++] = m;
	}
	count_add(&rq->cf_os, got);
	if (unlikely(ibex_clock_is_virtual()))
		virt_ctl += k;
	return got;
}

/* First arrival on the queue of ordered sets from @p pt's peer,
 * UINT64_MAX: none. */
static inline uint64_t
cf_os_head_ps(const struct ibexlink_port *pt)
{
	struct ibexlink_ring *r = atomic_load_explicit(&pt->peer->tx->cf,
						       memory_order_acquire);

	return r != NULL ? ring_head_ps(r) : UINT64_MAX;
}

/* Whether a burst of @p pt now would find no LLR work (rx_idle). */
static bool
llr_idle(const struct ibexlink_port *pt, uint64_t now)
{
	const struct ibexlink_llr *x = pt->llr;

	if (ring_head_ps(pt->peer->tx->ctl) <= now ||
	    atomic_load_explicit(&x->restart, memory_order_relaxed) ||
	    (x->tx_on && x->l.tx.replaying))
		return false;
	return llr_next(pt, x, now) > now;
}

/* tx_burst with LLR: as eth_tx_plain, the frames offered to the sender
 * one by one; a frame it holds ends the burst, as a full ring does. */
static uint16_t
eth_tx_llr(struct ibexlink_txq *q, struct rte_mbuf **bufs, uint16_t n)
{
	struct ibexlink_port *pt = q->port;
	struct ibexlink_dir *d = pt->tx;
	struct ibexlink_llr *x = pt->llr;
	uint64_t now = now_ps();
	uint16_t k = 0;

	if (unlikely(!link_up(pt)))
		return tx_refuse(pt, bufs, n);
	if (atomic_flag_test_and_set_explicit(&d->mac_busy,
					      memory_order_acquire)) {
		k = rte_ring_sp_enqueue_burst(q->stage[0], (void **)bufs, n,
					      NULL);
		count_add(&q->parked, k);
		staged_set(pt);
		return k;
	}
	llr_in(pt, x, now);
	if (!llr_out(pt, d, x, now) || rte_ring_empty(q->stage[0])) {
		while (k < n && mac_takes(d, bufs[k], now) &&
		       llr_offer(pt, d, x, bufs[k], q->qid, now))
			k++;
	}
	llr_emit(pt, x, now);
	if (unlikely(ibex_clock_is_virtual())) {
		if (k < n)
			tx_wake(pt, now);
		llr_wake(pt, x, now);
	}
	atomic_flag_clear_explicit(&d->mac_busy, memory_order_release);
	return k;
}

/* The receiving MAC's check of one arrival: the frame to deliver, or NULL
 * (a bad FCS, a duplicate, a frame after a gap: dropped, and the library
 * has an ACK or a NACK due). */
static struct rte_mbuf *
llr_rx_one(struct ibexlink_llr *x, void *obj)
{
	struct rte_mbuf *m = obj;
	uint32_t tag;

	if (obj_is_bad(obj)) {
		ibex_llr_rx_frame(&x->l, 0,
				  ((uintptr_t)obj & LLR_BAD_PROT) != 0, false);
		return NULL;
	}
	if (!x->rx_on)
		return m;
	tag = *llr_tag(m);
	if (ibex_llr_rx_frame(&x->l, tag & IBEX_LLR_SEQ_MASK,
			      (tag & LLR_TAG_PROT) != 0, true) ==
	    IBEX_LLR_DELIVER)
		return m;
	rte_pktmbuf_free(m);
	return NULL;
}

/* What the receiving MAC does with one arrival (at @p arr): the frame to
 * deliver, or NULL when it kept it (freed). */
typedef struct rte_mbuf *(*rx_check_t)(struct ibexlink_port *pt, void *obj,
				       uint64_t arr);

/*
 * The frames of the peer's wire that arrived by @p now, each through
 * @p check, into @p bufs (at most @p n), counted on @p rq; @p taken gets
 * every arrival taken, kept or not. Always inlined with a constant
 * @p check, so each rx_burst has its own loop with no indirect call.
 */
static __rte_always_inline uint16_t
rx_take(struct ibexlink_port *pt, struct ibexlink_rxq *rq,
	struct rte_mbuf **bufs, uint16_t n, uint64_t now, rx_check_t check,
	uint64_t *taken)
{
	struct ibexlink_ring *r = pt->peer->tx->ring;
	uint64_t arr[IBEXLINK_BURST], bytes = 0;
	uint16_t got = 0;
	unsigned int k, i;

	*taken = 0;
	while (got < n) {
		void *tmp[IBEXLINK_BURST];
		unsigned int want = RTE_MIN(n - got, IBEXLINK_BURST);

		k = ibexlink_ring_take(r, now, tmp, arr, want, NULL);
		*taken += k;
		for (i = 0; i < k; i++) {
			struct rte_mbuf *m = check(pt, tmp[i], arr[i]);

			if (m == NULL)
				continue;
			m->port = pt->port_id;
			if (rq->ts_off >= 0) {
				*RTE_MBUF_DYNFIELD(m, rq->ts_off,
						   rte_mbuf_timestamp_t *) =
					arr[i];
				m->ol_flags |= rq->ts_flag;
			}
			bytes += rte_pktmbuf_pkt_len(m);
			bufs[got++] = m;
		}
		if (k < want)
			break;
	}
	count_add(&rq->frames, got);
	count_add(&rq->bytes, bytes);
	return got;
}

static struct rte_mbuf *
rx_check_llr(struct ibexlink_port *pt, void *obj, uint64_t arr)
{
	RTE_SET_USED(arr);
	return llr_rx_one(pt->llr, obj);
}

/* Frames that arrived by @p now, through the LLR receiver. */
static uint16_t
llr_rx_frames(struct ibexlink_port *pt, struct ibexlink_rxq *rq,
	      struct rte_mbuf **bufs, uint16_t n, uint64_t now)
{
	uint64_t taken;
	uint16_t got = rx_take(pt, rq, bufs, n, now, rx_check_llr, &taken);

	if (unlikely(ibex_clock_is_virtual()))
		virt_takes += taken;
	return got;
}

/* rx_burst with LLR. The receiving side shares the port's LLR state with
 * the sending one, so it runs under the MAC flag too: a burst that finds
 * the MAC busy takes nothing (the next poll will). It also does the
 * sending MAC's LLR work: CtlOS, timers, replays, whatever the port's
 * TX is doing. */
static uint16_t
eth_rx_llr(struct ibexlink_rxq *rq, struct rte_mbuf **bufs, uint16_t n)
{
	struct ibexlink_port *pt = rq->port;
	struct ibexlink_dir *d = pt->tx;
	struct ibexlink_llr *x = pt->llr;
	uint64_t now = now_ps();
	uint16_t got;
	bool left;

	if (unlikely(pt->peer == NULL) ||
	    atomic_flag_test_and_set_explicit(&d->mac_busy,
					      memory_order_acquire))
		return 0;
	llr_in(pt, x, now);
	got = cf_os_rx(pt, rq, bufs, n, now);
	got += llr_rx_frames(pt, rq, bufs + got, n - got, now);
	left = llr_out(pt, d, x, now);
	llr_emit(pt, x, now);
	if (unlikely(ibex_clock_is_virtual())) {
		if (left)
			tx_wake(pt, now);
		llr_wake(pt, x, now);
	}
	atomic_flag_clear_explicit(&d->mac_busy, memory_order_release);
	return got;
}

static uint16_t
eth_tx_plain(void *queue, struct rte_mbuf **bufs, uint16_t n)
{
	struct ibexlink_txq *q = queue;
	struct ibexlink_port *pt = q->port;
	struct ibexlink_dir *d = pt->tx;
	uint64_t now;
	uint16_t k = 0;
	bool staged;

	if (unlikely(cf_os_head(pt, bufs, n))) {
		k = cf_os_tx(pt, bufs, n);
		if (k != 0)
			return k + (k < n ? eth_tx_plain(queue, bufs + k,
							 n - k) : 0);
	}
	if (unlikely(pt->llr != NULL))
		return eth_tx_llr(q, bufs, n);
	now = now_ps();
	if (unlikely(!link_up(pt)))
		return tx_refuse(pt, bufs, n);
	if (atomic_flag_test_and_set_explicit(&d->mac_busy,
					      memory_order_acquire)) {
		/* Another queue is on the MAC: park the burst. */
		k = rte_ring_sp_enqueue_burst(q->stage[0], (void **)bufs, n,
					      NULL);
		count_add(&q->parked, k);
		staged_set(pt);
		return k;
	}
	/* Parked frames go first, this queue's own included, so a queue's
	 * frames keep their order. The hint says whether any may be parked
	 * (as eth_rx reads it): this queue's own parked frames set it before
	 * their eth_tx returned, and only a MAC that drained them clears it. */
	staged = atomic_load_explicit(&pt->staged, memory_order_relaxed);

	if (staged && !mac_drain_plain(pt, d, now)) {
		staged_clear(pt);
		staged = atomic_load_explicit(&pt->staged,
					      memory_order_relaxed);
	}
	if (!staged || rte_ring_empty(q->stage[0])) {
		while (k < n && mac_takes(d, bufs[k], now)) {
			mac_commit(pt, d, bufs[k], q->qid, now);
			k++;
		}
	}
	if (unlikely(k < n && ibex_clock_is_virtual()))
		tx_wake(pt, now);
	atomic_flag_clear_explicit(&d->mac_busy, memory_order_release);
	return k;
}

static uint16_t
eth_tx_pfc(void *queue, struct rte_mbuf **bufs, uint16_t n)
{
	struct ibexlink_txq *q = queue;
	struct ibexlink_port *pt = q->port;
	uint16_t k;

	if (unlikely(cf_os_head(pt, bufs, n))) {
		k = cf_os_tx(pt, bufs, n);
		if (k != 0)
			return k + (k < n ? eth_tx_pfc(queue, bufs + k,
						       n - k) : 0);
	}
	if (unlikely(!link_up(pt)))
		return tx_refuse(pt, bufs, n);
	for (k = 0; k < n; k++) {
		if (rte_ring_sp_enqueue(q->stage[frame_stage(bufs[k])],
					bufs[k]) != 0)
			break;
	}
	staged_set(pt);
	mac_run(pt, now_ps());
	if (unlikely(ibex_clock_is_virtual()) &&
	    atomic_load_explicit(&pt->staged, memory_order_relaxed))
		tx_wake(pt, now_ps());
	return k;
}

/* The MAC consumes a PFC frame addressed to it: the pause applies to this
 * port's own sending side from the frame's arrival on. */
static bool
rx_pfc_consume(struct ibexlink_port *pt, struct rte_mbuf *m, uint64_t arr)
{
	const struct rte_ether_hdr *eh;
	struct ibex_fcf_pfc msg;

	if (rte_pktmbuf_data_len(m) < IBEX_PFC_FRAME_HDR_LEN)
		return false;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != RTE_BE16(0x8808))
		return false;
	if (ibex_fcf_pfc_parse(eh, rte_pktmbuf_data_len(m), &msg) !=
	    IBEX_FCF_OK)
		return false; /* not PFC (e.g. 802.3x PAUSE): the host sees it */
	ibexlink_pause_apply(&pt->tx->pause, arr, msg.cev, msg.quanta,
			     pt->tx->wire.p.rate_bps);
	return true;
}

/* Without LLR: every arrival is delivered, but a PFC frame to a MAC that
 * obeys PFC, which takes it. */
static struct rte_mbuf *
rx_check_plain(struct ibexlink_port *pt, void *obj, uint64_t arr)
{
	struct rte_mbuf *m = obj;

	if (pt->pfc && rx_pfc_consume(pt, m, arr)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

static uint16_t
eth_rx(void *queue, struct rte_mbuf **bufs, uint16_t n)
{
	struct ibexlink_rxq *rq = queue;
	struct ibexlink_port *pt = rq->port;
	uint64_t now, taken, pfc;
	uint16_t got, os;

	if (unlikely(pt->llr != NULL))
		return eth_rx_llr(rq, bufs, n);
	now = now_ps();
	if (unlikely(pt->peer == NULL))
		return 0;
	if (atomic_load_explicit(&pt->staged, memory_order_relaxed))
		mac_run(pt, now);
	os = cf_os_rx(pt, rq, bufs, n, now);
	got = rx_take(pt, rq, bufs + os, n - os, now, rx_check_plain, &taken);
	/* what was taken and not delivered, the MAC took as PFC */
	pfc = taken - got;
	if (unlikely(ibex_clock_is_virtual()))
		virt_takes += taken;
	if (pfc != 0) {
		count_add(&rq->pfc_frames, pfc);
		/* A pause may have ended or begun: let the MAC look again. */
		mac_run(pt, now);
	}
	if (unlikely(ibex_clock_is_virtual()) &&
	    atomic_load_explicit(&pt->staged, memory_order_relaxed))
		tx_wake(pt, now);
	return os + got;
}

/* ---- a link split between processes (ibexlink.h) ---- */

/* The bytes of @p m, contiguous: its own when it has one segment, else
 * a copy in @p buf. NULL when it does not fit. */
static const void *
frame_bytes(const struct rte_mbuf *m, uint8_t *buf, uint32_t cap)
{
	if (m->nb_segs == 1)
		return rte_pktmbuf_mtod(m, const void *);
	if (rte_pktmbuf_pkt_len(m) > cap)
		return NULL;
	return rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
}

int
ibexlink_carry_out(struct ibexlink_port *pt, ibexlink_carry_fn fn, void *arg)
{
	static uint8_t buf[IBEXLINK_CARRY_MAX];
	void *objs[IBEXLINK_BURST];
	uint64_t arr[IBEXLINK_BURST];
	unsigned int k, i;
	int n = 0, ret = 0;

	/* LLR's CtlOS and CBFC's ordered sets do not cross yet */
	if (pt->llr != NULL ||
	    atomic_load_explicit(&pt->tx->cf, memory_order_relaxed) != NULL)
		return -ENOTSUP;
	do {
		k = ibexlink_ring_take(pt->tx->ring, UINT64_MAX, objs, arr,
				       IBEXLINK_BURST, NULL);
		for (i = 0; i < k; i++) {
			struct rte_mbuf *m = objs[i];
			const void *d = frame_bytes(m, buf, sizeof(buf));

			if (ret == 0)
				ret = d == NULL ? -EMSGSIZE :
				      fn(arg, arr[i], d, rte_pktmbuf_pkt_len(m));
			rte_pktmbuf_free(m);
		}
		n += (int)k;
	} while (k == IBEXLINK_BURST);
	return ret != 0 ? ret : n;
}

/* A frame of @p len bytes from @p data in mbufs of @p mp, chained when
 * one does not hold it; NULL without mbufs. */
static struct rte_mbuf *
frame_from_bytes(struct rte_mempool *mp, const uint8_t *data, uint32_t len)
{
	struct rte_mbuf *head = rte_pktmbuf_alloc(mp), *seg = head;
	uint32_t off = 0;

	while (seg != NULL) {
		uint32_t n = RTE_MIN(len - off,
				     (uint32_t)rte_pktmbuf_tailroom(seg));

		memcpy(rte_pktmbuf_mtod(seg, uint8_t *), data + off, n);
		seg->data_len = (uint16_t)n;
		off += n;
		if (seg != head) {
			head->nb_segs++;
			head->pkt_len += n;
		} else {
			head->pkt_len = n;
		}
		if (off == len)
			return head;
		seg->next = rte_pktmbuf_alloc(mp);
		seg = seg->next;
	}
	rte_pktmbuf_free(head);
	return NULL;
}

int
ibexlink_carry_in(struct ibexlink_port *pt, uint64_t arrival_ps,
		  const void *data, uint32_t len)
{
	struct ibexlink_port *peer = pt->peer;
	struct ibexlink_dir *d = pt->tx;
	struct rte_mbuf *m;

	if (pt->llr != NULL)
		return -ENOTSUP;
	if (peer == NULL || peer->rxq.mp == NULL)
		return -ENODEV;
	m = frame_from_bytes(peer->rxq.mp, data, len);
	if (m == NULL) {
		count_add(&d->st.overflow, 1);
		return -ENOMEM;
	}
	if (!atomic_load_explicit(&peer->started, memory_order_acquire) ||
	    !ibexlink_ring_put(d->ring, m, arrival_ps)) {
		count_add(&d->st.overflow, 1);
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	/* the far process counted its commit (a frame-hop) already */
	count_add(&d->st.frames, 1);
	count_add(&d->st.bytes, len);
	if (ibex_clock_is_virtual())
		ibex_clock_wake(peer->owner,
				ibexlink_clock_cycles(&link_clock, arrival_ps));
	return 0;
}

/* ---- the virtual clock's executive: ports and their owners ---- */

static const struct ibex_pdev_ops pdev_ops_plain, pdev_ops_pfc;

/* An in-process port's device is its struct ibexlink_port. */
static struct ibexlink_port *
pdev_port_of(uint16_t port_id)
{
	const struct ibex_pdev *d;

	if (ibex_pdev_is_ethdev(port_id) ||
	    (unsigned int)(port_id - IBEX_PDEV_BASE) >= ibex_pdev_used)
		return NULL;
	d = &ibex_pdevs[port_id - IBEX_PDEV_BASE];
	if (d->name[0] == '\0' ||
	    (d->ops != &pdev_ops_plain && d->ops != &pdev_ops_pfc))
		return NULL;
	return d->dev;
}

struct ibexlink_port *
ibexlink_port_of(uint16_t port_id)
{
	struct ibexlink_port *pt = pdev_port_of(port_id);

	/* a fabric's 60,000 link ends: not one by one */
	if (pt != NULL)
		return pt->eth != NULL || pt->tx != NULL ? pt : NULL;
	TAILQ_FOREACH(pt, &ports, next)
		if (pt->port_id == port_id && (pt->eth != NULL ||
					       pt->tx != NULL))
			return pt;
	return NULL;
}

void
ibexlink_port_set_owner(struct ibexlink_port *pt, uint32_t owner)
{
	pt->owner = owner;
}

uint64_t
ibexlink_port_rx_head(const struct ibexlink_port *pt)
{
	const struct ibexlink_ring *r;
	uint32_t tail;

	uint64_t head;

	if (pt->peer == NULL || pt->peer->tx == NULL ||
	    pt->peer->tx->ring == NULL)
		return UINT64_MAX;
	r = pt->peer->tx->ring;
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	head = tail == atomic_load_explicit(&r->head, memory_order_acquire) ?
	       UINT64_MAX : r->slot[tail & r->cons_mask].arrival_ps;
	head = RTE_MIN(head, cf_os_head_ps(pt));
	return head == UINT64_MAX ? UINT64_MAX :
	       ibexlink_clock_cycles(&link_clock, head);
}

bool
ibexlink_port_rx_idle(const struct ibexlink_port *pt)
{
	const struct ibexlink_ring *r;
	uint32_t tail;

	/* as eth_rx: without a peer it does nothing */
	if (pt->peer == NULL)
		return true;
	if (atomic_load_explicit(&pt->staged, memory_order_relaxed) ||
	    pt->peer->tx == NULL || pt->peer->tx->ring == NULL ||
	    (pt->llr != NULL && !llr_idle(pt, now_ps())) ||
	    cf_os_head_ps(pt) <= now_ps())
		return false;
	r = pt->peer->tx->ring;
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (tail == atomic_load_explicit(&r->head, memory_order_acquire))
		return true;
	/* ibexlink_ring_take()'s test, at eth_rx's now */
	return r->slot[tail & r->cons_mask].arrival_ps > now_ps();
}

/* ---- counters ---- */

/*
 * LLR's counters, xstats of a port with LLR either way: lib/llr's, named
 * as SAI's SAI_PORT_STAT_LLR_* in lower case with llr_ before (the 22),
 * then ibex's own (docs/llr.md has the table).
 */
#define LLR_ST(f) { "llr_" #f, offsetof(struct ibex_llr_stats, f) }
static const struct {
	const char *name;
	size_t off;
} llr_xstats[] = {
	LLR_ST(tx_init_ctl_os), LLR_ST(tx_init_echo_ctl_os),
	LLR_ST(tx_ack_ctl_os), LLR_ST(tx_nack_ctl_os), LLR_ST(tx_discard),
	LLR_ST(tx_ok), LLR_ST(tx_poisoned), LLR_ST(tx_replay),
	LLR_ST(rx_init_ctl_os), LLR_ST(rx_init_echo_ctl_os),
	LLR_ST(rx_ack_ctl_os), LLR_ST(rx_nack_ctl_os),
	LLR_ST(rx_ack_nack_seq_error), LLR_ST(rx_ok), LLR_ST(rx_poisoned),
	LLR_ST(rx_bad), LLR_ST(rx_expected_seq_good),
	LLR_ST(rx_expected_seq_poisoned), LLR_ST(rx_expected_seq_bad),
	LLR_ST(rx_missing_seq), LLR_ST(rx_duplicate_seq), LLR_ST(rx_replay),
	LLR_ST(tx_unprotected), LLR_ST(tx_held), LLR_ST(flushes),
};
#undef LLR_ST
#define LLR_LIB_STATS 25
_Static_assert(RTE_DIM(llr_xstats) == LLR_LIB_STATS, "LLR xstats");

/* Every counter of a port, in one order, for stats, xstats and reset. */
enum {
	C_IPACKETS, C_IBYTES, C_OPACKETS, C_OBYTES, C_IMISSED, C_IERRORS,
	C_OERRORS, C_PFC_RX, C_CORRUPT_RX, C_PARKED, C_CF_TX, C_CF_LOST,
	C_CF_RX, C_CF_NOBUF, C_XSTATS_END,
	C_QO = C_XSTATS_END,               /* q_opackets[16] */
	C_QOB = C_QO + IBEXLINK_MAX_TXQ,   /* q_obytes[16] */
	C_LLR = C_QOB + IBEXLINK_MAX_TXQ,  /* llr_xstats[] */
	C_LLR_CTL_LOST = C_LLR + LLR_LIB_STATS,
	C_LLR_NOBUF,
	C_COUNT,
};

static const struct {
	const char *name;
	unsigned int idx;
} xstat_names[] = {
	{ "rx_pfc_frames", C_PFC_RX },       /* consumed by the MAC */
	{ "rx_wire_lost", C_IERRORS },       /* dropped for a bad FCS */
	{ "rx_wire_corrupted", C_CORRUPT_RX }, /* delivered, one bit flipped */
	{ "rx_overflow", C_IMISSED },        /* not polled in time */
	{ "tx_link_down", C_OERRORS },       /* given while the peer was down */
	{ "tx_parked", C_PARKED },           /* waited for another queue's MAC */
	/* CBFC's CF_Update as ordered sets (cbfc_os) */
	{ "tx_cbfc_cf_os", C_CF_TX },        /* sent */
	{ "tx_cbfc_cf_os_lost", C_CF_LOST }, /* lost on the wire or its queue */
	{ "rx_cbfc_cf_os", C_CF_RX },        /* given to the host as frames */
	{ "rx_cbfc_cf_os_nobuf", C_CF_NOBUF }, /* not, without an mbuf */
};

/* The driver's own LLR xstats, after lib/llr's. */
static const struct {
	const char *name;
	unsigned int idx;
} llr_xstat_own[] = {
	{ "llr_tx_ctl_os_lost", C_LLR_CTL_LOST }, /* the wire lost them */
	{ "llr_tx_replay_nobuf", C_LLR_NOBUF },   /* no mbuf for a clone */
};

/* lib/llr writes its counters plainly under the MAC flag: relaxed loads
 * read them whole (64-bit aligned) from the control thread. */
static void
llr_counters_read(const struct ibexlink_llr *x, uint64_t *c)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(llr_xstats); i++)
		c[C_LLR + i] = __atomic_load_n((const uint64_t *)
			((const char *)&x->l.st + llr_xstats[i].off),
			__ATOMIC_RELAXED);
	c[C_LLR_CTL_LOST] = __atomic_load_n(&x->ctl_lost, __ATOMIC_RELAXED);
	c[C_LLR_NOBUF] = __atomic_load_n(&x->replay_nobuf, __ATOMIC_RELAXED);
}

int
ibexlink_llr_stats(uint16_t port_id, struct ibex_llr_stats *st)
{
	const struct ibexlink_port *pt = ibexlink_port_of(port_id);
	unsigned int i;

	if (pt == NULL)
		return -ENODEV;
	if (pt->llr == NULL)
		return -ENOENT;
	for (i = 0; i < RTE_DIM(llr_xstats); i++)
		*(uint64_t *)((char *)st + llr_xstats[i].off) =
			__atomic_load_n((const uint64_t *)
				((const char *)&pt->llr->l.st +
				 llr_xstats[i].off), __ATOMIC_RELAXED);
	return 0;
}

/* xstats of @p pt: the base ones, and LLR's when it has LLR. */
static unsigned int
xstats_count(const struct ibexlink_port *pt)
{
	return RTE_DIM(xstat_names) + (pt->llr != NULL ?
		RTE_DIM(llr_xstats) + RTE_DIM(llr_xstat_own) : 0);
}

/* Name and counter index of xstat @p i of a port with LLR. */
static const char *
xstat_name(unsigned int i, unsigned int *idx)
{
	if (i < RTE_DIM(xstat_names)) {
		*idx = xstat_names[i].idx;
		return xstat_names[i].name;
	}
	i -= RTE_DIM(xstat_names);
	if (i < RTE_DIM(llr_xstats)) {
		*idx = C_LLR + i;
		return llr_xstats[i].name;
	}
	i -= RTE_DIM(llr_xstats);
	*idx = llr_xstat_own[i].idx;
	return llr_xstat_own[i].name;
}

static void
counters_read(const struct ibexlink_port *pt, uint64_t *c)
{
	const struct ibexlink_dir_stats *o = &pt->tx->st;
	unsigned int q;

	memset(c, 0, sizeof(uint64_t) * C_COUNT);
	c[C_IPACKETS] = atomic_load_explicit(&pt->rxq.frames,
					     memory_order_relaxed);
	c[C_IBYTES] = atomic_load_explicit(&pt->rxq.bytes,
					   memory_order_relaxed);
	c[C_PFC_RX] = atomic_load_explicit(&pt->rxq.pfc_frames,
					   memory_order_relaxed);
	c[C_OPACKETS] = atomic_load_explicit(&o->frames, memory_order_relaxed);
	c[C_OBYTES] = atomic_load_explicit(&o->bytes, memory_order_relaxed);
	c[C_OERRORS] = atomic_load_explicit(&o->link_down,
					    memory_order_relaxed);
	c[C_CF_TX] = atomic_load_explicit(&o->cf_os, memory_order_relaxed);
	c[C_CF_LOST] = atomic_load_explicit(&o->cf_os_lost,
					    memory_order_relaxed);
	c[C_CF_RX] = atomic_load_explicit(&pt->rxq.cf_os, memory_order_relaxed);
	c[C_CF_NOBUF] = atomic_load_explicit(&pt->rxq.cf_os_nobuf,
					     memory_order_relaxed);
	for (q = 0; q < IBEXLINK_MAX_TXQ; q++) {
		if (pt->txq[q] != NULL)
			c[C_PARKED] += atomic_load_explicit(&pt->txq[q]->parked,
							    memory_order_relaxed);
		c[C_QO + q] = atomic_load_explicit(&o->q_frames[q],
						   memory_order_relaxed);
		c[C_QOB + q] = atomic_load_explicit(&o->q_bytes[q],
						    memory_order_relaxed);
	}
	if (pt->peer != NULL) {
		const struct ibexlink_dir_stats *i = &pt->peer->tx->st;

		c[C_IMISSED] = atomic_load_explicit(&i->overflow,
						    memory_order_relaxed);
		c[C_IERRORS] = atomic_load_explicit(&i->lost,
						    memory_order_relaxed);
		c[C_CORRUPT_RX] = atomic_load_explicit(&i->corrupted,
						       memory_order_relaxed);
	}
	if (pt->llr != NULL)
		llr_counters_read(pt->llr, c);
}

/* Counters since the last reset. The incoming direction's counters belong
 * to the peer's MAC, so a reset keeps a base rather than clearing them. */
static void
counters_now(struct ibexlink_port *pt, uint64_t *c)
{
	unsigned int i;

	counters_read(pt, c);
	for (i = 0; pt->base != NULL && i < C_COUNT; i++)
		c[i] -= pt->base[i];
}

static int
port_stats(struct ibexlink_port *pt, struct rte_eth_stats *st)
{
	uint64_t c[C_COUNT];
	unsigned int q;

	counters_now(pt, c);
	st->ipackets = c[C_IPACKETS];
	st->ibytes = c[C_IBYTES];
	st->opackets = c[C_OPACKETS];
	st->obytes = c[C_OBYTES];
	st->imissed = c[C_IMISSED];
	st->ierrors = c[C_IERRORS];
	st->oerrors = c[C_OERRORS];
	st->q_ipackets[0] = c[C_IPACKETS];
	st->q_ibytes[0] = c[C_IBYTES];
	for (q = 0; q < IBEXLINK_MAX_TXQ && q < RTE_ETHDEV_QUEUE_STAT_CNTRS;
	     q++) {
		st->q_opackets[q] = c[C_QO + q];
		st->q_obytes[q] = c[C_QOB + q];
	}
	return 0;
}

static int
eth_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	return port_stats(dev->data->dev_private, st);
}

static int
eth_stats_reset(struct rte_eth_dev *dev)
{
	struct ibexlink_port *pt = dev->data->dev_private;

	if (pt->base == NULL)
		return -ENOMEM;
	counters_read(pt, pt->base);
	return 0;
}

static int
eth_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
	       unsigned int n)
{
	struct ibexlink_port *pt = dev->data->dev_private;
	unsigned int i, idx, count = xstats_count(pt);
	uint64_t c[C_COUNT];

	if (xs == NULL || n < count)
		return count;
	counters_now(pt, c);
	for (i = 0; i < count; i++) {
		xstat_name(i, &idx);
		xs[i].id = i;
		xs[i].value = c[idx];
	}
	return count;
}

static int
eth_xstats_get_names(struct rte_eth_dev *dev,
		     struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int i, idx, count = xstats_count(dev->data->dev_private);

	if (names == NULL || size < count)
		return count;
	for (i = 0; i < count; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s",
			 xstat_name(i, &idx));
	return count;
}

/* ---- device operations (control thread) ---- */

static void
link_fill(const struct ibexlink_port *pt, struct rte_eth_link *l)
{
	*l = (struct rte_eth_link){
		.link_speed = (uint32_t)(pt->p.rate_bps / 1000000),
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_status = atomic_load_explicit(&pt->started,
						    memory_order_acquire) &&
			       link_up(pt) ? RTE_ETH_LINK_UP :
					     RTE_ETH_LINK_DOWN,
	};
}

static void
link_set(struct rte_eth_dev *dev)
{
	link_fill(dev->data->dev_private, &dev->data->dev_link);
}

/* The ethdev link state of both ends (an in-process end has none). */
static void
link_refresh(struct ibexlink_port *pt)
{
	if (pt->eth != NULL)
		link_set(pt->eth);
	if (pt->peer != NULL && pt->peer->eth != NULL)
		link_set(pt->peer->eth);
}

static int
eth_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	link_set(dev);
	return 0;
}

static int
eth_configure(struct rte_eth_dev *dev)
{
	if (dev->data->nb_rx_queues > 1 ||
	    dev->data->nb_tx_queues > IBEXLINK_MAX_TXQ)
		return -EINVAL;
	return 0;
}

/* Free the frames of a ring as its consumer (LLR's bad-FCS markers are
 * no frames). */
static void
ring_flush(struct ibexlink_ring *r)
{
	void *objs[IBEXLINK_BURST];
	unsigned int k, i;

	if (r == NULL)
		return;
	while ((k = ibexlink_ring_drain(r, objs, RTE_DIM(objs))) != 0)
		for (i = 0; i < k; i++)
			obj_free(objs[i]);
}

static void
stage_flush(struct ibexlink_txq *q)
{
	unsigned int prio;
	void *m;

	for (prio = 0; prio < IBEXLINK_STAGES; prio++) {
		while (q->stage[prio] != NULL &&
		       rte_ring_sc_dequeue(q->stage[prio], &m) == 0)
			rte_pktmbuf_free(m);
	}
}

static int
port_start(struct ibexlink_port *pt)
{
	struct ibexlink_dir *d = pt->tx;
	uint32_t desc = 0;
	uint16_t q;

	for (q = 0; q < pt->nb_txq; q++)
		if (pt->txq[q] != NULL)
			desc += pt->txq[q]->nb_desc;
	desc = RTE_MAX(RTE_MIN(desc, (uint32_t)IBEXLINK_DESC_MAX), 1u);
	rte_free(d->started);
	d->started = rte_zmalloc("ibexlink_hist", desc * sizeof(uint64_t), 0);
	if (d->started == NULL)
		return -ENOMEM;
	d->desc = desc;
	d->next = 0;
	/* LLR starts again with INIT, and so does the peer's: its frames
	 * on the way to this port were lost with the carrier, and this
	 * port's receiver waits for an INIT. */
	if (pt->llr != NULL) {
		llr_reset(pt, pt->llr, now_ps());
		if (pt->peer != NULL && pt->peer->llr != NULL) {
			atomic_store_explicit(&pt->peer->llr->restart, true,
					      memory_order_release);
			/* INIT is due at both ends: their owners act now */
			if (ibex_clock_is_virtual()) {
				ibex_clock_wake(pt->owner, ibex_clock_now());
				ibex_clock_wake(pt->peer->owner,
						ibex_clock_now());
			}
		}
	}
	atomic_store_explicit(&pt->started, true, memory_order_release);
	link_refresh(pt);
	return 0;
}

static int
eth_start(struct rte_eth_dev *dev)
{
	return port_start(dev->data->dev_private);
}

static int
port_stop(struct ibexlink_port *pt)
{
	uint16_t q;

	atomic_store_explicit(&pt->started, false, memory_order_release);
	/* Frames on the way to a stopped port are lost with its carrier,
	 * and so are CtlOS. */
	if (pt->peer != NULL) {
		ring_flush(pt->peer->tx->ring);
		llr_ctl_flush(pt->peer->tx->ctl);
		llr_ctl_flush(atomic_load_explicit(&pt->peer->tx->cf,
						   memory_order_acquire));
	}
	for (q = 0; q < pt->nb_txq; q++)
		if (pt->txq[q] != NULL)
			stage_flush(pt->txq[q]);
	link_refresh(pt);
	return 0;
}

static int
eth_stop(struct rte_eth_dev *dev)
{
	return port_stop(dev->data->dev_private);
}

static int
eth_infos_get(struct rte_eth_dev *dev __rte_unused,
	      struct rte_eth_dev_info *info)
{
	info->max_mac_addrs = 1;
	info->max_rx_pktlen = IBEXLINK_FRAME_MAX;
	info->max_mtu = IBEXLINK_FRAME_MAX - RTE_ETHER_HDR_LEN -
			RTE_ETHER_CRC_LEN;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_rx_queues = 1;
	info->max_tx_queues = IBEXLINK_MAX_TXQ;
	info->min_rx_bufsize = 0;
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_TIMESTAMP |
				RTE_ETH_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	info->rx_desc_lim.nb_max = IBEXLINK_DESC_MAX;
	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxportconf.ring_size = IBEXLINK_DESC_DEF;
	info->default_txportconf.ring_size = IBEXLINK_DESC_DEF;
	info->speed_capa = RTE_ETH_LINK_SPEED_FIXED;
	return 0;
}

static int
port_rxq_setup(struct ibexlink_port *pt, uint16_t qid, struct rte_mempool *mp,
	       bool timestamp)
{
	struct ibexlink_rxq *rq = &pt->rxq;

	if (qid != 0)
		return -EINVAL;
	rq->port = pt;
	rq->mp = mp;
	rq->ts_off = -1;
	if (timestamp) {
		int ret = rte_mbuf_dyn_rx_timestamp_register(&rq->ts_off,
							     &rq->ts_flag);

		if (ret != 0) {
			rq->ts_off = -1;
			return ret;
		}
	}
	return 0;
}

static int
eth_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		   uint16_t nb_desc __rte_unused, unsigned int socket __rte_unused,
		   const struct rte_eth_rxconf *conf, struct rte_mempool *mp)
{
	struct ibexlink_port *pt = dev->data->dev_private;
	uint64_t offloads = dev->data->dev_conf.rxmode.offloads |
			    (conf != NULL ? conf->offloads : 0);
	int ret;

	ret = port_rxq_setup(pt, qid, mp,
			     offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP);
	if (ret == 0)
		dev->data->rx_queues[qid] = &pt->rxq;
	return ret;
}

static void
txq_free(struct ibexlink_txq *q)
{
	unsigned int prio;

	if (q == NULL)
		return;
	stage_flush(q);
	/* Without PFC the priority rings all alias stage[0]. */
	for (prio = 0; prio < IBEXLINK_STAGES; prio++)
		if (prio == 0 || q->stage[prio] != q->stage[0])
			rte_free(q->stage[prio]);
	rte_free(q);
}

/*
 * A staging ring on the heap, not in a memzone as rte_ring_create() puts
 * it: EAL has RTE_MAX_MEMZONE (2,560) of them for the whole process, and
 * a fabric has a TX queue per link end (6,144 in a K=16 fat tree).
 */
static struct rte_ring *
stage_ring(const char *name, unsigned int count, int socket)
{
	/* RING_F_EXACT_SZ: count usable slots in the next power of two
	 * above it, as rte_ring_create() sizes them */
	ssize_t sz = rte_ring_get_memsize_elem(sizeof(void *),
					       rte_align32pow2(count + 1));
	struct rte_ring *r;

	if (sz < 0) {
		rte_errno = (int)-sz;
		return NULL;
	}
	r = rte_zmalloc_socket("ibexlink_stage", (size_t)sz,
			       RTE_CACHE_LINE_SIZE, socket);
	if (r == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (rte_ring_init(r, name, count, RING_F_SP_ENQ | RING_F_SC_DEQ |
			  RING_F_EXACT_SZ) != 0) {
		rte_free(r);
		rte_errno = EINVAL;
		return NULL;
	}
	return r;
}

static int
port_txq_setup(struct ibexlink_port *pt, uint16_t qid, uint16_t nb_desc,
	       int socket)
{
	unsigned int prio, nrings = pt->pfc ? IBEXLINK_STAGES : 1;
	struct ibexlink_txq *q;
	char name[RTE_RING_NAMESIZE];

	if (qid >= IBEXLINK_MAX_TXQ)
		return -EINVAL;
	if (nb_desc == 0)
		nb_desc = IBEXLINK_DESC_DEF;
	txq_free(pt->txq[qid]);
	pt->txq[qid] = NULL;
	q = rte_zmalloc_socket("ibexlink_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			       socket);
	if (q == NULL)
		return -ENOMEM;
	q->port = pt;
	q->qid = qid;
	q->nb_desc = nb_desc;
	/* Every priority ring of a queue is empty except the ones used, so
	 * pfc=off keeps one, pfc=on one per priority (a NIC's TC queues). */
	for (prio = 0; prio < IBEXLINK_STAGES; prio++) {
		unsigned int k = prio < nrings ? prio : 0;

		if (prio >= nrings) {
			q->stage[prio] = q->stage[k];
			continue;
		}
		snprintf(name, sizeof(name), "ibxl%u_%u_%u",
			 pt->port_id, qid, prio);
		q->stage[prio] = stage_ring(name, nb_desc, socket);
		if (q->stage[prio] == NULL) {
			q->stage[prio] = NULL;
			while (prio-- > 0)
				rte_free(q->stage[prio]);
			rte_free(q);
			return -rte_errno;
		}
	}
	pt->txq[qid] = q;
	pt->nb_txq = RTE_MAX(pt->nb_txq, (uint16_t)(qid + 1));
	return 0;
}

static int
eth_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		   unsigned int socket, const struct rte_eth_txconf *conf __rte_unused)
{
	struct ibexlink_port *pt = dev->data->dev_private;
	int ret = port_txq_setup(pt, qid, nb_desc, (int)socket);

	if (ret == 0)
		dev->data->tx_queues[qid] = pt->txq[qid];
	return ret;
}

static void
eth_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ibexlink_port *pt = dev->data->dev_private;

	if (qid >= IBEXLINK_MAX_TXQ || pt->txq[qid] == NULL)
		return;
	txq_free(pt->txq[qid]);
	pt->txq[qid] = NULL;
	dev->data->tx_queues[qid] = NULL;
}

static void
eth_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	dev->data->rx_queues[qid] = NULL;
}

/* The clock of RX timestamps: picoseconds of emulated time. */
static int
link_read_clock(struct rte_eth_dev *dev __rte_unused, uint64_t *clock)
{
	*clock = now_ps();
	return 0;
}

static int
eth_ok(struct rte_eth_dev *dev __rte_unused)
{
	return 0;
}

static int
eth_mtu_set(struct rte_eth_dev *dev __rte_unused, uint16_t mtu)
{
	return mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > IBEXLINK_FRAME_MAX ?
	       -EINVAL : 0;
}

static int
eth_mac_addr_set(struct rte_eth_dev *dev __rte_unused,
		 struct rte_ether_addr *a __rte_unused)
{
	return 0;
}

static void link_unpair(struct ibexlink_port *pt);

/* Everything of a port's LLR, the frames it keeps included. */
static void
llr_free(struct ibexlink_port *pt)
{
	struct ibexlink_llr *x = pt->llr;

	if (x == NULL)
		return;
	pt->llr = NULL;
	pt->tx->llr = false;
	while (x->kept != x->l.tx.next_seq) {
		rte_pktmbuf_free(x->buf[x->kept % x->l.tx.p.max_frames]);
		x->kept = ibex_llr_seq(x->kept + 1);
	}
	ibex_llr_port_free(&x->l);
	rte_free(x->buf);
	rte_free(x);
	rte_free(pt->tx->ctl);
	pt->tx->ctl = NULL;
}

/* Everything of a port but its own memory (ethdev frees an ethdev's). */
static void
port_close(struct ibexlink_port *pt)
{
	uint16_t q;

	if (atomic_load_explicit(&pt->started, memory_order_acquire))
		port_stop(pt);
	for (q = 0; q < IBEXLINK_MAX_TXQ; q++) {
		txq_free(pt->txq[q]);
		pt->txq[q] = NULL;
	}
	link_unpair(pt);
	TAILQ_REMOVE(&ports, pt, next);
	if (pt->tx != NULL) {
		rte_free(pt->tx->ring);
		rte_free(pt->tx->started);
		cf_os_free(pt->tx);
		rte_free(pt->tx);
		pt->tx = NULL;
	}
	rte_free(pt->base);
	pt->base = NULL;
}

static int
eth_close(struct rte_eth_dev *dev)
{
	struct ibexlink_port *pt = dev->data->dev_private;
	uint16_t q;

	if (pt == NULL)
		return 0;
	for (q = 0; q < IBEXLINK_MAX_TXQ; q++)
		if (pt->txq[q] != NULL)
			dev->data->tx_queues[q] = NULL;
	port_close(pt);
	/* The MAC address lives in the port; ethdev must not free it. */
	dev->data->mac_addrs = NULL;
	return 0;
}

static const struct eth_dev_ops ops = {
	.dev_configure = eth_configure,
	.dev_start = eth_start,
	.dev_stop = eth_stop,
	.dev_set_link_up = eth_ok,
	.dev_set_link_down = eth_ok,
	.dev_close = eth_close,
	.link_update = eth_link_update,
	.promiscuous_enable = eth_ok,
	.promiscuous_disable = eth_ok,
	.allmulticast_enable = eth_ok,
	.allmulticast_disable = eth_ok,
	.mac_addr_set = eth_mac_addr_set,
	.mtu_set = eth_mtu_set,
	.stats_get = eth_stats_get,
	.stats_reset = eth_stats_reset,
	.xstats_get = eth_xstats_get,
	.xstats_reset = eth_stats_reset,
	.xstats_get_names = eth_xstats_get_names,
	.dev_infos_get = eth_infos_get,
	.rx_queue_setup = eth_rx_queue_setup,
	.rx_queue_release = eth_rx_queue_release,
	.tx_queue_setup = eth_tx_queue_setup,
	.tx_queue_release = eth_tx_queue_release,
	.read_clock = link_read_clock,
};

/* ---- devargs, pairing, probe and remove ---- */

struct args {
	struct ibexlink_port *pt;
	char bad[32];
	const char *why;  /* what the key takes, for the message */
};

/* llr=: "off or a preset: 200g-5m, ..." from lib/llr's list. */
static const char *
llr_presets_why(void)
{
	static char why[160];
	unsigned int i;
	size_t len;

	if (why[0] != '\0')
		return why;
	len = (size_t)snprintf(why, sizeof(why), "off or a preset:");
	for (i = 0; ibex_llr_presets[i].name != NULL && len < sizeof(why); i++)
		len += (size_t)snprintf(why + len, sizeof(why) - len, "%s %s",
					i != 0 ? "," : "",
					ibex_llr_presets[i].name);
	return why;
}

static int
llr_parse_preset(const char *val, const struct ibex_llr_profile **p)
{
	if (strcmp(val, "off") == 0) {
		*p = NULL;
		return 0;
	}
	*p = ibex_llr_preset(val);
	return *p != NULL ? 0 : -EINVAL;
}

enum { LLR_K_COUNT, LLR_K_TIME, LLR_K_ACTION };

/* The overrides of a preset, SAI's ranges (lib/llr checks them again);
 * times in ns. ibexlink's times stop at 1 s: SAI's data age goes to
 * 4.29 s. */
static const struct {
	const char *key;
	uint8_t kind;
	uint64_t min, max;
	const char *why;
} llr_keys[LLR_OV_N] = {
	[LLR_OV_FRAMES] = { IBEXLINK_ARG_LLR_FRAMES, LLR_K_COUNT, 1,
			    IBEX_LLR_MAX_FRAMES,
			    "a count of frames, 1 to 262144" },
	[LLR_OV_BYTES] = { IBEXLINK_ARG_LLR_BYTES, LLR_K_COUNT, 64, UINT32_MAX,
			   "a count of bytes, 64 to 4294967295" },
	[LLR_OV_TIMER] = { IBEXLINK_ARG_LLR_TIMER, LLR_K_TIME, 1,
			   IBEX_LLR_REPLAY_TIMER_MAX,
			   "a time in whole ns, 1ns to 65535ns" },
	[LLR_OV_COUNT] = { IBEXLINK_ARG_LLR_COUNT, LLR_K_COUNT, 1,
			   IBEX_LLR_REPLAY_COUNT_MAX, "a count, 1 to 255" },
	[LLR_OV_AGE] = { IBEXLINK_ARG_LLR_AGE, LLR_K_TIME, 0,
			 IBEXLINK_DELAY_MAX / IBEXLINK_PS_PER_NS,
			 "a time in whole ns up to 1s, 0 for none" },
	[LLR_OV_SPACING] = { IBEXLINK_ARG_LLR_SPACING, LLR_K_COUNT,
			     IBEX_LLR_CTLOS_SPACING_MIN,
			     IBEX_LLR_CTLOS_SPACING_MAX,
			     "a count of bytes, 400 to 16384" },
	[LLR_OV_INIT] = { IBEXLINK_ARG_LLR_INIT, LLR_K_ACTION, 0,
			  IBEX_LLR_DISCARD, "best_effort, block or discard" },
	[LLR_OV_FLUSH] = { IBEXLINK_ARG_LLR_FLUSH, LLR_K_ACTION, 0,
			   IBEX_LLR_DISCARD, "best_effort, block or discard" },
};

static const char *const llr_actions[] = {
	[IBEX_LLR_BEST_EFFORT] = "best_effort",
	[IBEX_LLR_BLOCK] = "block",
	[IBEX_LLR_DISCARD] = "discard",
};

/* A value of override @p i: decimal digits, a time, or an action. */
static int
llr_parse_value(unsigned int i, const char *val, uint64_t *v)
{
	uint64_t ps;
	char *end;

	switch (llr_keys[i].kind) {
	case LLR_K_COUNT:
		/* strtoull() takes signs, blanks and "-1" */
		if (!isdigit((unsigned char)val[0]))
			return -EINVAL;
		errno = 0;
		*v = strtoull(val, &end, 10);
		return errno != 0 || *end != '\0' ? -EINVAL : 0;
	case LLR_K_TIME:
		if (ibexlink_parse_time(val, &ps) != 0 ||
		    ps % IBEXLINK_PS_PER_NS != 0)
			return -EINVAL;
		*v = ps / IBEXLINK_PS_PER_NS;
		return 0;
	default:
		for (*v = 0; *v < RTE_DIM(llr_actions); (*v)++)
			if (strcmp(val, llr_actions[*v]) == 0)
				return 0;
		return -EINVAL;
	}
}

/* llr_*=: an override of the preset's attribute, in range. */
static int
llr_parse_key(struct ibexlink_port *pt, const char *key, const char *val,
	      const char **why)
{
	unsigned int i;
	uint64_t v = 0;

	for (i = 0; i < LLR_OV_N; i++)
		if (strcmp(key, llr_keys[i].key) == 0)
			break;
	if (i == LLR_OV_N)
		return -EINVAL;
	*why = llr_keys[i].why;
	if (llr_parse_value(i, val, &v) != 0 || v < llr_keys[i].min ||
	    v > llr_keys[i].max)
		return -EINVAL;
	pt->llr_ov[i] = v;
	pt->llr_gave |= 1u << i;
	return 0;
}

static void
llr_apply(struct ibex_llr_profile *p, unsigned int i, uint64_t v)
{
	switch (i) {
	case LLR_OV_FRAMES:
		p->max_frames = (uint32_t)v;
		break;
	case LLR_OV_BYTES:
		p->max_bytes = (uint32_t)v;
		break;
	case LLR_OV_TIMER:
		p->replay_timer_ns = (uint32_t)v;
		break;
	case LLR_OV_COUNT:
		p->replay_count = (uint32_t)v;
		break;
	case LLR_OV_AGE:
		p->data_age_ns = (uint32_t)v;
		break;
	case LLR_OV_SPACING:
		p->ctlos_spacing = (uint32_t)v;
		break;
	case LLR_OV_INIT:
		p->init_action = (uint8_t)v;
		break;
	default:
		p->flush_action = (uint8_t)v;
		break;
	}
}

static int
arg_one(const char *key, const char *val, void *opaque)
{
	struct args *a = opaque;
	struct ibexlink_port *pt = a->pt;
	int ret = -EINVAL;

	a->why = NULL;
	if (strcmp(key, IBEXLINK_ARG_PEER) == 0) {
		a->why = "another net_ibexlink device's name";
		if (strlen(val) >= sizeof(pt->peer_name) || val[0] == '\0')
			goto bad;
		if (strcmp(val, pt->name) == 0) {
			a->why = "another net_ibexlink device, not this one";
			goto bad;
		}
		snprintf(pt->peer_name, sizeof(pt->peer_name), "%s", val);
		return 0;
	} else if (strcmp(key, IBEXLINK_ARG_RATE) == 0) {
		a->why = "a rate such as 100G, 25G, 400M";
		ret = ibexlink_parse_rate(val, &pt->p.rate_bps);
		pt->gave |= GAVE_RATE;
	} else if (strcmp(key, IBEXLINK_ARG_DELAY) == 0) {
		a->why = "a decimal time such as 500ns, 1.5us, 2ms (bare: ns)";
		ret = ibexlink_parse_time(val, &pt->p.delay_ps);
		pt->gave |= GAVE_DELAY;
	} else if (strcmp(key, IBEXLINK_ARG_JITTER) == 0) {
		a->why = "a decimal time such as 500ns, 1.5us, 2ms (bare: ns)";
		ret = ibexlink_parse_time(val, &pt->p.jitter_ps);
		pt->gave |= GAVE_JITTER;
	} else if (strcmp(key, IBEXLINK_ARG_LOSS) == 0) {
		a->why = "a probability such as 0.001, 1e-4, 0.5%";
		ret = ibexlink_parse_prob(val, &pt->p.loss_thr);
		pt->gave |= GAVE_LOSS;
	} else if (strcmp(key, IBEXLINK_ARG_CORRUPT) == 0) {
		a->why = "a probability such as 0.001, 1e-4, 0.5%";
		ret = ibexlink_parse_prob(val, &pt->p.corrupt_thr);
		pt->gave |= GAVE_CORRUPT;
	} else if (strcmp(key, IBEXLINK_ARG_SEED) == 0) {
		a->why = "a decimal integer 0..18446744073709551615";
		ret = ibexlink_parse_seed(val, &pt->p.seed);
		pt->gave |= GAVE_SEED;
	} else if (strcmp(key, IBEXLINK_ARG_PFC) == 0) {
		a->why = "on or off";
		ret = 0;
		if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0)
			pt->pfc = true;
		else if (strcmp(val, "off") == 0 || strcmp(val, "0") == 0)
			pt->pfc = false;
		else
			ret = -EINVAL;
		pt->gave |= GAVE_PFC;
	} else if (strcmp(key, IBEXLINK_ARG_PFC_WINDOW) == 0) {
		a->why = "a decimal time such as 500ns, 1.5us, 2ms (bare: ns)";
		ret = ibexlink_parse_time(val, &pt->window_ps);
		pt->gave |= GAVE_WINDOW;
	} else if (strcmp(key, IBEXLINK_ARG_TX_WINDOW) == 0) {
		a->why = "a decimal time such as 0, 100ns, 1us (bare: ns)";
		ret = ibexlink_parse_time(val, &pt->tx_window_ps);
		pt->gave |= GAVE_TX_WINDOW;
	} else if (strcmp(key, IBEXLINK_ARG_RING_SLACK) == 0) {
		char *end;
		unsigned long v;

		a->why = "a count of frames, 32 to 4194304";
		errno = 0;
		v = strtoul(val, &end, 10);
		if (errno != 0 || end == val || *end != '\0' || val[0] == '-' ||
		    v < IBEXLINK_BURST || v > IBEXLINK_RING_MAX)
			goto bad;
		pt->ring_slack = (uint32_t)v;
		ret = 0;
	} else if (strcmp(key, IBEXLINK_ARG_CBFC_OS) == 0) {
		a->why = "on or off";
		ret = 0;
		if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0)
			pt->cf_frames = false;
		else if (strcmp(val, "off") == 0 || strcmp(val, "0") == 0)
			pt->cf_frames = true;
		else
			ret = -EINVAL;
	} else if (strcmp(key, IBEXLINK_ARG_LLR) == 0) {
		a->why = llr_presets_why();
		ret = llr_parse_preset(val, &pt->llr_preset);
		pt->gave |= GAVE_LLR;
	} else {
		ret = llr_parse_key(pt, key, val, &a->why);
	}
	if (ret == 0)
		return 0;
bad:
	snprintf(a->bad, sizeof(a->bad), "%s", key);
	return -EINVAL;
}

/* Devargs @p params of keys @p keys (@p keys_help for the message). */
static int
args_parse_keys(struct ibexlink_port *pt, const char *params,
		const char *const *keys, const char *keys_help)
{
	struct rte_kvargs *kv;
	struct args a = { .pt = pt, .bad = "?" };
	int ret;

	if (params == NULL || params[0] == '\0')
		return 0;
	kv = rte_kvargs_parse(params, keys);
	if (kv == NULL) {
		LINK_LOG(ERR, "%s: cannot parse '%s' (keys: %s)", pt->name,
			 params, keys_help);
		return -EINVAL;
	}
	ret = rte_kvargs_process(kv, NULL, arg_one, &a);
	rte_kvargs_free(kv);
	if (ret != 0) {
		LINK_LOG(ERR, "%s: bad value for '%s' in '%s'%s%s", pt->name,
			 a.bad, params, a.why != NULL ? ": expected " : "",
			 a.why != NULL ? a.why : "");
		return -EINVAL;
	}
	return 0;
}

static int
args_parse(struct ibexlink_port *pt, const char *params)
{
	return args_parse_keys(pt, params, valid_args, IBEXLINK_PARAMS);
}

int
ibexlink_set_faults(uint16_t port_id, const char *args)
{
	static const char *const keys[] = {
		IBEXLINK_ARG_LOSS, IBEXLINK_ARG_CORRUPT, NULL,
	};
	struct ibexlink_port *pt = ibexlink_port_of(port_id);
	struct ibexlink_port *tmp;
	struct ibexlink_dir *d;
	int ret;

	if (pt == NULL || pt->tx == NULL)
		return -ENODEV;
	/* parsed aside: a bad value changes nothing */
	tmp = rte_zmalloc("ibexlink_args", sizeof(*tmp), RTE_CACHE_LINE_SIZE);
	if (tmp == NULL)
		return -ENOMEM;
	snprintf(tmp->name, sizeof(tmp->name), "%s", pt->name);
	tmp->p = pt->p;
	ret = args_parse_keys(tmp, args, keys, IBEXLINK_ARG_LOSS ", "
			      IBEXLINK_ARG_CORRUPT);
	if (ret == 0) {
		/* the wire's generator runs under the MAC flag */
		d = pt->tx;
		while (atomic_flag_test_and_set_explicit(&d->mac_busy,
							 memory_order_acquire))
			rte_pause();
		pt->p.loss_thr = d->wire.p.loss_thr = tmp->p.loss_thr;
		pt->p.corrupt_thr = d->wire.p.corrupt_thr = tmp->p.corrupt_thr;
		atomic_flag_clear_explicit(&d->mac_busy, memory_order_release);
	}
	rte_free(tmp);
	return ret;
}

/* LLR as the other keys: llr= and each override a device leaves out it
 * takes from its peer; the overrides apply to the preset. */
static void
llr_resolve(struct ibexlink_port *pt, const struct ibexlink_port *o)
{
	unsigned int i;

	if (!(pt->gave & GAVE_LLR))
		pt->llr_preset = (o->gave & GAVE_LLR) ? o->llr_preset : NULL;
	if (pt->llr_preset == NULL)
		return;
	pt->llr_p = *pt->llr_preset;
	for (i = 0; i < LLR_OV_N; i++) {
		if (pt->llr_gave & (1u << i))
			llr_apply(&pt->llr_p, i, pt->llr_ov[i]);
		else if (o->llr_gave & (1u << i))
			llr_apply(&pt->llr_p, i, o->llr_ov[i]);
	}
}

/* A parameter the device did not give comes from its peer, else the
 * default; the second direction's fault seed differs from the first's. */
static void
params_resolve(struct ibexlink_port *pt, const struct ibexlink_port *o,
	       unsigned int dir)
{
#define TAKE(flag, field, def) \
	do { \
		if (!(pt->gave & (flag))) \
			pt->field = (o->gave & (flag)) ? o->field : (def); \
	} while (0)
	TAKE(GAVE_RATE, p.rate_bps, IBEXLINK_DEF_RATE);
	TAKE(GAVE_DELAY, p.delay_ps, 0);
	TAKE(GAVE_JITTER, p.jitter_ps, 0);
	TAKE(GAVE_LOSS, p.loss_thr, 0);
	TAKE(GAVE_CORRUPT, p.corrupt_thr, 0);
	TAKE(GAVE_SEED, p.seed, 1);
	TAKE(GAVE_PFC, pfc, false);
	TAKE(GAVE_WINDOW, window_ps, IBEXLINK_DEF_WINDOW_PS);
#undef TAKE
	if (!(pt->gave & GAVE_SEED))
		pt->p.seed += dir;
	llr_resolve(pt, o);
}

/* Whether a pair's LLR settings make sense together (@p b may be @p a: a
 * device alone). The MAC that obeys PFC has no LLR yet; overrides with
 * no LLR either way would do nothing. */
static int
llr_check(const struct ibexlink_port *a, const struct ibexlink_port *b)
{
	bool on = a->llr_preset != NULL || b->llr_preset != NULL;
	char err[160];

	if (on && (a->pfc || b->pfc)) {
		LINK_LOG(ERR, "%s: llr with pfc=on: not supported (the MAC "
			 "that obeys PFC has no LLR yet)", a->name);
		return -EINVAL;
	}
	if (!on && (a->llr_gave != 0 || b->llr_gave != 0) && a != b) {
		LINK_LOG(ERR, "%s: llr_* keys need llr=PRESET on one of %s "
			 "and %s", a->name, a->name, b->name);
		return -EINVAL;
	}
	if ((a->llr_preset != NULL &&
	     ibex_llr_profile_check(&a->llr_p, err, sizeof(err)) != 0) ||
	    (b->llr_preset != NULL &&
	     ibex_llr_profile_check(&b->llr_p, err, sizeof(err)) != 0)) {
		LINK_LOG(ERR, "%s: llr: %s", a->name, err);
		return -EINVAL;
	}
	return 0;
}

/* The mbuf dynfield of the LLR tag, once per process. */
static int
llr_tag_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "ibexlink_llr_tag",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};

	if (llr_tag_off < 0)
		llr_tag_off = rte_mbuf_dynfield_register(&desc);
	return llr_tag_off < 0 ? -rte_errno : 0;
}

/* A paired port's LLR, if either direction has it: its own profile, or
 * the peer's when only the peer's direction is protected (the receiver's
 * CtlOS spacing). */
static int
llr_setup(struct ibexlink_port *pt)
{
	struct ibexlink_port *o = pt->peer;
	const struct ibex_llr_profile *p = pt->llr_preset != NULL ?
					   &pt->llr_p : &o->llr_p;
	struct ibexlink_llr *x;
	int ret;

	if (pt->llr_preset == NULL && o->llr_preset == NULL)
		return 0;
	ret = llr_tag_register();
	if (ret != 0)
		return ret;
	x = rte_zmalloc("ibexlink_llr", sizeof(*x), RTE_CACHE_LINE_SIZE);
	pt->tx->ctl = rte_zmalloc("ibexlink_ctl",
				  ibexlink_ring_size(LLR_CTL_SLOTS),
				  RTE_CACHE_LINE_SIZE);
	if (x == NULL || pt->tx->ctl == NULL ||
	    (x->buf = rte_zmalloc("ibexlink_replay", p->max_frames *
				  sizeof(*x->buf), 0)) == NULL ||
	    ibex_llr_port_init(&x->l, p, 0, 0) != 0) {
		if (x != NULL)
			rte_free(x->buf);
		rte_free(x);
		rte_free(pt->tx->ctl);
		pt->tx->ctl = NULL;
		return -ENOMEM;
	}
	ibexlink_ring_init(pt->tx->ctl, LLR_CTL_SLOTS);
	x->tx_on = pt->llr_preset != NULL;
	x->rx_on = o->llr_preset != NULL;
	if (!x->tx_on)
		x->l.tx.init_due = false;
	x->rng = pt->p.seed ^ LLR_RNG_SALT;
	pt->tx->llr = x->tx_on;
	pt->llr = x;
	if (x->tx_on)
		LINK_LOG(INFO, "%s -> %s: llr, %u frames, %u bytes, replay "
			 "timer %u ns x %u, data age %u ns, init %s, flush %s",
			 pt->name, o->name, p->max_frames, p->max_bytes,
			 p->replay_timer_ns, p->replay_count, p->data_age_ns,
			 llr_actions[p->init_action],
			 llr_actions[p->flush_action]);
	return 0;
}

/* The wire ring holds what is in flight at the line rate over the delay,
 * the jitter and the MAC window, plus the slack of both ends' rings. */
static uint32_t
ring_cap(const struct ibexlink_port *pt)
{
	uint64_t t = pt->p.delay_ps + pt->p.jitter_ps + pt->window_ps;
	uint64_t min_frame_ps = (uint64_t)ibexlink_wire_bytes(0) * 8 *
				IBEXLINK_PS_PER_S / pt->p.rate_bps;
	uint64_t n = t / RTE_MAX(min_frame_ps, UINT64_C(1)) + 1 +
		     (pt->ring_slack != 0 ? pt->ring_slack : IBEXLINK_RING_SLACK);

	return n > IBEXLINK_RING_MAX ? 0 : rte_align32pow2((uint32_t)n);
}

static int
dir_setup(struct ibexlink_port *pt)
{
	uint32_t cap = ring_cap(pt);
	char rate[32];

	if (ibexlink_params_check(&pt->p) != 0 || cap == 0) {
		LINK_LOG(ERR, "%s: rate %" PRIu64 " b/s with delay %" PRIu64
			 " ps keeps more than %u frames in flight",
			 pt->name, pt->p.rate_bps, pt->p.delay_ps,
			 IBEXLINK_RING_MAX);
		return -EINVAL;
	}
	pt->tx->ring = rte_zmalloc("ibexlink_wire", ibexlink_ring_size(cap),
				   RTE_CACHE_LINE_SIZE);
	if (pt->tx->ring == NULL)
		return -ENOMEM;
	ibexlink_ring_init(pt->tx->ring, cap);
	ibexlink_wire_init(&pt->tx->wire, &pt->p);
	pt->tx->cf_rng = pt->p.seed ^ CF_OS_RNG_SALT;
	pt->tx->tx_windowed = (pt->gave & GAVE_TX_WINDOW) != 0;
	pt->tx->tx_window_ps = pt->tx_window_ps;
	LINK_LOG(INFO, "%s -> %s: %s, delay %" PRIu64 " ps, jitter %" PRIu64
		 " ps%s%s, %u slots", pt->name, pt->peer->name,
		 ibexlink_format_rate(pt->p.rate_bps, rate, sizeof(rate)),
		 pt->p.delay_ps, pt->p.jitter_ps,
		 pt->p.loss_thr || pt->p.corrupt_thr ? ", faults" : "",
		 pt->pfc ? ", pfc" : "", cap);
	return 0;
}

static int
link_pair(struct ibexlink_port *a, struct ibexlink_port *b)
{
	int ret;

	params_resolve(a, b, 0);
	params_resolve(b, a, 1);
	ret = llr_check(a, b);
	if (ret != 0)
		return ret;
	a->peer = b;
	b->peer = a;
	ret = dir_setup(a);
	if (ret == 0)
		ret = dir_setup(b);
	if (ret == 0)
		ret = llr_setup(a);
	if (ret == 0)
		ret = llr_setup(b);
	if (ret != 0) {
		llr_free(a);
		llr_free(b);
		rte_free(a->tx->ring);
		rte_free(b->tx->ring);
		a->tx->ring = b->tx->ring = NULL;
		a->peer = b->peer = NULL;
	}
	return ret;
}

static void
link_unpair(struct ibexlink_port *pt)
{
	struct ibexlink_port *o = pt->peer;

	if (o == NULL)
		return;
	/* Both directions go: frames in flight are lost with the cable. */
	ring_flush(pt->tx->ring);
	ring_flush(o->tx->ring);
	llr_free(pt);
	llr_free(o);
	cf_os_free(pt->tx);
	cf_os_free(o->tx);
	rte_free(o->tx->ring);
	o->tx->ring = NULL;
	o->peer = NULL;
	pt->peer = NULL;
	if (o->eth != NULL)
		link_set(o->eth);
}

/* The unpaired port this one names, or that names this one. */
static struct ibexlink_port *
partner(const struct ibexlink_port *pt, int *err)
{
	struct ibexlink_port *o;

	*err = 0;
	TAILQ_FOREACH(o, &ports, next) {
		bool named = strcmp(pt->peer_name, o->name) == 0;
		bool names = strcmp(o->peer_name, pt->name) == 0;

		if (!named && !names)
			continue;
		if (o->peer != NULL || (o->peer_name[0] != '\0' && !names)) {
			LINK_LOG(ERR, "%s: %s is already paired", pt->name,
				 o->name);
			*err = -EBUSY;
			return NULL;
		}
		return o;
	}
	return NULL;
}

static void
clock_once(void)
{
	if (!link_clock_set) {
		ibexlink_clock_init(&link_clock, ibex_clock_hz(), ibex_clock_now());
		link_clock_set = true;
	}
}

/* A new port's own state from its name and devargs; no peer yet. */
static int
port_init(struct ibexlink_port *pt, const char *name, const char *args)
{
	int ret;

	snprintf(pt->name, sizeof(pt->name), "%s", name);
	pt->owner = IBEX_CLOCK_NO_OWNER;
	pt->tx = rte_zmalloc("ibexlink_dir", sizeof(*pt->tx),
			     RTE_CACHE_LINE_SIZE);
	pt->base = rte_zmalloc("ibexlink_base", sizeof(uint64_t) * C_COUNT, 0);
	if (pt->tx == NULL || pt->base == NULL)
		return -ENOMEM;
	atomic_flag_clear(&pt->tx->mac_busy);
	ret = args_parse(pt, args);
	if (ret != 0)
		return ret;
	/* Parameters stand alone until a peer comes (for link_speed). */
	params_resolve(pt, pt, 0);
	return llr_check(pt, pt);
}

static void
port_init_undo(struct ibexlink_port *pt)
{
	if (pt->tx != NULL)
		rte_free(pt->tx->ring);
	rte_free(pt->tx);
	rte_free(pt->base);
	pt->tx = NULL;
	pt->base = NULL;
}

/* Locally administered, unique per port id: 02:69:62:6c:HH:LL. */
static void
port_mac_set(struct ibexlink_port *pt)
{
	pt->mac = (struct rte_ether_addr){
		{ 0x02, 0x69, 0x62, 0x6c, (uint8_t)(pt->port_id >> 8),
		  (uint8_t)pt->port_id } };
}

static int
ibexlink_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_device *rdev = ibexlink_vdev_rte_device(vdev);
	struct rte_eth_dev *eth;
	struct ibexlink_port *pt, *o;
	uint16_t pid;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		LINK_LOG(ERR, "%s: primary process only", name);
		return -ENOTSUP;
	}
	clock_once();
	eth = rte_eth_dev_allocate(name);
	if (eth == NULL)
		return -ENOMEM;
	if (strcmp(eth->data->name, name) != 0) {
		LINK_LOG(ERR, "%s: ethdev driver interface mismatch", name);
		rte_eth_dev_release_port(eth);
		return -ENOTSUP;
	}
	pt = rte_zmalloc_socket(name, sizeof(*pt), RTE_CACHE_LINE_SIZE,
				rte_dev_numa_node(rdev));
	if (pt == NULL) {
		rte_eth_dev_release_port(eth);
		return -ENOMEM;
	}
	eth->data->dev_private = pt;
	pt->eth = eth;
	pt->port_id = eth->data->port_id;
	ret = port_init(pt, name, rte_vdev_device_args(vdev));
	if (ret != 0)
		goto fail;
	o = partner(pt, &ret);
	if (ret != 0)
		goto fail;
	if (o != NULL) {
		ret = link_pair(o, pt);
		if (ret != 0)
			goto fail;
	}
	port_mac_set(pt);
	eth->data->mac_addrs = &pt->mac;
	eth->device = rdev;
	eth->dev_ops = &ops;
	eth->rx_pkt_burst = eth_rx;
	eth->tx_pkt_burst = pt->pfc ? eth_tx_pfc : eth_tx_plain;
	TAILQ_INSERT_TAIL(&ports, pt, next);
	link_set(eth);
	rte_eth_dev_probing_finish(eth);
	/* The driver interface is declared by hand when DPDK's driver headers
	 * are missing: check it addresses the device ethdev knows. */
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0 ||
	    pid != eth->data->port_id) {
		LINK_LOG(ERR, "%s: ethdev driver interface mismatch", name);
		eth_close(eth);
		rte_eth_dev_release_port(eth);
		return -ENOTSUP;
	}
	return 0;
fail:
	port_init_undo(pt);
	rte_eth_dev_release_port(eth);
	return ret;
}

static int
ibexlink_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *eth = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (eth == NULL)
		return 0; /* closed already: rte_eth_dev_close released it */
	eth_close(eth);
	return rte_eth_dev_release_port(eth);
}

/* ---- in-process devices: pairs beyond ethdev's RTE_MAX_ETHPORTS ---- */

static int
pdev_info(void *dev __rte_unused, struct rte_eth_dev_info *info)
{
	info->driver_name = "net_ibexlink";
	return eth_infos_get(NULL, info);
}

static int
pdev_rxq_setup(void *dev, uint16_t q, uint16_t nb_desc __rte_unused,
	       struct rte_mempool *mp, bool timestamp, void **rxq)
{
	struct ibexlink_port *pt = dev;
	int ret = port_rxq_setup(pt, q, mp, timestamp);

	*rxq = ret == 0 ? &pt->rxq : NULL;
	return ret;
}

static int
pdev_txq_setup(void *dev, uint16_t q, uint16_t nb_desc, void **txq)
{
	struct ibexlink_port *pt = dev;
	int ret = port_txq_setup(pt, q, nb_desc, (int)rte_socket_id());

	*txq = ret == 0 ? pt->txq[q] : NULL;
	return ret;
}

static int
pdev_start(void *dev)
{
	return port_start(dev);
}

static int
pdev_stop(void *dev)
{
	return port_stop(dev);
}

static void
pdev_link(void *dev, struct rte_eth_link *link)
{
	link_fill(dev, link);
}

static void
pdev_mac(void *dev, struct rte_ether_addr *mac)
{
	*mac = ((struct ibexlink_port *)dev)->mac;
}

static int
pdev_stats(void *dev, struct rte_eth_stats *st)
{
	return port_stats(dev, st);
}

static void
pdev_close(void *dev)
{
	port_close(dev);
	rte_free(dev);
}

#define PDEV_OPS(tx) { \
	.rx_burst = eth_rx, .tx_burst = (tx), .info_get = pdev_info, \
	.rx_queue_setup = pdev_rxq_setup, .tx_queue_setup = pdev_txq_setup, \
	.start = pdev_start, .stop = pdev_stop, .link_get = pdev_link, \
	.macaddr_get = pdev_mac, .stats_get = pdev_stats, \
	.close = pdev_close }
static const struct ibex_pdev_ops pdev_ops_plain = PDEV_OPS(eth_tx_plain);
static const struct ibex_pdev_ops pdev_ops_pfc = PDEV_OPS(eth_tx_pfc);
#undef PDEV_OPS

static struct ibexlink_port *
pdev_port_new(const char *name, const char *args, int *err)
{
	struct ibexlink_port *pt;
	uint16_t id;

	*err = -EEXIST;
	if (ibex_pdev_get_by_name(name, &id) == 0)
		return NULL;
	*err = -ENOMEM;
	pt = rte_zmalloc(name, sizeof(*pt), RTE_CACHE_LINE_SIZE);
	if (pt == NULL)
		return NULL;
	*err = port_init(pt, name, args);
	if (*err != 0) {
		port_init_undo(pt);
		rte_free(pt);
		return NULL;
	}
	return pt;
}

static int
pdev_port_register(struct ibexlink_port *pt)
{
	int id;

	TAILQ_INSERT_TAIL(&ports, pt, next);
	id = ibex_pdev_register(pt->name, pt->pfc ? &pdev_ops_pfc :
						    &pdev_ops_plain, pt);
	if (id < 0) {
		TAILQ_REMOVE(&ports, pt, next);
		return id;
	}
	pt->port_id = (uint16_t)id;
	port_mac_set(pt);
	return 0;
}

int
ibexlink_pair_create(const char *name_a, const char *args_a,
		     const char *name_b, const char *args_b, uint16_t ids[2])
{
	struct ibexlink_port *a, *b;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return -ENOTSUP;
	clock_once();
	a = pdev_port_new(name_a, args_a, &ret);
	if (a == NULL)
		return ret;
	b = strcmp(name_a, name_b) != 0 ?
	    pdev_port_new(name_b, args_b, &ret) : NULL;
	if (b == NULL)
		goto free_a;
	ret = link_pair(a, b);
	if (ret != 0)
		goto free_b;
	ret = pdev_port_register(a);
	if (ret != 0)
		goto unpair;
	ret = pdev_port_register(b);
	if (ret != 0) {
		ibex_pdev_close(a->port_id); /* unpairs and frees a */
		port_init_undo(b);
		rte_free(b);
		return ret;
	}
	ids[0] = a->port_id;
	ids[1] = b->port_id;
	return 0;
unpair:
	link_unpair(a);
free_b:
	port_init_undo(b);
	rte_free(b);
free_a:
	port_init_undo(a);
	rte_free(a);
	return ret != 0 ? ret : -EINVAL;
}

static struct rte_vdev_driver ibexlink_drv = {
	.probe = ibexlink_probe,
	.remove = ibexlink_remove,
};

RTE_PMD_REGISTER_VDEV(net_ibexlink, ibexlink_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_ibexlink, IBEXLINK_PARAMS);
