/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the ibex forwarding database (lib/fdb). */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ibex_fdb.h"

static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_c[6] = { 0x00, 0x1b, 0x21, 0x3c, 0x4d, 0x5e };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

/* xorshift64: deterministic, seeded per test. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
mac_of(uint32_t idx, uint8_t mac[6])
{
	mac[0] = 0x02; /* locally administered unicast */
	mac[1] = 0x1b;
	mac[2] = (uint8_t)(idx >> 24);
	mac[3] = (uint8_t)(idx >> 16);
	mac[4] = (uint8_t)(idx >> 8);
	mac[5] = (uint8_t)idx;
}

static struct ibex_fdb *
mk(uint32_t max_entries, uint32_t ageing_ms)
{
	struct ibex_fdb_params p = {
		.max_entries = max_entries,
		.ageing_ms = ageing_ms,
	};
	struct ibex_fdb *fdb = ibex_fdb_create(&p);

	assert_non_null(fdb);
	return fdb;
}

static void
test_create_bad(void **state)
{
	struct ibex_fdb_params p = { .max_entries = 0, .ageing_ms = 1000 };

	(void)state;
	errno = 0;
	assert_null(ibex_fdb_create(&p));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(ibex_fdb_create(NULL));
	assert_int_equal(errno, EINVAL);
	ibex_fdb_free(NULL);
}

static void
test_static_add_lookup(void **state)
{
	struct ibex_fdb *fdb = mk(16, 300000);
	struct ibex_fdb_entry e;
	struct ibex_fdb_stats st;

	(void)state;
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 10), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 10, 3), 0);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_c, 4095, 31), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 10), 3);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_c, 4095), 31);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 10), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 11), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 4096 + 10),
			 IBEX_PORT_NONE);

	assert_true(ibex_fdb_get(fdb, mac_c, 4095, &e));
	assert_memory_equal(e.mac, mac_c, 6);
	assert_int_equal(e.vid, 4095);
	assert_int_equal(e.port, 31);
	assert_true(e.is_static);
	assert_false(ibex_fdb_get(fdb, mac_b, 10, &e));

	/* replace: new port, still one entry */
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 10, 5), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 10), 5);

	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 4096, 1), -EINVAL);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 1, IBEX_PORT_NONE),
			 -EINVAL);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 1, IBEX_MAX_PORTS),
			 -EINVAL);
	assert_int_equal(ibex_fdb_add_static(fdb, NULL, 1, 1), -EINVAL);

	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.static_entries, 2);
	assert_int_equal(st.learned, 0);

	assert_int_equal(ibex_fdb_del(fdb, mac_a, 10), 0);
	assert_int_equal(ibex_fdb_del(fdb, mac_a, 10), -ENOENT);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 10), IBEX_PORT_NONE);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.static_entries, 1);
	ibex_fdb_free(fdb);
}

static void
test_learn_new_refresh_move(void **state)
{
	struct ibex_fdb *fdb = mk(16, 300000);
	struct ibex_fdb_entry e;
	struct ibex_fdb_stats st;

	(void)state;
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 2, 1000), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 2);
	assert_true(ibex_fdb_get(fdb, mac_a, 1, &e));
	assert_int_equal(e.last_seen_ms, 1000);
	assert_false(e.is_static);

	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 2, 1500),
			 IBEX_FDB_REFRESHED);
	assert_true(ibex_fdb_get(fdb, mac_a, 1, &e));
	assert_int_equal(e.port, 2);
	assert_int_equal(e.last_seen_ms, 1500);

	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 7, 1600),
			 IBEX_FDB_MOVED);
	assert_true(ibex_fdb_get(fdb, mac_a, 1, &e));
	assert_int_equal(e.port, 7);
	assert_int_equal(e.last_seen_ms, 1600);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 7);

	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.static_entries, 0);
	assert_int_equal(st.learned, 1);
	assert_int_equal(st.moved, 1);
	assert_int_equal(st.full, 0);
	ibex_fdb_free(fdb);
}

static void
test_static_not_moved(void **state)
{
	struct ibex_fdb *fdb = mk(16, 1000);
	struct ibex_fdb_entry e;
	struct ibex_fdb_stats st;

	(void)state;
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 1, 4), 0);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 9, 100),
			 IBEX_FDB_STATIC);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 4, 100),
			 IBEX_FDB_STATIC);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 4);

	/* a learned entry becomes static when configured so */
	assert_int_equal(ibex_fdb_learn(fdb, mac_b, 1, 2, 100), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_b, 1, 3), 0);
	assert_true(ibex_fdb_get(fdb, mac_b, 1, &e));
	assert_true(e.is_static);
	assert_int_equal(e.port, 3);
	assert_int_equal(ibex_fdb_learn(fdb, mac_b, 1, 2, 200),
			 IBEX_FDB_STATIC);

	/* never aged, never flushed */
	assert_int_equal(ibex_fdb_age(fdb, 1000000), 0);
	assert_int_equal(ibex_fdb_flush_port(fdb, 4), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 4);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 3);

	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.static_entries, 2);
	assert_int_equal(st.moved, 0);
	ibex_fdb_free(fdb);
}

static void
test_same_mac_two_vlans(void **state)
{
	struct ibex_fdb *fdb = mk(16, 0);
	struct ibex_fdb_stats st;

	(void)state;
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 10, 1, 0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 20, 2, 0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 0, 3, 0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 10), 1);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 20), 2);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 0), 3);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.moved, 0);

	assert_int_equal(ibex_fdb_del(fdb, mac_a, 10), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 10), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 20), 2);
	ibex_fdb_free(fdb);
}

static void
test_learn_invalid(void **state)
{
	struct ibex_fdb *fdb = mk(16, 0);
	struct ibex_fdb_stats st;

	(void)state;
	assert_int_equal(ibex_fdb_learn(fdb, mac_bcast, 1, 1, 0),
			 IBEX_FDB_INVALID);
	assert_int_equal(ibex_fdb_learn(fdb, mac_mcast, 1, 1, 0),
			 IBEX_FDB_INVALID);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 4096, 1, 0),
			 IBEX_FDB_INVALID);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, IBEX_PORT_NONE, 0),
			 IBEX_FDB_INVALID);
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, IBEX_MAX_PORTS, 0),
			 IBEX_FDB_INVALID);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_bcast, 1), IBEX_PORT_NONE);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.learned, 0);
	assert_int_equal(st.full, 0);
	ibex_fdb_free(fdb);
}

static void
test_limit(void **state)
{
	const uint32_t max = 100;
	struct ibex_fdb *fdb = mk(max, 1000);
	struct ibex_fdb_stats st;
	uint8_t mac[6];
	uint32_t i;

	(void)state;
	/* 10 static + 90 learned: first 50 at t=0, the rest at t=500 */
	for (i = 0; i < 10; i++) {
		mac_of(1000 + i, mac);
		assert_int_equal(ibex_fdb_add_static(fdb, mac, 1, 1), 0);
	}
	for (i = 0; i < max - 10; i++) {
		mac_of(i, mac);
		assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 2, i < 50 ? 0 : 500),
				 IBEX_FDB_NEW);
	}
	mac_of(5000, mac);
	assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 2, 600), IBEX_FDB_FULL);
	assert_int_equal(ibex_fdb_learn(fdb, mac, 2, 2, 600), IBEX_FDB_FULL);
	assert_int_equal(ibex_fdb_add_static(fdb, mac, 1, 2), -ENOSPC);
	assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), IBEX_PORT_NONE);
	/* existing entries still refresh and move when full */
	mac_of(3, mac);
	assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 2, 0), IBEX_FDB_REFRESHED);
	assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 3, 0), IBEX_FDB_MOVED);

	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, max);
	assert_int_equal(st.static_entries, 10);
	assert_int_equal(st.learned, max - 10);
	assert_int_equal(st.full, 2);

	/* t=1000: the 50 learned at t=0 go, those of t=500 stay */
	assert_int_equal(ibex_fdb_age(fdb, 1000), 50);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, max - 50);
	assert_int_equal(st.aged, 50);
	mac_of(5000, mac);
	assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 2, 1000), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), 2);
	mac_of(60, mac);
	assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), 2);
	mac_of(10, mac);
	assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), IBEX_PORT_NONE);
	ibex_fdb_free(fdb);
}

static void
test_ageing_boundary(void **state)
{
	struct ibex_fdb *fdb = mk(16, 1000);
	struct ibex_fdb_stats st;

	(void)state;
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 1, 5000), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_learn(fdb, mac_b, 1, 1, 5500), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_age(fdb, 5999), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 1);
	assert_int_equal(ibex_fdb_age(fdb, 6000), 1);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 1);
	/* a refresh restarts the clock */
	assert_int_equal(ibex_fdb_learn(fdb, mac_b, 1, 1, 6400),
			 IBEX_FDB_REFRESHED);
	assert_int_equal(ibex_fdb_age(fdb, 6500), 0);
	assert_int_equal(ibex_fdb_age(fdb, 7399), 0);
	assert_int_equal(ibex_fdb_age(fdb, 7400), 1);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.aged, 2);
	assert_int_equal(st.entries, 0);
	ibex_fdb_free(fdb);
}

static void
test_ageing_wrap(void **state)
{
	struct ibex_fdb *fdb = mk(16, 1000);
	const uint32_t t0 = UINT32_C(0xFFFFFF00); /* 256 ms before the wrap */

	(void)state;
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 1, t0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_b, 1, 2), 0);
	/* t0 + 999 = 0x2E7 after the wrap: kept */
	assert_int_equal(ibex_fdb_age(fdb, UINT32_C(0x2E7)), 0);
	assert_int_equal(ibex_fdb_age(fdb, UINT32_C(0x10)), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 1);
	/* t0 + 1000 = 0x2E8: removed; static kept */
	assert_int_equal(ibex_fdb_age(fdb, UINT32_C(0x2E8)), 1);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 2);
	ibex_fdb_free(fdb);
}

static void
test_ageing_zero_never(void **state)
{
	struct ibex_fdb *fdb = mk(16, 0);

	(void)state;
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 1, 0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_age(fdb, 0x7FFFFFFF), 0);
	assert_int_equal(ibex_fdb_age(fdb, 0xFFFFFFFF), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 1);
	/* ageing switched on later applies to existing entries */
	ibex_fdb_set_ageing(fdb, 100);
	assert_int_equal(ibex_fdb_age(fdb, 99), 0);
	assert_int_equal(ibex_fdb_age(fdb, 100), 1);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), IBEX_PORT_NONE);
	/* and off again */
	assert_int_equal(ibex_fdb_learn(fdb, mac_a, 1, 1, 0), IBEX_FDB_NEW);
	ibex_fdb_set_ageing(fdb, 0);
	assert_int_equal(ibex_fdb_age(fdb, 100000), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 1);
	ibex_fdb_free(fdb);
}

static void
test_flush_port(void **state)
{
	struct ibex_fdb *fdb = mk(64, 0);
	struct ibex_fdb_stats st;
	uint8_t mac[6];
	uint32_t i;

	(void)state;
	for (i = 0; i < 12; i++) {
		mac_of(i, mac);
		/* ports 1, 2, 3, 1, 2, 3, ... */
		assert_int_equal(ibex_fdb_learn(fdb, mac, 7, 1 + i % 3, 0),
				 IBEX_FDB_NEW);
	}
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 7, 1), 0);
	assert_int_equal(ibex_fdb_flush_port(fdb, 1), 4);
	assert_int_equal(ibex_fdb_flush_port(fdb, 1), 0);
	for (i = 0; i < 12; i++) {
		mac_of(i, mac);
		assert_int_equal(ibex_fdb_lookup(fdb, mac, 7),
				 i % 3 == 0 ? IBEX_PORT_NONE : 1 + i % 3);
	}
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 7), 1);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 9);
	assert_int_equal(st.static_entries, 1);
	assert_int_equal(st.aged, 0);
	ibex_fdb_free(fdb);
}

/*
 * Reference model: every candidate key in an array with its expected
 * state; the table is checked against it after every step.
 */
#define MODEL_KEYS 96
#define MODEL_MAX  48

struct model_key {
	uint8_t mac[6];
	uint16_t vid;
	bool present;
	bool is_static;
	uint16_t port;
	uint32_t seen;
};

static void
model_fresh(struct model_key *m, uint32_t n, uint32_t k, uint64_t *seed)
{
	uint64_t r;
	uint32_t i;
	bool dup;

	do {
		r = rnd(seed);
		memcpy(m[k].mac, &r, 6);
		m[k].mac[0] &= 0xfe; /* unicast */
		m[k].vid = (uint16_t)((r >> 48) % 3);
		dup = false;
		for (i = 0; i < n; i++)
			if (i != k && m[i].vid == m[k].vid &&
			    memcmp(m[i].mac, m[k].mac, 6) == 0)
				dup = true;
	} while (dup);
	m[k].present = false;
	m[k].is_static = false;
	m[k].port = IBEX_PORT_NONE;
	m[k].seen = 0;
}

static void
model_check(const struct ibex_fdb *fdb, const struct model_key *m,
	    uint32_t count, uint32_t statics)
{
	struct ibex_fdb_stats st;
	struct ibex_fdb_entry e;
	uint32_t i;

	for (i = 0; i < MODEL_KEYS; i++) {
		if (!m[i].present) {
			assert_int_equal(ibex_fdb_lookup(fdb, m[i].mac, m[i].vid),
					 IBEX_PORT_NONE);
			continue;
		}
		assert_true(ibex_fdb_get(fdb, m[i].mac, m[i].vid, &e));
		assert_int_equal(e.port, m[i].port);
		assert_int_equal(e.is_static, m[i].is_static);
		if (!m[i].is_static)
			assert_int_equal(e.last_seen_ms, m[i].seen);
	}
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, count);
	assert_int_equal(st.static_entries, statics);
}

static void
test_churn_model(void **state)
{
	struct ibex_fdb *fdb = mk(MODEL_MAX, 0);
	struct model_key m[MODEL_KEYS];
	uint32_t count = 0, statics = 0, step, k;
	uint64_t seed = 0x1234567887654321ull, r;
	uint16_t port;
	int exp, got;

	(void)state;
	for (k = 0; k < MODEL_KEYS; k++)
		model_fresh(m, k, k, &seed);
	for (step = 1; step <= 100000; step++) {
		r = rnd(&seed);
		k = (uint32_t)(r % MODEL_KEYS);
		port = (uint16_t)((r >> 20) % 4);
		switch ((r >> 32) % 16) {
		case 0: /* static add */
			exp = (!m[k].present && count >= MODEL_MAX) ?
				-ENOSPC : 0;
			got = ibex_fdb_add_static(fdb, m[k].mac, m[k].vid,
						  port);
			assert_int_equal(got, exp);
			if (exp == 0) {
				count += !m[k].present;
				statics += !m[k].is_static || !m[k].present;
				m[k].present = true;
				m[k].is_static = true;
				m[k].port = port;
			}
			break;
		case 1: case 2: case 3: case 4: case 5: case 6: case 7: /* del */
			exp = m[k].present ? 0 : -ENOENT;
			assert_int_equal(ibex_fdb_del(fdb, m[k].mac, m[k].vid),
					 exp);
			if (m[k].present) {
				count--;
				statics -= m[k].is_static;
			}
			/* mostly a brand new key from now on */
			if (((r >> 40) & 3) != 0)
				model_fresh(m, MODEL_KEYS, k, &seed);
			m[k].present = false;
			break;
		default: /* learn */
			if (m[k].present && m[k].is_static)
				exp = IBEX_FDB_STATIC;
			else if (m[k].present)
				exp = m[k].port == port ? IBEX_FDB_REFRESHED :
					IBEX_FDB_MOVED;
			else
				exp = count >= MODEL_MAX ? IBEX_FDB_FULL :
					IBEX_FDB_NEW;
			got = ibex_fdb_learn(fdb, m[k].mac, m[k].vid, port,
					     step);
			assert_int_equal(got, exp);
			if (exp == IBEX_FDB_NEW)
				count++;
			if (exp == IBEX_FDB_NEW || exp == IBEX_FDB_MOVED ||
			    exp == IBEX_FDB_REFRESHED) {
				m[k].present = true;
				m[k].is_static = false;
				m[k].port = port;
				m[k].seen = step;
			}
			break;
		}
		model_check(fdb, m, count, statics);
	}
	ibex_fdb_free(fdb);
}

/* A tiny table, 100000 distinct keys through it, residents stay put. */
static void
test_tombstone_reuse(void **state)
{
	struct ibex_fdb *fdb = mk(4, 0);
	struct ibex_fdb_stats st;
	uint8_t mac[6];
	uint32_t i, j;

	(void)state;
	for (j = 0; j < 3; j++) {
		mac_of(0xF0000000u + j, mac);
		assert_int_equal(ibex_fdb_learn(fdb, mac, 1, (uint16_t)j, 0),
				 IBEX_FDB_NEW);
	}
	for (i = 0; i < 100000; i++) {
		mac_of(i, mac);
		assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 9, i),
				 IBEX_FDB_NEW);
		mac_of(i + 1000000, mac);
		assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 9, i),
				 IBEX_FDB_FULL);
		mac_of(i, mac);
		assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), 9);
		assert_int_equal(ibex_fdb_del(fdb, mac, 1), 0);
		assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), IBEX_PORT_NONE);
		for (j = 0; j < 3; j++) {
			mac_of(0xF0000000u + j, mac);
			assert_int_equal(ibex_fdb_lookup(fdb, mac, 1), j);
		}
	}
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.learned, 100003);
	assert_int_equal(st.full, 100000);
	ibex_fdb_free(fdb);
}

static void
test_flood_mask(void **state)
{
	static uint64_t members[IBEX_VLAN_COUNT];

	(void)state;
	memset(members, 0, sizeof(members));
	members[10] = 0x0B;                     /* ports 0, 1, 3 */
	members[4095] = UINT64_C(0x80000001);   /* ports 0, 31 */

	assert_int_equal(ibex_flood_mask(members, 10, 1), 0x09);
	assert_int_equal(ibex_flood_mask(members, 10, 0), 0x0A);
	/* ingress not a member: every member, port 2 never */
	assert_int_equal(ibex_flood_mask(members, 10, 2), 0x0B);
	assert_int_equal(ibex_flood_mask(members, 11, 1), 0);
	assert_int_equal(ibex_flood_mask(members, 4095, 31), 1);
	assert_int_equal(ibex_flood_mask(members, 4095, 5),
			 UINT64_C(0x80000001));
	/* ports above 31: the 64-port switch's whole set */
	members[20] = UINT64_C(0x8000010100000001); /* ports 0, 32, 40, 63 */
	assert_true(ibex_flood_mask(members, 20, 0) ==
		    UINT64_C(0x8000010100000000));
	assert_true(ibex_flood_mask(members, 20, 63) ==
		    UINT64_C(0x0000010100000001));
	assert_true(ibex_flood_mask(members, 20, 32) ==
		    UINT64_C(0x8000010000000001));
	members[21] = UINT64_MAX;                 /* all 64 */
	assert_true(ibex_flood_mask(members, 21, 63) == UINT64_MAX >> 1);
	assert_true(ibex_flood_mask(members, 21, 31) ==
		    (UINT64_MAX & ~(UINT64_C(1) << 31)));
}

/* A port number above 31 is a port (IBEX_MAX_PORTS 64): static and
 * learned entries to it, and flushing it, leave ports 31 and 32 apart. */
static void
test_high_ports(void **state)
{
	struct ibex_fdb *fdb = mk(16, 300000);

	(void)state;
	assert_int_equal(IBEX_MAX_PORTS, 64);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 1, 63), 0);
	assert_int_equal(ibex_fdb_learn(fdb, mac_b, 1, 32, 0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_learn(fdb, mac_c, 1, 31, 0), IBEX_FDB_NEW);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 63);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 32);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_c, 1), 31);
	ibex_fdb_flush_port(fdb, 32);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_c, 1), 31);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 63);
	ibex_fdb_free(fdb);
}

struct count_arg {
	uint32_t all;
	uint32_t statics;
	uint32_t port_sum;
	uint32_t stop_after;
};

static int
count_cb(const struct ibex_fdb_entry *e, void *arg)
{
	struct count_arg *c = arg;

	c->all++;
	c->statics += e->is_static;
	c->port_sum += e->port;
	if (c->stop_after != 0 && c->all == c->stop_after)
		return 42;
	return 0;
}

static void
test_foreach(void **state)
{
	struct ibex_fdb *fdb = mk(32, 0);
	struct count_arg c = { 0 };
	uint8_t mac[6];
	uint32_t i;

	(void)state;
	assert_int_equal(ibex_fdb_foreach(fdb, count_cb, &c), 0);
	assert_int_equal(c.all, 0);
	for (i = 0; i < 5; i++) {
		mac_of(i, mac);
		assert_int_equal(ibex_fdb_learn(fdb, mac, 1, (uint16_t)i, 0),
				 IBEX_FDB_NEW);
	}
	assert_int_equal(ibex_fdb_add_static(fdb, mac_a, 2, 10), 0);
	assert_int_equal(ibex_fdb_add_static(fdb, mac_b, 2, 20), 0);
	mac_of(2, mac);
	assert_int_equal(ibex_fdb_del(fdb, mac, 1), 0);

	assert_int_equal(ibex_fdb_foreach(fdb, count_cb, &c), 0);
	assert_int_equal(c.all, 6);
	assert_int_equal(c.statics, 2);
	assert_int_equal(c.port_sum, 0 + 1 + 3 + 4 + 10 + 20);

	memset(&c, 0, sizeof(c));
	c.stop_after = 3;
	assert_int_equal(ibex_fdb_foreach(fdb, count_cb, &c), 42);
	assert_int_equal(c.all, 3);
	ibex_fdb_free(fdb);
}

/*
 * One writer moves, deletes and re-adds MACs while this thread looks them
 * up. MAC index m may only ever be on port m % 16 or 16 + m % 16, so any
 * other answer is a torn or misattributed read. Static residents must
 * always be found with their port.
 */
#define CONC_MACS     1024
#define CONC_MAX      128
#define CONC_STATICS  64
#define CONC_STATIC0  0x10000u

struct conc {
	struct ibex_fdb *fdb;
	atomic_bool stop;
	uint64_t ops;
	uint32_t list[CONC_MACS]; /**< learned MACs, as far as the writer knows */
	uint32_t n;
};

static void *
conc_writer(void *arg)
{
	struct conc *c = arg;
	uint32_t *list = c->list, n = c->n, m, i;
	uint64_t seed = 0x9e3779b97f4a7c15ull, r;
	uint32_t now = 0;
	uint8_t mac[6];
	enum ibex_fdb_learn_result lr;

	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		r = rnd(&seed);
		now++;
		c->ops++;
		if (n < CONC_MAX - 8 || (r & 1) != 0) {
			m = (uint32_t)((r >> 8) % CONC_MACS);
			mac_of(m, mac);
			lr = ibex_fdb_learn(c->fdb, mac, 1,
					    (uint16_t)(m % 16 + ((r >> 40) & 1) * 16),
					    now);
			if (lr == IBEX_FDB_NEW)
				list[n++] = m;
		} else if ((r & 0xffe) == 0x100) {
			/* once in a while: a link goes down */
			ibex_fdb_flush_port(c->fdb, (uint16_t)((r >> 16) % 32));
		} else if (n > 0) {
			i = (uint32_t)((r >> 8) % n);
			m = list[i];
			mac_of(m, mac);
			(void)ibex_fdb_del(c->fdb, mac, 1);
			list[i] = list[--n];
		}
	}
	return NULL;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
test_concurrent_reader(void **state)
{
	struct conc c = { 0 };
	pthread_t th;
	uint64_t seed = 0xdeadbeefcafef00dull, r;
	uint64_t lookups = 0, hits = 0, bad = 0, stable_miss = 0;
	uint32_t m, j;
	uint16_t port;
	uint8_t mac[6];
	struct ibex_fdb_stats st;
	double end;

	(void)state;
	c.fdb = mk(CONC_MAX + CONC_STATICS, 0);
	atomic_init(&c.stop, false);
	/* Learned entries first, so that static ones land behind them on
	 * their probe paths and compaction later moves them. */
	for (j = 0; j < CONC_MAX - 8; j++) {
		mac_of(j, mac);
		assert_int_equal(ibex_fdb_learn(c.fdb, mac, 1,
						(uint16_t)(j % 16), 0),
				 IBEX_FDB_NEW);
		c.list[c.n++] = j;
	}
	for (j = 0; j < CONC_STATICS; j++) {
		mac_of(CONC_STATIC0 + j, mac);
		assert_int_equal(ibex_fdb_add_static(c.fdb, mac, 1,
						     (uint16_t)(j % 32)), 0);
	}
	assert_int_equal(pthread_create(&th, NULL, conc_writer, &c), 0);

	end = now_s() + 1.5;
	while (now_s() < end) {
		for (j = 0; j < 4096; j++) {
			r = rnd(&seed);
			m = (uint32_t)(r % CONC_MACS);
			mac_of(m, mac);
			port = ibex_fdb_lookup(c.fdb, mac, 1);
			lookups++;
			if (port != IBEX_PORT_NONE) {
				hits++;
				if (port % 16 != m % 16 || port >= 32)
					bad++;
			}
			m = (uint32_t)((r >> 32) % CONC_STATICS);
			mac_of(CONC_STATIC0 + m, mac);
			if (ibex_fdb_lookup(c.fdb, mac, 1) != m % 32)
				stable_miss++;
		}
	}
	atomic_store(&c.stop, true);
	assert_int_equal(pthread_join(th, NULL), 0);

	ibex_fdb_get_stats(c.fdb, &st);
	print_message("  %llu lookups, %llu hits, %llu writer ops, "
		      "%llu moved, %llu stable misses\n",
		      (unsigned long long)lookups, (unsigned long long)hits,
		      (unsigned long long)c.ops,
		      (unsigned long long)st.moved,
		      (unsigned long long)stable_miss);
	assert_int_equal(bad, 0);
	assert_int_equal(stable_miss, 0);
	assert_true(hits > 0 && hits < lookups);
	assert_true(c.ops > 1000);
	assert_true(st.moved > 0);
	assert_int_equal(st.static_entries, CONC_STATICS);
	ibex_fdb_free(c.fdb);
}

/* ---- ibex_fdb_set_statics(): a change of the static set, whole or not
 * at all ---- */

static struct ibex_fdb_static
st_of(const uint8_t *mac, uint16_t vid, uint16_t port)
{
	struct ibex_fdb_static s = { .vid = vid, .port = port };

	memcpy(s.mac, mac, 6);
	return s;
}

#define DUMP_MAX 64

/* The whole table in slot order, times included. */
struct dump {
	uint32_t n;
	struct ibex_fdb_entry e[DUMP_MAX];
};

static int
dump_cb(const struct ibex_fdb_entry *e, void *arg)
{
	struct dump *d = arg;

	if (d->n == DUMP_MAX)
		return -1;
	d->e[d->n++] = *e;
	return 0;
}

static void
dump(const struct ibex_fdb *fdb, struct dump *d)
{
	memset(d, 0, sizeof(*d));
	assert_int_equal(ibex_fdb_foreach(fdb, dump_cb, d), 0);
}

/* Entry by entry, field by field (not the padding). */
static void
assert_same_dump(const struct dump *a, const struct dump *b)
{
	uint32_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		assert_memory_equal(a->e[i].mac, b->e[i].mac, 6);
		assert_int_equal(a->e[i].vid, b->e[i].vid);
		assert_int_equal(a->e[i].port, b->e[i].port);
		assert_int_equal(a->e[i].is_static, b->e[i].is_static);
		assert_int_equal(a->e[i].last_seen_ms, b->e[i].last_seen_ms);
	}
}

/* max 8: statics A, B on port 1 (the running set), six stations learned
 * on port 2 (MACs 0..5): full. */
static struct ibex_fdb *
mk_full(struct ibex_fdb_static *prev)
{
	struct ibex_fdb *fdb = mk(8, 0);
	uint8_t mac[6];
	uint32_t i;

	prev[0] = st_of(mac_a, 1, 1);
	prev[1] = st_of(mac_b, 1, 1);
	assert_int_equal(ibex_fdb_set_statics(fdb, NULL, 0, prev, 2, NULL),
			 0);
	for (i = 0; i < 6; i++) {
		mac_of(i, mac);
		assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 2, 100),
				 IBEX_FDB_NEW);
	}
	mac_of(6, mac);
	assert_int_equal(ibex_fdb_learn(fdb, mac, 1, 2, 100), IBEX_FDB_FULL);
	return fdb;
}

/* Drop A, bring C and D: one more than fits. Refused with the numbers,
 * the table exactly as it was (not a slot, port or time changed), and
 * no reader's cache told to forget anything. */
static void
test_statics_refused_whole(void **state)
{
	struct ibex_fdb_static prev[2], next[3];
	struct ibex_fdb_refusal why;
	struct dump before, after;
	struct ibex_fdb *fdb;
	uint32_t version;

	(void)state;
	fdb = mk_full(prev);
	dump(fdb, &before);
	version = ibex_fdb_version(fdb);
	next[0] = prev[1];
	next[1] = st_of(mac_c, 1, 1);
	next[2] = st_of(mac_c, 2, 3);
	memset(&why, 0xff, sizeof(why));
	assert_int_equal(ibex_fdb_set_statics(fdb, prev, 2, next, 3, &why),
			 -ENOSPC);
	assert_int_equal(why.index, 1);
	assert_int_equal(why.need, 2);
	assert_int_equal(why.room, 1);
	assert_int_equal(why.removes, 1);
	assert_int_equal(why.max_entries, 8);
	assert_int_equal(why.static_entries, 2);
	assert_int_equal(why.learned, 6);
	dump(fdb, &after);
	assert_int_equal(after.n, 8);
	assert_same_dump(&before, &after);
	assert_int_equal(ibex_fdb_version(fdb), version);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 1);

	/* The same change without D fits in the room A leaves. */
	assert_int_equal(ibex_fdb_set_statics(fdb, prev, 2, next, 2, NULL), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 1);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_c, 1), 1);
	assert_int_not_equal(ibex_fdb_version(fdb), version);
	ibex_fdb_free(fdb);
}

/* A bad entry anywhere in the change: refused before the removals the
 * entries before it would make. */
static void
test_statics_invalid(void **state)
{
	struct ibex_fdb_static prev[2], next[2];
	struct ibex_fdb_refusal why;
	struct dump before, after;
	struct ibex_fdb *fdb;

	(void)state;
	fdb = mk_full(prev);
	dump(fdb, &before);
	next[0] = st_of(mac_c, 1, 1);
	next[1] = st_of(mac_c, IBEX_VLAN_COUNT, 1);
	assert_int_equal(ibex_fdb_set_statics(fdb, prev, 2, next, 2, &why),
			 -EINVAL);
	assert_int_equal(why.index, 1);
	next[1] = st_of(mac_c, 2, IBEX_MAX_PORTS);
	assert_int_equal(ibex_fdb_set_statics(fdb, prev, 2, next, 2, &why),
			 -EINVAL);
	assert_int_equal(why.index, 1);
	dump(fdb, &after);
	assert_same_dump(&before, &after);
	ibex_fdb_free(fdb);
}

/* What needs no room on a full table: the same set again (nothing
 * written), a static entry over a learned station (in place, it becomes
 * static), a static entry on another port (in place), a key named twice
 * (counted once). */
static void
test_statics_no_room_needed(void **state)
{
	struct ibex_fdb_static prev[2], next[4];
	struct ibex_fdb_entry e;
	struct ibex_fdb_stats st;
	struct dump before, after;
	struct ibex_fdb *fdb;
	uint32_t version;
	uint8_t l0[6];

	(void)state;
	fdb = mk_full(prev);
	dump(fdb, &before);
	version = ibex_fdb_version(fdb);
	assert_int_equal(ibex_fdb_set_statics(fdb, prev, 2, prev, 2, NULL), 0);
	dump(fdb, &after);
	assert_same_dump(&before, &after);
	assert_int_equal(ibex_fdb_version(fdb), version);

	mac_of(0, l0);
	next[0] = st_of(mac_a, 1, 1);
	next[1] = st_of(mac_b, 1, 3);   /* moved */
	next[2] = st_of(l0, 1, 4);      /* over a learned station */
	next[3] = st_of(l0, 1, 4);      /* named twice */
	assert_int_equal(ibex_fdb_set_statics(fdb, prev, 2, next, 4, NULL), 0);
	assert_true(ibex_fdb_get(fdb, l0, 1, &e));
	assert_true(e.is_static);
	assert_int_equal(e.port, 4);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 3);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_a, 1), 1);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 8);
	assert_int_equal(st.static_entries, 3);
	assert_int_not_equal(ibex_fdb_version(fdb), version);

	/* Dropped again: the station's entry goes (it is static now), and
	 * a learned entry the old set never had is left alone. */
	assert_int_equal(ibex_fdb_set_statics(fdb, next, 4, prev, 2, NULL), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, l0, 1), IBEX_PORT_NONE);
	assert_int_equal(ibex_fdb_lookup(fdb, mac_b, 1), 1);
	mac_of(1, l0);
	next[0] = st_of(l0, 1, 5);
	assert_int_equal(ibex_fdb_set_statics(fdb, next, 1, prev, 2, NULL), 0);
	assert_int_equal(ibex_fdb_lookup(fdb, l0, 1), 2);
	ibex_fdb_get_stats(fdb, &st);
	assert_int_equal(st.entries, 7);
	assert_int_equal(st.static_entries, 2);
	ibex_fdb_free(fdb);
}

/*
 * Changes against learning, with a reader: one writer (as the control
 * thread is) learns new stations until the table is full and ages them,
 * and between those swaps set 0 (A, B on port 1, two entries of its own)
 * and set 1 (A, B on port 2, four of its own) in and out: going to set 1
 * needs two entries more, so on a full table it is refused. The writer
 * checks after each change that it was taken whole (the table holds
 * exactly the new set) or refused whole (the old set, no entry count
 * changed). The reader checks that A (in both sets) and B (moved
 * between ports by every change taken) are always found, on a port a set
 * gives them: no change removes them, not even for a moment.
 */
#define STC_MAX      64
#define STC_OWN      4

struct stc {
	struct ibex_fdb *fdb;
	struct ibex_fdb_static sets[2][2 + STC_OWN];
	uint32_t nb[2];
	atomic_bool stop;
	atomic_uint_fast64_t changes, refused, bad;
};

/* Whether the table holds exactly set @p cur's entries of @p sets. */
static bool
stc_holds(struct ibex_fdb *fdb, struct ibex_fdb_static sets[2][2 + STC_OWN],
	  const uint32_t *nb, uint32_t cur)
{
	struct ibex_fdb_stats st;
	uint32_t i;

	for (i = 0; i < nb[cur]; i++)
		if (ibex_fdb_lookup(fdb, sets[cur][i].mac, 1) !=
		    sets[cur][i].port)
			return false;
	for (i = 2; i < nb[cur ^ 1]; i++)
		if (ibex_fdb_lookup(fdb, sets[cur ^ 1][i].mac, 1) !=
		    IBEX_PORT_NONE)
			return false;
	ibex_fdb_get_stats(fdb, &st);
	return st.static_entries == nb[cur];
}

static void *
stc_writer(void *arg)
{
	struct stc *c = arg;
	struct ibex_fdb_static (*sets)[2 + STC_OWN] = c->sets;
	const uint32_t *nb = c->nb;
	uint64_t seed = 0x0123456789abcdefull, r;
	uint32_t now = 0, cur = 0, nxt, i, before;
	struct ibex_fdb_refusal why;
	struct ibex_fdb_stats st;
	uint8_t mac[6];
	int ret;

	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		r = rnd(&seed);
		now += 10;
		for (i = 0; i < 8; i++) {
			mac_of((uint32_t)((r >> (i * 8)) & 0xff), mac);
			(void)ibex_fdb_learn(c->fdb, mac, 1, 3, now);
		}
		if ((r & 0x3f) == 0)
			(void)ibex_fdb_age(c->fdb, now);
		nxt = cur ^ 1;
		ibex_fdb_get_stats(c->fdb, &st);
		before = st.entries;
		ret = ibex_fdb_set_statics(c->fdb, sets[cur], nb[cur],
					   sets[nxt], nb[nxt], &why);
		ibex_fdb_get_stats(c->fdb, &st);
		if (ret == 0) {
			cur = nxt;
			atomic_fetch_add(&c->changes, 1);
		} else if (ret == -ENOSPC && st.entries == before &&
			   why.need == STC_OWN && why.removes == STC_OWN / 2 &&
			   why.room < why.need) {
			atomic_fetch_add(&c->refused, 1);
		} else {
			atomic_fetch_add(&c->bad, 1);
		}
		if (!stc_holds(c->fdb, sets, nb, cur))
			atomic_fetch_add(&c->bad, 1);
	}
	return NULL;
}

static void
test_statics_against_learning(void **state)
{
	struct stc c = { 0 };
	uint64_t reads = 0, wrong = 0, a_miss = 0, b_miss = 0;
	uint8_t mac[6];
	pthread_t th;
	uint32_t i, m;
	uint16_t p;
	double end;

	(void)state;
	c.fdb = mk(STC_MAX, 500);
	atomic_init(&c.stop, false);
	c.nb[0] = 2 + STC_OWN / 2;
	c.nb[1] = 2 + STC_OWN;
	for (i = 0; i < 2; i++) {
		c.sets[i][0] = st_of(mac_a, 1, 7);
		c.sets[i][1] = st_of(mac_b, 1, (uint16_t)(1 + i));
		for (m = 0; m < STC_OWN; m++) {
			mac_of(0x20000u + i * 16 + m, mac);
			c.sets[i][2 + m] = st_of(mac, 1, 9);
		}
	}
	/* Set 0 is in before the reader looks. */
	assert_int_equal(ibex_fdb_set_statics(c.fdb, NULL, 0, c.sets[0],
					      c.nb[0], NULL), 0);
	assert_int_equal(pthread_create(&th, NULL, stc_writer, &c), 0);
	/* At least a second, and until both outcomes were seen 100 times
	 * (at most 60 s on a slow machine). */
	end = now_s() + 1.0;
	while (now_s() < end ||
	       (now_s() < end + 60.0 &&
		(atomic_load(&c.changes) < 100 ||
		 atomic_load(&c.refused) < 100))) {
		p = ibex_fdb_lookup(c.fdb, mac_a, 1);
		if (p == IBEX_PORT_NONE)
			a_miss++;
		else if (p != 7)
			wrong++;
		p = ibex_fdb_lookup(c.fdb, mac_b, 1);
		if (p == IBEX_PORT_NONE)
			b_miss++;
		else if (p != 1 && p != 2)
			wrong++;
		reads++;
	}
	atomic_store(&c.stop, true);
	assert_int_equal(pthread_join(th, NULL), 0);
	print_message("  %llu reads (A missed %llu, B %llu), %llu changes "
		      "taken, %llu refused\n", (unsigned long long)reads,
		      (unsigned long long)a_miss, (unsigned long long)b_miss,
		      (unsigned long long)atomic_load(&c.changes),
		      (unsigned long long)atomic_load(&c.refused));
	assert_int_equal(atomic_load(&c.bad), 0);
	assert_int_equal(wrong, 0);
	assert_int_equal(a_miss, 0);
	assert_int_equal(b_miss, 0);
	/* Both outcomes happened: the test tells them apart. */
	assert_true(atomic_load(&c.changes) >= 100);
	assert_true(atomic_load(&c.refused) >= 100);
	ibex_fdb_free(c.fdb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad),
		cmocka_unit_test(test_static_add_lookup),
		cmocka_unit_test(test_learn_new_refresh_move),
		cmocka_unit_test(test_static_not_moved),
		cmocka_unit_test(test_same_mac_two_vlans),
		cmocka_unit_test(test_learn_invalid),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_ageing_boundary),
		cmocka_unit_test(test_ageing_wrap),
		cmocka_unit_test(test_ageing_zero_never),
		cmocka_unit_test(test_flush_port),
		cmocka_unit_test(test_churn_model),
		cmocka_unit_test(test_tombstone_reuse),
		cmocka_unit_test(test_flood_mask),
		cmocka_unit_test(test_high_ports),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_concurrent_reader),
		cmocka_unit_test(test_statics_refused_whole),
		cmocka_unit_test(test_statics_invalid),
		cmocka_unit_test(test_statics_no_room_needed),
		cmocka_unit_test(test_statics_against_learning),
	};

	return cmocka_run_group_tests_name("fdb", tests, NULL, NULL);
}
