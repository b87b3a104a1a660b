/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's loop and its reports.
 *
 * The loop sleeps in poll() until there is work: a signal (signalfd), the
 * timer of the next periodic job (one timerfd, re-armed to the earliest
 * deadline), the wake eventfd (a worker posted the first learn request
 * into an empty ring, or a stop was requested), or the control socket.
 * Idle, it runs about once a second (FDB ageing) plus the stats period;
 * under a learning storm at most once per CTL_LEARN_HOLDOFF_MS plus the
 * first request's wake-up. docs/design.md has the whole budget.
 *
 * poll() rather than epoll: the set is at most IBEX_SOCK_MAX_FDS + 3
 * descriptors and changes as clients come and go; rebuilding it on each
 * wake-up costs less than keeping an epoll set in step.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "ibex_clock.h"
#include "ibex_counters.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_running.h"
#include "ibex_sock.h"

RTE_LOG_REGISTER(ibex_ctl_logtype, ibex.ctl, INFO);
#define RTE_LOGTYPE_IBEX_CTL ibex_ctl_logtype

#define LEARN_BATCH 256
/* After a learn wake-up the workers' next requests wait this long (and are
 * applied together) before a worker may wake us again: bounds wake-ups
 * under a learning storm to 1000/s, and learning latency to this. */
#define CTL_LEARN_HOLDOFF_MS 1
/* FDB ageing runs this often (ageing times are seconds). */
#define CTL_AGE_MS 1000
/* With --idle-stop, how often the RX counters are compared. */
#define CTL_IDLE_CHECK_MS 100
/* Waiting for lcores to return: a sleep, not a spin on a shared CPU. */
#define CTL_WAIT_LCORE_US 1000

static atomic_bool stop_requested;
/* The loop's eventfd while it runs, for ibex_ctl_request_stop(). */
static atomic_int wake_fd = -1;

/* The process's meta block, set before the loop runs and read by the
 * control thread only. */
static const char *ctl_meta;

void
ibex_ctl_set_meta(const char *meta)
{
	ctl_meta = meta;
}

const char *
ibex_ctl_meta(void)
{
	return ctl_meta;
}

void
ibex_ctl_request_stop(void)
{
	uint64_t one = 1;
	int fd;

	atomic_store(&stop_requested, true);
	fd = atomic_load(&wake_fd);
	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}

static void
ctl_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

int
ibex_ctl_block_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t set;

	/* An ignored signal is discarded before it can be pending, so the
	 * signalfd would never see it: a shell starts background jobs with
	 * SIGINT ignored. Blocked, the default action never runs. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	ctl_sigset(&set);
	return -pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void
ibex_ctl_wait_lcores(void)
{
	unsigned int lc;

	RTE_LCORE_FOREACH_WORKER(lc) {
		while (rte_eal_get_lcore_state(lc) == RUNNING)
			rte_delay_us_sleep(CTL_WAIT_LCORE_US);
		rte_eal_wait_lcore(lc);
	}
}

bool
ibex_ctl_stop_requested(void)
{
	sigset_t pending;

	if (atomic_load(&stop_requested))
		return true;
	/* Signals are blocked for the signalfd: before the loop runs, a
	 * SIGINT or SIGTERM waits here as pending. */
	return sigpending(&pending) == 0 &&
	       (sigismember(&pending, SIGINT) == 1 ||
		sigismember(&pending, SIGTERM) == 1);
}

static uint64_t
clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000;
}

static void
learn_apply(struct ibex_dp *dp)
{
	struct ibex_learn_req req[LEARN_BATCH];
	uint32_t now_ms = ibex_dp_clock_ms(dp, ibex_clock_now());
	unsigned int n, i;

	do {
		n = ibex_dp_learn_dequeue(dp, req, LEARN_BATCH);
		for (i = 0; i < n; i++)
			ibex_fdb_learn(dp->fdb, req[i].mac, req[i].vid,
				       req[i].port, now_ms);
	} while (n == LEARN_BATCH);
}

static uint64_t
rx_total(const struct ibex_dp *dp)
{
	struct ibex_port_counters c;
	uint64_t sum = 0;
	uint16_t p;

	for (p = 0; p < dp->nb_ports; p++) {
		ibex_dp_port_totals(dp, p, &c);
		sum += c.rx_pkts;
	}
	return sum;
}

/* What the loop keeps per switch: the deadlines that are the switch's own
 * (CLOCK_MONOTONIC ms; 0 = none). */
struct ctl_switch_state {
	uint64_t next_links;    /* 0: no port whose link is watched */
	uint64_t next_capture;  /* 0: no capture runs */
};

/* The loop's descriptors and the deadlines of its jobs (CLOCK_MONOTONIC
 * ms; 0 = none). One loop serves every switch of the process: one
 * signalfd, one timer, one eventfd every switch's workers write. */
struct ctl_loop {
	const struct ibex_ctl_switch *sw;
	unsigned int n;
	struct ctl_switch_state *st;
	const struct ibex_ctl_opts *opts;
	int sfd, tfd, efd;
	uint64_t start, next_age, next_stats, next_idle, learn_rearm;
	uint64_t age_clock_next; /* ibex_clock's ms of the next ageing */
	uint64_t armed_at;      /* timerfd's deadline, 0: disarmed */
	uint64_t last_rx, last_tsc, idle_rx, last_rx_change;
	bool learn_pending;     /* a learn wake-up seen, holdoff running */
};

static uint64_t
rx_total_all(const struct ctl_loop *l)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < l->n; i++)
		sum += rx_total(l->sw[i].dp);
	return sum;
}

static void
stats_line(struct ctl_loop *l)
{
	uint64_t rx = rx_total_all(l), tsc = ibex_clock_now();
	double dt = (double)(tsc - l->last_tsc) / (double)ibex_clock_hz();

	RTE_LOG(INFO, IBEX_CTL, "rx %" PRIu64 " frames, %.2f Mpps%s\n",
		rx, dt > 0 ? (double)(rx - l->last_rx) / dt / 1e6 : 0.0,
		l->n > 1 ? " (all switches)" : "");
	l->last_rx = rx;
	l->last_tsc = tsc;
}

static int
loop_open(struct ctl_loop *l)
{
	sigset_t set;
	unsigned int i;

	ctl_sigset(&set);
	/* Blocked here too, in case the caller did not (then only signals
	 * sent to this thread reach the signalfd). */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	l->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	l->st = calloc(l->n, sizeof(*l->st));
	if (l->sfd < 0 || l->tfd < 0 || l->efd < 0)
		return -errno;
	if (l->st == NULL)
		return -ENOMEM;
	for (i = 0; i < l->n; i++)
		ibex_dp_learn_set_fd(l->sw[i].dp, l->efd);
	atomic_store(&wake_fd, l->efd);
	return 0;
}

static void
loop_close(struct ctl_loop *l)
{
	unsigned int i;

	atomic_store(&wake_fd, -1);
	for (i = 0; i < l->n; i++)
		ibex_dp_learn_set_fd(l->sw[i].dp, -1);
	if (l->sfd >= 0)
		close(l->sfd);
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->efd >= 0)
		close(l->efd);
	free(l->st);
}

static void
drain_fd(int fd)
{
	uint8_t buf[sizeof(struct signalfd_siginfo) * 4];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void
loop_signals(struct ctl_loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			ibex_running_request_reload();
		else
			atomic_store(&stop_requested, true);
	}
}

static uint64_t
earliest(uint64_t a, uint64_t b)
{
	if (a == 0)
		return b;
	return b == 0 || a < b ? a : b;
}

/* Arm the timer for the earliest job; a deadline already past fires at
 * once. Re-armed only when it changes. */
static void
loop_arm(struct ctl_loop *l)
{
	uint64_t d = 0;
	struct itimerspec its = { 0 };
	unsigned int i;

	d = earliest(d, l->next_age);
	d = earliest(d, l->next_stats);
	d = earliest(d, l->next_idle);
	d = earliest(d, l->learn_rearm);
	for (i = 0; i < l->n; i++) {
		struct ctl_switch_state *st = &l->st[i];

		d = earliest(d, st->next_links);
		/* A capture started by the socket: drain its rings every
		 * IBEX_CAPTURE_POLL_MS, only while it runs. */
		if (st->next_capture == 0 && ibex_capture_active(l->sw[i].dp))
			st->next_capture = clock_ms() + IBEX_CAPTURE_POLL_MS;
		d = earliest(d, st->next_capture);
	}
	/* start is floored to the millisecond: one more keeps a run from
	 * ending before its duration. */
	if (l->opts->duration_ms != 0)
		d = earliest(d, l->start + l->opts->duration_ms + 1);
	if (d == l->armed_at)
		return;
	its.it_value.tv_sec = (time_t)(d / 1000);
	its.it_value.tv_nsec = (long)(d % 1000) * 1000000;
	if (d != 0 && its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
	l->armed_at = d;
}

/* One switch's jobs that are due: links, capture. */
static void
loop_switch_jobs(struct ctl_loop *l, unsigned int i, uint64_t now)
{
	struct ctl_switch_state *st = &l->st[i];
	struct ibex_dp *dp = l->sw[i].dp;

	if (st->next_links != 0 && now >= st->next_links) {
		uint32_t ms = ibex_dp_links_poll(dp);

		/* Links that are up are looked at on the ageing tick: no
		 * wake-up of their own. */
		st->next_links = ms == 0 ? 0 :
				 ms >= CTL_AGE_MS ? l->next_age : now + ms;
	}
	if (st->next_capture != 0 && now >= st->next_capture)
		st->next_capture = ibex_capture_poll(dp) ?
				   now + IBEX_CAPTURE_POLL_MS : 0;
}

/*
 * Has a CTL_AGE_MS of the data path's clock passed since the last ageing?
 * The wall clock's tick asks, and under the real clock the answer is
 * always yes. Under the virtual clock, ageing is the simulated network's
 * and a second of it can take minutes of wall time: a scan of every
 * switch's table (hundreds of MB in a large fabric) each wall second
 * would find nothing to age and take the cache from the executive.
 */
static bool
age_due(struct ctl_loop *l)
{
	uint64_t ms;

	if (!ibex_clock_is_virtual())
		return true;
	ms = ibex_clock_now() / (ibex_clock_hz() / 1000);
	if (ms < l->age_clock_next)
		return false;
	l->age_clock_next = ms + CTL_AGE_MS;
	return true;
}

/* The periodic jobs that are due. @return true to stop. */
static bool
loop_jobs(struct ctl_loop *l, uint64_t now)
{
	const struct ibex_ctl_opts *o = l->opts;
	unsigned int i;

	if (now >= l->next_age) {
		unsigned int n = age_due(l) ? l->n : 0;

		for (i = 0; i < n; i++) {
			struct ibex_dp *dp = l->sw[i].dp;

			ibex_fdb_age(dp->fdb,
				     ibex_dp_clock_ms(dp, ibex_clock_now()));
		}
		l->next_age = now + CTL_AGE_MS;
	}
	for (i = 0; i < l->n; i++)
		loop_switch_jobs(l, i, now);
	if (l->next_stats != 0 && now >= l->next_stats) {
		stats_line(l);
		l->next_stats = now + o->stats_period_ms;
	}
	if (o->duration_ms != 0 && now - l->start > o->duration_ms)
		return true;
	if (l->next_idle != 0 && now >= l->next_idle) {
		uint64_t rx = rx_total_all(l);

		if (rx != l->idle_rx) {
			l->idle_rx = rx;
			l->last_rx_change = now;
		} else if (now - l->last_rx_change >= o->idle_stop_ms) {
			return true;
		}
		l->next_idle = now + RTE_MIN(o->idle_stop_ms,
					     (uint32_t)CTL_IDLE_CHECK_MS);
	}
	return false;
}

/*
 * Learning: apply what the rings hold. After a wake-up by a worker, wait
 * CTL_LEARN_HOLDOFF_MS before letting workers wake us again; at its end
 * apply again and re-arm. Arming is the flag, a fence, then one more look
 * at the ring (learn_wake() in the data path is the other half).
 * @return true when requests arrived while arming: do not block.
 */
static bool
loop_learn(struct ctl_loop *l, uint64_t now, bool woken)
{
	bool more = false;
	unsigned int i;

	for (i = 0; i < l->n; i++)
		learn_apply(l->sw[i].dp);
	if (woken && !l->learn_pending) {
		l->learn_pending = true;
		l->learn_rearm = now + CTL_LEARN_HOLDOFF_MS;
		return false;
	}
	if (l->learn_pending && now < l->learn_rearm)
		return false;
	l->learn_pending = false;
	l->learn_rearm = 0;
	for (i = 0; i < l->n; i++)
		more |= ibex_dp_learn_arm(l->sw[i].dp);
	return more;
}

/* The sockets' descriptors after the loop's three. @return how many. */
static unsigned int
loop_sock_fds(const struct ctl_loop *l, struct pollfd *pfd, bool *more)
{
	unsigned int i, n = 0;

	*more = false;
	for (i = 0; i < l->n; i++) {
		bool m = false;

		if (l->sw[i].sock == NULL)
			continue;
		n += ibex_sock_fds(l->sw[i].sock, pfd + n, IBEX_SOCK_MAX_FDS, &m);
		*more |= m;
	}
	return n;
}

static void
loop_sock_poll(const struct ctl_loop *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->sw[i].sock != NULL)
			ibex_sock_poll(l->sw[i].sock);
}

static void
loop_stop_all(const struct ibex_ctl_switch *sw, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		atomic_store_explicit(&sw[i].dp->stop, true,
				      memory_order_relaxed);
}

static void
loop_start(struct ctl_loop *l)
{
	const struct ibex_ctl_opts *opts = l->opts;
	unsigned int i;

	l->start = clock_ms();
	l->next_age = l->start + CTL_AGE_MS;
	l->age_clock_next = CTL_AGE_MS;
	for (i = 0; i < l->n; i++)
		l->st[i].next_links = l->sw[i].dp->nb_ports != 0 ? l->start : 0;
	l->next_stats = opts->stats_period_ms != 0 ?
			l->start + opts->stats_period_ms : 0;
	l->next_idle = opts->idle_stop_ms != 0 ? l->start : 0;
	l->last_rx_change = l->start;
	l->last_tsc = ibex_clock_now();
}

void
ibex_ctl_run_switches(const struct ibex_ctl_switch *sw, unsigned int nsw,
		      const struct ibex_ctl_opts *opts)
{
	struct ctl_loop l = { .sw = sw, .n = nsw, .opts = opts, .sfd = -1,
			      .tfd = -1, .efd = -1 };
	struct pollfd *pfd;
	bool more = false, woken = false, sock_due = true;
	int ret;

	pfd = calloc((size_t)nsw * IBEX_SOCK_MAX_FDS + 3, sizeof(*pfd));
	ret = pfd == NULL ? -ENOMEM : loop_open(&l);
	if (ret < 0) {
		RTE_LOG(ERR, IBEX_CTL, "cannot set up the control loop: %s\n",
			strerror(-ret));
		loop_close(&l);
		free(pfd);
		loop_stop_all(sw, nsw);
		return;
	}
	loop_start(&l);
	for (;;) {
		uint64_t now = clock_ms();
		unsigned int n = 0, nsock;
		bool sock_more = false;

		if (atomic_load(&stop_requested) || loop_jobs(&l, now))
			break;
		if (loop_learn(&l, now, woken))
			more = true;
		/* The sockets' turn when one of their fds (or the timer)
		 * woke us, not on every learn wake-up. */
		if (sock_due)
			loop_sock_poll(&l);
		loop_arm(&l);
		pfd[n++] = (struct pollfd){ .fd = l.sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l.tfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l.efd, .events = POLLIN };
		nsock = loop_sock_fds(&l, pfd + n, &sock_more);
		n += nsock;
		ret = poll(pfd, n, more || sock_more ? 0 : -1);
		more = false;
		woken = false;
		sock_due = sock_more;
		for (unsigned int i = 3; i < n && ret > 0; i++)
			if (pfd[i].revents != 0)
				sock_due = true;
		if (ret < 0 && errno != EINTR) {
			RTE_LOG(ERR, IBEX_CTL, "poll: %s\n", strerror(errno));
			break;
		}
		if (pfd[0].revents != 0) {
			loop_signals(&l);
			sock_due = true; /* SIGHUP: a reload */
		}
		if (pfd[1].revents != 0) {
			drain_fd(l.tfd);
			l.armed_at = 0;
			sock_due = true;
		}
		if (pfd[2].revents != 0) {
			drain_fd(l.efd);
			woken = true;
		}
	}
	loop_close(&l);
	free(pfd);
	/* Consumed: a later run starts afresh (one asked for before this
	 * run, or during it, has stopped this one). */
	atomic_store(&stop_requested, false);
	loop_stop_all(sw, nsw);
}

void
ibex_ctl_run(struct ibex_dp *dp, const struct ibex_ctl_opts *opts)
{
	const struct ibex_ctl_switch sw = { .dp = dp, .sock = opts->sock };

	ibex_ctl_run_switches(&sw, 1, opts);
}

static uint64_t
busy_cycles_per_frame(const struct ibex_dp *dp)
{
	uint64_t busy = 0, frames = 0;
	uint16_t i, p;

	for (i = 0; i < dp->nb_workers; i++) {
		struct ibex_dp_worker_view wv;

		if (ibex_dp_worker_view(dp, i, &wv) == 0)
			busy += wv.busy_tsc;
	}
	for (p = 0; p < dp->nb_ports; p++) {
		struct ibex_port_counters c;

		ibex_dp_port_totals(dp, p, &c);
		frames += c.rx_pkts;
	}
	return frames != 0 ? busy / frames : 0;
}

/* Write what @p o holds to @p f, then empty it. */
static void
out_flush(struct ibex_out *o, FILE *f)
{
	if (o->buf != NULL)
		fwrite(o->buf, 1, o->len, f);
	ibex_out_reset(o);
}

void
ibex_ctl_print_summary(FILE *f, const struct ibex_dp *dp, double elapsed_s)
{
	struct ibex_fdb_stats fs;
	struct ibex_out o;
	uint16_t p;
	unsigned int r;

	ibex_out_init(&o);
	fprintf(f, "\nibex-switch summary after %.3f s\n", elapsed_s);
	ibex_out_printf(&o, "%-12s", "port");
	ibex_cnt_text_head(&o, &ibex_port_cnt_set, 0);
	ibex_out_printf(&o, "\n");
	for (p = 0; p < dp->nb_ports; p++) {
		uint64_t v[IBEX_PORT_CNT_NB];
		struct ibex_port_counters c;

		ibex_dp_port_totals(dp, p, &c);
		ibex_port_cnt_values(&c, v);
		ibex_out_printf(&o, "%-12s", dp->port_name[p]);
		ibex_cnt_text_row(&o, &ibex_port_cnt_set, v, 0);
		ibex_out_printf(&o, "\n");
	}
	out_flush(&o, f);
	fprintf(f, "drops by reason:\n");
	for (p = 0; p < dp->nb_ports; p++) {
		struct ibex_port_counters c;

		ibex_dp_port_totals(dp, p, &c);
		for (r = 1; r < IBEX_R_MAX; r++)
			if (c.drop[r] != 0)
				fprintf(f, "  %-12s %-16s %12" PRIu64 "  %s\n",
					dp->port_name[p], ibex_reason_name(r),
					c.drop[r], ibex_reason_help(r));
	}
	ibex_fdb_get_stats(dp->fdb, &fs);
	ibex_out_printf(&o, "fdb: ");
	ibex_fdb_cnt_text(&o, &fs);
	ibex_out_printf(&o, "\n");
	out_flush(&o, f);
	ibex_out_free(&o);
	fprintf(f, "workers: %u, busy cycles per frame: %" PRIu64 "\n",
		dp->nb_workers, busy_cycles_per_frame(dp));
}

/* One port of the final --json: its name and the counters as
 * "show ports --json" and /ibex/port_stats have them. */
static void
json_port(FILE *f, const struct ibex_dp *dp, uint16_t p)
{
	struct ibex_port_counters c;
	struct ibex_out o;

	ibex_out_init(&o);
	ibex_dp_port_totals(dp, p, &c);
	ibex_out_printf(&o, "    {\"name\": ");
	ibex_out_json_str(&o, dp->port_name[p]);
	ibex_out_printf(&o, ", ");
	ibex_port_cnt_json(&o, &c);
	ibex_out_printf(&o, "}");
	out_flush(&o, f);
	ibex_out_free(&o);
}

int
ibex_ctl_write_json(const char *path, const struct ibex_dp *dp,
		    double elapsed_s)
{
	return ibex_ctl_write_json_ext(path, dp, elapsed_s, NULL, NULL);
}

int
ibex_ctl_write_json_ext(const char *path, const struct ibex_dp *dp,
			double elapsed_s, const char *meta, const char *extra)
{
	struct ibex_fdb_stats fs;
	FILE *f = fopen(path, "w");
	struct ibex_out o;
	uint16_t p;

	if (f == NULL)
		return -errno;
	ibex_fdb_get_stats(dp->fdb, &fs);
	fprintf(f, "{\n");
	if (meta != NULL)
		fprintf(f, "  \"meta\": %s,\n", meta);
	fprintf(f, "  \"elapsed_s\": %.6f,\n  \"workers\": %u,\n"
		"  \"busy_cycles_per_frame\": %" PRIu64 ",\n  \"fdb\": {",
		elapsed_s, dp->nb_workers, busy_cycles_per_frame(dp));
	ibex_out_init(&o);
	ibex_fdb_cnt_json(&o, &fs);
	out_flush(&o, f);
	ibex_out_free(&o);
	fprintf(f, "}");
	/* The topics' sections have the ports as "show ports --json"
	 * does; without them, name and counters. */
	if (extra != NULL && extra[0] != '\0') {
		fprintf(f, ",\n%s", extra);
	} else {
		fprintf(f, ",\n  \"ports\": [\n");
		for (p = 0; p < dp->nb_ports; p++) {
			json_port(f, dp, p);
			fprintf(f, p + 1 < dp->nb_ports ? ",\n" : "\n");
		}
		fprintf(f, "  ]");
	}
	fprintf(f, "\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}
