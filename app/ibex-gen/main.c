/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-gen: the traffic generator as its own process, for external ports
 * (memif, virtio-user, af_packet/af_xdp, pcap, NICs, net_ring).
 *
 *   ibex-gen [EAL args] -- [options]     (ibex-gen -- --help)
 *
 * Every ethdev EAL probed is a generator port; ranks are spread over them
 * (rank i on port i mod ports). The scenario runs on the main lcore.
 * Exit status, as every ibex program's: 0 clean run, 1 a runtime failure
 * (EAL, the ports), 2 a usage error (a bad option or value, options that
 * do not go together), 3 when frames were lost or duplicated or an
 * iteration failed.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "ibex_gen_engine.h"
#include "ibex_gen_opts.h"
#include "ibex_gen_run.h"
#include "ibex_memif_sock.h"
#include "ibex_meta.h"
#include "ibex_version.h"

static struct ibex_gen_run *the_run;

static void
on_signal(int sig)
{
	(void)sig;
	if (the_run != NULL)
		ibex_gen_run_stop(the_run);
}

/*
 * --help and --version, before or after '--', are answered before EAL
 * (no hugepages needed); an ibex-gen option before '--' gets a hint.
 * @return an exit status, or -1 to go on with EAL.
 */
static int
pre_eal(int argc, char **argv)
{
	int dd, i;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	for (i = 1; i < argc; i++) {
		if (i < dd && dd != 2)
			continue; /* --help among EAL args is EAL's */
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			ibex_gen_usage(stdout, "ibex-gen");
			return 0;
		}
		if (strcmp(argv[i], "--help-man") == 0) {
			/* hidden: the man page's OPTIONS (docs/man) */
			ibex_gen_usage_man(stdout);
			return 0;
		}
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--version") == 0) {
			printf("ibex-gen %s (git %s)\n%s (built against DPDK %s)\n",
			       IBEX_VERSION, IBEX_GIT, rte_version(),
			       IBEX_DPDK_BUILT);
			return 0;
		}
	}
	for (i = 1; i < dd; i++) {
		if (strncmp(argv[i], "--engine", 8) == 0 ||
		    strncmp(argv[i], "--ranks", 7) == 0 ||
		    strncmp(argv[i], "--search", 8) == 0 ||
		    strncmp(argv[i], "--rate", 6) == 0) {
			fprintf(stderr, "ibex-gen: '%s' is an ibex-gen option: it "
				"goes after '--' (ibex-gen [EAL args] -- %s ...).\n"
				"Try 'ibex-gen --help'.\n", argv[i], argv[i]);
			return 2;
		}
	}
	return -1;
}

static void
app_usage_hook(const char *prog)
{
	(void)prog;
	printf("ibex-gen options go after '--': see 'ibex-gen --help'\n"
	       "(EAL options follow).\n");
}

int
main(int argc, char **argv)
{
	/* every port EAL has: at most RTE_MAX_ETHPORTS */
	uint16_t ports[RTE_MAX_ETHPORTS], pid;
	struct ibex_gen_opts opts;
	time_t start = time(NULL);
	char *cmdline, *meta;
	unsigned int nports = 0;
	char err[512];
	int ret;

	/* A line at a time: under systemd stdout is a pipe to the journal,
	 * block-buffered by default, so start-up lines would show at exit. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = pre_eal(argc, argv);
	if (ret >= 0)
		return ret;
	cmdline = ibex_meta_cmdline(argc, argv);
	rte_set_application_usage_hook(app_usage_hook);
	/* memif: a socket file only this user may open (ibex_memif_sock.h). */
	if (ibex_memif_fix_argv(argc, argv, "ibex-gen") < 0)
		return 1;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		/* (a lock EAL could not take leaves rte_errno 0) */
		fprintf(stderr, "ibex-gen: EAL init failed: %s\n",
			rte_errno != 0 ? rte_strerror(rte_errno) :
			"see the EAL lines above");
		return 1;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)"ibex-gen";
	ibex_gen_opts_default(&opts);
	ret = ibex_gen_opts_parse(&opts, argc, argv);
	if (ret == 0 && ibex_gen_opts_check(&opts, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibex-gen: %s\n", err);
		ret = -EINVAL;
	}
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	RTE_ETH_FOREACH_DEV(pid) {
		if (nports == RTE_MAX_ETHPORTS || nports == IBEX_GEN_MAX_PORTS)
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
	meta = ibex_meta_json("ibex-gen", cmdline, start);
	ibex_gen_run_set_meta(the_run, meta);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!opts.quiet)
		printf("# ibex-gen: %u port(s), %u ranks, engine %s, TSC %.3f GHz\n",
		       nports, opts.nranks, opts.engine->name,
		       (double)rte_get_tsc_hz() / 1e9);
	ibex_gen_run_main(the_run);
	ret = ibex_gen_run_report(the_run, stdout);
	fflush(stdout);
	ibex_gen_run_free(the_run);
	free(meta);
	free(cmdline);
	rte_eal_cleanup();
	return ret < 0 ? 1 : ret > 0 ? 3 : 0;
}
