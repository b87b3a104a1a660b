/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric --clock virtual: the discrete-event executive
 * (docs/simulation.md).
 *
 * One lcore runs everything: the generator's loops call ibex_clock_poll()
 * once a turn, and each call is one step here. A step runs one iteration
 * of every switch's worker at the present instant; the generator's turn
 * follows. When a whole round (the previous step's switches and the
 * generator's turn since) moved no frame on any wire, the present is
 * done, and time jumps to the next event: the first frame to arrive or
 * descriptor to free on any link (ibexlink_next_event()), or one quantum
 * later (the housekeeping period of the data path and the generator,
 * whose timers the executive does not see), whichever is first.
 *
 * Ties: at one instant the switches run in topology order, then the
 * generator; frames that arrive at the same instant are taken in the
 * order of the switches' RX polls. Nothing depends on the host: the same
 * topology, options and seed give the same run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include "fabric.h"
#include "ibex_clock.h"
#include "ibexlink.h"

static void
sim_step(void *arg)
{
	struct fabric_sim *s = arg;
	uint64_t act = ibexlink_activity();

	if (act == s->act_round) {
		uint64_t now = ibex_clock_now();
		uint64_t next = ibexlink_next_event(now);

		if (next > now + s->quantum)
			next = now + s->quantum;
		ibex_clock_set(next);
		s->advances++;
	}
	s->act_round = act;
	ibex_dp_virtual_step(&s->lc);
	s->steps++;
}

int
fabric_sim_start(struct fabric_sim *s, struct ibex_dp *const *dps,
		 unsigned int n)
{
	int ret = ibex_dp_virtual_attach(dps, n, &s->lc);

	if (ret < 0)
		return ret;
	s->t0 = ibex_clock_now();
	s->act_round = UINT64_MAX;
	ibex_clock_set_step(sim_step, s);
	return 0;
}

void
fabric_sim_stop(struct fabric_sim *s)
{
	ibex_clock_set_step(NULL, NULL);
	ibex_dp_virtual_detach(&s->lc);
	s->t_end = ibex_clock_now();
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
	uint64_t hops = ibexlink_frame_hops();

	getrusage(RUSAGE_SELF, &ru);
	fprintf(out, "virtual clock: %.6f s simulated in %.2f s of wall time "
		"(%.3g simulated s per wall s); %" PRIu64 " frame-hops "
		"(%.3g per wall s), %" PRIu64 " steps, %" PRIu64 " time "
		"advances; peak RSS %.0f MiB\n", sim_s, wall_s,
		wall_s > 0 ? sim_s / wall_s : 0, hops,
		wall_s > 0 ? (double)hops / wall_s : 0, s->steps, s->advances,
		(double)ru.ru_maxrss / 1024);
}
