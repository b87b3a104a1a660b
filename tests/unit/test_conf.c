/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the configuration grammar: defaults, every statement and
 * key, rates, VLAN lists, the exact "origin:line: message" of every error,
 * whole-object validation, files and comments.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_conf.h"

/* struct ibex_conf is tens of KB: one per test, on the heap. */
static int
setup(void **state)
{
	struct ibex_conf *c = malloc(sizeof(*c));

	if (c == NULL)
		return -1;
	ibex_conf_init(c);
	*state = c;
	return 0;
}

static int
teardown(void **state)
{
	free(*state);
	return 0;
}

static int
parse(struct ibex_conf *c, const char *text, char *err)
{
	return ibex_conf_parse_string(c, text, "x.conf", err,
				      IBEX_CONF_ERR_LEN);
}

static void
parse_ok(struct ibex_conf *c, const char *text)
{
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_int_equal(parse(c, text, err), 0);
	assert_string_equal(err, "");
}

/* A fresh object must reject text with exactly this message. */
static void
expect_err(const char *text, const char *want)
{
	struct ibex_conf *c = malloc(sizeof(*c));
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_non_null(c);
	ibex_conf_init(c);
	assert_int_equal(parse(c, text, err), -EINVAL);
	assert_string_equal(err, want);
	free(c);
}

/* Text that parses but fails validation with exactly this message. */
static void
expect_verr(const char *text, const char *want)
{
	struct ibex_conf *c = malloc(sizeof(*c));
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_non_null(c);
	ibex_conf_init(c);
	assert_int_equal(parse(c, text, err), 0);
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
	free(c);
}

static void
validate_ok(const struct ibex_conf *c)
{
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static unsigned int
vlan_count(const struct ibex_conf_port *p)
{
	unsigned int v, n = 0;

	for (v = 0; v < IBEX_VLAN_COUNT; v++)
		n += ibex_conf_port_in_vlan(p, v);
	return n;
}

/* ---- defaults and ports added by code ---- */

static void
test_defaults(void **state)
{
	struct ibex_conf *c = *state;

	assert_int_equal(c->nb_workers, 0);
	assert_int_equal(c->burst, 32);
	assert_int_equal(c->tx_drain_us, 0);
	assert_int_equal(c->mbufs, 16384);
	assert_int_equal(c->nb_ports, 0);
	assert_int_equal(c->fdb_max_entries, 65536);
	assert_int_equal(c->fdb_ageing_s, 300);
	assert_true(c->fdb_learning);
	assert_int_equal(c->nb_static, 0);
	assert_string_equal(c->origin, "");
	/* zero ports is valid: the application then uses every ethdev */
	validate_ok(c);
}

static void
test_port_add(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p;
	char name[16];
	int i;

	assert_int_equal(ibex_conf_port_add(c, "p0", NULL), 0);
	assert_int_equal(ibex_conf_port_add(c, "p1", "net_ring1"), 1);
	p = &c->ports[0];
	assert_string_equal(p->name, "p0");
	assert_string_equal(p->dev, "p0");
	assert_string_equal(ibex_conf_port_dev(p), "p0");
	assert_int_equal(p->pvid, 1);
	assert_int_equal(p->mtu, 0);
	assert_int_equal(p->rx_desc, 1024);
	assert_int_equal(p->tx_desc, 1024);
	assert_true(p->speed_bps == 0);
	assert_false(p->trusted);
	assert_true(p->admin_up);
	assert_false(p->vlans_set);
	assert_true(ibex_conf_port_in_vlan(p, 1));
	assert_int_equal(vlan_count(p), 1);
	assert_int_equal(p->line, 0);
	assert_string_equal(c->ports[1].dev, "net_ring1");
	assert_int_equal(ibex_conf_port_find(c, "p1"), 1);
	assert_int_equal(ibex_conf_port_find(c, "p2"), -1);

	assert_int_equal(ibex_conf_port_add(c, "p0", NULL), -EEXIST);
	assert_int_equal(ibex_conf_port_add(c, "a/b", NULL), -EINVAL);
	assert_int_equal(ibex_conf_port_add(c, "", NULL), -EINVAL);
	for (i = 2; i < IBEX_MAX_PORTS; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_int_equal(ibex_conf_port_add(c, name, NULL), i);
	}
	assert_int_equal(ibex_conf_port_add(c, "one-more", NULL), -ENOSPC);
	assert_int_equal(c->nb_ports, IBEX_MAX_PORTS);
	validate_ok(c);
}

/* ---- statements and keys ---- */

static void
test_switch_keys(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "switch workers 4 burst 64 tx-drain-us 100 mbufs 32768");
	assert_int_equal(c->nb_workers, 4);
	assert_int_equal(c->burst, 64);
	assert_int_equal(c->tx_drain_us, 100);
	assert_int_equal(c->mbufs, 32768);
	/* the ends of every range, and a later statement overrides */
	parse_ok(c, "switch workers 16 burst 256\n"
		    "switch tx-drain-us 100000 mbufs 4194304\n"
		    "switch burst 1 mbufs 1024 workers 0 tx-drain-us 0");
	assert_int_equal(c->nb_workers, 0);
	assert_int_equal(c->burst, 1);
	assert_int_equal(c->tx_drain_us, 0);
	assert_int_equal(c->mbufs, 1024);
	assert_int_equal(c->nb_ports, 0);
}

static void
test_port_keys(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	parse_ok(c, "\n"
		    "port p0 dev net_ring0 pvid 10 vlans 1,10-20 speed 25G "
		    "mtu 9000 rx-desc 4096 tx-desc 64 trusted on admin down\n");
	assert_int_equal(c->nb_ports, 1);
	assert_string_equal(p->name, "p0");
	assert_string_equal(p->dev, "net_ring0");
	assert_int_equal(p->pvid, 10);
	assert_true(p->vlans_set);
	assert_int_equal(vlan_count(p), 12);
	assert_true(p->speed_bps == UINT64_C(25000000000));
	assert_int_equal(p->mtu, 9000);
	assert_int_equal(p->rx_desc, 4096);
	assert_int_equal(p->tx_desc, 64);
	assert_true(p->trusted);
	assert_false(p->admin_up);
	assert_int_equal(p->line, 2);

	/* a later statement modifies only what it names; line stays */
	parse_ok(c, "# again\nport p0 trusted off admin up mtu 68 "
		    "rx-desc 16384");
	assert_false(p->trusted);
	assert_true(p->admin_up);
	assert_int_equal(p->mtu, 68);
	assert_int_equal(p->rx_desc, 16384);
	assert_int_equal(p->tx_desc, 64);
	assert_string_equal(p->dev, "net_ring0");
	assert_int_equal(p->pvid, 10);
	assert_int_equal(p->line, 2);
	assert_int_equal(c->nb_ports, 1);
	validate_ok(c);
}

static void
test_port_order_and_names(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "port b\nport a.b_c-9 speed 100M\nport B\nport b mtu 1500");
	assert_int_equal(c->nb_ports, 3);
	assert_string_equal(c->ports[0].name, "b");
	assert_string_equal(c->ports[1].name, "a.b_c-9");
	assert_string_equal(c->ports[2].name, "B");
	assert_int_equal(c->ports[0].mtu, 1500);
	assert_int_equal(c->ports[0].line, 1);
	assert_int_equal(c->ports[1].line, 2);
	assert_int_equal(c->ports[2].line, 3);
	assert_true(c->ports[1].speed_bps == UINT64_C(100000000));
	/* dev defaults to the name */
	assert_string_equal(c->ports[1].dev, "a.b_c-9");
	/* 31 characters is the longest name */
	parse_ok(c, "port abcdefghijklmnopqrstuvwxyz01234");
	assert_int_equal(c->nb_ports, 4);
	validate_ok(c);
}

static void
test_port_vlan_membership(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	/* without vlans: member of the pvid only, following pvid changes */
	parse_ok(c, "port p0 pvid 7");
	assert_true(ibex_conf_port_in_vlan(p, 7));
	assert_false(ibex_conf_port_in_vlan(p, 1));
	assert_int_equal(vlan_count(p), 1);
	parse_ok(c, "port p0 pvid 8");
	assert_true(ibex_conf_port_in_vlan(p, 8));
	assert_int_equal(vlan_count(p), 1);
	assert_false(p->vlans_set);
	/* vlans replaces the set; a later pvid no longer changes it */
	parse_ok(c, "port p0 vlans 8,100");
	assert_int_equal(vlan_count(p), 2);
	parse_ok(c, "port p0 pvid 100");
	assert_int_equal(vlan_count(p), 2);
	assert_true(ibex_conf_port_in_vlan(p, 8));
	parse_ok(c, "port p0 vlans 100-102");
	assert_int_equal(vlan_count(p), 3);
	assert_false(ibex_conf_port_in_vlan(p, 8));
	validate_ok(c);
}

static void
test_fdb_keys(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "fdb ageing 0\nfdb max-entries 1\nfdb learning off");
	assert_int_equal(c->fdb_ageing_s, 0);
	assert_int_equal(c->fdb_max_entries, 1);
	assert_false(c->fdb_learning);
	parse_ok(c, "fdb ageing 1000000 max-entries 16777216 learning on");
	assert_int_equal(c->fdb_ageing_s, 1000000);
	assert_int_equal(c->fdb_max_entries, 16777216);
	assert_true(c->fdb_learning);
}

static void
test_fdb_static(void **state)
{
	struct ibex_conf *c = *state;
	static const uint8_t mac1[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t mac2[6] = { 0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34 };

	parse_ok(c, "port p0 vlans 1,5 pvid 5\n"
		    "port p1\n"
		    "fdb static 02:00:00:00:00:01 port p1 vlan 1\n"
		    "fdb static 0A:bc:DE:f0:12:34 port p0\n"
		    "fdb static 02:00:00:00:00:01 vlan 5 port p0\n"
		    "port p0 pvid 1\n");
	assert_int_equal(c->nb_static, 3);
	assert_memory_equal(c->statics[0].mac, mac1, 6);
	assert_int_equal(c->statics[0].port, 1);
	assert_int_equal(c->statics[0].vid, 1);
	assert_int_equal(c->statics[0].line, 3);
	assert_memory_equal(c->statics[1].mac, mac2, 6);
	assert_int_equal(c->statics[1].port, 0);
	/* the pvid of p0 when the line was read, not the later one */
	assert_int_equal(c->statics[1].vid, 5);
	assert_int_equal(c->statics[1].line, 4);
	assert_int_equal(c->statics[2].port, 0);
	assert_int_equal(c->statics[2].vid, 5);
	validate_ok(c);
}

static void
test_docs_example(void **state)
{
	struct ibex_conf *c = *state;

	/* the example at the top of docs/configuration.md */
	parse_ok(c,
		 "# two ports on ring devices, one trunk\n"
		 "switch workers 1 burst 32\n"
		 "\n"
		 "port p0 dev net_ring0 speed 25G mtu 9000\n"
		 "port p1 dev net_ring1 speed 25G pvid 10 vlans 1,10-20\n"
		 "port p1 trusted on          # may send VL15 frames\n"
		 "\n"
		 "fdb ageing 300\n"
		 "fdb static 02:00:00:00:00:01 port p0\n"
		 "fdb static 02:00:00:00:00:02 port p1 vlan 20\n");
	assert_int_equal(c->nb_ports, 2);
	assert_int_equal(c->nb_static, 2);
	assert_int_equal(c->statics[0].vid, 1);
	assert_int_equal(c->statics[1].vid, 20);
	assert_true(c->ports[1].trusted);
	validate_ok(c);
}

/* ---- rates ---- */

static void
test_rate_valid(void **state)
{
	static const struct {
		const char *s;
		uint64_t bps;
	} ok[] = {
		{ "0", 0 },
		{ "400000000", UINT64_C(400000000) },
		{ "25G", UINT64_C(25000000000) },
		{ "100M", UINT64_C(100000000) },
		{ "1.5G", UINT64_C(1500000000) },
		{ "1k", 1000 },
		{ "1K", 1000 },
		{ "2T", UINT64_C(2000000000000) },
		{ "10Gbps", UINT64_C(10000000000) },
		{ "10Gb", UINT64_C(10000000000) },
		{ "100bps", 100 },
		{ "100b", 100 },
		{ "1.25k", 1250 },
		{ "0.5k", 500 },
		{ "1.000000000000000000000000G", UINT64_C(1000000000) },
		{ "0.000000000001T", 1 },
		{ "007M", UINT64_C(7000000) },
		{ "18446744073709551615", UINT64_MAX },
		{ "18446744.073709551615T", UINT64_MAX },
		{ "1.6T", UINT64_C(1600000000000) },
		{ "18446744073G", UINT64_C(18446744073000000000) },
	};
	size_t i;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		if (ibex_parse_rate(ok[i].s, &v) != 0)
			fail_msg("rate '%s' rejected", ok[i].s);
		if (v != ok[i].bps)
			fail_msg("rate '%s': %llu, want %llu", ok[i].s,
				 (unsigned long long)v,
				 (unsigned long long)ok[i].bps);
	}
}

static void
test_rate_invalid(void **state)
{
	static const struct {
		const char *s;
		int ret;
	} bad[] = {
		{ "", -EINVAL }, { "G", -EINVAL }, { "abc", -EINVAL },
		{ "1.", -EINVAL }, { ".5G", -EINVAL }, { "-1", -EINVAL },
		{ "+1", -EINVAL }, { " 1", -EINVAL }, { "1 ", -EINVAL },
		/* fractions of a bit/s */
		{ "2.5", -EINVAL }, { "1.0001k", -EINVAL },
		{ "0.0000000000001T", -EINVAL },
		/* SI: m is milli, and no other lower-case multipliers */
		{ "25m", -EINVAL }, { "25g", -EINVAL }, { "25t", -EINVAL },
		{ "25Gbit", -EINVAL }, { "25Gbpss", -EINVAL },
		{ "25GG", -EINVAL }, { "25Bps", -EINVAL }, { "1e9", -EINVAL },
		{ "0x10", -EINVAL }, { "1,5G", -EINVAL }, { "1.5.1G", -EINVAL },
		/* beyond 64 bits */
		{ "18446744073709551616", -ERANGE },
		{ "18446744074G", -ERANGE },
		{ "20000000T", -ERANGE },
		{ "18446744.073709551616T", -ERANGE },
		{ "99999999999999999999999", -ERANGE },
	};
	size_t i;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (ibex_parse_rate(bad[i].s, &v) != bad[i].ret)
			fail_msg("rate '%s': %d, want %d", bad[i].s,
				 ibex_parse_rate(bad[i].s, &v), bad[i].ret);
		assert_true(v == 12345);
	}
	assert_int_equal(ibex_parse_rate(NULL, &v), -EINVAL);
	assert_int_equal(ibex_parse_rate("1G", NULL), -EINVAL);
}

/* ---- VLAN lists ---- */

static void
test_vlan_lists(void **state)
{
	static const struct {
		const char *list;
		uint16_t first, last;   /* one contiguous run expected */
	} runs[] = {
		{ "5", 5, 5 },
		{ "1", 1, 1 },
		{ "4094", 4094, 4094 },
		{ "10-20", 10, 20 },
		{ "7-7", 7, 7 },
		{ "1-10,5-15", 1, 15 },      /* overlapping */
		{ "3,1-4,2", 1, 4 },         /* order and repeats */
		{ "1-4094", 1, 4094 },
	};
	struct ibex_conf *c = *state;
	char line[64];
	unsigned int v;
	size_t i;

	parse_ok(c, "port p0");
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		snprintf(line, sizeof(line), "port p0 pvid %u vlans %s",
			 runs[i].first, runs[i].list);
		parse_ok(c, line);
		for (v = 0; v < IBEX_VLAN_COUNT; v++)
			if (ibex_conf_port_in_vlan(&c->ports[0], v) !=
			    (v >= runs[i].first && v <= runs[i].last))
				fail_msg("vlans %s: vlan %u", runs[i].list, v);
	}
	parse_ok(c, "port p0 vlans 1,10-20,4000");
	assert_int_equal(vlan_count(&c->ports[0]), 13);
	assert_true(ibex_conf_port_in_vlan(&c->ports[0], 4000));
	assert_false(ibex_conf_port_in_vlan(&c->ports[0], 21));
	assert_false(ibex_conf_port_in_vlan(&c->ports[0], 9));
}

static void
test_vlan_list_errors(void **state)
{
	static const struct {
		const char *list;
		const char *msg;
	} bad[] = {
		{ "5-3", "vlans: range 5-3 starts above its end" },
		{ "0", "vlans: 0 out of range 1..4094" },
		{ "4095", "vlans: 4095 out of range 1..4094" },
		{ "1-4095", "vlans: 4095 out of range 1..4094" },
		{ "0-10", "vlans: 0 out of range 1..4094" },
		{ "1,", "vlans: empty element in list" },
		{ ",1", "vlans: empty element in list" },
		{ "1,,2", "vlans: empty element in list" },
		{ "a", "vlans: 'a' is not a VLAN id" },
		{ "1-", "vlans: '' is not a VLAN id" },
		{ "-5", "vlans: '' is not a VLAN id" },
		{ "1-2-3", "vlans: '2-3' is not a VLAN id" },
		{ "10-x", "vlans: 'x' is not a VLAN id" },
		{ "99999999999999999999999",
		  "vlans: 99999999999999999999999 out of range 1..4094" },
	};
	char text[128], want[IBEX_CONF_ERR_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "port p0\nport p0 vlans %s",
			 bad[i].list);
		snprintf(want, sizeof(want), "x.conf:2: port p0: %s",
			 bad[i].msg);
		expect_err(text, want);
	}
}

/* ---- parse errors: exact message and line ---- */

static void
test_errors_statements(void **state)
{
	(void)state;
	expect_err("prot p0",
		   "x.conf:1: unknown statement 'prot' (expected one of: "
		   "switch, port, fdb)");
	expect_err("# first\n\n  Port p0",
		   "x.conf:3: unknown statement 'Port' (expected one of: "
		   "switch, port, fdb)");
	expect_err("switch burst 32\nswitch",
		   "x.conf:2: switch: missing settings (expected one of: "
		   "workers, burst, tx-drain-us, mbufs)");
	expect_err("port p0\nfdb",
		   "x.conf:2: fdb: missing settings (expected one of: "
		   "static, ageing, max-entries, learning)");
	expect_err("\n\n\nfdb ageng 5",
		   "x.conf:4: fdb: unknown key 'ageng' (expected one of: "
		   "static, ageing, max-entries, learning)");
	expect_err("fdb ageing 5 learning",
		   "x.conf:1: fdb: missing value for 'learning'");
	expect_err("fdb ageing 5 learnin on",
		   "x.conf:1: fdb: unknown key 'learnin' (expected one of: "
		   "ageing, max-entries, learning)");
}

static void
test_errors_switch(void **state)
{
	(void)state;
	expect_err("switch\tburst 32 workes 2",
		   "x.conf:1: switch: unknown key 'workes' (expected one of: "
		   "workers, burst, tx-drain-us, mbufs)");
	expect_err("#\nswitch burst",
		   "x.conf:2: switch: missing value for 'burst'");
	expect_err("switch burst 0",
		   "x.conf:1: switch: burst: 0 out of range 1..256");
	expect_err("switch burst 257",
		   "x.conf:1: switch: burst: 257 out of range 1..256");
	expect_err("switch workers 17",
		   "x.conf:1: switch: workers: 17 out of range 0..16");
	expect_err("switch tx-drain-us 100001",
		   "x.conf:1: switch: tx-drain-us: 100001 out of range "
		   "0..100000");
	expect_err("switch mbufs 1023",
		   "x.conf:1: switch: mbufs: 1023 out of range 1024..4194304");
	expect_err("switch mbufs 4194305",
		   "x.conf:1: switch: mbufs: 4194305 out of range "
		   "1024..4194304");
	expect_err("switch burst 32x",
		   "x.conf:1: switch: burst: '32x' is not a number");
	expect_err("switch burst -1",
		   "x.conf:1: switch: burst: '-1' is not a number");
	expect_err("switch burst 0x20",
		   "x.conf:1: switch: burst: '0x20' is not a number");
	expect_err("switch burst 99999999999999999999",
		   "x.conf:1: switch: burst: 99999999999999999999 out of "
		   "range 1..256");
	expect_err("switch burst 32 burst 64",
		   "x.conf:1: switch: duplicate key 'burst'");
}

static void
test_errors_port(void **state)
{
	(void)state;
	expect_err("port p0\nport p1\n\n\n\n\nport p0 speeed 25G",
		   "x.conf:7: port p0: unknown key 'speeed' (expected one of: "
		   "dev, pvid, vlans, speed, mtu, rx-desc, tx-desc, trusted, "
		   "admin)");
	expect_err("port p0 pvid 5000",
		   "x.conf:1: port p0: pvid: 5000 out of range 1..4094");
	expect_err("port p0 pvid 0",
		   "x.conf:1: port p0: pvid: 0 out of range 1..4094");
	expect_err("port p0\nport p0 mtu",
		   "x.conf:2: port p0: missing value for 'mtu'");
	expect_err("port p0 mtu 67",
		   "x.conf:1: port p0: mtu: 67 out of range 68..9600");
	expect_err("port p0 mtu 9601",
		   "x.conf:1: port p0: mtu: 9601 out of range 68..9600");
	expect_err("port",
		   "x.conf:1: port: missing port name");
	expect_err("port # p0",
		   "x.conf:1: port: missing port name");
	expect_err("port p/0",
		   "x.conf:1: port: invalid name 'p/0' (1..31 characters of "
		   "A-Z a-z 0-9 _ . -)");
	expect_err("port abcdefghijklmnopqrstuvwxyz012345",
		   "x.conf:1: port: invalid name "
		   "'abcdefghijklmnopqrstuvwxyz012345' (1..31 characters of "
		   "A-Z a-z 0-9 _ . -)");
	expect_err("port p0 rx-desc 100",
		   "x.conf:1: port p0: rx-desc: 100 is not a power of two");
	expect_err("port p0 tx-desc 32",
		   "x.conf:1: port p0: tx-desc: 32 out of range 64..16384");
	expect_err("port p0 tx-desc 32768",
		   "x.conf:1: port p0: tx-desc: 32768 out of range 64..16384");
	expect_err("port p0 trusted yes",
		   "x.conf:1: port p0: trusted: 'yes' is not one of: off, on");
	expect_err("port p0 admin on",
		   "x.conf:1: port p0: admin: 'on' is not one of: down, up");
	expect_err("port p0 speed 25X",
		   "x.conf:1: port p0: speed: '25X' is not a rate "
		   "(e.g. 25G, 100M, 1.5G)");
	expect_err("port p0 speed 20000000T",
		   "x.conf:1: port p0: speed: '20000000T' is too large");
	expect_err("port p0 mtu 1500 mtu 9000",
		   "x.conf:1: port p0: duplicate key 'mtu'");
	expect_err("port p0 mtu 1500 mtu 9000",
		   "x.conf:1: port p0: duplicate key 'mtu'");
}

static void
test_errors_dev_too_long(void **state)
{
	char dev[IBEX_DEV_LEN + 1];
	char text[IBEX_DEV_LEN + 64], want[IBEX_CONF_ERR_LEN];
	struct ibex_conf *c = *state;

	/* IBEX_DEV_LEN - 1 characters fit, one more does not */
	memset(dev, 'd', IBEX_DEV_LEN - 1);
	dev[IBEX_DEV_LEN - 1] = '\0';
	snprintf(text, sizeof(text), "port p0 dev %s", dev);
	parse_ok(c, text);
	assert_string_equal(c->ports[0].dev, dev);
	strcat(dev, "e");
	snprintf(text, sizeof(text), "port p0 dev %s", dev);
	snprintf(want, sizeof(want), "x.conf:1: port p0: dev: '%s' is too "
		 "long (max 127 characters)", dev);
	expect_err(text, want);
}

static void
test_errors_fdb_static(void **state)
{
	(void)state;
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port p9",
		   "x.conf:2: fdb static: unknown port 'p9'");
	/* the port must be declared before the static entry */
	expect_err("fdb static 02:00:00:00:00:01 port p0\nport p0",
		   "x.conf:1: fdb static: unknown port 'p0'");
	expect_err("port p0\n\nfdb static",
		   "x.conf:3: fdb static: missing MAC address");
	expect_err("port p0\nfdb static 02:00:00:00:00 port p0",
		   "x.conf:2: fdb static: invalid MAC address "
		   "'02:00:00:00:00'");
	expect_err("port p0\nfdb static 02-00-00-00-00-01 port p0",
		   "x.conf:2: fdb static: invalid MAC address "
		   "'02-00-00-00-00-01'");
	expect_err("port p0\nfdb static 01:00:5e:00:00:01 port p0",
		   "x.conf:2: fdb static: 01:00:5e:00:00:01 is a group "
		   "(multicast) address");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 vlan 5",
		   "x.conf:2: fdb static: missing 'port <name>'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01",
		   "x.conf:2: fdb static: missing 'port <name>'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port p0 vlan 4095",
		   "x.conf:2: fdb static: vlan: 4095 out of range 1..4094");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port",
		   "x.conf:2: fdb static: missing value for 'port'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port p0 vid 3",
		   "x.conf:2: fdb static: unknown key 'vid' (expected one of: "
		   "port, vlan)");
}

static void
test_errors_limits(void **state)
{
	size_t cap = 64 * 1100 + 64;
	char *text = malloc(cap);
	char want[IBEX_CONF_ERR_LEN];
	size_t used = 0;
	int i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i <= IBEX_MAX_PORTS; i++)
		used += snprintf(text + used, cap - used, "port p%d\n", i);
	snprintf(want, sizeof(want), "x.conf:%d: port p%d: too many ports "
		 "(max %d)", IBEX_MAX_PORTS + 1, IBEX_MAX_PORTS,
		 IBEX_MAX_PORTS);
	expect_err(text, want);

	used = snprintf(text, cap, "port p0\n");
	for (i = 0; i <= IBEX_CONF_MAX_STATIC; i++)
		used += snprintf(text + used, cap - used,
				 "fdb static 02:00:00:00:%02x:%02x port p0\n",
				 i >> 8, i & 0xff);
	snprintf(want, sizeof(want), "x.conf:%d: fdb static: too many static "
		 "entries (max %d)", IBEX_CONF_MAX_STATIC + 2,
		 IBEX_CONF_MAX_STATIC);
	expect_err(text, want);
	free(text);
}

/* "port p0 ... mtu 1500" padded with blanks to IBEX_CONF_LINE_MAX
 * characters: parsing it fully proves the line was not split. */
static void
long_line(char *buf)
{
	const char *head = "port p0", *tail = " mtu 1500";
	size_t pad = IBEX_CONF_LINE_MAX - strlen(head) - strlen(tail);

	snprintf(buf, IBEX_CONF_LINE_MAX + 1, "%s%*s%s", head, (int)pad, "",
		 tail);
	assert_int_equal(strlen(buf), IBEX_CONF_LINE_MAX);
}

static void
test_errors_long_line(void **state)
{
	struct ibex_conf *c = *state;
	char *text = malloc(3 * IBEX_CONF_LINE_MAX);

	if (text == NULL) {
		fail();
		return;
	}
	/* exactly IBEX_CONF_LINE_MAX characters, read as one statement */
	strcpy(text, "# first\n");
	long_line(text + strlen(text));
	strcat(text, "\nport p1\n");
	parse_ok(c, text);
	assert_int_equal(c->nb_ports, 2);
	assert_int_equal(c->ports[0].mtu, 1500);
	assert_int_equal(c->ports[0].line, 2);
	/* one more character is an error naming line 3 */
	strcpy(text, "port p0\n#\n");
	memset(text + 10, ' ', IBEX_CONF_LINE_MAX + 1);
	strcpy(text + 11 + IBEX_CONF_LINE_MAX, "\nport p1\n");
	expect_err(text, "x.conf:3: line too long (max 4096 characters)");
	free(text);
}

/* A failing line changes nothing: neither a new nor an existing port. */
static void
test_error_leaves_object(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN];

	parse_ok(c, "port p0 mtu 1500");
	assert_int_equal(parse(c, "port p0 mtu 9000 pvid 0", err), -EINVAL);
	assert_int_equal(c->ports[0].mtu, 1500);
	assert_int_equal(parse(c, "port p1 mtu 9000 pvid 0", err), -EINVAL);
	assert_int_equal(c->nb_ports, 1);
	assert_int_equal(ibex_conf_port_find(c, "p1"), -1);
	assert_int_equal(parse(c, "fdb static 02:00:00:00:00:01 port p0 "
			       "vlan 0", err), -EINVAL);
	assert_int_equal(c->nb_static, 0);
	/* parsing stops at the first error: line 3 is never read */
	assert_int_equal(parse(c, "port p2\nport p3 mtu 1\nport p4", err),
			 -EINVAL);
	assert_int_equal(c->nb_ports, 2);
	assert_int_equal(ibex_conf_port_find(c, "p4"), -1);
}

/* ---- validation ---- */

static void
test_validate_errors(void **state)
{
	(void)state;
	expect_verr("port p0 dev net_ring0\n"
		    "port p1 dev net_ring1\n"
		    "# p2 takes p0's device\n"
		    "port p2 dev net_ring0\n",
		    "x.conf:4: port p2: dev 'net_ring0' is already used by "
		    "port p0 (line 1)");
	/* the default dev (the name) counts too */
	expect_verr("port p0\nport p1 dev p0",
		    "x.conf:2: port p1: dev 'p0' is already used by port p0 "
		    "(line 1)");
	/* the port's declaring line, even when vlans came later */
	expect_verr("switch burst 8\nport p0 pvid 5\nport p0 vlans 1-4",
		    "x.conf:2: port p0: pvid 5 is not in its vlans");
	expect_verr("port p0\nport p1\n"
		    "fdb static 02:00:00:00:00:01 port p0\n"
		    "fdb static 02:00:00:00:00:01 port p0\n"
		    "fdb static 02:00:00:00:00:01 port p1\n",
		    "x.conf:5: fdb static 02:00:00:00:00:01 vlan 1: already "
		    "on port p0 (line 3)");
	expect_verr("port p0 vlans 1,7\n"
		    "fdb static 02:00:00:00:00:0a port p0 vlan 8\n",
		    "x.conf:2: fdb static 02:00:00:00:00:0a vlan 8: port p0 "
		    "is not a member of vlan 8");
	expect_verr("fdb max-entries 2\nport p0\n"
		    "fdb static 02:00:00:00:00:01 port p0\n"
		    "fdb static 02:00:00:00:00:02 port p0\n"
		    "fdb static 02:00:00:00:00:03 port p0\n",
		    "x.conf:5: fdb static 02:00:00:00:00:03 vlan 1: more "
		    "static entries than fdb max-entries 2");
}

static void
test_validate_ok_cases(void **state)
{
	struct ibex_conf *c = *state;

	/* same (mac, vid) on another vlan, or twice on the same port */
	parse_ok(c, "port p0 vlans 1-2\nport p1 vlans 1-2\n"
		    "fdb static 02:00:00:00:00:01 port p0 vlan 1\n"
		    "fdb static 02:00:00:00:00:01 port p1 vlan 2\n"
		    "fdb static 02:00:00:00:00:01 port p0 vlan 1\n"
		    "fdb max-entries 3\n");
	validate_ok(c);
	assert_string_equal(c->origin, "x.conf");
}

/* Objects built or changed by code are checked against the same ranges. */
static void
test_validate_built(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN];

	c->burst = 0;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<config>: switch: burst: 0 out of range "
			    "1..256");
	ibex_conf_init(c);
	c->fdb_max_entries = 0;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<config>: fdb: max-entries: 0 out of range "
			    "1..16777216");
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_port_add(c, "p0", NULL), 0);
	c->ports[0].mtu = 0;   /* unset: allowed */
	validate_ok(c);
	c->ports[0].rx_desc = 1000;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<config>: port p0: rx-desc: 1000 is not a "
			    "power of two");
	c->ports[0].rx_desc = 1024;
	c->ports[0].vlans[0] |= 1;    /* vlan 0 */
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<config>: port p0: vlans include reserved "
			    "id 0 or 4095");
	c->ports[0].vlans[0] &= ~UINT64_C(1);
	c->nb_static = 1;
	memset(&c->statics[0], 0, sizeof(c->statics[0]));
	c->statics[0].mac[0] = 2;
	c->statics[0].vid = 1;
	c->statics[0].port = 3;
	c->statics[0].line = 9;
	snprintf(c->origin, sizeof(c->origin), "live");
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "live:9: fdb static 02:00:00:00:00:00 vlan 1: "
			    "port 3 does not exist");
	c->statics[0].port = 0;
	validate_ok(c);
}

/* ---- lines, files, comments ---- */

static void
test_parse_line(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN];

	assert_int_equal(ibex_conf_parse_line(c, "port p0 mtu 1500", "ctl", 1,
					      err, sizeof(err)), 0);
	assert_string_equal(c->origin, "ctl");
	assert_int_equal(c->ports[0].line, 1);
	assert_int_equal(ibex_conf_parse_line(c, "port p0 mtu 1", "cmd", 42,
					      err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "cmd:42: port p0: mtu: 1 out of range "
			    "68..9600");
	/* origin kept once set; blank and comment-only lines are no-ops */
	assert_string_equal(c->origin, "ctl");
	assert_int_equal(ibex_conf_parse_line(c, "   # nothing", "cmd", 43,
					      err, sizeof(err)), 0);
	assert_int_equal(ibex_conf_parse_line(c, "", "cmd", 44, err,
					      sizeof(err)), 0);
	assert_string_equal(err, "");
	/* no error buffer: still refused */
	assert_int_equal(ibex_conf_parse_line(c, "bogus", "cmd", 45, NULL, 0),
			 -EINVAL);
	assert_int_equal(ibex_conf_parse_line(c, NULL, "cmd", 45, err,
					      sizeof(err)), -EINVAL);
}

static void
test_comments_blanks(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN];

	parse_ok(c, "# header comment\n"
		    "\n"
		    "   \t  \n"
		    "switch burst 16   # trailing comment\n"
		    "\t# indented comment\n"
		    "port p0#no space before the comment\n"
		    "port\tp1\t\tmtu\t1500\r\n"
		    "#port p2\n"
		    "fdb learning off # fdb learning on\n"
		    "\n");
	assert_int_equal(c->burst, 16);
	assert_int_equal(c->nb_ports, 2);
	assert_string_equal(c->ports[0].name, "p0");
	assert_int_equal(c->ports[1].mtu, 1500);
	assert_int_equal(c->ports[1].line, 7);
	assert_false(c->fdb_learning);
	/* an error after the mix counts every line */
	assert_int_equal(parse(c, "# a\n\n#b\n   \nport p0 mtu x # c\n", err),
			 -EINVAL);
	assert_string_equal(err, "x.conf:5: port p0: mtu: 'x' is not a "
			    "number");
	parse_ok(c, "");
	parse_ok(c, "\n\n");
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void
test_parse_file(void **state)
{
	struct ibex_conf *c = *state;
	char path[] = "/tmp/ibex_conf_testXXXXXX";
	char err[IBEX_CONF_ERR_LEN], want[IBEX_CONF_ERR_LEN + 64];
	char *big;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_file(path, "# test\nport p0 dev net_ring0 speed 10G\n\n"
		   "port p1\nfdb static 02:00:00:00:00:01 port p1");
	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)), 0);
	assert_string_equal(c->origin, path);
	assert_int_equal(c->nb_ports, 2);
	assert_int_equal(c->ports[1].line, 4);
	assert_int_equal(c->nb_static, 1);
	validate_ok(c);

	write_file(path, "port p0\n\nport p0 pvid 4095\n");
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:3: port p0: pvid: 4095 out of range "
		 "1..4094", path);
	assert_string_equal(err, want);

	/* a line of 4096 characters is read whole; 4097 is too long */
	big = malloc(2 * IBEX_CONF_LINE_MAX + 64);
	if (big == NULL) {
		fail();
		return;
	}
	long_line(big);
	strcat(big, "\nport p1\n");
	write_file(path, big);
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)), 0);
	assert_int_equal(c->nb_ports, 2);
	assert_int_equal(c->ports[0].mtu, 1500);
	assert_int_equal(c->ports[1].line, 2);
	strcpy(big, "port p0\n#");
	memset(big + 9, 'x', IBEX_CONF_LINE_MAX);
	strcpy(big + 9 + IBEX_CONF_LINE_MAX, "\nport p1\n");
	write_file(path, big);
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:2: line too long (max 4096 "
		 "characters)", path);
	assert_string_equal(err, want);
	/* the same without its final newline, at the end of the file */
	big[8 + IBEX_CONF_LINE_MAX] = '\0';
	write_file(path, big);
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)), 0);
	assert_int_equal(c->nb_ports, 1);
	free(big);
	unlink(path);

	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)),
			 -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or "
		 "directory", path);
	assert_string_equal(err, want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_defaults),
		T(test_port_add),
		T(test_switch_keys),
		T(test_port_keys),
		T(test_port_order_and_names),
		T(test_port_vlan_membership),
		T(test_fdb_keys),
		T(test_fdb_static),
		T(test_docs_example),
		T(test_rate_valid),
		T(test_rate_invalid),
		T(test_vlan_lists),
		T(test_vlan_list_errors),
		T(test_errors_statements),
		T(test_errors_switch),
		T(test_errors_port),
		T(test_errors_dev_too_long),
		T(test_errors_fdb_static),
		T(test_errors_limits),
		T(test_errors_long_line),
		T(test_error_leaves_object),
		T(test_validate_errors),
		T(test_validate_ok_cases),
		T(test_validate_built),
		T(test_parse_line),
		T(test_comments_blanks),
		T(test_parse_file),
#undef T
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
