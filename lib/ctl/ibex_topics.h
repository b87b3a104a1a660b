/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_TOPICS_H
#define IBEX_TOPICS_H

/**
 * @file
 * The table of "show" topics: one row per topic, the one list every other
 * list of topics is made from (docs/control.md, "Adding a topic").
 *
 * X(ID, name, port, tel, final, metrics, help)
 *  - ID: the enum's name, IBEX_SHOW_<ID>;
 *  - name: the word after "show" (also ibex-ctl's completion, which
 *    learns the words of the help text);
 *  - port: 1 when "show NAME PORT" takes a port (one port's rows);
 *  - tel: the DPDK telemetry command, /ibex/<tel> (its parameter is the
 *    port when the topic takes one), "" for none. Only for a topic whose
 *    emit function reads what another thread may: counters, the views
 *    that say so in ibex_dp.h, the running config (under its lock). Not
 *    ecn: its curves are read from the published tables, which a change
 *    frees once the workers (not telemetry) are past them;
 *  - final: 1 when the final --json of ibex-switch holds the topic's
 *    members (what "show NAME --json" gives, on the counters since
 *    start);
 *  - metrics: 1 when /metrics (ibex-switch --metrics) carries the
 *    topic's counters (docs/metrics.md names the families);
 *  - help: one line of "help", at most 50 characters.
 *
 * A topic's code is two functions in ibex_show.c: ibex_show_<name>_emit()
 * (the structured output, once, through the emitter: ibex-ctl --json,
 * telemetry and the final --json) and ibex_show_<name>_text() (the
 * table ibex-ctl prints).
 */

#define IBEX_TOPICS(X) \
	X(PORTS, ports, 1, "port_stats", 1, 1, \
	  "state, counters and drops of each port") \
	X(LANES, lanes, 1, "lanes", 1, 1, \
	  "counters of each lane (port, VL)") \
	X(CREDITS, credits, 1, "credits", 1, 1, \
	  "credit flow control: parameters and state") \
	X(PFC, pfc, 1, "pfc", 1, 1, \
	  "PFC: parameters, pauses, watchdog") \
	X(CBFC, cbfc, 1, "cbfc", 1, 0, \
	  "UEC CBFC: credits and updates per VC") \
	X(ECN, ecn, 1, "", 1, 0, \
	  "ECN curves and marks of each lane") \
	X(LATENCY, latency, 1, "latency", 1, 1, \
	  "residence time of each lane, ns") \
	X(DROPS, drops, 1, "drops", 1, 1, \
	  "non-zero drops by port and reason") \
	X(REASONS, reasons, 0, "reasons", 0, 0, \
	  "every drop reason and what it means") \
	X(FDB, fdb, 1, "fdb", 0, 0, \
	  "FDB counters and entries") \
	X(CONFIG, config, 0, "", 0, 0, \
	  "the running config, each statement once") \
	X(WORKERS, workers, 0, "workers", 0, 0, \
	  "worker lcores, queues and busy cycles") \
	X(RATES, rates, 0, "", 0, 0, \
	  "frame and bit rates of each port") \
	X(HISTORY, history, 0, "", 0, 0, \
	  "the changes accepted, newest last") \
	X(BPF, bpf, 1, "bpf", 0, 0, \
	  "eBPF classifier of each port, verdicts") \
	X(CAPTURE, capture, 0, "capture", 0, 0, \
	  "the running or last capture") \
	X(ECMP, ecmp, 0, "ecmp", 0, 0, \
	  "ECMP groups: frames per member") \
	X(AGGREGATION, aggregation, 0, "aggregation", 1, 0, \
	  "in-network aggregation: jobs, sums, waits")

#endif /* IBEX_TOPICS_H */
