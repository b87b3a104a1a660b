/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live changes of the static FDB entries against a full table, with EAL
 * (--no-huge) and net_ring ports: a change is applied whole or not at all
 * (docs/control.md, "Errors").
 *
 * The table holds 8 entries (fdb max-entries 8, ageing never): 2 static
 * (A, B on r1) and 6 stations learned from frames on r2 through the
 * workers and the control thread. Then, live:
 *
 *  - a change that drops A and brings C and D needs one entry more than
 *    the table has: it is refused with the numbers, and the FDB (every
 *    entry, its port and kind), the running config and forwarding are as
 *    before. Before the fix it deleted A, added C and then failed on D:
 *    the switch had neither the old static set nor the new one, and the
 *    running config still named A;
 *  - a change that swaps A for C fits (the room A leaves) and is taken;
 *  - a static entry over a learned station needs no room: taken, in place;
 *  - a static entry moved to another port in one change needs no room.
 *
 *   test_dp_fdb
 */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_harness.h"
#include "ibex_conf.h"
#include "ibex_ctl.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"

#define NB_PORTS 3
#define RING_SIZE 256
#define FDB_SIZE 8
#define NB_LEARNED 6

static struct rte_ring *rxr[NB_PORTS], *txr[NB_PORTS];
static struct rte_mempool *test_pool;
static struct ibex_dp *dp;
static struct ibex_conf conf;

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0x0a, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0x0a, 0x02 };
static const uint8_t mac_c[6] = { 0x02, 0, 0, 0, 0x0a, 0x03 };
static const uint8_t mac_d[6] = { 0x02, 0, 0, 0, 0x0a, 0x04 };
static const uint8_t mac_x[6] = { 0x02, 0, 0, 0, 0x0b, 0x01 }; /* on r0 */
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* The i-th station learned on r2. */
static void
mac_learned(unsigned int i, uint8_t *mac)
{
	static const uint8_t base[6] = { 0x02, 0, 0, 0, 0x1e, 0x00 };

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)(i + 1);
}

static void
inject_n(unsigned int port, const uint8_t *dst, const uint8_t *src,
	 unsigned int n)
{
	struct ibex_pkt_spec s = {
		.vlan = -1, .l3 = IBEX_L3_IPV4, .roce = true,
		.src_ip4 = 0x0a000001, .dst_ip4 = 0x0a000101, .sport = 49152,
		.dest_qp = 0x100, .frame_len = 64, .ecn = IBEX_ECN_ECT0,
	};

	memcpy(s.dst, dst, 6);
	memcpy(s.src, src, 6);
	assert_int_equal(dp_harness_send_spec(rxr[port], test_pool, &s, n), n);
}

static void *
ctl_thread(void *arg)
{
	struct ibex_ctl_opts o = { 0 };

	(void)arg;
	ibex_ctl_run(dp, &o);
	return NULL;
}

static bool (*run_also)(void);

/* Run workers and the control thread until port @p in has taken @p n more
 * frames (and run_also(), if set, holds), then stop: every frame has left
 * by then. Between runs the test thread is the FDB's one writer. */
static void
run_switch(unsigned int in, uint64_t n)
{
	uint64_t want = DP_PORT_CNT(dp, in, rx_pkts) + n;
	uint64_t end = dp_harness_deadline(DP_HARNESS_WAIT_S);
	pthread_t ctl;

	assert_int_equal(ibex_dp_start(dp), 0);
	assert_int_equal(pthread_create(&ctl, NULL, ctl_thread, NULL), 0);
	assert_int_equal(DP_UNTIL_PORT(dp, in, rx_pkts, want,
				       DP_HARNESS_WAIT_S), 0);
	while (run_also != NULL && !run_also()) {
		assert_false(dp_harness_expired(end));
		usleep(50);
	}
	ibex_ctl_request_stop();
	assert_int_equal(pthread_join(ctl, NULL), 0);
	ibex_dp_stop(dp);
}

static unsigned int
drain(unsigned int port, const uint8_t *dst, unsigned int *others)
{
	return dp_harness_drain(txr[port], dp_harness_match_dst, dst, others);
}

static uint32_t
fdb_entries(void)
{
	struct ibex_fdb_stats st;

	ibex_fdb_get_stats(dp->fdb, &st);
	return st.entries;
}

static bool
fdb_full(void)
{
	return fdb_entries() == FDB_SIZE;
}

/* The whole table, in slot order (the order is the table's, and a change
 * that changes nothing keeps it). */
struct fdb_dump {
	unsigned int n;
	struct ibex_fdb_entry e[FDB_SIZE + 1];
};

static int
dump_one(const struct ibex_fdb_entry *e, void *arg)
{
	struct fdb_dump *d = arg;

	if (d->n == FDB_SIZE + 1)
		return -1;
	d->e[d->n] = *e;
	d->e[d->n].last_seen_ms = 0;
	d->n++;
	return 0;
}

static void
fdb_dump(struct fdb_dump *d)
{
	memset(d, 0, sizeof(*d));
	assert_int_equal(ibex_fdb_foreach(dp->fdb, dump_one, d), 0);
}

static bool
dump_has(const struct fdb_dump *d, const struct ibex_fdb_entry *e)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (memcmp(d->e[i].mac, e->mac, 6) == 0 &&
		    d->e[i].vid == e->vid && d->e[i].port == e->port &&
		    d->e[i].is_static == e->is_static)
			return true;
	return false;
}

static void
dump_print(const char *what, const struct fdb_dump *d)
{
	unsigned int i;

	print_message("%s: %u entries\n", what, d->n);
	for (i = 0; i < d->n; i++)
		print_message("  %02x:%02x:%02x:%02x:%02x:%02x vlan %u port "
			      "%u %s\n", d->e[i].mac[0], d->e[i].mac[1],
			      d->e[i].mac[2], d->e[i].mac[3], d->e[i].mac[4],
			      d->e[i].mac[5], d->e[i].vid, d->e[i].port,
			      d->e[i].is_static ? "static" : "learned");
}

/* Every entry of @p a in @p b and the other way round. */
static void
assert_same_fdb(const struct fdb_dump *a, const struct fdb_dump *b)
{
	unsigned int i;
	bool same = a->n == b->n;

	for (i = 0; same && i < a->n; i++)
		same = dump_has(b, &a->e[i]);
	if (!same) {
		dump_print("before", a);
		dump_print("after", b);
		fail_msg("the refused change changed the FDB");
	}
}

static int
group_setup(void **state)
{
	char err[512], text[512];
	unsigned int i;

	(void)state;
	if (dp_harness_eal("test_dp_fdb", "512", "0@0,1@1") < 0)
		return -1;
	test_pool = rte_pktmbuf_pool_create("test_pool", 4096, 64, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (test_pool == NULL)
		return -1;
	ibex_conf_init(&conf);
	snprintf(conf.origin, sizeof(conf.origin), "test");
	for (i = 0; i < NB_PORTS; i++)
		if (dp_harness_ring_port(&conf, "d", i, RING_SIZE, RING_SIZE,
					 &rxr[i], &txr[i]) < 0)
			return -1;
	snprintf(text, sizeof(text),
		 "fdb max-entries %u\n"
		 "fdb ageing 0\n"
		 "fdb static 02:00:00:00:0a:01 port r1 vlan 1\n"
		 "fdb static 02:00:00:00:0a:02 port r1 vlan 1\n", FDB_SIZE);
	if (ibex_conf_parse_string(&conf, text, "test", err, sizeof(err)) < 0 ||
	    ibex_conf_finish(&conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	conf.nb_workers = 1;
	if (ibex_dp_create(&dp, &conf, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	ibex_dp_destroy(dp);
	rte_eal_cleanup();
	return 0;
}

/* Apply @p text live on top of the running test config (the test thread
 * is the control thread now). @return what ibex_dp_reconfigure() did;
 * taken, the config becomes the running one. */
static int
apply_live(const char *text, char *err, size_t errlen)
{
	struct ibex_conf *c = malloc(sizeof(*c));
	int ret;

	assert_non_null(c);
	*c = conf;
	if (ibex_conf_parse_string(c, text, "live", err, errlen) < 0)
		fail_msg("%s", err);
	ret = dp_harness_apply(dp, c, err, errlen);
	if (ret == 0)
		conf = *c;
	free(c);
	return ret;
}

/* Six stations speak on r2: learned, the table is full. */
static void
test_fill(void **state)
{
	uint8_t mac[6];
	unsigned int i;

	(void)state;
	assert_int_equal(fdb_entries(), 2);
	for (i = 0; i < NB_LEARNED; i++) {
		mac_learned(i, mac);
		inject_n(2, mac_bcast, mac, 1);
	}
	/* One more than fits: refused by the size limit. */
	inject_n(2, mac_bcast, mac_x, 1);
	run_also = fdb_full;
	run_switch(2, NB_LEARNED + 1);
	run_also = NULL;
	dp_harness_rings_flush(rxr, txr, NB_PORTS);
	assert_int_equal(fdb_entries(), FDB_SIZE);
	for (i = 0; i < NB_LEARNED; i++) {
		mac_learned(i, mac);
		assert_int_equal(ibex_fdb_lookup(dp->fdb, mac, 1), 2);
	}
}

/*
 * Drop A, bring C and D: one entry more than the table has. Refused
 * whole: nothing of it is applied, and the reason names the numbers.
 */
static void
test_refused_whole(void **state)
{
	static struct ibex_conf running;
	struct fdb_dump before, after;
	char err[512] = "";
	unsigned int o;
	int ret;

	(void)state;
	running = *dp->conf;
	fdb_dump(&before);
	assert_int_equal(before.n, FDB_SIZE);
	ret = apply_live("fdb del 02:00:00:00:0a:01 vlan 1\n"
			 "fdb static 02:00:00:00:0a:03 port r1 vlan 1\n"
			 "fdb static 02:00:00:00:0a:04 port r1 vlan 1\n",
			 err, sizeof(err));
	print_message("refused: %s\n", err);
	assert_int_not_equal(ret, 0);
	fdb_dump(&after);
	assert_same_fdb(&before, &after);
	assert_int_equal(ibex_fdb_lookup(dp->fdb, mac_a, 1), 1);
	assert_int_equal(ibex_fdb_lookup(dp->fdb, mac_c, 1), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(dp->fdb, mac_d, 1), IBEX_PORT_NONE);
	/* The running config is the old one. */
	assert_memory_equal(dp->conf, &running, sizeof(running));
	/* The reason: where, what, the numbers, and that nothing changed. */
	assert_non_null(strstr(err, "live:2: fdb static 02:00:00:00:0a:03 "
				    "vlan 1: the change adds"));
	assert_non_null(strstr(err, "2 new entries"));
	assert_non_null(strstr(err, "room for 1"));
	assert_non_null(strstr(err, "max-entries 8"));
	assert_non_null(strstr(err, "6 learned"));
	assert_non_null(strstr(err, "nothing changed"));

	/* Forwarding is the old one: A unicast to r1, C unknown (flooded). */
	inject_n(0, mac_a, mac_x, 5);
	inject_n(0, mac_c, mac_x, 3);
	run_switch(0, 8);
	assert_int_equal(drain(1, mac_a, &o), 5);
	assert_int_equal(o, 3);
	assert_int_equal(drain(2, mac_a, &o), 0);
	assert_int_equal(o, 3);
	/* X is not learned: the table is still full. */
	assert_int_equal(ibex_fdb_lookup(dp->fdb, mac_x, 1), IBEX_PORT_NONE);
}

/* Drop A, bring C: the room A leaves takes C. */
static void
test_swap_fits(void **state)
{
	struct ibex_fdb_entry e;
	char err[512] = "";

	(void)state;
	if (apply_live("fdb del 02:00:00:00:0a:01 vlan 1\n"
		       "fdb static 02:00:00:00:0a:03 port r1 vlan 1\n",
		       err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(ibex_fdb_lookup(dp->fdb, mac_a, 1), IBEX_PORT_NONE);
	assert_true(ibex_fdb_get(dp->fdb, mac_c, 1, &e));
	assert_int_equal(e.port, 1);
	assert_true(e.is_static);
	assert_int_equal(fdb_entries(), FDB_SIZE);
	assert_int_equal(dp->conf->nb_static, 2);
}

/* A static entry for a learned station takes its entry: no room needed,
 * and a station of the same change that does need room is refused with
 * it (the static-over-learned one is not applied either). */
static void
test_static_over_learned(void **state)
{
	struct ibex_fdb_entry e;
	struct fdb_dump before, after;
	char err[512] = "";
	uint8_t l0[6];

	(void)state;
	mac_learned(0, l0);
	fdb_dump(&before);
	assert_int_not_equal(apply_live(
		"fdb static 02:00:00:00:1e:01 port r1 vlan 1\n"
		"fdb static 02:00:00:00:0a:04 port r1 vlan 1\n",
		err, sizeof(err)), 0);
	print_message("refused: %s\n", err);
	fdb_dump(&after);
	assert_same_fdb(&before, &after);
	assert_true(ibex_fdb_get(dp->fdb, l0, 1, &e));
	assert_false(e.is_static);
	assert_int_equal(e.port, 2);

	if (apply_live("fdb static 02:00:00:00:1e:01 port r1 vlan 1\n",
		       err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(ibex_fdb_get(dp->fdb, l0, 1, &e));
	assert_true(e.is_static);
	assert_int_equal(e.port, 1);
	assert_int_equal(fdb_entries(), FDB_SIZE);
}

/* B moves from r1 to r2 in one change (a reload of a file that has it on
 * r2): in place, the full table is no obstacle. */
static void
test_move_in_place(void **state)
{
	struct ibex_fdb_entry e;
	char err[512] = "";

	(void)state;
	if (apply_live("fdb del 02:00:00:00:0a:02 vlan 1\n"
		       "fdb static 02:00:00:00:0a:02 port r2 vlan 1\n",
		       err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(ibex_fdb_get(dp->fdb, mac_b, 1, &e));
	assert_true(e.is_static);
	assert_int_equal(e.port, 2);
	assert_int_equal(fdb_entries(), FDB_SIZE);
	assert_int_equal(rte_mempool_in_use_count(test_pool), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_refused_whole),
		cmocka_unit_test(test_swap_fits),
		cmocka_unit_test(test_static_over_learned),
		cmocka_unit_test(test_move_in_place),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
