/* SPDX-License-Identifier: BSD-3-Clause */
/* What the data path tests share: see dp_harness.h. */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_mbuf.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_dp.h"
#include "ibex_pkt.h"
#include "ibex_reason.h"

int
dp_harness_eal(const char *prog, const char *mem_mb, const char *lcores)
{
	char prefix[96];
	char *argv[] = { (char *)prog, "--no-huge", "-m", (char *)mem_mb,
			 "--no-pci", "--lcores", (char *)lcores,
			 "--log-level", "lib.*:warning", prefix, NULL };

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s_%d", prog,
		 (int)getpid());
	return rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0 ? -1 : 0;
}

struct rte_mempool *
dp_harness_group_start(const char *prog, const char *mem_mb,
		       unsigned int nb_mbufs, struct ibex_conf *base,
		       const char *tag, unsigned int nb_ports,
		       unsigned int rx_size, unsigned int tx_size,
		       struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_mempool *pool;
	unsigned int i;

	if (dp_harness_eal(prog, mem_mb, "0@0,1@1") < 0)
		return NULL;
	pool = rte_pktmbuf_pool_create("test_pool", nb_mbufs, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL)
		return NULL;
	ibex_conf_init(base);
	snprintf(base->origin, sizeof(base->origin), "test");
	for (i = 0; i < nb_ports; i++)
		if (dp_harness_ring_port(base, tag, i, rx_size, tx_size,
					 &rx[i], &tx[i]) < 0)
			return NULL;
	return pool;
}

int
dp_harness_ring_port(struct ibex_conf *c, const char *tag, unsigned int i,
		     unsigned int rx_size, unsigned int tx_size,
		     struct rte_ring **rx, struct rte_ring **tx)
{
	char name[RTE_ETH_NAME_MAX_LEN], port[8];
	int pid;

	snprintf(name, sizeof(name), "%srx%u", tag, i);
	*rx = rte_ring_create(name, rx_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "%stx%u", tag, i);
	*tx = rte_ring_create(name, tx_size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*rx == NULL || *tx == NULL)
		return -1;
	snprintf(name, sizeof(name), "%s%u", tag, i);
	pid = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
	if (pid < 0 || rte_eth_dev_get_name_by_port((uint16_t)pid, name) != 0)
		return -1;
	snprintf(port, sizeof(port), "r%u", i);
	return ibex_conf_port_add(c, port, name) < 0 ? -1 : 0;
}

int
dp_harness_ring_port_mq(struct ibex_conf *c, const char *tag, unsigned int i,
			unsigned int nb_rxq, unsigned int nb_txq,
			unsigned int rx_size, unsigned int tx_size,
			struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_ring *txs[RTE_MAX_QUEUES_PER_PORT];
	char name[RTE_ETH_NAME_MAX_LEN], port[8];
	unsigned int q;
	int pid;

	if (nb_rxq == 0 || nb_txq == 0 || nb_txq > RTE_DIM(txs))
		return -1;
	for (q = 0; q < nb_rxq; q++) {
		snprintf(name, sizeof(name), "%srx%u_%u", tag, i, q);
		rx[q] = rte_ring_create(name, rx_size, 0,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rx[q] == NULL)
			return -1;
	}
	/* One ring behind every TX queue, several producers: a wire, in
	 * the order the queues handed their frames over. */
	snprintf(name, sizeof(name), "%stx%u", tag, i);
	*tx = rte_ring_create(name, tx_size, 0, RING_F_SC_DEQ);
	if (*tx == NULL)
		return -1;
	for (q = 0; q < nb_txq; q++)
		txs[q] = *tx;
	snprintf(name, sizeof(name), "%s%u", tag, i);
	pid = rte_eth_from_rings(name, rx, nb_rxq, txs, nb_txq, 0);
	if (pid < 0 || rte_eth_dev_get_name_by_port((uint16_t)pid, name) != 0)
		return -1;
	snprintf(port, sizeof(port), "r%u", i);
	return ibex_conf_port_add(c, port, name) < 0 ? -1 : 0;
}

void
dp_harness_rings_flush(struct rte_ring **rx, struct rte_ring **tx,
		       unsigned int n)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < n; p++) {
		while (rte_ring_dequeue(rx[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (rte_ring_dequeue(tx[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
}

int
dp_harness_apply(struct ibex_dp *dp, const struct ibex_conf *c, char *err,
		 size_t errlen)
{
	/* Static: a config is large for a stack; tests apply one at a time. */
	static struct ibex_conf f;

	f = *c;
	if (ibex_conf_finish(&f, err, errlen) < 0 ||
	    ibex_dp_reconfigure(dp, &f, err, errlen) < 0)
		return -1;
	return 0;
}

void
dp_harness_workers_start(struct ibex_dp *dp)
{
	if (ibex_dp_start(dp) < 0)
		fprintf(stderr, "cannot launch the workers\n");
}

void
dp_harness_workers_stop(struct ibex_dp *dp)
{
	ibex_dp_stop(dp);
}

/* Between two looks at a condition: short against any deadline, long
 * enough that the polling thread leaves the CPU to the workers it may
 * share it with. */
#define POLL_US 50

uint64_t
dp_harness_deadline(double seconds)
{
	return rte_get_tsc_cycles() +
	       (uint64_t)(seconds * (double)rte_get_tsc_hz());
}

bool
dp_harness_expired(uint64_t deadline)
{
	return rte_get_tsc_cycles() >= deadline;
}

struct rte_mbuf *
dp_harness_frame(struct rte_mempool *pool, const struct ibex_pkt_spec *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)s->frame_len);
	if (p == NULL || ibex_pkt_build(p, s->frame_len, s) !=
	    (int)s->frame_len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

unsigned int
dp_harness_send(struct rte_ring *rx, struct rte_mbuf **m, unsigned int n)
{
	uint64_t end = dp_harness_deadline(DP_HARNESS_WAIT_S);
	unsigned int sent = 0;

	while (sent < n) {
		sent += rte_ring_enqueue_burst(rx, (void **)m + sent,
					       n - sent, NULL);
		if (sent == n)
			break;
		if (dp_harness_expired(end)) {
			rte_pktmbuf_free_bulk(m + sent, n - sent);
			break;
		}
		usleep(POLL_US);
	}
	return sent;
}

unsigned int
dp_harness_send_spec(struct rte_ring *rx, struct rte_mempool *pool,
		     const struct ibex_pkt_spec *s, unsigned int n)
{
	struct rte_mbuf *b[64];
	unsigned int sent = 0;

	while (sent < n) {
		unsigned int k = RTE_MIN(n - sent, (unsigned int)RTE_DIM(b));
		unsigned int i, got;

		for (i = 0; i < k; i++) {
			b[i] = dp_harness_frame(pool, s);
			if (b[i] == NULL) {
				rte_pktmbuf_free_bulk(b, i);
				return sent;
			}
		}
		got = dp_harness_send(rx, b, k);
		sent += got;
		if (got < k)
			break;
	}
	return sent;
}

bool
dp_harness_match_dst(const struct rte_mbuf *m, const void *mac)
{
	return m->data_len >= 6 &&
	       memcmp(rte_pktmbuf_mtod(m, const uint8_t *), mac, 6) == 0;
}

/* Take what @p tx holds now; stop at @p n matches. */
static unsigned int
take(struct rte_ring *tx, unsigned int n, dp_harness_match_t match,
     const void *arg, struct rte_mbuf **out, unsigned int *others)
{
	struct rte_mbuf *m;
	unsigned int got = 0;

	while (got < n && rte_ring_dequeue(tx, (void **)&m) == 0) {
		if (match != NULL && !match(m, arg)) {
			(*others)++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (out != NULL)
			out[got] = m;
		else
			rte_pktmbuf_free(m);
		got++;
	}
	return got;
}

unsigned int
dp_harness_expect(struct rte_ring *tx, unsigned int n,
		  dp_harness_match_t match, const void *arg,
		  struct rte_mbuf **out, unsigned int *others, double seconds)
{
	uint64_t end = dp_harness_deadline(seconds);
	unsigned int got = 0, o = 0;

	for (;;) {
		got += take(tx, n - got, match, arg,
			    out != NULL ? out + got : NULL, &o);
		if (got == n || dp_harness_expired(end))
			break;
		if (rte_ring_count(tx) == 0)
			usleep(POLL_US);
	}
	if (others != NULL)
		*others = o;
	return got;
}

unsigned int
dp_harness_drain(struct rte_ring *tx, dp_harness_match_t match,
		 const void *arg, unsigned int *others)
{
	unsigned int o = 0, got;

	got = take(tx, UINT32_MAX, match, arg, NULL, &o);
	if (others != NULL)
		*others = o;
	return got;
}

int
dp_harness_until(dp_harness_read_t read, const void *arg, uint64_t n,
		 double seconds, uint64_t *last)
{
	uint64_t end = dp_harness_deadline(seconds), v;

	for (;;) {
		v = read(arg);
		if (v >= n || dp_harness_expired(end))
			break;
		usleep(POLL_US);
	}
	if (last != NULL)
		*last = v;
	return v >= n ? 0 : -ETIMEDOUT;
}

uint64_t
dp_harness_port_cnt(const struct ibex_dp *dp, uint16_t port, size_t off)
{
	struct ibex_port_counters c;
	uint64_t v;

	ibex_dp_port_totals(dp, port, &c);
	memcpy(&v, (const char *)&c + off, sizeof(v));
	return v;
}

uint64_t
dp_harness_lane_cnt(const struct ibex_dp *dp, uint16_t port, unsigned int vl,
		    size_t off)
{
	struct ibex_lane_counters c;
	uint64_t v;

	ibex_dp_lane_totals(dp, port, vl, &c);
	memcpy(&v, (const char *)&c + off, sizeof(v));
	return v;
}

struct cnt_ref {
	const struct ibex_dp *dp;
	uint16_t port;
	unsigned int vl;         /* UINT32_MAX: a port counter */
	size_t off;
};

static uint64_t
cnt_read(const void *arg)
{
	const struct cnt_ref *r = arg;

	return r->vl == UINT32_MAX ?
	       dp_harness_port_cnt(r->dp, r->port, r->off) :
	       dp_harness_lane_cnt(r->dp, r->port, r->vl, r->off);
}

int
dp_harness_until_port(const struct ibex_dp *dp, uint16_t port, size_t off,
		      uint64_t n, double seconds, uint64_t *last)
{
	struct cnt_ref r = { dp, port, UINT32_MAX, off };

	return dp_harness_until(cnt_read, &r, n, seconds, last);
}

int
dp_harness_until_lane(const struct ibex_dp *dp, uint16_t port,
		      unsigned int vl, size_t off, uint64_t n, double seconds,
		      uint64_t *last)
{
	struct cnt_ref r = { dp, port, vl, off };

	return dp_harness_until(cnt_read, &r, n, seconds, last);
}

static uint64_t
ring_count(const void *arg)
{
	return rte_ring_count(arg);
}

int
dp_harness_until_ring(const struct rte_ring *r, unsigned int n,
		      double seconds)
{
	return dp_harness_until(ring_count, r, n, seconds, NULL);
}

struct worker_ref {
	const struct ibex_dp *dp;
	uint16_t i;
};

static uint64_t
iterations(const void *arg)
{
	const struct worker_ref *r = arg;
	struct ibex_dp_worker_view v;

	if (ibex_dp_worker_view(r->dp, r->i, &v) != 0)
		return 0;
	return v.iterations;
}

int
dp_harness_quiesce(const struct ibex_dp *dp)
{
	uint64_t want[RTE_MAX_LCORE];
	struct worker_ref r = { dp, 0 };

	/* Each worker on its own: the iteration under way now, then a
	 * whole one. */
	for (r.i = 0; r.i < dp->nb_workers; r.i++)
		want[r.i] = iterations(&r) + 2;
	for (r.i = 0; r.i < dp->nb_workers; r.i++)
		if (dp_harness_until(iterations, &r, want[r.i],
				     DP_HARNESS_WAIT_S, NULL) < 0)
			return -ETIMEDOUT;
	return 0;
}

void
dp_harness_snap(const struct ibex_dp *dp, struct dp_harness_snap *s)
{
	uint16_t p;
	unsigned int vl;

	memset(s, 0, sizeof(*s));
	s->dp = dp;
	s->nb_ports = dp->nb_ports;
	for (p = 0; p < dp->nb_ports; p++) {
		ibex_dp_port_totals(dp, p, &s->port[p]);
		for (vl = 0; vl < IBEX_VL_COUNT; vl++)
			ibex_dp_lane_totals(dp, p, vl, &s->lane[p][vl]);
	}
}

/* Both counter sets are structs of 64-bit counters (and padding, zero
 * in both): word by word. */
static void
diff_words(const void *now, const void *then, void *d, size_t len)
{
	const uint64_t *a = now, *b = then;
	uint64_t *o = d;
	size_t i;

	for (i = 0; i < len / sizeof(uint64_t); i++)
		o[i] = a[i] - b[i];
}

void
dp_harness_port_diff(const struct ibex_port_counters *now,
		     const struct ibex_port_counters *then,
		     struct ibex_port_counters *d)
{
	*d = *now;
	ibex_port_counters_sub(d, then);
}

void
dp_harness_lane_diff(const struct ibex_lane_counters *now,
		     const struct ibex_lane_counters *then,
		     struct ibex_lane_counters *d)
{
	diff_words(now, then, d, sizeof(*d));
	d->qlen_pkts = now->qlen_pkts;
	d->qlen_bytes = now->qlen_bytes;
}

void
dp_harness_port_delta(const struct dp_harness_snap *s, uint16_t port,
		      struct ibex_port_counters *d)
{
	struct ibex_port_counters now;

	ibex_dp_port_totals(s->dp, port, &now);
	dp_harness_port_diff(&now, &s->port[port], d);
}

void
dp_harness_lane_delta(const struct dp_harness_snap *s, uint16_t port,
		      unsigned int vl, struct ibex_lane_counters *d)
{
	struct ibex_lane_counters now;

	ibex_dp_lane_totals(s->dp, port, vl, &now);
	dp_harness_lane_diff(&now, &s->lane[port][vl], d);
}

uint64_t
dp_harness_drops(const struct ibex_port_counters *c)
{
	uint64_t s = 0;
	unsigned int r;

	for (r = 0; r < IBEX_R_MAX; r++)
		s += c->drop[r];
	return s;
}

void
dp_harness_drops_show(const struct ibex_dp *dp)
{
	struct ibex_port_counters c;
	uint16_t p;
	unsigned int r;

	for (p = 0; p < dp->nb_ports; p++) {
		ibex_dp_port_totals(dp, p, &c);
		for (r = IBEX_R_OK + 1; r < IBEX_R_MAX; r++)
			if (c.drop[r] != 0)
				fprintf(stderr, "r%u: %s %" PRIu64 "\n", p,
					ibex_reason_name(r), c.drop[r]);
	}
}
