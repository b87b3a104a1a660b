/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mbuf pool against the lossless promise, with EAL (--no-huge) and
 * net_ring ports (docs/configuration.md, "The mbuf pool"):
 *
 *  - an explicit `switch mbufs` smaller than the lossless lanes' reserved
 *    shares and headroom (one mbuf per 64-byte block) plus rings, caches
 *    and the flow-control floor is refused at start, naming the numbers
 *    and the line;
 *  - without `switch mbufs` the pool is sized to that promise;
 *  - a reload whose promise the running pool cannot keep (a live speed
 *    change that grows an auto PFC headroom) is refused with file:line,
 *    and the running config stays.
 *
 * Before, the first two started with a pool of ~22,000 mbufs behind
 * 32,768 frames of reservation, and the reload was taken.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_dp.h"

#define NB_PORTS 2
#define RING_SIZE 256

static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct ibex_conf base;

/* Four credit lanes of 512 KB on r0: 4 x 8192 = 32768 frames of 64 bytes
 * (a frame costs at least one block). */
static const char credit4[] =
	"port r0 vls 4 fc credit\n"
	"port r1 vls 4 fc credit\n"
	"lane r0 vl 0 lossless reserved 512KB\n"
	"lane r0 vl 1 lossless reserved 512KB\n"
	"lane r0 vl 2 lossless reserved 512KB\n"
	"lane r0 vl 3 lossless reserved 512KB\n";

/* A data path closes its ports when destroyed: each one gets new ring
 * ports (a new tag), named r0 and r1 in its config. */
static void
conf_of(struct ibex_conf *c, const char *text)
{
	static unsigned int made;
	char err[512], tag[8];
	unsigned int i;

	snprintf(tag, sizeof(tag), "q%u", ++made);
	ibex_conf_init(c);
	snprintf(c->origin, sizeof(c->origin), "test");
	for (i = 0; i < NB_PORTS; i++)
		assert_int_equal(dp_harness_ring_port(c, tag, i, RING_SIZE,
						      RING_SIZE, &rxr[i],
						      &txr[i]), 0);
	if (ibex_conf_parse_string(c, text, "test", err, sizeof(err)) < 0 ||
	    ibex_conf_finish(c, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	c->nb_workers = 1;
}

static void
test_explicit_too_small(void **state)
{
	static struct ibex_conf c;
	struct ibex_dp *dp = NULL;
	char text[1024], err[1024] = "";
	int ret;

	(void)state;
	snprintf(text, sizeof(text), "switch mbufs 16384\n%s", credit4);
	conf_of(&c, text);
	ret = ibex_dp_create(&dp, &c, err, sizeof(err));
	print_message("%s\n", err);
	if (ret == 0) {
		print_message("started with a pool of %u mbufs\n",
			      dp->pool->size);
		ibex_dp_destroy(dp);
		fail_msg("switch mbufs 16384 behind 32768 lossless frames "
			 "was taken");
	}
	ibex_dp_destroy(dp);
	assert_int_equal(ret, -ENOSPC);
	assert_non_null(strstr(err, "test:1: switch mbufs 16384 cannot back "
				    "the lossless lanes"));
	assert_non_null(strstr(err, "(32768 frames of reserved and "
				    "headroom"));
	/* Raised to what it asked for, it starts. */
	{
		const char *p = strstr(err, "they need ");
		unsigned long need;

		assert_non_null(p);
		need = strtoul(p + strlen("they need "), NULL, 10);
		assert_true(need > 32768);
		snprintf(text, sizeof(text), "switch mbufs %lu\n%s", need,
			 credit4);
		conf_of(&c, text);
		ret = ibex_dp_create(&dp, &c, err, sizeof(err));
		if (ret < 0)
			fail_msg("%s", err);
		assert_int_equal(dp->pool->size, need);
		ibex_dp_destroy(dp);
	}
}

static void
test_auto_sized(void **state)
{
	static struct ibex_conf c;
	struct ibex_dp *dp = NULL;
	char err[1024];

	(void)state;
	conf_of(&c, credit4);
	if (ibex_dp_create(&dp, &c, err, sizeof(err)) < 0) {
		ibex_dp_destroy(dp);
		fail_msg("%s", err);
	}
	print_message("pool sized to %u mbufs for 32768 lossless frames\n",
		      dp->pool->size);
	/* the promise, with the rings (2 x 1024 + 2 x 1024 descriptors) and
	 * the floor kept for flow-control frames (two bursts of 256 a port)
	 * on top */
	assert_true(dp->pool->size >= 32768 + 4096 + 1024);
	ibex_dp_destroy(dp);
}

static void
test_reload_refused(void **state)
{
	static struct ibex_conf c, n;
	struct ibex_dp *dp = NULL;
	char err[1024] = "";
	uint64_t speed;
	int ret;

	(void)state;
	/* Auto headroom over 20 km: ~6,000 blocks a lane at 10G, ten times
	 * that at 100G. */
	conf_of(&c,
		"buffer total 64MB\n"
		"port r0 vls 2 fc pfc speed 10G\n"
		"port r1 vls 2 fc pfc speed 10G\n"
		"lane r0 vl 0 lossless\n"
		"lane r0 vl 1 lossless\n"
		"pfc r0 headroom auto cable-m 20000\n");
	if (ibex_dp_create(&dp, &c, err, sizeof(err)) < 0) {
		ibex_dp_destroy(dp);
		fail_msg("%s", err);
	}
	speed = dp->conf->ports[0].speed_bps;
	n = *dp->conf;
	if (ibex_conf_parse_string(&n, "\n\n\n\n\n\nport r0 speed 100G\n",
				   "test", err, sizeof(err)) < 0 ||
	    ibex_conf_finish(&n, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	ret = ibex_dp_reconfigure(dp, &n, err, sizeof(err));
	print_message("%s\n", err);
	assert_int_equal(ret, -ENOSPC);
	assert_non_null(strstr(err, "test:5: port r0: the lossless lanes "
				    "would need "));
	assert_non_null(strstr(err, "the running pool has"));
	assert_int_equal(dp->conf->ports[0].speed_bps, speed);
	/* A reload the pool can keep is taken. */
	n = *dp->conf;
	if (ibex_conf_parse_string(&n, "port r0 speed 1G\n", "test", err,
				   sizeof(err)) < 0 ||
	    ibex_conf_finish(&n, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	if (ibex_dp_reconfigure(dp, &n, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	ibex_dp_destroy(dp);
}

static int
group_setup(void **state)
{
	(void)state;
	if (dp_harness_group_start("test_dp_pool", "1024", 1024, &base, "p",
				   NB_PORTS, RING_SIZE, RING_SIZE, rxr,
				   txr) == NULL)
		return -1;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	rte_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explicit_too_small),
		cmocka_unit_test(test_auto_sized),
		cmocka_unit_test(test_reload_refused),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
