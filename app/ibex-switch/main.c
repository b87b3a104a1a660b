/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-switch: the switch.
 *
 *   ibex-switch [EAL args] -- [--config FILE] [options]
 *
 * The main lcore is the control thread; every other EAL lcore given with
 * -l runs a worker (or the first N with "switch workers N").
 * Exit status, as every ibex program's: 0 a clean run, 1 a runtime
 * failure (a bad configuration, EAL, a port), 2 a usage error (a bad
 * option or value), 3 the --gen scenario lost frames.
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_pdump.h>
#include <rte_version.h>

#include "ibex_bpf.h"
#include "ibex_conf.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_gen_builtin.h"
#include "ibex_meta.h"
#include "ibex_cmd.h"
#include "ibex_notify.h"
#include "ibex_metrics.h"
#include "ibex_sock.h"
#include "ibex_version.h"
#include "ibex_memif_sock.h"
#include "ibex_stale.h"
#include "ibex_time.h"

/* The built-in generator, when --gen is given. */
static struct ibex_gen_builtin *gen;
/* The "meta" object of every JSON this run writes. */
static char *meta;

struct app_opts {
	const char *config;
	const char *json;
	const char *ctl_socket;
	const char *metrics;      /* --metrics [ADDR:]PORT, NULL: none */
	double duration_s;
	double stats_period_s;
	double idle_stop_s;
	double wait_links_s;
	double wait_peers_s;
	int check_only;
};

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- [options]\n"
	       "       %s --check-config FILE | --help | --version   (no EAL)\n"
	       "Options (after '--'):\n"
	       "  --config FILE        configuration (docs/configuration.md);\n"
	       "                       without it every ethdev is a port in VLAN 1\n"
	       "  --check-config [FILE]  parse and validate the configuration, then\n"
	       "                       exit; needs no hugepages and no EAL arguments\n"
	       "  --duration SEC       stop after SEC seconds (default: run until SIGINT/SIGTERM)\n"
	       "  --idle-stop SEC      stop once no frame has arrived for SEC seconds\n"
	       "  --stats-period SEC   print a throughput line every SEC seconds\n"
	       "  --wait-links SEC     wait up to SEC seconds for every link to come up\n"
	       "  --wait-peers SEC     at stop, once the workers are done, wait up to\n"
	       "                       SEC seconds for every memif peer to disconnect\n"
	       "                       before closing the ports (docs/design.md)\n"
	       "  --json FILE          write the final counters as JSON to FILE\n"
	       "  --ctl-socket PATH    control socket for ibex-ctl (default: in the\n"
	       "                       DPDK runtime dir; 'none': no socket)\n"
	       "  --metrics [ADDR:]PORT  serve Prometheus/OpenMetrics at\n"
	       "                       http://ADDR:PORT/metrics (ADDR default\n"
	       "                       127.0.0.1; docs/metrics.md)\n"
	       "  --gen 'SCENARIO'     run the built-in generator on its own lcore:\n"
	       "                       SCENARIO is ibex-gen's options in one word\n"
	       "                       (docs/generator.md); the run ends with it\n"
	       "  --gen-ports N        the generator owns the first N ports\n"
	       "  -h, --help           this text\n"
	       "  --version            ibex and DPDK versions\n"
	       "Common EAL args (before '--'): -l CORES, -m MB, --no-huge, --no-pci,\n"
	       "  --vdev DEV, -a PCI, --file-prefix NAME, --log-level L;\n"
	       "  '%s --help' before '--' with any other EAL arg prints EAL's list.\n"
	       "Example: %s -l 0-1 --no-huge -m 1024 --no-pci \\\n"
	       "  --vdev net_memif0,role=server --vdev net_memif1,role=server \\\n"
	       "  -- --config conf/lanes.conf\n"
	       "Exit status: 0 clean, 1 a failure (bad configuration, EAL, a port),\n"
	       "  2 a usage error (bad option or value), 3 --gen lost frames.\n"
	       "man ibex-switch(1); docs/ in the source tree.\n",
	       prog, prog, prog, prog);
}

static void
print_version(const char *prog)
{
	printf("%s %s (git %s)\n%s (built against DPDK %s)\n", prog,
	       IBEX_VERSION, IBEX_GIT, rte_version(), IBEX_DPDK_BUILT);
}

static int
parse_seconds(const char *name, const char *s, double *out)
{
	return ibex_parse_seconds_opt("ibex-switch", name, s, out);
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
		{ "wait-peers", required_argument, NULL, 'P' },
		{ "json", required_argument, NULL, 'j' },
		{ "ctl-socket", required_argument, NULL, 'S' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': o->config = optarg; break;
		case 'k':
			o->check_only = 1;
			/* "--check-config FILE": the file may follow. */
			if (optind < argc && argv[optind][0] != '-') {
				o->config = argv[optind];
				optind++;
			}
			break;
		case 'V': print_version("ibex-switch"); exit(0);
		case 'j': o->json = optarg; break;
		case 'S': o->ctl_socket = optarg; break;
		case 'M': o->metrics = optarg; break;
		case 'd': ret = parse_seconds("duration", optarg, &o->duration_s); break;
		case 'i': ret = parse_seconds("idle-stop", optarg, &o->idle_stop_s); break;
		case 's': ret = parse_seconds("stats-period", optarg, &o->stats_period_s); break;
		case 'w': ret = parse_seconds("wait-links", optarg, &o->wait_links_s); break;
		case 'P': ret = parse_seconds("wait-peers", optarg, &o->wait_peers_s); break;
		case 'h': usage(argv[0]); exit(0);
		default:
			fprintf(stderr, "Try 'ibex-switch --help'.\n");
			return -EINVAL;
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
	ret = ibex_conf_finish(conf, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		return ret;
	}
	return 0;
}

/* The device of EAL's "--vdev DEV" or "--vdev=DEV" at argv[*i] (past its
 * argument then), or NULL. */
static const char *
vdev_arg(int argc, char **argv, int *i)
{
	if (strcmp(argv[*i], "--vdev") == 0 && *i + 1 < argc)
		return argv[++*i];
	if (strncmp(argv[*i], "--vdev=", 7) == 0)
		return argv[*i] + 7;
	return NULL;
}

/*
 * memif and vhost-user server sockets a killed switch left behind: their
 * bind would fail on them ("Address already in use"), so clear them
 * before EAL probes the ports. A socket a live process listens on is refused here,
 * with its path, rather than by the driver.
 */
static int
clear_stale_vdev_sockets(int argc, char **argv)
{
	char path[108], msg[256];
	const char *a;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		a = vdev_arg(argc, argv, &i);
		if (a == NULL)
			continue;
		if (ibex_vdev_server_socket(a, path, sizeof(path)) <= 0)
			continue;
		ret = ibex_stale_socket_clear(path, false, msg, sizeof(msg));
		if (ret == 1)
			fprintf(stderr, "ibex-switch: %.9s: %s\n", a, msg);
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %.9s socket %s\n", a,
				msg[0] != '\0' ? msg : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The ethdev vdevs (net_*, eth_*) --vdev names, before EAL sees argv. */
#define MAX_VDEVS 64
static char vdev_names[MAX_VDEVS][RTE_DEV_NAME_MAX_LEN];
static unsigned int nb_vdev_names;

static void
vdev_names_collect(int argc, char **argv)
{
	const char *a;
	size_t n;
	int i;

	for (i = 1; i < argc && nb_vdev_names < MAX_VDEVS; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		a = vdev_arg(argc, argv, &i);
		if (a == NULL)
			continue;
		if (strncmp(a, "net_", 4) != 0 && strncmp(a, "eth_", 4) != 0)
			continue; /* not an ethdev: not a port */
		n = strcspn(a, ",");
		if (n >= RTE_DEV_NAME_MAX_LEN)
			n = RTE_DEV_NAME_MAX_LEN - 1;
		memcpy(vdev_names[nb_vdev_names], a, n);
		vdev_names[nb_vdev_names++][n] = '\0';
	}
}

/*
 * EAL goes on when a vdev's driver refuses it (a missing pcap file, a
 * bad devarg): the switch would then run without that port and exit 0.
 * Every ethdev --vdev must have become an ethdev.
 * @return 0, or -ENODEV with the first missing one named.
 */
static int
vdev_names_check(void)
{
	unsigned int i;
	uint16_t pid;

	for (i = 0; i < nb_vdev_names; i++) {
		if (rte_eth_dev_get_port_by_name(vdev_names[i], &pid) == 0)
			continue;
		fprintf(stderr, "ibex-switch: --vdev %s did not become a port "
			"(its driver refused it: see EAL's message above)\n",
			vdev_names[i]);
		return -ENODEV;
	}
	return 0;
}

/*
 * After rte_eal_cleanup(): the files EAL made in the runtime directory
 * (config, fbarray_*, the telemetry socket) and the directory itself, so a clean stop leaves
 * nothing behind. Sockets another process made there are left, and so is
 * the directory then.
 */
static void
remove_runtime_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		/* dpdk_telemetry.v2: telemetry would unlink it at exit,
		 * after this rmdir. */
		if (strcmp(de->d_name, "config") != 0 &&
		    strncmp(de->d_name, "fbarray_", 8) != 0 &&
		    strncmp(de->d_name, "dpdk_telemetry.", 15) != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* Our own long options, to tell them from EAL's when '--' is missing. */
static bool
is_app_opt(const char *a)
{
	static const char *const names[] = { "config", "check-config",
		"duration", "idle-stop", "stats-period", "wait-links", "wait-peers", "json",
		"ctl-socket", "metrics", "gen", "gen-ports", "version", NULL };
	unsigned int i;
	size_t n;

	if (strncmp(a, "--", 2) != 0)
		return false;
	for (i = 0; names[i] != NULL; i++) {
		n = strlen(names[i]);
		if (strncmp(a + 2, names[i], n) == 0 &&
		    (a[n + 2] == '\0' || a[n + 2] == '='))
			return true;
	}
	return false;
}

static bool
is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/*
 * --check-config: each classifier the configuration names is loaded as
 * the switch would load it (libbpf reads the object, rte_bpf verifies
 * and JITs it; neither needs EAL), then let go, so a missing or broken
 * object fails the check with the line of its sl-from.
 */
static int
check_classifiers(const struct ibex_conf *conf)
{
	char msg[768];
	uint16_t p;
	int ret;

	for (p = 0; p < conf->nb_ports; p++) {
		const struct ibex_conf_port *cp = &conf->ports[p];
		struct ibex_bpf_prog *prog;

		if (cp->bpf_file[0] == '\0')
			continue;
		ret = ibex_bpf_prog_load(&prog, cp->bpf_file, cp->bpf_section,
					 cp->bpf_jit, msg, sizeof(msg));
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s:%d: port %s: sl-from "
				"bpf: %s\n", conf->origin, cp->class_line,
				cp->name, msg);
			return ret;
		}
		ibex_bpf_prog_put(prog);
	}
	return 0;
}

/* --check-config: the app's options alone, no EAL, no hugepages. */
static int
check_config(int argc, char **argv)
{
	struct app_opts opts = { 0 };
	struct ibex_conf *conf = calloc(1, sizeof(*conf));
	int ret = 1;

	if (conf == NULL)
		return 1;
	if (ibex_gen_builtin_parse(&argc, argv, &gen) != 0 ||
	    parse_args(argc, argv, &opts) != 0) {
		ret = 2; /* a usage error */
	} else if (conf_load(conf, &opts) == 0 &&
		   check_classifiers(conf) == 0) {
		printf("%s: configuration OK (%u ports)\n", conf->origin,
		       conf->nb_ports);
		ret = 0;
	}
	ibex_gen_builtin_free(gen);
	gen = NULL;
	free(conf);
	return ret;
}

/*
 * What needs neither EAL nor hugepages is answered before rte_eal_init:
 * --help, --version and --check-config, before or after '--', and an
 * app option given before '--' (a short hint instead of EAL's usage).
 * @return an exit status, or -1 to go on with EAL.
 */
static int
pre_eal(int argc, char **argv)
{
	int dd, i;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	for (i = dd + 1; i < argc; i++) {
		if (is_help(argv[i])) {
			usage("ibex-switch");
			return 0;
		}
		if (strcmp(argv[i], "--help-commands") == 0) {
			/* hidden: the control commands, for the drift test
			 * of the man pages and the completion */
			fputs(ibex_cmd_help(), stdout);
			return 0;
		}
		if (strcmp(argv[i], "--version") == 0) {
			print_version("ibex-switch");
			return 0;
		}
	}
	for (i = dd + 1; i < argc; i++)
		if (strcmp(argv[i], "--check-config") == 0)
			return check_config(argc - dd, argv + dd);
	/* Alone before '--', --help is ours; among EAL args it is EAL's
	 * (its usage, then app_usage_hook's pointer to ours). */
	if (dd == 2 && is_help(argv[1])) {
		usage("ibex-switch");
		return 0;
	}
	for (i = 1; i < dd; i++) {
		if (!is_app_opt(argv[i]))
			continue;
		if (strcmp(argv[i], "--version") == 0) {
			print_version("ibex-switch");
			return 0;
		}
		if (dd == argc && strcmp(argv[i], "--check-config") == 0)
			return check_config(argc, argv);
		fprintf(stderr, "ibex-switch: '%s' is an ibex-switch option: it "
			"goes after '--' (ibex-switch [EAL args] -- %s ...).\n"
			"Try 'ibex-switch --help'.\n", argv[i], argv[i]);
		return 2;
	}
	return -1;
}

/* Printed by EAL's usage (a bad EAL arg, or --help among EAL args). */
static void
app_usage_hook(const char *prog)
{
	(void)prog;
	printf("ibex-switch options go after '--': see 'ibex-switch --help'\n"
	       "(EAL options follow).\n");
}

/* --gen: end the scenario early, frames in flight still counted. */
static void
on_usr1(int sig)
{
	(void)sig;
	ibex_gen_builtin_end(gen);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Under systemd (Type=notify): ready once the workers run and the control
 * socket listens. */
static void
notify_ready(const struct ibex_sock *sock)
{
	char msg[160];
	int ret;

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=forwarding; control "
		 "socket %s\nMAINPID=%ld", ibex_sock_path(sock), (long)getpid());
	ret = ibex_notify(msg);
	if (ret < 0)
		fprintf(stderr, "ibex-switch: NOTIFY_SOCKET: %s\n",
			strerror(-ret));
}

/* --wait-links in slices, so a SIGTERM meanwhile is a clean stop. */
static int
wait_links(struct ibex_dp *dp, double wait_s, char *err, size_t errlen)
{
	double deadline = now_s() + wait_s;
	int ret;

	for (;;) {
		/* Memif clients whose server was not ready dial again. */
		ibex_dp_links_poll(dp);
		ret = ibex_dp_wait_links(dp, 100, err, errlen);
		if (ret != -ETIMEDOUT || ibex_ctl_stop_requested())
			return ret == -ETIMEDOUT ? 0 : ret;
		if (now_s() >= deadline)
			break;
	}
	ret = ibex_dp_wait_links(dp, 0, err, errlen);
	if (ret == -ETIMEDOUT) {
		/* Its "after 0 ms" is the last slice's: give the whole wait. */
		char *after = strstr(err, " after ");

		if (after != NULL)
			snprintf(after, errlen - (size_t)(after - err),
				 " after --wait-links %g s", wait_s);
	}
	return ret;
}

/*
 * @return the exit status: 0, 1 on errors (the generator's too: it could
 * not start or report), 3 when the --gen scenario lost or duplicated a
 * frame or an iteration failed (as ibex-gen's).
 */
static int
run(struct ibex_dp *dp, const struct app_opts *o, struct ibex_sock *sock)
{
	struct ibex_ctl_opts copts = {
		.sock = sock,
		.stats_period_ms = (uint32_t)(o->stats_period_s * 1000),
		.duration_ms = (uint32_t)(o->duration_s * 1000),
		.idle_stop_ms = (uint32_t)(o->idle_stop_s * 1000),
	};
	bool gen_failed = false;
	char err[256];
	int status = 0;
	double t0;
	int ret;

	if (o->wait_links_s > 0) {
		ret = wait_links(dp, o->wait_links_s, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s\n", err);
			return 1;
		}
	}
	t0 = now_s();
	if (ibex_dp_start(dp) < 0) {
		fprintf(stderr, "ibex-switch: cannot launch the workers\n");
		status = 1;
		ibex_ctl_request_stop();
	}
	/* Built-in generator (--gen): its own lcore; stops the switch when
	 * its scenario ends. */
	if (gen != NULL && ibex_gen_builtin_start(gen, ibex_ctl_request_stop,
						  &dp->stop) < 0) {
		gen_failed = true;
		ibex_ctl_request_stop();
	} else if (gen != NULL) {
		signal(SIGUSR1, on_usr1);
	}
	notify_ready(sock);
	ibex_ctl_run(dp, &copts);
	ibex_notify("STOPPING=1");
	ibex_dp_stop(dp);
	ibex_ctl_wait_lcores(); /* the generator's, with --gen */
	if (o->wait_peers_s > 0) {
		fprintf(stderr, "ibex-switch: workers stopped; waiting up to %g s "
			"for the memif peers to disconnect\n", o->wait_peers_s);
		if (ibex_dp_wait_peers_gone(dp, (uint32_t)(o->wait_peers_s *
							  1000)) < 0)
			fprintf(stderr, "ibex-switch: a memif peer is still "
				"connected after --wait-peers %g s\n",
				o->wait_peers_s);
	}
	ibex_ctl_print_summary(stdout, dp, now_s() - t0);
	if (gen != NULL && !gen_failed) {
		ret = ibex_gen_builtin_report(gen, stdout);
		if (ret != 0) {
			fprintf(stderr, "ibex-switch: --gen: run not clean "
				"(frames lost or iterations failed)\n");
			status = ret < 0 ? 1 : 3;
		}
	}
	if (o->json != NULL) {
		struct ibex_out extra;

		ibex_out_init(&extra);
		if (ibex_sock_json_sections(sock, &extra) < 0)
			fprintf(stderr, "ibex-switch: %s: lanes, latency, ECN and "
				"flow control left out (out of memory)\n", o->json);
		ret = ibex_ctl_write_json_ext(o->json, dp, now_s() - t0, meta,
					      extra.buf);
		ibex_out_free(&extra);
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s: %s\n", o->json,
				strerror(-ret));
			return 1;
		}
	}
	return gen_failed ? 1 : status;
}

int
main(int argc, char **argv)
{
	struct app_opts opts = { 0 };
	time_t start = time(NULL);
	char *cmdline;
	struct ibex_conf *conf;
	struct ibex_dp *dp = NULL;
	struct ibex_sock *sock = NULL;
	struct ibex_metrics *metrics = NULL;
	char err[512], rundir[PATH_MAX];
	int ret;

	/* A line at a time: under systemd stdout is a pipe to the journal,
	 * block-buffered by default, so start-up lines would show at exit. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = pre_eal(argc, argv);
	if (ret >= 0)
		return ret;
	cmdline = ibex_meta_cmdline(argc, argv);
	rte_set_application_usage_hook(app_usage_hook);
	/* Before EAL starts threads: they inherit the mask, so the signals
	 * reach the control loop's signalfd and nothing else. */
	if (ibex_ctl_block_signals() < 0)
		fprintf(stderr, "ibex-switch: cannot block signals\n");
	/* memif ports listen on a socket file only this user may open,
	 * not on DPDK's default abstract socket (docs/configuration.md). */
	if (ibex_memif_fix_argv(argc, argv, "ibex-switch") < 0)
		return 1;
	if (clear_stale_vdev_sockets(argc, argv) < 0)
		return 1;
	vdev_names_collect(argc, argv);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		/* (a lock EAL could not take leaves rte_errno 0) */
		fprintf(stderr, "ibex-switch: EAL init failed: %s\n",
			rte_errno != 0 ? rte_strerror(rte_errno) :
			"see the EAL lines above");
		return 1;
	}
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	if (vdev_names_check() < 0) {
		rte_eal_cleanup();
		remove_runtime_dir(rundir);
		return 1;
	}
	argc -= ret;
	argv += ret;
	/* dpdk-dumpcap (a secondary process) asks us to copy frames. */
	if (rte_pdump_init() < 0)
		fprintf(stderr, "ibex-switch: packet capture unavailable: %s\n",
			rte_strerror(rte_errno));
	conf = calloc(1, sizeof(*conf));
	if (conf != NULL && (ibex_gen_builtin_parse(&argc, argv, &gen) != 0 ||
			     parse_args(argc, argv, &opts) < 0)) {
		ret = 2; /* a usage error */
		goto out;
	}
	if (conf == NULL || conf_load(conf, &opts) < 0) {
		ret = 1;
		goto out;
	}
	if (gen != NULL && !opts.check_only &&
	    ibex_gen_builtin_attach(gen, conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		ret = 1;
		goto out;
	}
	/* After the generator's ports: --gen alone needs no ethdev. */
	if (!opts.check_only && conf->nb_ports == 0) {
		fprintf(stderr, "ibex-switch: no ports: the configuration "
			"declares none and EAL found no ethdev (give devices "
			"with -a PCI_ADDRESS or --vdev)\n");
		ret = 1;
		goto out;
	}
	if (opts.check_only) {
		ret = check_classifiers(conf) < 0 ? 1 : 0;
		if (ret == 0)
			printf("%s: configuration OK (%u ports)\n",
			       conf->origin, conf->nb_ports);
		goto out;
	}
	ret = ibex_dp_create(&dp, conf, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibex-switch: %s\n", err);
		ret = 1;
		goto out;
	}
	meta = ibex_meta_json("ibex-switch", cmdline, start);
	ibex_ctl_set_meta(meta);
	if (gen != NULL)
		ibex_gen_builtin_set_meta(gen, meta);
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
	if (opts.metrics != NULL) {
		ret = ibex_metrics_start(&metrics, &dp, NULL, 1, opts.metrics,
					 err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "ibex-switch: %s\n", err);
			ret = 1;
			goto out;
		}
		/* a bare PORT binds 127.0.0.1: say the URL that answers */
		printf("ibex-switch: metrics at http://%s%s/metrics\n",
		       strchr(opts.metrics, ':') == NULL ? "127.0.0.1:" : "",
		       opts.metrics);
	}
	ret = run(dp, &opts, sock);
out:
	/* Before the switch goes: a scrape reads its counters. */
	ibex_metrics_stop(metrics);
	ibex_sock_destroy(sock);
	ibex_dp_destroy(dp);
	ibex_gen_builtin_free(gen);
	free(conf);
	free(meta);
	free(cmdline);
	rte_pdump_uninit();
	rte_eal_cleanup();
	remove_runtime_dir(rundir);
	return ret;
}
