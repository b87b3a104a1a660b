/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture into pcapng from inside the switch (ibex_capture.h says who does
 * what). The design follows DPDK's lib/pdump and app/dumpcap, inside one
 * process: the workers copy (rte_pcapng_copy) into a capture mempool and
 * enqueue, as pdump's RX/TX callbacks do; the control thread plays
 * dumpcap's part (rte_pcapng_write_packets, the filter compiled by
 * libpcap and converted with rte_bpf_convert). What differs: no ethdev
 * callbacks (they would cost every burst of every port a call), one SP
 * ring per worker instead of one MP ring, and a TX frame is captured only
 * once the PMD took it.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_bpf.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pcapng.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "ibex_clock.h"
#include "ibex_pdev.h"
#include "ibex_capture.h"
#include "ibex_conf.h"
#include "ibex_dp_private.h"
#include "ibex_version.h"

RTE_LOG_REGISTER(ibex_capture_logtype, ibex.capture, INFO);
#define RTE_LOGTYPE_IBEX_CAPTURE ibex_capture_logtype

/* Memory the capture mempool may take, and its bounds in mbufs: the
 * frames in flight between the workers and the file. */
#define CAPTURE_POOL_BYTES (32u << 20)
#define CAPTURE_POOL_MIN 1023u
#define CAPTURE_POOL_MAX 16383u
/* Frames written per rte_pcapng_write_packets() call. */
#define CAPTURE_WRITE_BURST 128u

/* One worker's part: written by that worker only (the counters are read
 * by the control thread, relaxed). */
struct capture_wq {
	struct rte_ring *ring;   /* SP (this worker), SC (control thread) */
	uint64_t copied;
	uint64_t dropped;
	uint64_t filtered;
	uint16_t nb;             /* copies waiting for ibex_capture_commit() */
	uint16_t idx[IBEX_TXBUF_LEN]; /* each copy's frame in the burst */
	struct rte_mbuf *mc[IBEX_TXBUF_LEN];
	uint64_t rc[IBEX_TXBUF_LEN];  /* filter verdicts */
} __rte_cache_aligned;

struct ibex_capture {
	/* What the workers read. */
	uint64_t ports[3];       /* by direction bit: ports captured */
	uint32_t snaplen;
	uint16_t ethdev;         /* the captured port's ethdev id */
	struct rte_mempool *mp;
	struct rte_bpf *bpf;     /* NULL: every frame */
	uint64_t (*jit)(void *); /* the filter JIT-ed, else NULL */
	uint16_t nb_wq;
	struct capture_wq *wq;
	/* The file's clock: TSC tsc0 was CLOCK_REALTIME ns0. */
	uint64_t tsc0, ns0, tsc_hz;
	/* The control thread's. */
	rte_pcapng_t *pcapng;
	uint64_t token;          /* RCU token once unpublished */
	struct ibex_capture_view v;
};


static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Give telemetry's thread the view as it is now (control thread). */
static void
capture_share(struct ibex_dp *dp, const struct ibex_capture_view *v)
{
	pthread_mutex_lock(&dp->cap_lock);
	dp->cap_shared = *v;
	pthread_mutex_unlock(&dp->cap_lock);
}

/* ---- the workers' half ---- */

static inline uint64_t
capture_filter(const struct ibex_capture *cap, struct rte_mbuf *m)
{
	if (cap->jit != NULL)
		return cap->jit(m);
	return rte_bpf_exec(cap->bpf, m);
}

/*
 * Timestamps. rte_pcapng_copy() (DPDK 22.11) converts the TSC against a
 * base it keeps in a static and moves forward from whichever thread calls
 * it: two workers may race on it, and a TSC older than the base (an
 * iteration that began just before) wraps into the 24th century. So every
 * copy passes tsc0, for which the base is known good (capture_clock()),
 * and the real time goes into the block afterwards, from our own base.
 */
static inline void
capture_stamp(const struct ibex_capture *cap, struct rte_mbuf *mc,
	      uint64_t tsc)
{
	/* Enhanced packet block: type, length, interface, ts high, ts low. */
	uint32_t *epb = rte_pktmbuf_mtod(mc, uint32_t *);
	uint64_t d = tsc > cap->tsc0 ? tsc - cap->tsc0 : 0;
	uint64_t ns = cap->ns0 + d / cap->tsc_hz * 1000000000u +
		      d % cap->tsc_hz * 1000000000u / cap->tsc_hz;

	epb[3] = (uint32_t)(ns >> 32);
	epb[4] = (uint32_t)ns;
}

void
ibex_capture_copy(struct ibex_capture *cap, uint16_t wi, uint16_t port,
		  uint16_t queue, struct rte_mbuf *const *pkts, uint16_t n,
		  unsigned int dir, uint64_t tsc)
{
	struct capture_wq *q = &cap->wq[wi];
	enum rte_pcapng_direction d = dir == IBEX_CAPTURE_RX ?
		RTE_PCAPNG_DIRECTION_IN : RTE_PCAPNG_DIRECTION_OUT;
	uint64_t dropped = 0, filtered = 0;
	uint16_t i, pid;

	q->nb = 0;
	if (((cap->ports[dir] >> port) & 1) == 0)
		return;
	pid = cap->ethdev;
	for (i = 0; i < n && q->nb < RTE_DIM(q->mc); i++) {
		struct rte_mbuf *mc;

		if (cap->bpf != NULL && capture_filter(cap, pkts[i]) == 0) {
			filtered++;
			continue;
		}
		mc = rte_pcapng_copy(pid, queue, pkts[i], cap->mp,
				     cap->snaplen, cap->tsc0, d);
		if (unlikely(mc == NULL)) {
			dropped++;
			continue;
		}
		capture_stamp(cap, mc, tsc);
		q->mc[q->nb] = mc;
		q->idx[q->nb++] = i;
	}
	if (filtered != 0)
		IBEX_CNT_ADD(q->filtered, filtered);
	if (dropped != 0)
		IBEX_CNT_ADD(q->dropped, dropped);
}

void
ibex_capture_commit(struct ibex_capture *cap, uint16_t wi, uint16_t sent)
{
	struct capture_wq *q = &cap->wq[wi];
	unsigned int keep = 0, put;

	if (q->nb == 0)
		return;
	/* Copies are in frame order: those of frames sent come first. */
	while (keep < q->nb && q->idx[keep] < sent)
		keep++;
	put = rte_ring_sp_enqueue_burst(q->ring, (void **)q->mc, keep, NULL);
	if (put != q->nb)
		rte_pktmbuf_free_bulk(q->mc + put, q->nb - put);
	IBEX_CNT_ADD(q->copied, put);
	if (put != keep)
		IBEX_CNT_ADD(q->dropped, keep - put);
	q->nb = 0;
}

/* ---- the control thread's half ---- */

static void
capture_free(struct ibex_capture *cap)
{
	uint16_t i;

	if (cap == NULL)
		return;
	for (i = 0; cap->wq != NULL && i < cap->nb_wq; i++) {
		struct rte_mbuf *m;

		while (cap->wq[i].ring != NULL &&
		       rte_ring_sc_dequeue(cap->wq[i].ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(cap->wq[i].ring);
	}
	rte_free(cap->wq);
	if (cap->pcapng != NULL)
		rte_pcapng_close(cap->pcapng);
	if (cap->bpf != NULL)
		rte_bpf_destroy(cap->bpf);
	rte_mempool_free(cap->mp);
	free(cap);
}

/* libpcap compiles the expression to classic BPF, DPDK converts it to
 * eBPF over an mbuf (as dpdk-dumpcap does), JIT-ed where it can be. */
static int
capture_filter_load(struct ibex_capture *cap, const char *expr, char *err,
		    size_t errlen)
{
	struct rte_bpf_prm *prm;
	struct rte_bpf_jit jit;
	struct bpf_program bf;
	pcap_t *pc;

	pc = pcap_open_dead(DLT_EN10MB, (int)cap->snaplen);
	if (pc == NULL) {
		snprintf(err, errlen, "capture: filter: libpcap refused to "
			 "start");
		return -ENOMEM;
	}
	if (pcap_compile(pc, &bf, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "capture: filter '%s': %s", expr,
			 pcap_geterr(pc));
		pcap_close(pc);
		return -EINVAL;
	}
	prm = rte_bpf_convert(&bf);
	pcap_freecode(&bf);
	pcap_close(pc);
	if (prm == NULL) {
		snprintf(err, errlen, "capture: filter '%s': cannot convert to "
			 "eBPF: %s", expr, rte_strerror(rte_errno));
		return -EINVAL;
	}
	cap->bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (cap->bpf == NULL) {
		snprintf(err, errlen, "capture: filter '%s': eBPF load "
			 "failed: %s", expr, rte_strerror(rte_errno));
		return -EINVAL;
	}
	if (rte_bpf_get_jit(cap->bpf, &jit) == 0 && jit.func != NULL)
		cap->jit = jit.func;
	return 0;
}

/* Where the switch writes: an absolute path (ibex-ctl's working directory
 * means nothing to it), a regular file it may create or replace, never
 * through a symbolic link. */
static int
capture_open(const char *path, char *err, size_t errlen)
{
	int fd;

	if (path == NULL || path[0] != '/') {
		snprintf(err, errlen, "capture: '%s': FILE must be an absolute "
			 "path (the switch writes it, in its own working "
			 "directory and file system)", path ? path : "");
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0640);
	if (fd < 0) {
		int ret = -errno;

		snprintf(err, errlen, "capture: cannot write %s: %s (the "
			 "switch's uid %u opens it)", path, strerror(errno),
			 (unsigned int)geteuid());
		return ret;
	}
	return fd;
}

/* The file's header: the section block names the switch and maps its
 * ports onto the interface blocks rte_pcapng writes (one per ethdev, named
 * dpdk:N by DPDK 22.11). */
static int
capture_pcapng_open(struct ibex_capture *cap, const struct ibex_dp *dp,
		    int fd, char *err, size_t errlen)
{
	char os[3 * sizeof(((struct utsname *)0)->release) + 3], app[96];
	char comment[512];
	struct utsname u;
	size_t used;
	uint16_t p;

	if (uname(&u) == 0)
		snprintf(os, sizeof(os), "%s %s %s", u.sysname, u.release,
			 u.machine);
	else
		snprintf(os, sizeof(os), "Linux");
	snprintf(app, sizeof(app), "ibex-switch %s (%s)", IBEX_VERSION,
		 rte_version());
	used = (size_t)snprintf(comment, sizeof(comment), "ibex ports:");
	for (p = 0; p < dp->nb_ports && used < sizeof(comment); p++)
		used += (size_t)snprintf(comment + used, sizeof(comment) - used,
					 " %s=dpdk:%u", dp->port_name[p],
					 dp->port_id[p]);
	if (used < sizeof(comment))
		snprintf(comment + used, sizeof(comment) - used,
			 "; snaplen %u%s%s", cap->snaplen,
			 cap->v.filter[0] != '\0' ? "; filter " : "",
			 cap->v.filter);
	cap->pcapng = rte_pcapng_fdopen(fd, os, NULL, app, comment);
	if (cap->pcapng == NULL) {
		snprintf(err, errlen, "capture: %s: cannot write the pcapng "
			 "header: %s", cap->v.path, rte_strerror(rte_errno));
		return -EIO;
	}
	return 0;
}

/* The mempool and the rings: sized from the snapshot length. */
static int
capture_alloc(struct ibex_capture *cap, const struct ibex_dp *dp, char *err,
	      size_t errlen)
{
	uint32_t room = rte_pcapng_mbuf_size(cap->snaplen);
	unsigned int n = CAPTURE_POOL_BYTES / (room + 256u), ring;
	char name[RTE_MEMPOOL_NAMESIZE], base[RTE_MEMPOOL_NAMESIZE];
	uint16_t i;

	n = RTE_MAX(RTE_MIN(n, CAPTURE_POOL_MAX), CAPTURE_POOL_MIN);
	snprintf(base, sizeof(base), "ibex_cap%u", cap->v.id);
	ibex_dp_obj_name(dp, name, sizeof(name), base);
	cap->mp = rte_pktmbuf_pool_create(name, n, 0, 0,
					  (uint16_t)RTE_MIN(room, (uint32_t)UINT16_MAX),
					  rte_socket_id());
	cap->nb_wq = dp->nb_workers;
	cap->wq = rte_zmalloc("ibex_cap_wq",
			      sizeof(cap->wq[0]) * RTE_MAX(cap->nb_wq, 1),
			      RTE_CACHE_LINE_SIZE);
	if (cap->mp == NULL || cap->wq == NULL)
		goto nomem;
	ring = rte_align32pow2(n + 1);
	for (i = 0; i < cap->nb_wq; i++) {
		snprintf(base, sizeof(base), "ibex_cap%u_%u", cap->v.id, i);
		ibex_dp_obj_name(dp, name, sizeof(name), base);
		cap->wq[i].ring = rte_ring_create(name, ring, rte_socket_id(),
						  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (cap->wq[i].ring == NULL)
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "capture: no memory for %u frames of %u bytes "
		 "(lower snaplen)", n, room);
	return -ENOMEM;
}

/* rte_pcapng keeps its TSC-to-time base in a static it sets on first
 * use and moves in whole seconds: bring it within a second of tsc0 here,
 * so the workers' copies at tsc0 never move it (capture_stamp()). */
static void
capture_clock_init(struct ibex_capture *cap, const struct ibex_dp *dp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(cap->mp), *mc;

	char *d;

	if (m == NULL)
		return;
	d = rte_pktmbuf_append(m, 16);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(d, 0, 16);
	mc = rte_pcapng_copy(dp->port_id[0], 0, m, cap->mp, 16, cap->tsc0,
			     RTE_PCAPNG_DIRECTION_IN);
	rte_pktmbuf_free(mc);
	rte_pktmbuf_free(m);
}

static uint32_t
capture_snaplen(const struct ibex_dp *dp, const struct ibex_capture_params *p)
{
	uint32_t max = ibex_conf_port_frame_max(&dp->conf->ports[p->port]);

	if (p->snaplen != 0)
		return p->snaplen;
	/* The port's longest frame, plus a VLAN tag an offload stripped. */
	return RTE_MIN(max + 4u, (uint32_t)IBEX_CAPTURE_SNAPLEN_MAX);
}

int
ibex_capture_start(struct ibex_dp *dp, const struct ibex_capture_params *p,
		   char *err, size_t errlen)
{
	struct ibex_capture *cap;
	int fd = -1, ret;

	if (dp->cap_run != NULL) {
		snprintf(err, errlen, "capture: capture %u of port %s to %s "
			 "runs (one at a time: 'capture stop' ends it)",
			 dp->cap_run->v.id, dp->port_name[dp->cap_run->v.port],
			 dp->cap_run->v.path);
		return -EBUSY;
	}
	if (p->port >= dp->nb_ports) {
		snprintf(err, errlen, "capture: no port %u", p->port);
		return -ENOENT;
	}
	/* pcapng's interface blocks are ethdevs (rte_pcapng writes one per
	 * ethdev), so a port on an in-process device has none to name. */
	if (!ibex_pdev_is_ethdev(dp->port_id[p->port]) ||
	    !ibex_pdev_is_ethdev(dp->port_id[0])) {
		snprintf(err, errlen, "capture: this switch's ports are on "
			 "in-process devices (ibex-fabric links), and pcapng "
			 "names ethdevs only");
		return -ENOTSUP;
	}
	if (p->snaplen > IBEX_CAPTURE_SNAPLEN_MAX ||
	    (p->snaplen != 0 && p->snaplen < 16)) {
		snprintf(err, errlen, "capture: snaplen %u: 16..%u bytes",
			 p->snaplen, IBEX_CAPTURE_SNAPLEN_MAX);
		return -EINVAL;
	}
	cap = calloc(1, sizeof(*cap));
	if (cap == NULL)
		return -ENOMEM;
	cap->v.id = ++dp->cap_ids;
	cap->v.port = p->port;
	cap->ethdev = dp->port_id[p->port];
	cap->v.dir = p->dir;
	cap->v.count = p->count;
	cap->snaplen = cap->v.snaplen = capture_snaplen(dp, p);
	snprintf(cap->v.path, sizeof(cap->v.path), "%s", p->path ? p->path : "");
	snprintf(cap->v.filter, sizeof(cap->v.filter), "%s",
		 p->filter != NULL ? p->filter : "");
	if (strlen(p->path ? p->path : "") >= sizeof(cap->v.path) ||
	    strlen(p->filter ? p->filter : "") >= sizeof(cap->v.filter)) {
		snprintf(err, errlen, "capture: path or filter too long");
		ret = -ENAMETOOLONG;
		goto fail;
	}
	/* The filter first: a typo must not truncate the file. */
	if (cap->v.filter[0] != '\0') {
		ret = capture_filter_load(cap, cap->v.filter, err, errlen);
		if (ret < 0)
			goto fail;
	}
	ret = capture_alloc(cap, dp, err, errlen);
	if (ret < 0)
		goto fail;
	fd = capture_open(cap->v.path, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	ret = capture_pcapng_open(cap, dp, fd, err, errlen);
	if (ret < 0) {
		close(fd);
		goto fail;
	}
	cap->tsc_hz = ibex_clock_hz();
	cap->tsc0 = ibex_clock_now();
	cap->ns0 = realtime_ns();
	capture_clock_init(cap, dp);
	if (p->dir & IBEX_CAPTURE_RX)
		cap->ports[IBEX_CAPTURE_RX] = UINT64_C(1) << p->port;
	if (p->dir & IBEX_CAPTURE_TX)
		cap->ports[IBEX_CAPTURE_TX] = UINT64_C(1) << p->port;
	cap->v.state = IBEX_CAPTURE_RUNNING;
	cap->v.started_ns = realtime_ns();
	dp->cap_run = cap;
	capture_share(dp, &cap->v);
	/* The workers see a complete capture: release. */
	atomic_store_explicit(&dp->capture, cap, memory_order_release);
	RTE_LOG(NOTICE, IBEX_CAPTURE, "capture %u: port %s %s%s to %s, "
		"snaplen %u%s%s%s\n", cap->v.id, dp->port_name[p->port],
		p->dir & IBEX_CAPTURE_RX ? "rx" : "",
		p->dir & IBEX_CAPTURE_TX ? "tx" : "", cap->v.path,
		cap->snaplen, cap->v.filter[0] != '\0' ? ", filter '" : "",
		cap->v.filter, cap->v.filter[0] != '\0' ? "'" : "");
	return 0;
fail:
	if (cap->pcapng == NULL && fd >= 0)
		close(fd);
	capture_free(cap);
	dp->cap_ids--;
	return ret;
}

/* Sum the workers' counters into the view. */
static void
capture_sum(struct ibex_capture *cap)
{
	uint64_t copied = 0, dropped = 0, filtered = 0;
	uint16_t i;

	for (i = 0; i < cap->nb_wq; i++) {
		copied += IBEX_CNT_READ(cap->wq[i].copied);
		dropped += IBEX_CNT_READ(cap->wq[i].dropped);
		filtered += IBEX_CNT_READ(cap->wq[i].filtered);
	}
	cap->v.copied = copied;
	cap->v.dropped = dropped;
	cap->v.filtered = filtered;
	cap->v.duration_ns = realtime_ns() - cap->v.started_ns;
}

/* Unpublish: no worker starts another copy; those inside one finish
 * before their next quiescent state. */
static void
capture_unpublish(struct ibex_dp *dp, struct ibex_capture *cap,
		  const char *why)
{
	if (cap->v.state != IBEX_CAPTURE_RUNNING)
		return;
	snprintf(cap->v.end, sizeof(cap->v.end), "%s", why);
	cap->v.state = IBEX_CAPTURE_STOPPING;
	atomic_store_explicit(&dp->capture, NULL, memory_order_release);
	cap->token = dp->qsbr != NULL ? rte_rcu_qsbr_start(dp->qsbr) : 0;
}

int
ibex_capture_stop(struct ibex_dp *dp, const char *why)
{
	if (dp->cap_run == NULL || dp->cap_run->v.state != IBEX_CAPTURE_RUNNING)
		return -ENOENT;
	capture_unpublish(dp, dp->cap_run, why);
	capture_sum(dp->cap_run);
	capture_share(dp, &dp->cap_run->v);
	return 0;
}

/* Write what the rings hold, up to COUNT; what comes after is freed. */
static void
capture_drain(struct ibex_dp *dp, struct ibex_capture *cap)
{
	struct rte_mbuf *m[CAPTURE_WRITE_BURST];
	uint16_t i;

	for (i = 0; i < cap->nb_wq; i++) {
		unsigned int n, w;

		while ((n = rte_ring_sc_dequeue_burst(cap->wq[i].ring,
						      (void **)m, RTE_DIM(m),
						      NULL)) != 0) {
			ssize_t b = 0;

			w = n;
			if (cap->v.count != 0)
				w = (unsigned int)RTE_MIN((uint64_t)n,
					cap->v.count - cap->v.written);
			if (cap->v.error != 0)
				w = 0;
			if (w != 0)
				b = rte_pcapng_write_packets(cap->pcapng, m,
							     (uint16_t)w);
			if (b < 0) {
				cap->v.error = -rte_errno;
				RTE_LOG(ERR, IBEX_CAPTURE, "capture %u: "
					"writing %s: %s\n", cap->v.id,
					cap->v.path, strerror(rte_errno));
				capture_unpublish(dp, cap, "write failed");
				cap->v.past_count += w;
			} else {
				cap->v.written += w;
				cap->v.bytes += (uint64_t)b;
			}
			cap->v.past_count += n - w;
			rte_pktmbuf_free_bulk(m, n);
			if (cap->v.count != 0 &&
			    cap->v.written >= cap->v.count)
				capture_unpublish(dp, cap, "count reached");
		}
	}
}

/* The end of the file: an interface statistics block for the port, the
 * frames captured and those lost to the capture. */
static void
capture_close(struct ibex_dp *dp, struct ibex_capture *cap)
{
	char comment[128];
	uint64_t end = realtime_ns();

	capture_sum(cap);
	if (cap->v.error == 0) {
		snprintf(comment, sizeof(comment), "ibex capture %u: %s; "
			 "%" PRIu64 " filtered out", cap->v.id, cap->v.end,
			 cap->v.filtered);
		rte_pcapng_write_stats(cap->pcapng, dp->port_id[cap->v.port],
				       comment, cap->v.started_ns, end,
				       cap->v.copied, cap->v.dropped);
	}
	cap->v.state = IBEX_CAPTURE_DONE;
	RTE_LOG(NOTICE, IBEX_CAPTURE, "capture %u: %s: %" PRIu64 " frames "
		"(%" PRIu64 " bytes) written to %s, %" PRIu64 " dropped\n",
		cap->v.id, cap->v.end, cap->v.written, cap->v.bytes,
		cap->v.path, cap->v.dropped);
	dp->cap_last = cap->v;
	dp->cap_run = NULL;
	capture_share(dp, &dp->cap_last);
	capture_free(cap);
}

bool
ibex_capture_poll(struct ibex_dp *dp)
{
	struct ibex_capture *cap = dp->cap_run;

	if (cap == NULL)
		return false;
	capture_drain(dp, cap);
	if (cap->v.state == IBEX_CAPTURE_STOPPING &&
	    (dp->qsbr == NULL ||
	     rte_rcu_qsbr_check(dp->qsbr, cap->token, false) == 1)) {
		/* No worker holds it any more: what is on the rings is
		 * all there will be. */
		capture_drain(dp, cap);
		capture_close(dp, cap);
		return false;
	}
	capture_sum(cap);
	capture_share(dp, &cap->v);
	return true;
}

bool
ibex_capture_active(const struct ibex_dp *dp)
{
	return dp->cap_run != NULL;
}

void
ibex_capture_view(const struct ibex_dp *dp, struct ibex_capture_view *v)
{
	if (dp->cap_run != NULL) {
		capture_sum(dp->cap_run);
		*v = dp->cap_run->v;
		return;
	}
	*v = dp->cap_last;
}

void
ibex_capture_view_shared(const struct ibex_dp *dp, struct ibex_capture_view *v)
{
	/* The lock is the view's, not the data path's: telemetry reads
	 * through a const handle like every view. */
	struct ibex_dp *mdp = (struct ibex_dp *)(uintptr_t)dp;

	pthread_mutex_lock(&mdp->cap_lock);
	*v = mdp->cap_shared;
	pthread_mutex_unlock(&mdp->cap_lock);
}

void
ibex_capture_shutdown(struct ibex_dp *dp)
{
	struct ibex_capture *cap = dp->cap_run;

	if (cap == NULL)
		return;
	capture_unpublish(dp, cap, "switch stopped");
	/* The workers have returned: nothing more can arrive. */
	capture_drain(dp, cap);
	capture_close(dp, cap);
}
