/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric --clock virtual: the discrete-event executive
 * (docs/simulation.md).
 *
 * One lcore runs everything: the generator's loops call ibex_clock_poll()
 * once a turn, and each call is one step here. The links tell a calendar
 * (a binary heap of (time, owner)) when a switch, or the generator, has
 * work: a frame's last bit arriving at one of its ports, its sending side
 * able to take frames it had to keep. A step runs, at the present
 * instant, the switches that are due, in topology order; the generator's
 * turn follows. When a whole round (the previous step's switches and the
 * generator's turn since) moved no frame on any wire, the present is
 * done and time jumps to the calendar's next event, or one quantum later
 * (the housekeeping period of the data path and of the generator, whose
 * timers the calendar does not hear of), whichever is first. A switch
 * with frames it could not send, or with flow control, is due again a
 * quantum later; one whose ports still hold frames that arrived is due
 * again at once.
 *
 * Ties: at one instant the due switches run in topology order, then the
 * generator; nothing depends on the order events were scheduled in, nor
 * on the host: the same topology, options and seed give the same run.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fabric.h"
#include "ibex_clock.h"
#include "ibexlink.h"
#include "ibex_gen_builtin.h"

/* ---- the calendar: a binary min-heap of (time, owner) ---- */

static int
heap_push(struct fabric_sim *s, uint64_t t, uint32_t owner)
{
	size_t i;

	if (s->heap_n == s->heap_cap) {
		size_t cap = s->heap_cap != 0 ? 2 * s->heap_cap : 4096;
		struct fabric_sim_event *h = realloc(s->heap, cap * sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		s->heap = h;
		s->heap_cap = cap;
	}
	i = s->heap_n++;
	while (i > 0 && s->heap[(i - 1) / 2].t > t) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i].t = t;
	s->heap[i].owner = owner;
	return 0;
}

/*
 * Pop the earliest event. The hole left at the root goes down to a leaf
 * along the earlier child, one comparison a level; the last entry then
 * fills it, climbing only if it is earlier than the parents there. The
 * links schedule in nearly increasing time, so the last entry is nearly
 * always the latest and stays at the leaf: the usual sift-down would
 * compare it at every level for nothing.
 */
static struct fabric_sim_event
heap_pop(struct fabric_sim *s)
{
	struct fabric_sim_event top = s->heap[0], last = s->heap[--s->heap_n];
	size_t n = s->heap_n, i = 0, c;

	if (n == 0)
		return top;
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && s->heap[c + 1].t < s->heap[c].t)
			c++;
		s->heap[i] = s->heap[c];
		i = c;
	}
	while (i > 0 && s->heap[(i - 1) / 2].t > last.t) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = last;
	return top;
}

static inline void
due_set(struct fabric_sim *s, uint32_t sw)
{
	s->due[sw / 64] |= UINT64_C(1) << (sw % 64);
}

/* An event at a switch's port (its owner: the port's index in s->port):
 * the switch is due, and its next run receives on that port. */
static inline void
port_due(struct fabric_sim *s, uint32_t i)
{
	uint32_t sw = s->port_sw[i];

	s->rx_ports[sw] |= UINT64_C(1) << (i - s->port_first[sw]);
	due_set(s, sw);
}

/* An event at a rank's port (its owner n_ports + rank): the generator's
 * next turn visits it. */
static inline void
rank_wake(struct fabric_sim *s, uint32_t owner)
{
	if (s->gen != NULL)
		ibex_gen_builtin_port_wake(s->gen, owner - s->n_ports);
}

/* What a calendar entry's owner names: a switch's port, a rank's port
 * or a switch's housekeeping tick (owners from s->tick_base on). */
static void
owner_due(struct fabric_sim *s, uint32_t owner)
{
	if (owner < s->n_ports)
		port_due(s, owner);
	else if (owner < s->tick_base)
		rank_wake(s, owner);
	else
		due_set(s, owner - s->tick_base);
}

/* The links' calendar hook (ibex_clock_wake()). */
static void
sim_wake(void *arg, uint32_t owner, uint64_t t)
{
	struct fabric_sim *s = arg;

	if (t <= ibex_clock_now())
		owner_due(s, owner);
	else if (heap_push(s, t, owner) < 0)
		s->lost_events++;
}

/* ---- a step ---- */

/* The next tick of the quantum's grid after @p now: the housekeeping
 * wakes of all switches and the generator's fall on the same instants,
 * so they cost one step a quantum, not one per switch and event. */
static inline uint64_t
next_tick(const struct fabric_sim *s, uint64_t now)
{
	return (now / s->quantum + 1) * s->quantum;
}

/* Run switch @p sw's workers once, receiving on the ports where frames
 * arrived; then it is due again at once if a frame that arrived still
 * waits at one of them (more than a burst came), or at the next tick if
 * it needs time. */
static void
switch_run(struct fabric_sim *s, uint32_t sw, uint64_t now)
{
	uint64_t rx = s->rx_ports[sw], left = 0, tick;
	unsigned int first = s->port_first[sw], i;
	bool needs = false;

	s->rx_ports[sw] = 0;
	for (i = 0; i < s->sw_workers; i++)
		needs |= ibex_dp_virtual_run(s->lc.w[sw * s->sw_workers + i],
					     rx);
	s->switch_runs++;
	while (rx != 0) {
		unsigned int b = (unsigned int)__builtin_ctzll(rx);

		rx &= rx - 1;
		if (ibexlink_port_rx_head(s->port[first + b]) <= now)
			left |= UINT64_C(1) << b;
	}
	if (left != 0) {
		s->rx_ports[sw] |= left;
		due_set(s, sw);
	}
	tick = next_tick(s, now);
	if (needs && s->tick[sw] != tick) {
		s->tick[sw] = tick;
		if (heap_push(s, tick, s->tick_base + sw) < 0)
			s->lost_events++;
	}
}

/* Wall seconds between two progress lines of a long run. */
#define PROGRESS_S 10
/* Steps between two looks at the wall clock: a clock_gettime() costs
 * about what the smallest step does, and a large fabric's steps (tens of
 * switch runs each) come a thousand a second. */
#define PROGRESS_STEPS 1024

static double
clock_s(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
wall_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* A long run says how far it got, on stderr, every PROGRESS_S. */
static void
progress(struct fabric_sim *s)
{
	double w = wall_s(), dt = w - s->progress_wall, done;
	uint64_t hops = ibexlink_frame_hops();
	char eta[64] = "";

	if (dt < PROGRESS_S)
		return;
	done = s->gen != NULL ? ibex_gen_builtin_progress(s->gen) : -1;
	/* the collective's bytes done so far, at the run's mean pace */
	if (done > 0.001 && done < 1)
		snprintf(eta, sizeof(eta), "; %.0f %% done, ETA %.0f s",
			 done * 100, (w - s->start_wall) * (1 - done) / done);
	fprintf(stderr, "virtual clock: progress: %.6f s simulated after %.0f s; "
		"%.3g frame-hops per wall s, %.3g steps per wall s%s\n",
		fabric_sim_elapsed_s(s), w - s->start_wall,
		(double)(hops - s->progress_hops) / dt,
		(double)(s->steps - s->progress_steps) / dt, eta);
	s->progress_wall = w;
	s->progress_hops = hops;
	s->progress_steps = s->steps;
}

static void
sim_step(void *arg)
{
	struct fabric_sim *s = arg;
	uint64_t act = ibexlink_activity(), now = ibex_clock_now();
	uint64_t idle = ibex_clock_take_idle();
	unsigned int w;

	if (unlikely(s->steps == 0)) {
		s->start_wall = s->progress_wall = wall_s();
		if (pthread_getcpuclockid(pthread_self(), &s->cpu_clock) != 0)
			s->cpu_clock = CLOCK_THREAD_CPUTIME_ID;
		s->start_cpu = clock_s(s->cpu_clock);
	}

	if (act == s->act_round) {
		/* a whole round did nothing: the next event, or the
		 * generator's next tick, or the instant until which it
		 * promised it has nothing to do */
		uint64_t next = next_tick(s, now);

		/* a promise before the tick is a wake-up at that instant
		 * (a straggler's delay ending, an RTO falling due): off
		 * the grid, so it is not late by up to a quantum */
		if (idle > now)
			next = idle;

		if (s->heap_n != 0 && s->heap[0].t < next)
			next = s->heap[0].t;
		/* a split run's next window begins at the earliest event of
		 * all and ends a lookahead later */
		if (unlikely(s->model_lookahead != 0) &&
		    next >= s->model_window_end) {
			s->model_windows++;
			s->model_window_end = next + s->model_lookahead;
		}
		ibex_clock_set(next);
		now = next;
		s->advances++;
	}
	while (s->heap_n != 0 && s->heap[0].t <= now) {
		struct fabric_sim_event e = heap_pop(s);

		owner_due(s, e.owner);
	}
	s->act_round = act;
	for (w = 0; w < s->due_words; w++) {
		uint64_t bits = s->due[w];

		/* what a run sets again waits for the next step */
		s->due[w] = 0;
		while (bits != 0) {
			unsigned int b = (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			switch_run(s, w * 64 + b, now);
		}
	}
	if (++s->steps % PROGRESS_STEPS == 0)
		progress(s);
}

/* ---- start, stop, figures ---- */

int
fabric_sim_start(struct fabric_sim *s, struct fabric *f, struct ibex_dp **dps)
{
	unsigned int i, n = 0;
	uint16_t p;
	int ret;

	s->n_sw = f->n_sw;
	s->sw_workers = dps[0]->nb_workers;
	s->due_words = (s->n_sw + 63) / 64;
	s->due = calloc(s->due_words, sizeof(*s->due));
	s->tick = calloc(s->n_sw, sizeof(*s->tick));
	s->port_first = calloc(s->n_sw + 1, sizeof(*s->port_first));
	s->rx_ports = calloc(s->n_sw, sizeof(*s->rx_ports));
	for (i = 0; i < s->n_sw; i++) {
		/* a port is a bit of the switch's rx_ports */
		if (dps[i]->nb_ports > 64)
			return -EINVAL;
		n += dps[i]->nb_ports;
	}
	s->port = calloc(n != 0 ? n : 1, sizeof(*s->port));
	s->port_sw = calloc(n != 0 ? n : 1, sizeof(*s->port_sw));
	if (s->due == NULL || s->tick == NULL || s->port_first == NULL ||
	    s->rx_ports == NULL || s->port == NULL || s->port_sw == NULL)
		return -ENOMEM;
	/* every switch's ports are its own, each port an owner of events
	 * (its index in s->port); the ranks' the generator's */
	for (i = 0, n = 0; i < s->n_sw; i++) {
		s->port_first[i] = n;
		for (p = 0; p < dps[i]->nb_ports; p++) {
			struct ibexlink_port *pt =
				ibexlink_port_of(dps[i]->port_id[p]);

			if (pt == NULL)
				return -EINVAL; /* not a link of the fabric */
			ibexlink_port_set_owner(pt, n);
			s->port_sw[n] = i;
			s->port[n++] = pt;
		}
	}
	s->port_first[s->n_sw] = n;
	s->n_ports = n;
	s->rank_pt = calloc(f->routes.n_ranks + 1, sizeof(*s->rank_pt));
	if (s->rank_pt == NULL)
		return -ENOMEM;
	s->n_ranks = f->routes.n_ranks;
	s->tick_base = s->n_ports + s->n_ranks;
	for (i = 0; i < f->routes.n_ranks; i++) {
		struct ibexlink_port *pt = ibexlink_port_of(f->rank_port[i]);

		if (pt != NULL)
			ibexlink_port_set_owner(pt, s->n_ports + i);
		s->rank_pt[i] = pt;
	}
	ret = ibex_dp_virtual_attach(dps, f->n_sw, &s->lc);
	if (ret < 0)
		return ret;
	/* every switch runs first thing, on all its ports */
	for (i = 0; i < s->n_sw; i++) {
		s->rx_ports[i] = dps[i]->nb_ports == 64 ? UINT64_MAX :
				 (UINT64_C(1) << dps[i]->nb_ports) - 1;
		due_set(s, i);
	}
	s->t0 = ibex_clock_now();
	s->act_round = UINT64_MAX;
	if (s->model_lookahead != 0) {
		s->model_windows = 1;
		s->model_window_end = s->t0 + s->model_lookahead;
	}
	ibex_clock_set_wake(sim_wake, s);
	ibex_clock_set_step(sim_step, s);
	return 0;
}

void
fabric_sim_stop(struct fabric_sim *s)
{
	ibex_clock_set_step(NULL, NULL);
	ibex_clock_set_wake(NULL, NULL);
	ibex_dp_virtual_detach(&s->lc);
	s->t_end = ibex_clock_now();
	s->stop_wall = wall_s();
	/* the generator's lcore thread, still there, is waiting */
	if (s->steps != 0)
		s->stop_cpu = clock_s(s->cpu_clock);
}

void
fabric_sim_free(struct fabric_sim *s)
{
	free(s->heap);
	free(s->due);
	free(s->tick);
	free(s->port_first);
	free(s->rx_ports);
	free(s->port);
	free(s->port_sw);
	free(s->rank_pt);
	free(s);
}

bool
fabric_sim_rank_rx_idle(void *arg, unsigned int i)
{
	const struct fabric_sim *s = arg;

	/* a port that is no link end: polled as ever */
	return i < s->n_ranks && s->rank_pt[i] != NULL &&
	       ibexlink_port_rx_idle(s->rank_pt[i]);
}

double
fabric_sim_elapsed_s(const struct fabric_sim *s)
{
	uint64_t end = s->t_end != 0 ? s->t_end : ibex_clock_now();

	return (double)(end - s->t0) / (double)ibex_clock_hz();
}

void
fabric_sim_report(FILE *out, const struct fabric_sim *s, double wall_s)
{
	struct rusage ru;
	double sim_s = fabric_sim_elapsed_s(s);
	double steps_s = s->steps != 0 ? s->stop_wall - s->start_wall : 0;
	double cpu_s = s->stop_cpu - s->start_cpu;
	uint64_t hops = ibexlink_frame_hops();

	getrusage(RUSAGE_SELF, &ru);
	fprintf(out, "virtual clock: %.6f s simulated in %.2f s of wall time "
		"(%.3g simulated s per wall s); %" PRIu64 " frame-hops "
		"(%.3g per wall s), %" PRIu64 " steps, %" PRIu64 " time "
		"advances, %" PRIu64 " switch runs; peak RSS %.0f MiB; "
		"%.2f s more to start the generator; %.2f s of CPU "
		"(%.3g frame-hops per CPU s)\n",
		sim_s, steps_s, steps_s > 0 ? sim_s / steps_s : 0, hops,
		steps_s > 0 ? (double)hops / steps_s : 0, s->steps,
		s->advances, s->switch_runs, (double)ru.ru_maxrss / 1024,
		wall_s > steps_s ? wall_s - steps_s : 0, cpu_s,
		cpu_s > 0 ? (double)hops / cpu_s : 0);
	if (s->lost_events != 0)
		fprintf(out, "virtual clock: %" PRIu64 " events lost (no "
			"memory for the calendar): the run is not exact\n",
			s->lost_events);
}
