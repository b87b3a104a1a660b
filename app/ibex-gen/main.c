/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-gen: the traffic generator as its own process, for external ports
 * (memif, virtio-user, af_packet/af_xdp, pcap, NICs, net_ring).
 *
 *   ibex-gen [EAL args] -- [options]     (ibex-gen -- --help)
 *
 * Every ethdev EAL probed is a generator port; ranks are spread over them
 * (rank i on port i mod ports). The scenario runs on the main lcore.
 * Exit status: 0 clean run, 3 when frames were lost or duplicated or an
 * iteration failed, 1 on errors, 2 on bad options.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "ibex_gen_dpdk.h"

static struct ibex_gen_run *the_run;

static void
on_signal(int sig)
{
	(void)sig;
	if (the_run != NULL)
		ibex_gen_run_stop(the_run);
}

int
main(int argc, char **argv)
{
	uint16_t ports[IBEX_GEN_MAX_PORTS], pid;
	struct ibex_gen_opts opts;
	unsigned int nports = 0;
	char err[512];
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "ibex-gen: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)"ibex-gen";
	ibex_gen_opts_default(&opts);
	ret = ibex_gen_opts_parse(&opts, argc, argv);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	RTE_ETH_FOREACH_DEV(pid) {
		if (nports == IBEX_GEN_MAX_PORTS)
			break;
		ports[nports++] = pid;
	}
	ret = ibex_gen_run_create(&the_run, &opts, ports, nports, err,
				  sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-gen: %s\n", err);
		ibex_gen_run_free(the_run);
		rte_eal_cleanup();
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!opts.quiet)
		printf("# ibex-gen: %u port(s), %u ranks, engine %s, TSC %.3f GHz\n",
		       nports, opts.nranks, ibex_gen_engine_name(opts.engine),
		       (double)rte_get_tsc_hz() / 1e9);
	ibex_gen_run_main(the_run);
	ret = ibex_gen_run_report(the_run, stdout);
	fflush(stdout);
	ibex_gen_run_free(the_run);
	rte_eal_cleanup();
	return ret < 0 ? 1 : ret > 0 ? 3 : 0;
}
