/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-network aggregation on the data path (docs/aggregation.md): the glue
 * between the worker pipeline and lib/agg's slot pools.
 *
 * A frame to UDP port 0xBEF0 (IBEX_PKT_F_AGG) whose job this switch runs
 * is taken off the forwarding path (forward_slow()) after the checks
 * every frame meets (MTU, VLAN membership, flow control's counting). The
 * worker that owns its slot (ibex_agg_worker_of()) sums it; a frame that
 * came in on another worker's queue goes to the owner through that
 * worker's ring, so no slot is touched by two workers and RSS has no say.
 *
 * What lib/agg answers becomes frames built on the one that completed a
 * use, same size: a partial sum up to the parent port; a result down to
 * every child's port, each to the MAC and IPv4 address that child's
 * contributions came from; a result again to one child that asked twice.
 * Those frames go out on the lane of the frame's SL, through the same
 * egress as forwarded frames (arbitration, credits, PFC, ECN).
 *
 * A contribution that is taken is consumed (the port's `consumed`); one
 * from a port that is not its child's, or a result not from the parent
 * port, is dropped (agg-port). The switch's part is IPv4 without options,
 * in one mbuf segment (agg-shape otherwise); IPv6 aggregation frames are
 * forwarded as plain UDP.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ibex_agg.h"
#include "ibex_clock.h"
#include "ibex_conf.h"
#include "ibex_counter.h"
#include "ibex_dp_private.h"
#include "ibex_pkt.h"

_Static_assert(IBEX_AGG_UDP_PORT == IBEX_UDP_PORT_AGG,
	       "lib/pkt and lib/agg agree on the port");

/* Frames one worker's steering ring holds: a few bursts of every other. */
#define AGG_RING_SIZE 4096
/* Bursts of 32 a worker takes from its ring per iteration at most. */
#define AGG_POLL_PASSES 8
/* Where the IPv4 header, UDP and the aggregation header are: an untagged
 * or one-tag frame, a 20-byte IPv4 header. */
#define AGG_IP_HDR 20
#define AGG_UDP_HDR 8

/* The source a child's contributions came from: where its results go. */
struct agg_child_addr {
	uint8_t mac[6];
	bool known;
	uint32_t ip;             /* network order */
};

/* One job on one worker: the tables' entry it was added as, and what the
 * worker learnt of its children. */
struct agg_job_state {
	struct ibex_dp_agg_job tbl;
	bool in_pool;            /* lib/agg took it (else refused) */
	struct agg_child_addr child[IBEX_AGG_MAX_CHILDREN];
};

struct ibex_dp_agg_worker {
	struct ibex_agg_pool *pool;
	struct rte_ring *ring;   /* frames steered here (NULL: one worker) */
	uint16_t nb_jobs;
	struct agg_job_state job[IBEX_MAX_AGG_JOBS];
	struct agg_job_state next[IBEX_MAX_AGG_JOBS]; /* apply's scratch */
	struct ibex_dp_agg_worker_counters cnt;
	/** Per job entry: 1 << 32 | id when the pool refused it at the last
	 * apply, else 0 (written by the worker, read by views). */
	uint64_t refused_id[IBEX_MAX_AGG_JOBS];
};

/* The UDP payload of an aggregation frame and its length; NULL when the
 * frame is not a shape the switch takes (IPv4 without options, in one
 * segment). */
static uint8_t *
agg_payload(const struct rte_mbuf *m, bool tagged, uint32_t *len)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t l3 = IBEX_ETHER_HDR_LEN + (tagged ? IBEX_VLAN_HDR_LEN : 0);
	uint32_t off = l3 + AGG_IP_HDR + AGG_UDP_HDR;
	uint32_t ulen, totlen;

	if (ibex_rd16(eth + l3 - 2) != IBEX_ETHERTYPE_IPV4 ||
	    eth[l3] != 0x45 || m->nb_segs != 1 || m->data_len < off)
		return NULL;
	/* UDP inside the IP datagram, inside the frame (the check bounds
	 * them loosely for a first fragment, which claims refused). */
	totlen = ibex_rd16(eth + l3 + 2);
	ulen = ibex_rd16(eth + l3 + AGG_IP_HDR + 4);
	if (ulen < AGG_UDP_HDR || AGG_IP_HDR + ulen > totlen ||
	    l3 + totlen > m->data_len)
		return NULL;
	*len = ulen - AGG_UDP_HDR;
	return eth + off;
}

static const struct ibex_dp_agg_job *
agg_job_of(const struct ibex_dp_tables *t, uint32_t id)
{
	uint16_t i;

	for (i = 0; i < t->agg.nb_jobs; i++)
		if (t->agg.job[i].conf.job == id)
			return &t->agg.job[i];
	return NULL;
}

static struct agg_job_state *
agg_state_of(struct ibex_dp_agg_worker *a, uint32_t id)
{
	uint16_t i;

	for (i = 0; i < a->nb_jobs; i++)
		if (a->job[i].tbl.conf.job == id)
			return &a->job[i];
	return NULL;
}

bool
ibex_dp_agg_claims(const struct ibex_worker *w, const struct ibex_dp_tables *t,
		   const struct rte_mbuf *m, bool tagged)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l3 = IBEX_ETHER_HDR_LEN + (tagged ? IBEX_VLAN_HDR_LEN : 0);
	uint32_t job;

	if (w->agg == NULL || t->agg.nb_jobs == 0 ||
	    ibex_rd16(eth + l3 - 2) != IBEX_ETHERTYPE_IPV4 ||
	    m->data_len < l3 + AGG_IP_HDR)
		return false;
	/* A fragment is forwarded: the switch sums whole datagrams. */
	if (ibex_rd16(eth + l3 + 6) & 0x3fff)
		return false;
	/* The job id, behind the IPv4 header whatever its length: a job
	 * of this switch with options is taken, and refused as agg-shape. */
	l3 += (eth[l3] & 0xfu) * 4u + AGG_UDP_HDR;
	if (m->data_len < l3 + 8)
		return false;
	memcpy(&job, eth + l3 + 4, sizeof(job));
	return agg_job_of(t, rte_be_to_cpu_32(job)) != NULL;
}

/* Port and mark of a frame on its way to the slot's worker. */
#define AGG_MARK(port, sl) ((uint32_t)(port) << 8 | (sl))

static void
agg_steer(struct ibex_worker *w, struct rte_mbuf *m, uint16_t owner,
	  uint16_t in_port, unsigned int sl)
{
	struct ibex_dp_agg_worker *to = w->dp->workers[owner]->agg;

	m->hash.usr = AGG_MARK(in_port, sl);
	if (unlikely(rte_ring_mp_enqueue(to->ring, m) != 0)) {
		IBEX_CNT_ADD(w->cnt[in_port].drop[IBEX_R_AGG_STEER], 1);
		rte_pktmbuf_free(m);
		return;
	}
	IBEX_CNT_ADD(w->agg->cnt.steered, 1);
}

/* Address frame @p m to child @p c: from where the frame was going, to
 * where the child's contributions came from. */
static void
agg_address(struct rte_mbuf *m, bool tagged, const struct agg_child_addr *c)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *,
		IBEX_ETHER_HDR_LEN + (tagged ? IBEX_VLAN_HDR_LEN : 0));

	eh->src_addr = eh->dst_addr;
	memcpy(&eh->dst_addr, c->mac, sizeof(eh->dst_addr));
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = c->ip;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* The result to every child: copies of @p m (holding it), each to its
 * child's port and address; @p m itself goes to the last. */
static void
agg_down(struct ibex_worker *w, const struct ibex_dp_tables *t,
	 const struct agg_job_state *js, struct rte_mbuf *m, bool tagged,
	 unsigned int sl)
{
	uint16_t n = js->tbl.conf.n_children, i;
	struct rte_mbuf *c;

	for (i = 0; i < n; i++) {
		uint16_t out = js->tbl.children[i];

		if (i + 1 < n) {
			c = rte_pktmbuf_copy(m, w->dp->pool, 0, UINT32_MAX);
			if (unlikely(c == NULL)) {
				IBEX_CNT_ADD(w->cnt[out].drop[IBEX_R_AGG_NOBUF],
					     1);
				continue;
			}
		} else {
			c = m;
		}
		agg_address(c, tagged, &js->child[i]);
		ibex_dp_agg_send(w, t, out, c, sl);
	}
}

/* Write what lib/agg said into @p m's payload, in place. */
static bool
agg_rewrite(uint8_t *payload, uint32_t len, const struct ibex_agg_out *out)
{
	/* Every answer has the size of the packet that caused it (a use's
	 * offset, count and type never change); the check is a guard. */
	if (unlikely(ibex_agg_pkt_len(out->hdr.count) != len))
		return false;
	return ibex_agg_build(payload, len, &out->hdr, out->elems) ==
	       (int)len;
}

/* A frame the switch took: neither forwarded nor dropped (the port's
 * consumed, and of them its agg_taken). */
static inline void
agg_count_taken(struct ibex_worker *w, uint16_t in_port)
{
	IBEX_CNT_ADD(w->cnt[in_port].consumed, 1);
	IBEX_CNT_ADD(w->cnt[in_port].agg_taken, 1);
}

/* On the slot's worker: check the port, learn the child, sum, send. */
static void
agg_take(struct ibex_worker *w, const struct ibex_dp_tables *t,
	 struct rte_mbuf *m, struct agg_job_state *js, uint8_t *payload,
	 uint32_t len, uint16_t in_port, unsigned int sl)
{
	struct ibex_dp_agg_worker *a = w->agg;
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	bool tagged = ibex_rd16(eth + 12) == IBEX_ETHERTYPE_VLAN ||
		      ibex_rd16(eth + 12) == IBEX_ETHERTYPE_QINQ;
	uint8_t type = payload[0] & 0xf;
	uint16_t child = ibex_rd16(payload + 14);
	struct ibex_agg_out out;
	enum ibex_agg_action act;
	uint64_t now_ns;

	if (type == IBEX_AGG_CONTRIB && child < js->tbl.conf.n_children) {
		if (js->tbl.children[child] != in_port)
			goto wrong_port;
		/* Results go back where contributions come from. */
		memcpy(js->child[child].mac, eth + 6, 6);
		memcpy(&js->child[child].ip,
		       payload - AGG_UDP_HDR - AGG_IP_HDR + 12, 4);
		js->child[child].known = true;
	} else if (type == IBEX_AGG_RESULT && in_port != js->tbl.parent) {
		goto wrong_port;
	}
	now_ns = (uint64_t)((unsigned __int128)w->rx_tsc * 1000000000u /
			    w->dp->tsc_hz);
	act = ibex_agg_rx(a->pool, payload, len, now_ns, &out);
	agg_count_taken(w, in_port);
	if (act == IBEX_AGG_NONE || !agg_rewrite(payload, len, &out)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* New payload, new addresses: IPv4 lets UDP go without a checksum
	 * (cheaper than one over the elements of every copy). */
	memset(payload - AGG_UDP_HDR + 6, 0, 2);
	if (act == IBEX_AGG_UP) {
		ibex_dp_agg_send(w, t, js->tbl.parent, m, sl);
	} else if (act == IBEX_AGG_REPLY) {
		agg_address(m, tagged, &js->child[out.hdr.child]);
		ibex_dp_agg_send(w, t, js->tbl.children[out.hdr.child], m, sl);
	} else {
		agg_down(w, t, js, m, tagged, sl);
	}
	return;
wrong_port:
	IBEX_CNT_ADD(w->cnt[in_port].drop[IBEX_R_AGG_PORT], 1);
	rte_pktmbuf_free(m);
}

void
ibex_dp_agg_rx(struct ibex_worker *w, const struct ibex_dp_tables *t,
	       struct rte_mbuf *m, uint16_t in_port, unsigned int sl)
{
	struct ibex_dp_agg_worker *a = w->agg;
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	bool tagged = ibex_rd16(eth + 12) == IBEX_ETHERTYPE_VLAN ||
		      ibex_rd16(eth + 12) == IBEX_ETHERTYPE_QINQ;
	struct agg_job_state *js;
	uint8_t *payload;
	uint32_t len, job;
	uint16_t slot, owner;

	payload = agg_payload(m, tagged, &len);
	if (payload == NULL || len < IBEX_AGG_HDR_LEN) {
		/* Too short for a slot: lib/agg counts it malformed. */
		if (payload != NULL) {
			struct ibex_agg_out out;

			ibex_agg_rx(a->pool, payload, len, 0, &out);
			agg_count_taken(w, in_port);
		} else {
			IBEX_CNT_ADD(w->cnt[in_port].drop[IBEX_R_AGG_SHAPE], 1);
		}
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(&job, payload + 4, sizeof(job));
	job = rte_be_to_cpu_32(job);
	slot = ibex_rd16(payload + 12) & (IBEX_AGG_MAX_SLOTS - 1);
	owner = ibex_agg_worker_of(job, slot, w->dp->nb_workers);
	if (owner != w->index) {
		agg_steer(w, m, owner, in_port, sl);
		return;
	}
	js = agg_state_of(a, job);
	if (js == NULL || !js->in_pool) {
		/* In the tables, not (yet, or refused) in the pool. */
		IBEX_CNT_ADD(a->cnt.not_ready, 1);
		agg_count_taken(w, in_port);
		rte_pktmbuf_free(m);
		return;
	}
	agg_take(w, t, m, js, payload, len, in_port, sl);
}

void
ibex_dp_agg_poll(struct ibex_worker *w, const struct ibex_dp_tables *t)
{
	struct rte_mbuf *m[32];
	unsigned int n, i, pass;

	if (w->agg->ring == NULL)
		return;
	/* Up to a burst from each of several workers a pass. */
	for (pass = 0; pass < AGG_POLL_PASSES; pass++) {
		n = rte_ring_sc_dequeue_burst(w->agg->ring, (void **)m,
					      RTE_DIM(m), NULL);
		/* (a job the tables dropped on the way counts not_ready) */
		for (i = 0; i < n; i++) {
			uint32_t mark = m[i]->hash.usr;

			ibex_dp_agg_rx(w, t, m[i], (uint16_t)(mark >> 8),
				       mark & 0xff);
		}
		if (n < RTE_DIM(m))
			break;
	}
}

/* ---- jobs ---- */

static bool
agg_job_same(const struct ibex_dp_agg_job *a, const struct ibex_dp_agg_job *b)
{
	return a->conf.job == b->conf.job &&
	       a->conf.n_slots == b->conf.n_slots &&
	       a->conf.n_children == b->conf.n_children &&
	       a->conf.max_elems == b->conf.max_elems &&
	       a->conf.up_child == b->conf.up_child &&
	       a->conf.root == b->conf.root && a->parent == b->parent &&
	       memcmp(a->children, b->children,
		      a->conf.n_children * sizeof(a->children[0])) == 0;
}

/* Add every job of @p t to an empty pool, in the tables' order: what
 * ibex_dp_agg_check() made sure fits, whatever gaps live changes left
 * (the pool places a job in the first free range that holds it). The
 * jobs' slots start idle. */
static void
agg_repack(struct ibex_dp_agg_worker *a, const struct ibex_dp_tables *t)
{
	char err[128];
	uint16_t i;

	for (i = 0; i < a->nb_jobs; i++)
		if (a->job[i].in_pool)
			ibex_agg_job_del(a->pool, a->job[i].tbl.conf.job);
	for (i = 0; i < a->nb_jobs; i++)
		a->job[i].in_pool = ibex_agg_job_add(a->pool,
						     &t->agg.job[i].conf, err,
						     sizeof(err)) == 0;
	IBEX_CNT_ADD(a->cnt.repacked, 1);
}

void
ibex_dp_agg_apply(struct ibex_worker *w, const struct ibex_dp_tables *t)
{
	struct ibex_dp_agg_worker *a = w->agg;
	char err[128];
	uint16_t i, n = 0;

	if (a == NULL)
		return;
	/* Jobs gone or changed leave the pool first: their memory is then
	 * free for the ones added. */
	for (i = 0; i < a->nb_jobs; i++) {
		const struct ibex_dp_agg_job *nt =
			agg_job_of(t, a->job[i].tbl.conf.job);

		if (a->job[i].in_pool &&
		    (nt == NULL || !agg_job_same(nt, &a->job[i].tbl))) {
			ibex_agg_job_del(a->pool, a->job[i].tbl.conf.job);
			a->job[i].in_pool = false;
		}
	}
	for (i = 0; i < t->agg.nb_jobs; i++) {
		const struct ibex_dp_agg_job *nt = &t->agg.job[i];
		struct agg_job_state *old = agg_state_of(a, nt->conf.job);
		struct agg_job_state *s = &a->next[n++];

		if (old != NULL && old->in_pool) {
			*s = *old;
			continue;
		}
		memset(s, 0, sizeof(*s));
		s->tbl = *nt;
		s->in_pool = ibex_agg_job_add(a->pool, &nt->conf, err,
					      sizeof(err)) == 0;
	}
	memcpy(a->job, a->next, n * sizeof(a->job[0]));
	a->nb_jobs = n;
	for (i = 0; i < n && a->job[i].in_pool; i++)
		;
	if (i < n)
		agg_repack(a, t);
	for (i = 0; i < IBEX_MAX_AGG_JOBS; i++)
		IBEX_CNT_SET(a->refused_id[i], i < n && !a->job[i].in_pool ?
			     UINT64_C(1) << 32 | a->job[i].tbl.conf.job : 0);
	IBEX_CNT_ADD(a->cnt.applied, 1);
}

/* ---- start, stop and checks (control thread) ---- */

static uint64_t
agg_worker_bytes(const struct ibex_conf *conf, uint16_t worker,
		 uint16_t n_workers)
{
	uint64_t sum = 0;
	uint16_t i;

	for (i = 0; i < conf->nb_agg_jobs; i++) {
		struct ibex_dp_agg_job j;

		ibex_dp_agg_job_of(conf, i, &j);
		sum += ibex_agg_job_bytes(&j.conf, worker, n_workers);
	}
	return sum;
}

int
ibex_dp_agg_check(const struct ibex_dp *dp, const struct ibex_conf *conf,
		  char *err, size_t errlen)
{
	uint16_t w;

	if (conf->nb_agg_jobs == 0)
		return 0;
	/* A packet of a job's elements, with a tag, in one mbuf. */
	for (w = 0; w < conf->nb_agg_jobs; w++) {
		const struct ibex_conf_agg_job *j = &conf->agg_jobs[w];
		uint32_t frame = IBEX_ETHER_HDR_LEN + IBEX_VLAN_HDR_LEN +
				 AGG_IP_HDR + AGG_UDP_HDR +
				 ibex_agg_pkt_len(j->elements);
		uint32_t room = rte_pktmbuf_data_room_size(dp->pool) -
				RTE_PKTMBUF_HEADROOM;

		if (frame > room) {
			snprintf(err, errlen, "%s:%d: aggregation job %u: "
				 "packets of %u elements take %u bytes, an "
				 "mbuf holds %u (switch mbuf-size)",
				 conf->origin, j->line, j->id, j->elements,
				 frame, room);
			return -EINVAL;
		}
	}
	for (w = 0; w < dp->nb_workers; w++) {
		uint64_t need = agg_worker_bytes(conf, w, dp->nb_workers);

		if (need > conf->agg_pool_bytes) {
			snprintf(err, errlen, "%s:%d: aggregation pool: the jobs "
				 "need %llu bytes of worker %u's pool of %llu "
				 "(docs/aggregation.md sizes them)",
				 conf->origin, conf->agg_pool_line,
				 (unsigned long long)need, w,
				 (unsigned long long)conf->agg_pool_bytes);
			return -ENOSPC;
		}
	}
	return 0;
}

int
ibex_dp_agg_create(struct ibex_dp *dp, const struct ibex_conf *conf,
		   char *err, size_t errlen)
{
	char name[RTE_RING_NAMESIZE], base[32];
	uint16_t i;
	int ret;

	if (conf->agg_pool_bytes == 0)
		return 0;
	ret = ibex_dp_agg_check(dp, conf, err, errlen);
	if (ret < 0)
		return ret;
	for (i = 0; i < dp->nb_workers; i++) {
		struct ibex_agg_pool_conf pc = {
			.mem_bytes = conf->agg_pool_bytes,
			.max_jobs = IBEX_MAX_AGG_JOBS,
			.worker = i, .n_workers = dp->nb_workers,
		};
		struct ibex_dp_agg_worker *a;

		a = rte_zmalloc("ibex_agg", sizeof(*a), RTE_CACHE_LINE_SIZE);
		if (a == NULL) {
			snprintf(err, errlen, "aggregation: out of memory");
			return -ENOMEM;
		}
		dp->workers[i]->agg = a;
		a->pool = ibex_agg_pool_create(&pc, err, errlen);
		if (a->pool == NULL)
			return -ENOMEM;
		if (dp->nb_workers == 1)
			continue;
		snprintf(base, sizeof(base), "ibex_agg%u", i);
		a->ring = rte_ring_create(ibex_dp_obj_name(dp, name,
					  sizeof(name), base), AGG_RING_SIZE,
					  (int)rte_socket_id(), RING_F_SC_DEQ);
		if (a->ring == NULL) {
			snprintf(err, errlen, "aggregation: cannot create the "
				 "ring of worker %u", i);
			return -ENOMEM;
		}
	}
	return 0;
}

void
ibex_dp_agg_free(struct ibex_dp *dp)
{
	struct rte_mbuf *m;
	uint16_t i;

	for (i = 0; i < dp->nb_workers; i++) {
		struct ibex_dp_agg_worker *a =
			dp->workers[i] != NULL ? dp->workers[i]->agg : NULL;

		if (a == NULL)
			continue;
		while (a->ring != NULL &&
		       rte_ring_dequeue(a->ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(a->ring);
		ibex_agg_pool_free(a->pool);
		rte_free(a);
		dp->workers[i]->agg = NULL;
	}
}

/* ---- the tables' entry of a config's job ---- */

void
ibex_dp_agg_job_of(const struct ibex_conf *conf, uint16_t i,
		   struct ibex_dp_agg_job *j)
{
	const struct ibex_conf_agg_job *c = &conf->agg_jobs[i];

	memset(j, 0, sizeof(*j));
	j->conf.job = c->id;
	j->conf.n_slots = c->slots;
	j->conf.n_children = c->n_children;
	j->conf.max_elems = c->elements;
	j->conf.up_child = c->up_child;
	j->conf.root = c->parent == IBEX_PORT_NONE;
	j->parent = c->parent;
	memcpy(j->children, c->children, c->n_children * sizeof(c->children[0]));
}

/* ---- views (any thread) ---- */

int
ibex_dp_agg_view(const struct ibex_dp *dp, const struct ibex_conf *conf,
		 struct ibex_dp_agg_view *v)
{
	uint16_t i, k, b;

	memset(v, 0, sizeof(*v));
	if (dp->workers[0] == NULL || dp->workers[0]->agg == NULL)
		return -ENOENT;
	v->pool_bytes = conf->agg_pool_bytes;
	v->workers = dp->nb_workers;
	v->nb_jobs = conf->nb_agg_jobs;
	for (k = 0; k < conf->nb_agg_jobs; k++)
		ibex_dp_agg_job_of(conf, k, &v->job[k]);
	for (i = 0; i < dp->nb_workers; i++) {
		const struct ibex_dp_agg_worker *a = dp->workers[i]->agg;
		const struct ibex_agg_stats *s = ibex_agg_stats(a->pool);

#define AGG_SUM(f) v->st.f += IBEX_CNT_READ(s->f);
		IBEX_AGG_STATS_FIELDS(AGG_SUM)
#undef AGG_SUM
		for (b = 0; b < IBEX_AGG_E_MAX; b++)
			v->st.malformed[b] += IBEX_CNT_READ(s->malformed[b]);
		for (b = 0; b < IBEX_AGG_WAIT_BUCKETS; b++)
			v->st.wait_hist[b] += IBEX_CNT_READ(s->wait_hist[b]);
		if (IBEX_CNT_READ(s->wait_ns_max) > v->st.wait_ns_max)
			v->st.wait_ns_max = IBEX_CNT_READ(s->wait_ns_max);
		v->cnt.steered += IBEX_CNT_READ(a->cnt.steered);
		v->cnt.not_ready += IBEX_CNT_READ(a->cnt.not_ready);
		v->cnt.applied += IBEX_CNT_READ(a->cnt.applied);
		/* A job is refused when a worker's pool could not take it
		 * at the worker's last apply. */
		for (b = 0; b < IBEX_MAX_AGG_JOBS; b++) {
			uint64_t r = IBEX_CNT_READ(a->refused_id[b]);

			for (k = 0; r != 0 && k < v->nb_jobs; k++)
				if ((uint32_t)r == v->job[k].conf.job)
					v->refused |= 1u << k;
		}
	}
	return 0;
}
