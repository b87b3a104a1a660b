/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-switch: the switch.
 *
 *   ibex-switch [EAL args] -- [--config FILE] [options]
 *
 * The main lcore is the control thread; every other EAL lcore given with
 * -l runs a worker (or the first N with "switch workers N").
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include "ibex_conf.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_gen_dpdk.h"
#include "ibex_sock.h"

/* The built-in generator, when --gen is given. */
static struct ibex_gen_builtin *gen;

struct app_opts {
	const char *config;
	const char *json;
	const char *ctl_socket;
	double duration_s;
	double stats_period_s;
	double idle_stop_s;
	double wait_links_s;
	int check_only;
};

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- [options]\n"
	       "  --config FILE        configuration (docs/configuration.md);\n"
	       "                       without it every ethdev is a port in VLAN 1\n"
	       "  --check-config       parse and validate the configuration, then exit\n"
	       "  --duration SEC       stop after SEC seconds (default: run until SIGINT/SIGTERM)\n"
	       "  --idle-stop SEC      stop once no frame has arrived for SEC seconds\n"
	       "  --stats-period SEC   print a throughput line every SEC seconds\n"
	       "  --wait-links SEC     wait up to SEC seconds for every link to come up\n"
	       "  --json FILE          write the final counters as JSON to FILE\n"
	       "  --ctl-socket PATH    control socket for ibex-ctl (default: in the\n"
	       "                       DPDK runtime dir; 'none': no socket)\n"
	       "  -h, --help           this text\n", prog);
}

static int
parse_seconds(const char *name, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || v < 0 || v > 1e7) {
		fprintf(stderr, "ibex-switch: --%s: '%s' is not a number of seconds\n",
			name, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct app_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'k' },
		{ "duration", required_argument, NULL, 'd' },
		{ "idle-stop", required_argument, NULL, 'i' },
		{ "stats-period", required_argument, NULL, 's' },
		{ "wait-links", required_argument, NULL, 'w' },
		{ "json", required_argument, NULL, 'j' },
		{ "ctl-socket", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret = 0;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': o->config = optarg; break;
		case 'k': o->check_only = 1; break;
		case 'j': o->json = optarg; break;
		case 'S': o->ctl_socket = optarg; break;
		case 'd': ret = parse_seconds("duration", optarg, &o->duration_s); break;
		case 'i': ret = parse_seconds("idle-stop", optarg, &o->idle_stop_s); break;
		case 's': ret = parse_seconds("stats-period", optarg, &o->stats_period_s); break;
		case 'w': ret = parse_seconds("wait-links", optarg, &o->wait_links_s); break;
		case 'h': usage(argv[0]); exit(0);
		default: usage(argv[0]); return -EINVAL;
		}
		if (ret < 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "ibex-switch: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * No ports in the file: every ethdev EAL probed becomes a port. A device
 * name that is a valid port name (a vdev such as net_ring0 or gen0) is
 * kept; others (PCI addresses, vdev names with ':' or ',') become p<N>,
 * N the ethdev port id. Each is printed with its device.
 */
static int
conf_default_ports(struct ibex_conf *conf)
{
	char name[RTE_ETH_NAME_MAX_LEN], pname[IBEX_NAME_LEN];
	uint16_t pid;
	int ret;

	RTE_ETH_FOREACH_DEV(pid) {
		if (rte_eth_dev_get_name_by_port(pid, name) != 0)
			continue;
		ret = ibex_conf_port_add(conf, name, name);
		if (ret == -EINVAL || ret == -EEXIST) {
			snprintf(pname, sizeof(pname), "p%u", pid);
			ret = ibex_conf_port_add(conf, pname, name);
		}
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: ethdev %u (%s): cannot "
				"become a port: %s\n", pid, name,
				ret == -ENOSPC ? "too many ports" :
				strerror(-ret));
			return ret;
		}
		printf("ibex-switch: port %s = ethdev %u (%s)\n",
		       conf->ports[ret].name, pid, name);
	}
	if (conf->nb_ports == 0) {
		fprintf(stderr, "ibex-switch: no ports: the configuration "
			"declares none and EAL found no ethdev (give devices "
			"with -a PCI_ADDRESS or --vdev)\n");
		return -ENODEV;
	}
	return 0;
}

static int
conf_load(struct ibex_conf *conf, const struct app_opts *o)
{
	char err[IBEX_CONF_ERR_LEN];
	int ret;

	ibex_conf_init(conf);
	if (o->config != NULL) {
		ret = ibex_conf_parse_file(conf, o->config, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s\n", err);
			return ret;
		}
	} else {
		snprintf(conf->origin, sizeof(conf->origin), "(defaults)");
	}
	if (conf->nb_ports == 0 && !o->check_only) {
		ret = conf_default_ports(conf);
		if (ret < 0)
			return ret;
	}
	ret = ibex_conf_validate(conf, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		return ret;
	}
	return 0;
}

static void
on_signal(int sig)
{
	(void)sig;
	ibex_ctl_request_stop();
}

/* Reload the config file: acted on by the control loop. */
static void
on_hup(int sig)
{
	(void)sig;
	ibex_sock_request_reload();
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
run(struct ibex_dp *dp, const struct app_opts *o, struct ibex_sock *sock)
{
	struct ibex_ctl_opts copts = {
		.sock = sock,
		.stats_period_ms = (uint32_t)(o->stats_period_s * 1000),
		.duration_ms = (uint32_t)(o->duration_s * 1000),
		.idle_stop_ms = (uint32_t)(o->idle_stop_s * 1000),
	};
	char err[256];
	double t0;
	uint16_t i;
	int ret;

	if (o->wait_links_s > 0) {
		ret = ibex_dp_wait_links(dp, (uint32_t)(o->wait_links_s * 1000),
					 err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s\n", err);
			return ret;
		}
	}
	t0 = now_s();
	for (i = 0; i < dp->nb_workers; i++) {
		ret = rte_eal_remote_launch(ibex_dp_worker_main, dp->workers[i],
					    dp->workers[i]->lcore_id);
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: cannot launch worker %u\n", i);
			ibex_ctl_request_stop();
			break;
		}
	}
	/* Built-in generator (--gen): its own lcore; stops the switch when
	 * its scenario ends. */
	if (gen != NULL && ibex_gen_builtin_start(gen, ibex_ctl_request_stop,
						  &dp->stop) < 0)
		ibex_ctl_request_stop();
	ibex_ctl_run(dp, &copts);
	rte_eal_mp_wait_lcore();
	ibex_ctl_print_summary(stdout, dp, now_s() - t0);
	if (gen != NULL && ibex_gen_builtin_report(gen, stdout) != 0)
		fprintf(stderr, "ibex-switch: --gen: run not clean (frames lost "
			"or iterations failed)\n");
	if (o->json != NULL) {
		ret = ibex_ctl_write_json(o->json, dp, now_s() - t0);
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s: %s\n", o->json,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct app_opts opts = { 0 };
	struct ibex_conf *conf;
	struct ibex_dp *dp = NULL;
	struct ibex_sock *sock = NULL;
	char err[512];
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	/* dpdk-dumpcap (a secondary process) asks us to copy frames. */
	if (rte_pdump_init() < 0)
		fprintf(stderr, "ibex-switch: packet capture unavailable: %s\n",
			rte_strerror(rte_errno));
	conf = calloc(1, sizeof(*conf));
	if (conf == NULL || ibex_gen_builtin_parse(&argc, argv, &gen) != 0 ||
	    parse_args(argc, argv, &opts) < 0 ||
	    conf_load(conf, &opts) < 0) {
		ret = 1;
		goto out;
	}
	if (gen != NULL && !opts.check_only &&
	    ibex_gen_builtin_attach(gen, conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		ret = 1;
		goto out;
	}
	if (opts.check_only) {
		printf("%s: configuration OK (%u ports)\n", conf->origin,
		       conf->nb_ports);
		ret = 0;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_hup);
	ret = ibex_dp_create(&dp, conf, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		ret = 1;
		goto out;
	}
	ret = ibex_telemetry_register(dp);
	if (ret < 0)
		fprintf(stderr, "ibex-switch: telemetry unavailable: %s\n",
			strerror(-ret));
	ret = ibex_sock_create(&sock, &(struct ibex_sock_params){
		.dp = dp, .conf = conf, .config_path = opts.config,
		.path = opts.ctl_socket }, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		ret = 1;
		goto out;
	}
	ret = run(dp, &opts, sock) < 0 ? 1 : 0;
out:
	ibex_sock_destroy(sock);
	ibex_dp_destroy(dp);
	ibex_gen_builtin_free(gen);
	free(conf);
	rte_pdump_uninit();
	rte_eal_cleanup();
	return ret;
}
