/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's loop and its reports.
 *
 * The loop wakes every CTL_TICK_US: it advances the workers' coarse clock,
 * applies queued learn requests to the FDB (it is the FDB's only writer),
 * ages the FDB once a second and prints a line every stats period. Sleeping
 * here is fine: it is not the data path.
 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_sock.h"

RTE_LOG_REGISTER(ibex_ctl_logtype, ibex.ctl, INFO);
#define RTE_LOGTYPE_IBEX_CTL ibex_ctl_logtype

#define CTL_TICK_US 200
#define LEARN_BATCH 256

static volatile sig_atomic_t stop_requested;

void
ibex_ctl_request_stop(void)
{
	stop_requested = 1;
}

bool
ibex_ctl_stop_requested(void)
{
	return stop_requested != 0;
}

static uint32_t
clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)(ts.tv_sec * 1000u + ts.tv_nsec / 1000000);
}

static void
learn_apply(struct ibex_dp *dp, uint32_t now_ms)
{
	struct ibex_learn_req req[LEARN_BATCH];
	unsigned int n, i;

	do {
		n = rte_ring_sc_dequeue_burst_elem(dp->learn_ring, req,
						   sizeof(req[0]), LEARN_BATCH,
						   NULL);
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

static void
stats_line(const struct ibex_dp *dp, uint64_t *last_rx, uint64_t *last_tsc)
{
	uint64_t rx = rx_total(dp), tsc = rte_get_tsc_cycles();
	double dt = (double)(tsc - *last_tsc) / (double)rte_get_tsc_hz();

	RTE_LOG(INFO, IBEX_CTL, "rx %" PRIu64 " frames, %.2f Mpps\n",
		rx, dt > 0 ? (double)(rx - *last_rx) / dt / 1e6 : 0.0);
	*last_rx = rx;
	*last_tsc = tsc;
}

void
ibex_ctl_run(struct ibex_dp *dp, const struct ibex_ctl_opts *opts)
{
	uint32_t start = clock_ms(), last_age = start, last_stats = start;
	uint32_t last_rx_change = start;
	uint64_t last_rx = 0, last_tsc = rte_get_tsc_cycles(), idle_rx = 0;

	while (!stop_requested) {
		uint32_t now = clock_ms();

		atomic_store_explicit(&dp->now_ms, now, memory_order_relaxed);
		learn_apply(dp, now);
		if (opts->sock != NULL)
			ibex_sock_poll(opts->sock);
		if (now - last_age >= 1000) {
			ibex_fdb_age(dp->fdb, now);
			last_age = now;
		}
		if (opts->stats_period_ms != 0 &&
		    now - last_stats >= opts->stats_period_ms) {
			stats_line(dp, &last_rx, &last_tsc);
			last_stats = now;
		}
		if (opts->duration_ms != 0 && now - start >= opts->duration_ms)
			break;
		if (opts->idle_stop_ms != 0) {
			uint64_t rx = rx_total(dp);

			if (rx != idle_rx) {
				idle_rx = rx;
				last_rx_change = now;
			} else if (now - last_rx_change >= opts->idle_stop_ms) {
				break;
			}
		}
		usleep(CTL_TICK_US);
	}
	atomic_store_explicit(&dp->stop, true, memory_order_relaxed);
}

static uint64_t
busy_cycles_per_frame(const struct ibex_dp *dp)
{
	uint64_t busy = 0, frames = 0;
	uint16_t i, p;

	for (i = 0; i < dp->nb_workers; i++)
		busy += IBEX_CNT_READ(dp->workers[i]->busy_tsc);
	for (p = 0; p < dp->nb_ports; p++) {
		struct ibex_port_counters c;

		ibex_dp_port_totals(dp, p, &c);
		frames += c.rx_pkts;
	}
	return frames != 0 ? busy / frames : 0;
}

void
ibex_ctl_print_summary(FILE *f, const struct ibex_dp *dp, double elapsed_s)
{
	struct ibex_fdb_stats fs;
	uint16_t p;
	unsigned int r;

	fprintf(f, "\nibex-switch summary after %.3f s\n", elapsed_s);
	fprintf(f, "%-12s %14s %16s %14s %16s %12s %12s %12s\n", "port",
		"rx-frames", "rx-bytes", "tx-frames", "tx-bytes", "flooded",
		"dropped", "consumed");
	for (p = 0; p < dp->nb_ports; p++) {
		struct ibex_port_counters c;
		uint64_t drops = 0;

		ibex_dp_port_totals(dp, p, &c);
		for (r = 1; r < IBEX_R_MAX; r++)
			drops += c.drop[r];
		fprintf(f, "%-12s %14" PRIu64 " %16" PRIu64 " %14" PRIu64
			" %16" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			"\n", dp->port_name[p], c.rx_pkts, c.rx_bytes, c.tx_pkts,
			c.tx_bytes, c.flood_pkts, drops, c.consumed);
	}
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
	fprintf(f, "fdb: %u entries (%u static), learned %" PRIu64 ", moved %"
		PRIu64 ", aged %" PRIu64 ", refused (full) %" PRIu64 "\n",
		fs.entries, fs.static_entries, fs.learned, fs.moved, fs.aged,
		fs.full);
	fprintf(f, "workers: %u, busy cycles per frame: %" PRIu64 "\n",
		dp->nb_workers, busy_cycles_per_frame(dp));
}

static void
json_port(FILE *f, const struct ibex_dp *dp, uint16_t p)
{
	struct ibex_port_counters c;
	unsigned int r;
	const char *sep = "";

	ibex_dp_port_totals(dp, p, &c);
	fprintf(f, "    {\"name\": \"%s\", \"rx_frames\": %" PRIu64
		", \"rx_bytes\": %" PRIu64 ", \"tx_frames\": %" PRIu64
		", \"tx_bytes\": %" PRIu64 ", \"flooded\": %" PRIu64
		", \"learn_posted\": %" PRIu64 ", \"learn_lost\": %" PRIu64
		", \"consumed\": %" PRIu64 ", \"drops\": {",
		dp->port_name[p], c.rx_pkts, c.rx_bytes, c.tx_pkts, c.tx_bytes,
		c.flood_pkts, c.learn_posted, c.learn_lost, c.consumed);
	for (r = 1; r < IBEX_R_MAX; r++) {
		fprintf(f, "%s\"%s\": %" PRIu64, sep, ibex_reason_name(r),
			c.drop[r]);
		sep = ", ";
	}
	fprintf(f, "}}");
}

int
ibex_ctl_write_json(const char *path, const struct ibex_dp *dp,
		    double elapsed_s)
{
	struct ibex_fdb_stats fs;
	FILE *f = fopen(path, "w");
	uint16_t p;

	if (f == NULL)
		return -errno;
	ibex_fdb_get_stats(dp->fdb, &fs);
	fprintf(f, "{\n  \"elapsed_s\": %.6f,\n  \"workers\": %u,\n"
		"  \"busy_cycles_per_frame\": %" PRIu64 ",\n"
		"  \"fdb\": {\"entries\": %u, \"static\": %u, \"learned\": %" PRIu64
		", \"moved\": %" PRIu64 ", \"aged\": %" PRIu64 ", \"full\": %" PRIu64
		"},\n  \"ports\": [\n",
		elapsed_s, dp->nb_workers, busy_cycles_per_frame(dp), fs.entries,
		fs.static_entries, fs.learned, fs.moved, fs.aged, fs.full);
	for (p = 0; p < dp->nb_ports; p++) {
		json_port(f, dp, p);
		fprintf(f, p + 1 < dp->nb_ports ? ",\n" : "\n");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}
