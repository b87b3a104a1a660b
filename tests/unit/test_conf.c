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

#include "ibex_cbfc.h"
#include "ibex_conf.h"

/* The "expected one of" hints, in the order of the grammar's tables. */
#define STMTS "switch, port, fdb, ecmp, buffer, sl, pcp2sl, dscp2sl, sl2vl, " \
	"vlarb, lane, credit, pfc, cbfc, ecn, trim, aggregation"
#define SWITCH_KEYS "workers, burst, tx-drain-us, mbufs, vl15-rate, " \
	"ctl-socket, mbuf-size, ecmp-seed"
#define PORT_KEYS "dev, pvid, vlans, speed, mtu, rx-desc, tx-desc, " \
	"rx-queues, " \
	"trusted, admin, flood, vls, sl-from, bpf-fallback, bpf-jit, shape, vl-queue, fc, " \
	"rx-scatter, lldp-to, stp-to"

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
	assert_true(p->flood);
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

/* ibex_conf_init_zeroed() on zero memory is ibex_conf_init(), and
 * ibex_conf_copy() is a memcpy, onto zeroed memory, onto a conf of more
 * ports (a reload that drops ports) and of fewer, ports past 31
 * included. */
static void
test_conf_copy(void **state)
{
	struct ibex_conf *a = malloc(sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct ibex_conf *d = calloc(1, sizeof(*d));
	char name[16];
	int i;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	memset(a, 0x5a, sizeof(*a));
	ibex_conf_init(a);
	ibex_conf_init_zeroed(b);
	assert_memory_equal(a, b, sizeof(*a));
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_int_equal(ibex_conf_port_add(a, name, NULL), i);
	}
	parse_ok(a, "port p39 flood off\nfdb static 02:00:00:00:00:01 port "
		 "p39 vlan 1\n");
	ibex_conf_copy(d, a);                 /* onto zeroed memory */
	assert_memory_equal(d, a, sizeof(*a));
	assert_false(d->ports[39].flood);
	parse_ok(b, "port q0\nport q1\n");
	ibex_conf_copy(d, b);                 /* 40 ports -> 2 */
	assert_memory_equal(d, b, sizeof(*b));
	assert_int_equal(d->nb_ports, 2);
	assert_string_equal(d->ports[39].name, "");
	ibex_conf_copy(d, a);                 /* 2 -> 40 */
	assert_memory_equal(d, a, sizeof(*a));
	free(a);
	free(b);
	free(d);
}

/* Many static entries (a fabric switch: one per rank) are checked for
 * duplicates by an index, with the same verdicts as the pairwise check:
 * a key listed again on its own port is fine, on another refused, and
 * the error names the first entry's port and line. */
static void
test_static_dup_many(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";
	unsigned int i, n = 3000;

	assert_int_equal(ibex_conf_port_add(c, "p0", NULL), 0);
	assert_int_equal(ibex_conf_port_add(c, "p1", NULL), 1);
	for (i = 0; i < n; i++) {
		struct ibex_conf_fdb_static *s = &c->statics[i];

		memset(s, 0, sizeof(*s));
		s->mac[0] = 0x02;
		s->mac[4] = (uint8_t)(i >> 8);
		s->mac[5] = (uint8_t)i;
		s->vid = 1;
		s->port = (uint16_t)(i % 2);
		s->line = (int)i + 1;
	}
	c->nb_static = (uint16_t)n;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* entry 77 again, on its own port, then on the other */
	c->statics[n] = c->statics[77];
	c->statics[n].line = (int)n + 1;
	c->nb_static = (uint16_t)(n + 1);
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), 0);
	c->statics[n + 1] = c->statics[77];
	c->statics[n + 1].port = 0;
	c->statics[n + 1].line = (int)n + 2;
	c->nb_static = (uint16_t)(n + 2);
	assert_int_not_equal(ibex_conf_validate(c, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "already on port p1 (line 78)"));
	/* another MAC is another key */
	c->statics[n + 1].mac[3] = 1;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), 0);
}

/* The same entry said twice (a file, or `add fdb` repeated) is held once;
 * other entries keep their order. */
static void
test_static_same_twice(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_int_equal(ibex_conf_parse_string(c,
		"port p0\nport p1\n"
		"fdb static 02:00:00:00:00:01 port p0\n"
		"fdb static 02:00:00:00:00:02 port p1\n"
		"fdb static 02:00:00:00:00:01 port p0\n"
		"fdb static 02:00:00:00:00:01 port p0\n"
		"fdb static 02:00:00:00:00:03 port p0\n",
		"x.conf", err, sizeof(err)), 0);
	assert_int_equal(c->nb_static, 5);
	assert_int_equal(ibex_conf_finish(c, err, sizeof(err)), 0);
	assert_int_equal(c->nb_static, 3);
	assert_int_equal(c->statics[0].mac[5], 1);
	assert_int_equal(c->statics[0].line, 3);
	assert_int_equal(c->statics[1].mac[5], 2);
	assert_int_equal(c->statics[2].mac[5], 3);
}

/* A repeated entry counts once against fdb max-entries; the same MAC on
 * another port is still refused, naming the first. */
static void
test_static_same_twice_max(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_int_equal(ibex_conf_parse_string(c,
		"fdb max-entries 2\nport p0\nport p1\n"
		"fdb static 02:00:00:00:00:01 port p0\n"
		"fdb static 02:00:00:00:00:02 port p1\n"
		"fdb static 02:00:00:00:00:01 port p0\n",
		"x.conf", err, sizeof(err)), 0);
	assert_int_equal(ibex_conf_finish(c, err, sizeof(err)), 0);
	assert_int_equal(c->nb_static, 2);
	assert_int_equal(ibex_conf_parse_string(c,
		"fdb max-entries 3\nfdb static 02:00:00:00:00:01 port p1\n",
		"y.conf", err, sizeof(err)), 0);
	assert_int_not_equal(ibex_conf_finish(c, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "already on port p0 (line 4)"));
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

/* port NAME flood off|on: a port off a fabric's flooding tree. */
static void
test_port_flood(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "port p0\nport p1 flood off\n");
	assert_true(c->ports[0].flood);
	assert_false(c->ports[1].flood);
	validate_ok(c);
	/* Given again it changes only the flag, as a live command does. */
	parse_ok(c, "port p1 pvid 1 flood on\nport p0 flood off");
	assert_true(c->ports[1].flood);
	assert_false(c->ports[0].flood);
	validate_ok(c);
	expect_err("port p0 flood no",
		   "x.conf:1: port p0: flood: 'no' is not one of: off, on");
	expect_err("port p0\nport p0 flood",
		   "x.conf:2: port p0: missing value for 'flood'");
	expect_err("port p0 flood off flood on",
		   "x.conf:1: port p0: duplicate key 'flood'");
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

/* ECMP groups: defined, named by fdb static, redefined, removed. */
static void
test_ecmp_groups(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";

	parse_ok(c, "port p0\nport p1 vlans 1,7\nport p2 vlans 1,7\n"
		    "switch ecmp-seed 42\n"
		    "ecmp up ports p1,p2\n"
		    "ecmp all ports p0,p1,p2\n"
		    "fdb static 02:00:00:00:00:01 ecmp up vlan 7\n"
		    "fdb static 02:00:00:00:00:02 ecmp all\n"
		    "fdb static 02:00:00:00:00:03 port p0\n");
	assert_int_equal(c->ecmp_seed, 42);
	assert_int_equal(c->nb_ecmp, 2);
	assert_string_equal(c->ecmp[0].name, "up");
	assert_int_equal(c->ecmp[0].n, 2);
	assert_int_equal(c->ecmp[0].ports[0], 1);
	assert_int_equal(c->ecmp[0].ports[1], 2);
	assert_int_equal(c->ecmp[0].line, 5);
	assert_int_equal(c->ecmp[1].n, 3);
	assert_int_equal(c->statics[0].port, IBEX_EGRESS_ECMP | 0);
	assert_int_equal(c->statics[0].vid, 7);
	/* the vlan defaults to the pvid of the group's first member */
	assert_int_equal(c->statics[1].port, IBEX_EGRESS_ECMP | 1);
	assert_int_equal(c->statics[1].vid, 1);
	assert_string_equal(ibex_conf_egress_name(c, c->statics[1].port), "all");
	assert_string_equal(ibex_conf_egress_name(c, 0), "p0");
	assert_int_equal(ibex_conf_egress_port(c, c->statics[0].port), 1);
	validate_ok(c);
	/* new members for a group: same index, entries follow */
	parse_ok(c, "ecmp up ports p2,p1,p0\n");
	assert_int_equal(c->nb_ecmp, 2);
	assert_int_equal(c->ecmp[0].n, 3);
	/* p0 does not carry vlan 7 */
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x.conf:7: fdb static 02:00:00:00:00:01 vlan "
			    "7: port p0 of ecmp group up is not a member of "
			    "vlan 7");
	parse_ok(c, "ecmp up ports p2,p1\n");
	validate_ok(c);
	/* removal: refused while named, then the later groups move down */
	assert_int_equal(parse(c, "ecmp del up", err), -EINVAL);
	assert_string_equal(err, "x.conf:1: ecmp: group up is in use by the "
			    "fdb static entry of line 7");
	parse_ok(c, "fdb del 02:00:00:00:00:01 vlan 7\necmp del up\n");
	assert_int_equal(c->nb_ecmp, 1);
	assert_string_equal(c->ecmp[0].name, "all");
	assert_int_equal(c->statics[0].port, IBEX_EGRESS_ECMP | 0);
	validate_ok(c);
}

/* Packet trimming: size in range and a multiple of 4, a lossy lane the
 * port has; off turns it off. */
static void
test_trim(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";

	parse_ok(c, "port p0 vls 4 fc credit\ntrim p0 size 512 dscp 46 vl 2\n");
	assert_int_equal(c->ports[0].trim_size, 512);
	assert_int_equal(c->ports[0].trim_dscp, 46);
	assert_int_equal(c->ports[0].trim_vl, 2);
	validate_ok(c);
	parse_ok(c, "lane p0 vl 2 lossless\n");
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x.conf:2: port p0: trim vl 2 is lossless: "
			    "trimmed frames take a lossy lane");
	parse_ok(c, "trim p0 off\n");
	assert_int_equal(c->ports[0].trim_size, 0);
	validate_ok(c);
	assert_int_equal(parse(c, "trim p0 size 510", err), -EINVAL);
	assert_string_equal(err, "x.conf:1: trim p0: trim size 510 is not a "
			    "multiple of 4");
	assert_int_equal(parse(c, "trim p0 size 2KB", err), -EINVAL);
	assert_int_equal(parse(c, "trim p0 dscp 3", err), -EINVAL);
	assert_string_equal(err, "x.conf:1: trim p0: trim needs a size "
			    "(256..1024 bytes, a multiple of 4)");
}

/* Adaptive groups: with the members or on their own, the members kept. */
static void
test_ecmp_adaptive(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "port p0\nport p1\necmp up ports p0,p1 adaptive flowlet 50\n");
	assert_int_equal(c->ecmp[0].mode, IBEX_ECMP_FLOWLET);
	assert_int_equal(c->ecmp[0].flowlet_us, 50);
	parse_ok(c, "ecmp up adaptive packet\n");
	assert_int_equal(c->ecmp[0].mode, IBEX_ECMP_PACKET);
	assert_int_equal(c->ecmp[0].n, 2);
	parse_ok(c, "ecmp up adaptive flowlet\n");
	assert_int_equal(c->ecmp[0].flowlet_us, IBEX_CONF_FLOWLET_US);
	parse_ok(c, "ecmp up adaptive hash\n");
	assert_int_equal(c->ecmp[0].mode, IBEX_ECMP_HASH);
	/* new members reset the mode: the statement says it all */
	parse_ok(c, "ecmp up adaptive packet\necmp up ports p1,p0\n");
	assert_int_equal(c->ecmp[0].mode, IBEX_ECMP_HASH);
	validate_ok(c);
}

static void
test_ecmp_errors(void **state)
{
	(void)state;
	expect_err("port p0\necmp up ports p0,p9",
		   "x.conf:2: ecmp up: unknown port 'p9'");
	expect_err("port p0\necmp up ports p0,p0",
		   "x.conf:2: ecmp up: port p0 named twice");
	expect_err("port p0\necmp up",
		   "x.conf:2: ecmp up: expected 'ecmp up ports <port>,<port>... "
		   "[adaptive hash|packet|flowlet [<gap-us>]]'");
	expect_err("port p0\necmp up members p0",
		   "x.conf:2: ecmp up: expected 'ecmp up ports <port>,<port>... "
		   "[adaptive hash|packet|flowlet [<gap-us>]]'");
	expect_err("port p0\necmp up ports p0 adaptive fastest",
		   "x.conf:2: ecmp up: adaptive: 'fastest' is not hash, packet "
		   "or flowlet");
	expect_err("port p0\necmp up ports p0 adaptive packet 5",
		   "x.conf:2: ecmp up: expected 'adaptive hash|packet|flowlet "
		   "[<gap-us>]'");
	expect_err("port p0\necmp up ports p0 adaptive flowlet 0",
		   "x.conf:2: ecmp up: adaptive flowlet: gap '0' is not "
		   "1..1000000 microseconds");
	expect_err("port p0\necmp down adaptive packet",
		   "x.conf:2: ecmp down: unknown ecmp group 'down'");
	expect_err("port p0\necmp",
		   "x.conf:2: ecmp: missing group name");
	expect_err("port p0\necmp u/p ports p0",
		   "x.conf:2: ecmp u/p: invalid group name 'u/p'");
	expect_err("port p0\necmp del up",
		   "x.conf:2: ecmp: unknown ecmp group 'up'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 ecmp up",
		   "x.conf:2: fdb static: unknown ecmp group 'up' (an 'ecmp up "
		   "ports ...' line must come first)");
	expect_err("port p0\necmp up ports p0\n"
		   "fdb static 02:00:00:00:00:01 ecmp up port p0",
		   "x.conf:3: fdb static: 'ecmp' and 'port' exclude each other");
	expect_verr("port p0\nport p1\necmp up ports p1\n"
		    "fdb static 02:00:00:00:00:01 port p0\n"
		    "fdb static 02:00:00:00:00:01 ecmp up",
		    "x.conf:5: fdb static 02:00:00:00:00:01 vlan 1: already "
		    "on port p0 (line 4)");
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
		/* SI: m is milli (g and t are accepted: see test_units) */
		{ "25m", -EINVAL }, { "25mbps", -EINVAL },
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
		   STMTS ")");
	expect_err("# first\n\n  Port p0",
		   "x.conf:3: unknown statement 'Port' (expected one of: "
		   STMTS ")");
	expect_err("switch burst 32\nswitch",
		   "x.conf:2: switch: missing settings (expected one of: "
		   SWITCH_KEYS ")");
	expect_err("port p0\nfdb",
		   "x.conf:2: fdb: missing settings (expected one of: "
		   "static, del, ageing, max-entries, learning)");
	expect_err("\n\n\nfdb ageng 5",
		   "x.conf:4: fdb: unknown key 'ageng' (expected one of: "
		   "static, del, ageing, max-entries, learning)");
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
		   SWITCH_KEYS ")");
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
		   PORT_KEYS ")");
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
		   "x.conf:2: fdb static: missing 'port <name>' or 'ecmp <group>'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01",
		   "x.conf:2: fdb static: missing 'port <name>' or 'ecmp <group>'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port p0 vlan 4095",
		   "x.conf:2: fdb static: vlan: 4095 out of range 1..4094");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port",
		   "x.conf:2: fdb static: missing value for 'port'");
	expect_err("port p0\nfdb static 02:00:00:00:00:01 port p0 vid 3",
		   "x.conf:2: fdb static: unknown key 'vid' (expected one of: "
		   "port, ecmp, vlan)");
}

static void
test_errors_limits(void **state)
{
	/* a line per static entry and one over (42 bytes each) */
	size_t cap = 48 * ((size_t)IBEX_CONF_MAX_STATIC + 2) + 64;
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

static void
test_parse_file_stat(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_conf_file_stat st;
	char path[] = "/tmp/ibex_conf_testXXXXXX";
	char err[IBEX_CONF_ERR_LEN], want[IBEX_CONF_ERR_LEN + 64];
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_file(path, "# head\n\nport p0\n  # x\nfdb ageing 5\n");
	assert_int_equal(ibex_conf_parse_file_stat(c, path, &st, err,
						   sizeof(err)), 0);
	assert_int_equal(st.lines, 5);
	assert_int_equal(st.statements, 2);
	assert_false(st.unterminated);
	write_file(path, "port p0\nport p0 pvid 3");
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file_stat(c, path, &st, err,
						   sizeof(err)), 0);
	assert_int_equal(st.lines, 2);
	assert_true(st.unterminated);
	assert_int_equal(c->ports[0].pvid, 3);
	write_file(path, "");
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file_stat(c, path, &st, err,
						   sizeof(err)), 0);
	assert_int_equal(st.lines, 0);
	assert_int_equal(st.statements, 0);
	assert_false(st.unterminated);
	/* A NUL byte once cut the line short, silently. */
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite("port p0\nport p1\0 pvid 9\n", 1, 25, f), 25);
	assert_int_equal(fclose(f), 0);
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file(c, path, err, sizeof(err)),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:2: NUL byte in the line (not a text "
		 "file?)", path);
	assert_string_equal(err, want);
	unlink(path);
	/* A directory opens but does not read. */
	ibex_conf_init(c);
	assert_int_equal(ibex_conf_parse_file(c, "/", err, sizeof(err)),
			 -EISDIR);
	assert_string_equal(err, "/:1: read error: Is a directory");
}

/* ---- what a port carries (reload safety) ---- */

static void
port_of(const char *text, struct ibex_conf_port *p)
{
	struct ibex_conf *c = malloc(sizeof(*c));
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_non_null(c);
	ibex_conf_init(c);
	if (parse(c, text, err) != 0)
		fail_msg("%s: %s", text, err);
	*p = c->ports[0];
	free(c);
}

static void
diff_is(const struct ibex_conf_port *a, const char *text, const char *want)
{
	struct ibex_conf_port *b = malloc(sizeof(*b));
	char buf[256];
	unsigned int n;

	assert_non_null(b);
	port_of(text, b);
	n = ibex_conf_port_diff(a, b, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%s: differences '%s', want '%s'", text, buf, want);
	assert_int_equal(n == 0, want[0] == '\0');
	/* the relation is symmetric */
	assert_int_equal(ibex_conf_port_diff(b, a, NULL, 0), n);
	free(b);
}

static void
test_port_diff(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_conf_port *a = &c->ports[0];

	/* A port added by code (a probed ethdev) is the port of a bare
	 * "port" line, and of one that states only defaults. If this
	 * fails after a new field came to struct ibex_conf_port, that field
	 * records where a setting came from: diff_effective() must clear it. */
	assert_int_equal(ibex_conf_port_add(c, "p0", "net_ring0"), 0);
	diff_is(a, "port p0 dev net_ring0\n", "");
	diff_is(a, "port p0 dev net_ring0 pvid 1 vlans 1 vls 8 fc none "
		"admin up\nsl2vl p0 0:0,8:0\necn p0 vl all on\n", "");
	diff_is(a, "port p0 dev net_ring0 pvid 20 vlans 10,20\n",
		"pvid, vlans");
	diff_is(a, "port p0 dev net_ring0 vlans 1,10\n", "vlans");
	diff_is(a, "port p0 dev net_ring1\n", "dev");
	diff_is(a, "port p0 dev net_ring0 admin down trusted on\n",
		"trusted, admin");
	diff_is(a, "port p0 dev net_ring0 flood off\n", "flood");
	diff_is(a, "port p0 dev net_ring0 flood on\n", "");
	diff_is(a, "port p0 dev net_ring0 fc credit\n"
		"lane p0 vl 1 lossless\n", "fc, lane");
	diff_is(a, "port p0 dev net_ring0\npcp2sl p0 1:3\n",
		"pcp2sl/dscp2sl/sl");
	diff_is(a, "port p0 dev net_ring0\nsl2vl p0 1:2\n", "sl2vl");
	diff_is(a, "port p0 dev net_ring0\nvlarb p0 low 0:1\n", "vlarb");
	diff_is(a, "port p0 dev net_ring0\ncredit p0 period-us 10\n",
		"credit period-us");
	diff_is(a, "port p0 dev net_ring0\npfc p0 quanta 100 headroom 8KB\n",
		"pfc headroom auto, pfc headroom, pfc quanta");
	diff_is(a, "port p0 dev net_ring0\necn p0 vl 3 off\n", "ecn");
	/* the ECN curve follows the rate: a speed changes it too */
	diff_is(a, "port p0 dev net_ring0 speed 100G\n", "speed, ecn");
}

/* ---- lanes, flow control, ECN ---- */

static void
test_lane_defaults(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];
	struct ibex_ecn_cfg d;
	unsigned int v;

	assert_int_equal(c->vl15_rate_pps, 1000);
	assert_int_equal(c->buffer_blocks, 8 * 1024 * 1024 / 64);
	assert_int_equal(c->buffer_alpha_log2, -3);
	assert_string_equal(c->ctl_socket, "");
	parse_ok(c, "port p0");
	assert_int_equal(p->nb_vls, 8);
	assert_int_equal(p->sl_class.mode, IBEX_SL_FROM_PCP);
	for (v = 0; v < 8; v++)
		assert_int_equal(p->sl_class.map[IBEX_SL_MAP_PCP + v], v);
	assert_int_equal(p->sl_class.map[IBEX_SL_MAP_DSCP + 46], 5);
	assert_int_equal(p->sl_class.map[IBEX_SL_MAP_DEFAULT], 0);
	/* tables complete after the parse: SL s -> VL s mod 8 */
	assert_false(p->sl2vl_set);
	for (v = 0; v < IBEX_SL_COUNT; v++)
		assert_int_equal(p->sl2vl.vl[v], v % 8);
	assert_false(p->vlarb_set);
	assert_int_equal(p->vlarb.nb_high, 0);
	assert_int_equal(p->vlarb.nb_low, 8);
	assert_int_equal(p->vlarb.low[7].vl, 7);
	assert_int_equal(p->vlarb.low[7].weight, IBEX_VLARB_DEFAULT_WEIGHT);
	assert_int_equal(p->vlarb.limit, 0);
	assert_false(p->vlarb.strict);
	assert_true(p->shape_bps == 0);
	assert_int_equal(p->vl_queue_blocks, 1024);
	assert_int_equal(p->fc_mode, IBEX_FC_NONE);
	assert_int_equal(p->lossless_mask, 0);
	for (v = 0; v < IBEX_VL_COUNT; v++)
		assert_int_equal(p->reserved_blocks[v], 64);
	assert_int_equal(p->credit_period_us, 50);
	assert_int_equal(p->credit_min_gap_ns, 2000);
	assert_true(p->pfc_headroom_auto);
	assert_int_equal(p->pfc_cable_m, 10);
	assert_int_equal(p->pfc_proc_ns, 2000);
	assert_int_equal(p->pfc_xoff_blocks, 0);
	assert_int_equal(p->pfc_xon_gap_blocks, 48);
	assert_int_equal(p->pfc_quanta, 65535);
	assert_int_equal(p->pfc_refresh_margin_us, 0);
	assert_false(p->pfc_hw);
	assert_int_equal(p->wd_action, IBEX_PFC_WD_DROP);
	assert_int_equal(p->wd_detect_ms, 200);
	assert_int_equal(p->wd_recover_ms, 200);
	/* no speed: the 25G curve (HPCC's 100 kB / 400 kB / 0.2) */
	ibex_ecn_cfg_default(&d, UINT64_C(25000000000));
	for (v = 0; v < IBEX_VL_COUNT; v++) {
		assert_false(p->ecn[v].set);
		assert_true(p->ecn[v].enabled);
		assert_false(p->ecn[v].fecn);
		assert_memory_equal(&p->ecn[v].cfg, &d, sizeof(d));
	}
	assert_int_equal(p->ecn[0].cfg.kmin, 100000);
	assert_int_equal(p->ecn[0].cfg.kmax, 400000);
	validate_ok(c);
	/* ports added by code get complete tables too */
	assert_int_equal(ibex_conf_port_add(c, "p1", NULL), 1);
	assert_int_equal(c->ports[1].sl2vl.vl[9], 1);
	assert_int_equal(c->ports[1].vlarb.nb_low, 8);
	assert_int_equal(c->ports[1].ecn[3].cfg.kmax, 400000);
	validate_ok(c);
}

static void
test_sizes(void **state)
{
	static const struct {
		const char *s;
		uint64_t bytes;
	} ok[] = {
		{ "0", 0 }, { "1500", 1500 }, { "1500B", 1500 },
		{ "4KB", 4096 }, { "1MB", 1048576 }, { "2GB", 2147483648u },
		{ "007KB", 7168 },
		/* one syntax with ibex-gen (ibex_units.h) */
		{ "4K", 4096 }, { "4KiB", 4096 }, { "1.5KB", 1536 },
	};
	static const struct {
		const char *s;
		int ret;
	} bad[] = {
		{ "", -EINVAL }, { "KB", -EINVAL }, { "4kb", -EINVAL },
		{ "4 KB", -EINVAL }, { "1.5", -EINVAL }, { "0.3KB", -EINVAL },
		{ "-1", -EINVAL }, { "4Kib", -EINVAL }, { "4BB", -EINVAL },
		{ "17179869184GB", -ERANGE },
		{ "99999999999999999999", -ERANGE },
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 1;
		if (ibex_parse_size(ok[i].s, &v) != 0 || v != ok[i].bytes)
			fail_msg("size '%s'", ok[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 1;
		if (ibex_parse_size(bad[i].s, &v) != bad[i].ret || v != 1)
			fail_msg("size '%s' accepted", bad[i].s);
	}
	assert_int_equal(ibex_parse_size(NULL, &v), -EINVAL);
}

static void
test_port_lane_keys(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	parse_ok(c, "port p0 vls 4 sl-from dscp shape 10G vl-queue 100KB "
		    "fc credit");
	assert_int_equal(p->nb_vls, 4);
	assert_int_equal(p->sl_class.mode, IBEX_SL_FROM_DSCP);
	assert_true(p->shape_bps == UINT64_C(10000000000));
	assert_int_equal(p->vl_queue_blocks, 1600);
	assert_int_equal(p->fc_mode, IBEX_FC_CREDIT);
	assert_int_equal(p->sl2vl.vl[5], 1);
	assert_int_equal(p->vlarb.nb_low, 4);
	/* ECN follows the shaper: 10G gives 40000 / 160000 bytes */
	assert_int_equal(p->ecn[0].cfg.kmin, 40000);
	assert_int_equal(p->ecn[0].cfg.kmax, 160000);
	validate_ok(c);
	/* sizes round up to blocks; every lane count; off */
	parse_ok(c, "port p0 vl-queue 1500 shape off vls 1 fc pfc\n"
		    "port p0 sl-from pcp");
	assert_int_equal(p->vl_queue_blocks, 24);
	assert_true(p->shape_bps == 0);
	assert_int_equal(p->nb_vls, 1);
	assert_int_equal(p->fc_mode, IBEX_FC_PFC);
	assert_int_equal(p->sl_class.mode, IBEX_SL_FROM_PCP);
	assert_int_equal(p->sl2vl.vl[15], 0);
	parse_ok(c, "port p0 vls 2 fc none vl-queue 1GB\nport p0 vls 15");
	assert_int_equal(p->nb_vls, 15);
	assert_int_equal(p->sl2vl.vl[14], 14);
	assert_int_equal(p->sl2vl.vl[15], 0);
	assert_int_equal(p->vlarb.nb_low, 15);
	assert_int_equal(p->vl_queue_blocks, 16777216);
	assert_int_equal(p->vls_line, 2);
	assert_int_equal(p->fc_mode_line, 1);
	validate_ok(c);

	expect_err("port p0 vls 3",
		   "x.conf:1: port p0: vls: 3 is not one of: 1, 2, 4, 8, 15");
	expect_err("port p0\nport p0 vls 16",
		   "x.conf:2: port p0: vls: 16 out of range 1..15");
	expect_err("port p0 vls 0",
		   "x.conf:1: port p0: vls: 0 out of range 1..15");
	expect_err("port p0 sl-from ip",
		   "x.conf:1: port p0: sl-from: 'ip' is not one of: pcp, dscp");
	expect_err("port p0 shape fast",
		   "x.conf:1: port p0: shape: 'fast' is not a rate "
		   "(e.g. 25G, 100M, 1.5G)");
	expect_err("port p0 vl-queue 4kb",
		   "x.conf:1: port p0: vl-queue: '4kb' is not a size "
		   "(e.g. 1500B, 4KB, 1MB)");
	expect_err("port p0 vl-queue 2GB",
		   "x.conf:1: port p0: vl-queue: 2GB out of range 64B..1GB");
	expect_err("port p0 vl-queue 63",
		   "x.conf:1: port p0: vl-queue: 63 out of range 64B..1GB");
	expect_err("port p0 fc lossless",
		   "x.conf:1: port p0: fc: 'lossless' is not one of: none, "
		   "credit, pfc, cbfc");
	/* a queue shorter than one frame could never hold one */
	expect_verr("port p0 mtu 9000\nport p0 vl-queue 8KB",
		    "x.conf:2: port p0: vl-queue 128 blocks holds less than "
		    "one frame of 9022 bytes");
}

static void
test_classifier(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_sl_class *k = &c->ports[0].sl_class;

	parse_ok(c, "port p0 sl-from dscp\n"
		    "pcp2sl p0 0:1,1-2:3 5:7\n"
		    "dscp2sl p0 0-7:1,46:5\n"
		    "sl p0 default 4\n");
	assert_int_equal(k->map[IBEX_SL_MAP_PCP + 0], 1);
	assert_int_equal(k->map[IBEX_SL_MAP_PCP + 1], 3);
	assert_int_equal(k->map[IBEX_SL_MAP_PCP + 2], 3);
	assert_int_equal(k->map[IBEX_SL_MAP_PCP + 3], 3);   /* default */
	assert_int_equal(k->map[IBEX_SL_MAP_PCP + 5], 7);
	assert_int_equal(k->map[IBEX_SL_MAP_DSCP + 0], 1);
	assert_int_equal(k->map[IBEX_SL_MAP_DSCP + 7], 1);
	assert_int_equal(k->map[IBEX_SL_MAP_DSCP + 8], 1);  /* CS1 */
	assert_int_equal(k->map[IBEX_SL_MAP_DSCP + 46], 5);
	assert_int_equal(k->map[IBEX_SL_MAP_DSCP + 48], 6);
	assert_int_equal(k->map[IBEX_SL_MAP_DEFAULT], 4);
	assert_int_equal(c->ports[0].class_line, 4);
	/* the SL a frame gets */
	assert_int_equal(ibex_sl_classify(k, true, 1, true, 46), 5);
	assert_int_equal(ibex_sl_classify(k, true, 2, false, 0), 3);
	assert_int_equal(ibex_sl_classify(k, false, 0, false, 0), 4);
	/* later entries win; SL 15 is a valid SL */
	parse_ok(c, "pcp2sl p0 0:15\ndscp2sl p0 63:15");
	assert_int_equal(k->map[IBEX_SL_MAP_PCP + 0], 15);
	assert_int_equal(k->map[IBEX_SL_MAP_DSCP + 63], 15);
	validate_ok(c);

	expect_err("port p0\npcp2sl p1 0:1",
		   "x.conf:2: pcp2sl: unknown port 'p1'");
	expect_err("pcp2sl p0 0:1", "x.conf:1: pcp2sl: unknown port 'p0'");
	expect_err("pcp2sl", "x.conf:1: pcp2sl: missing port name");
	expect_err("port p0\npcp2sl p0",
		   "x.conf:2: pcp2sl p0: missing entries (PCP:SL, e.g. 1:3)");
	expect_err("port p0\npcp2sl p0 8:1",
		   "x.conf:2: pcp2sl p0: PCP 8 out of range 0..7");
	expect_err("port p0\npcp2sl p0 1:16",
		   "x.conf:2: pcp2sl p0: SL 16 out of range 0..15");
	expect_err("port p0\npcp2sl p0 1",
		   "x.conf:2: pcp2sl p0: '1' is not PCP:SL");
	expect_err("port p0\npcp2sl p0 1:2,,3:4",
		   "x.conf:2: pcp2sl p0: empty element in list");
	expect_err("port p0\npcp2sl p0 a:2",
		   "x.conf:2: pcp2sl p0: PCP 'a' is not a number");
	expect_err("port p0\npcp2sl p0 5-3:2",
		   "x.conf:2: pcp2sl p0: range 5-3 starts above its end");
	expect_err("port p0\ndscp2sl p0 0-64:1",
		   "x.conf:2: dscp2sl p0: DSCP 64 out of range 0..63");
	expect_err("port p0\ndscp2sl p0 10:x",
		   "x.conf:2: dscp2sl p0: SL 'x' is not a number");
	expect_err("port p0\nsl p0 default 16",
		   "x.conf:2: sl p0: default: 16 out of range 0..15");
	expect_err("port p0\nsl p0",
		   "x.conf:2: sl p0: missing settings (expected one of: "
		   "default)");
	expect_err("port p0\nsl p0 dflt 1",
		   "x.conf:2: sl p0: unknown key 'dflt' (expected one of: "
		   "default)");
}

static void
test_sl2vl(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];
	unsigned int s;

	parse_ok(c, "port p0\nsl2vl p0 0:1,7:drop 8-9:2");
	assert_true(p->sl2vl_set);
	assert_int_equal(p->sl2vl_given, 0x381);
	assert_int_equal(p->sl2vl.vl[0], 1);
	assert_int_equal(p->sl2vl.vl[7], IBEX_VL_DROP);
	assert_int_equal(p->sl2vl.vl[8], 2);
	assert_int_equal(p->sl2vl.vl[9], 2);
	assert_int_equal(p->sl2vl.vl[10], 2);           /* default 10 % 8 */
	assert_int_equal(p->sl2vl.vl[1], 1);
	assert_int_equal(p->sl2vl_line, 2);
	validate_ok(c);
	/* vls after sl2vl: the entries not given follow the new count */
	parse_ok(c, "port p0 vls 4");
	assert_int_equal(p->sl2vl.vl[0], 1);
	assert_int_equal(p->sl2vl.vl[5], 1);
	assert_int_equal(p->sl2vl.vl[6], 2);
	assert_int_equal(p->sl2vl.vl[7], IBEX_VL_DROP);
	assert_int_equal(p->sl2vl.vl[15], 3);
	validate_ok(c);
	/* 15 is drop too */
	parse_ok(c, "sl2vl p0 0-15:15");
	for (s = 0; s < IBEX_SL_COUNT; s++)
		assert_int_equal(p->sl2vl.vl[s], IBEX_VL_DROP);
	validate_ok(c);

	expect_err("port p0\nsl2vl p0 0:16",
		   "x.conf:2: sl2vl p0: VL 16 out of range 0..15");
	expect_err("port p0\nsl2vl p0 16:1",
		   "x.conf:2: sl2vl p0: SL 16 out of range 0..15");
	expect_err("port p0\nsl2vl p0 1:dorp",
		   "x.conf:2: sl2vl p0: VL 'dorp' is not a number");
	expect_err("port p0\nsl2vl p0",
		   "x.conf:2: sl2vl p0: missing entries (SL:VL, e.g. 1:drop)");
	/* a lane the port does not run: at the later of sl2vl and vls */
	expect_verr("port p0\nsl2vl p0 0:5\nport p0 vls 4\nswitch burst 8",
		    "x.conf:3: port p0: sl2vl: SL 0 maps to VL 5, which is "
		    "not operational (vls 4)");
	expect_verr("port p0 vls 4\n\nsl2vl p0 3:4",
		    "x.conf:3: port p0: sl2vl: SL 3 maps to VL 4, which is "
		    "not operational (vls 4)");
}

static void
test_vlarb(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_vlarb_conf *a = &c->ports[0].vlarb;

	parse_ok(c, "port p0\nvlarb p0 high 3:2 low 0:1,1:2 limit 0");
	assert_true(c->ports[0].vlarb_set);
	assert_int_equal(a->nb_high, 1);
	assert_int_equal(a->high[0].vl, 3);
	assert_int_equal(a->high[0].weight, 2);
	assert_int_equal(a->nb_low, 2);
	assert_int_equal(a->low[1].vl, 1);
	assert_int_equal(a->low[1].weight, 2);
	assert_int_equal(a->limit, 0);
	assert_false(a->strict);
	/* the parts given replace; the rest stays */
	parse_ok(c, "vlarb p0 limit unbounded strict");
	assert_int_equal(a->limit, 255);
	assert_true(a->strict);
	assert_int_equal(a->nb_high, 1);
	assert_int_equal(a->nb_low, 2);
	parse_ok(c, "vlarb p0 carry limit 7 high none");
	assert_false(a->strict);
	assert_int_equal(a->limit, 7);
	assert_int_equal(a->nb_high, 0);
	assert_int_equal(a->nb_low, 2);
	/* the sl2vl table feeds VLs 0..7, the low table serves 0..1 */
	expect_verr("port p0\nvlarb p0 low 0:1,1:2",
		    "x.conf:2: port p0: VL 2 is in the SL->VL table but has no "
		    "vlarb entry of non-zero weight: its frames could never "
		    "leave");
	parse_ok(c, "port p0 vls 2");
	validate_ok(c);
	/* vls after a vlarb that gave only high: low follows the count */
	ibex_conf_init(c);
	parse_ok(c, "port p0\nvlarb p0 high 1:4,1:0\nport p0 vls 2");
	assert_int_equal(a->nb_high, 2);
	assert_int_equal(a->high[1].weight, 0);
	assert_int_equal(a->nb_low, 2);
	assert_int_equal(a->low[1].vl, 1);
	validate_ok(c);
	/* a weight 0 entry does not serve its lane */
	expect_verr("port p0 vls 2\nvlarb p0 low 0:32,1:0",
		    "x.conf:2: port p0: VL 1 is in the SL->VL table but has no "
		    "vlarb entry of non-zero weight: its frames could never "
		    "leave");
	/* a table naming a lane the port does not run */
	expect_verr("port p0\nvlarb p0 low 0:1,5:1\nport p0 vls 4",
		    "x.conf:3: port p0: vlarb low entry 1 names VL 5, not an "
		    "operational data VL (0..3) (vls 4)");

	expect_err("port p0\nvlarb p0 high 15:1",
		   "x.conf:2: vlarb p0: high: VL 15 out of range 0..14");
	expect_err("port p0\nvlarb p0 low 1:256",
		   "x.conf:2: vlarb p0: low: weight 256 out of range 0..255");
	expect_err("port p0\nvlarb p0 low 1-2:3",
		   "x.conf:2: vlarb p0: low: VL '1-2' is not a number");
	expect_err("port p0\nvlarb p0 limit 256",
		   "x.conf:2: vlarb p0: limit: 256 out of range 0..255");
	expect_err("port p0\nvlarb p0 strict carry",
		   "x.conf:2: vlarb p0: 'strict' and 'carry' exclude each "
		   "other");
	expect_err("port p0\nvlarb p0",
		   "x.conf:2: vlarb p0: missing settings (expected one of: "
		   "high, low, limit, strict, carry)");
	expect_err("port p0\nvlarb p0 low",
		   "x.conf:2: vlarb p0: missing value for 'low'");
	expect_err("vlarb p0 low 0:1", "x.conf:1: vlarb: unknown port 'p0'");
}

static void
test_vlarb_max_entries(void **state)
{
	struct ibex_conf *c = *state;
	char text[600], want[IBEX_CONF_ERR_LEN];
	size_t used;
	int i;

	used = snprintf(text, sizeof(text), "port p0\nvlarb p0 low ");
	for (i = 0; i < IBEX_VLARB_MAX_ENTRIES; i++)
		used += snprintf(text + used, sizeof(text) - used, "%s%d:1",
				 i > 0 ? "," : "", i % 8);
	parse_ok(c, text);
	assert_int_equal(c->ports[0].vlarb.nb_low, IBEX_VLARB_MAX_ENTRIES);
	validate_ok(c);
	snprintf(text + used, sizeof(text) - used, ",0:1");
	snprintf(want, sizeof(want), "x.conf:2: vlarb p0: low: more than %d "
		 "entries", IBEX_VLARB_MAX_ENTRIES);
	expect_err(text, want);
}

static void
test_lane_statements(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	parse_ok(c, "port p0 fc credit\n"
		    "lane p0 vl 3 lossless reserved 64KB\n"
		    "lane p0 vl 0 reserved 100\n"
		    "lane p0 vl 14 reserved 0\n");
	assert_int_equal(p->lossless_mask, 1 << 3);
	assert_int_equal(p->reserved_blocks[3], 1024);
	assert_int_equal(p->reserved_blocks[0], 2);
	assert_int_equal(p->reserved_blocks[14], 0);
	assert_int_equal(p->reserved_blocks[1], 64);
	assert_int_equal(p->lane_line[3], 2);
	assert_int_equal(p->fc_line, 4);
	validate_ok(c);
	parse_ok(c, "lane p0 vl 3 lossy\nlane p0 vl 1 lossless");
	assert_int_equal(p->lossless_mask, 1 << 1);
	assert_int_equal(p->reserved_blocks[3], 1024);

	expect_err("port p0\nlane p0 3 lossless",
		   "x.conf:2: lane p0: expected 'vl <0-14>'");
	expect_err("port p0\nlane p0 vl",
		   "x.conf:2: lane p0: expected 'vl <0-14>'");
	expect_err("port p0\nlane p0 vl 15 lossless",
		   "x.conf:2: lane p0: vl: 15 out of range 0..14 (VL15 is "
		   "management)");
	expect_err("port p0\nlane p0 vl x lossless",
		   "x.conf:2: lane p0: vl: 'x' is not a number");
	expect_err("port p0\nlane p0 vl all lossless",
		   "x.conf:2: lane p0: vl: 'all' is not a number");
	expect_err("port p0\nlane p0 vl 1",
		   "x.conf:2: lane p0: missing settings (expected one of: "
		   "lossless, lossy, reserved)");
	expect_err("port p0\nlane p0 vl 1 lossless lossy",
		   "x.conf:2: lane p0: 'lossless' and 'lossy' exclude each "
		   "other");
	expect_err("port p0\nlane p0 vl 1 reserved 2GB",
		   "x.conf:2: lane p0: reserved: 2GB out of range 0B..1GB");
	expect_err("lane p9 vl 1 lossless",
		   "x.conf:1: lane: unknown port 'p9'");

	/* lossless needs flow control: at the later of lane and fc */
	expect_verr("port p0\nlane p0 vl 1 lossless",
		    "x.conf:2: port p0: lane vl 1 is lossless but the port has "
		    "fc none (lossless needs fc credit, cbfc or pfc)");
	expect_verr("port p0 fc pfc\nlane p0 vl 1 lossless\nport p0 fc none",
		    "x.conf:3: port p0: lane vl 1 is lossless but the port has "
		    "fc none (lossless needs fc credit, cbfc or pfc)");
	/* a lossless lane the port does not run */
	expect_verr("port p0 fc credit\nlane p0 vl 5 lossless\n"
		    "port p0 vls 4",
		    "x.conf:3: port p0: lane vl 5 is lossless but the port runs "
		    "4 VLs (0..3)");
	/* credits must cover a whole frame */
	expect_verr("port p0 fc credit mtu 9000\nlane p0 vl 0 lossless",
		    "x.conf:2: port p0: lane vl 0: reserved 4KB is less than "
		    "one frame of 9022 bytes, which credits could then never "
		    "cover");
}

static void
test_credit(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	parse_ok(c, "port p0 fc credit\ncredit p0 period-us 50 min-gap-ns 0");
	assert_int_equal(p->credit_period_us, 50);
	assert_int_equal(p->credit_min_gap_ns, 0);
	parse_ok(c, "credit p0 period-us 1");
	assert_int_equal(p->credit_period_us, 1);
	assert_int_equal(p->credit_min_gap_ns, 0);
	assert_int_equal(p->fc_line, 1);
	validate_ok(c);
	expect_err("port p0\ncredit p0 period-us 0",
		   "x.conf:2: credit p0: period-us: 0 out of range 1..1000000");
	expect_err("port p0\ncredit p0",
		   "x.conf:2: credit p0: missing settings (expected one of: "
		   "period-us, min-gap-ns, window, delay-ns, rate)");
	expect_err("port p0\ncredit p0 period 10",
		   "x.conf:2: credit p0: unknown key 'period' (expected one "
		   "of: period-us, min-gap-ns, window, delay-ns, rate)");
}

/* credit window: the reserved share of the port's lossless lanes, from
 * the link (auto) or given; lossy lanes and other ports keep theirs. */
static void
test_credit_window(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];
	struct ibex_buf_conf bc;

	parse_ok(c, "port p0 fc credit\n"
		    "lane p0 vl 1 lossless reserved 8KB\n"
		    "lane p0 vl 2 reserved 8KB\n");
	assert_int_equal(p->credit_window_blocks, 0);
	assert_int_equal(p->credit_delay_ns, 2050);
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 1), 128);
	/* 100G, 500 ns of wire and 600 ns of switch, updates at the tick:
	 * test_credit's worked figure */
	parse_ok(c, "credit p0 window auto delay-ns 1100 rate 100G "
		    "min-gap-ns 1000");
	assert_int_equal(p->credit_window_blocks, IBEX_CONF_CREDIT_WINDOW_AUTO);
	assert_int_equal(p->credit_delay_ns, 1100);
	assert_int_equal(p->credit_rate_bps, 100000000000ull);
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 1), 1284);
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 2), 128);
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 0), 64);
	/* the buffer layout and the lossless bound take it */
	validate_ok(c);
	assert_int_equal(ibex_conf_buf_conf(c, &bc), 0);
	assert_int_equal(bc.port[0].reserved_vl[1], 1284);
	assert_int_equal(bc.port[0].reserved_vl[2], 128);
	assert_int_equal(ibex_conf_port_lossless_blocks(p), 1284);
	/* 400G needs more than 12-bit counters advertise: 2,048 */
	parse_ok(c, "credit p0 rate 400G");
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 1), 2048);
	/* without rate, the port's speed */
	parse_ok(c, "credit p0 rate 0\nport p0 speed 100G");
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 1), 1284);
	/* a size */
	parse_ok(c, "credit p0 window 32KB");
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 1), 512);
	/* not a credit port: the lane's own */
	parse_ok(c, "port p0 fc pfc");
	assert_int_equal(ibex_conf_lane_reserved_blocks(p, 1), 128);
	expect_err("port p0\ncredit p0 window 256KB",
		   "x.conf:2: credit p0: window: 256KB out of range "
		   "64B..128KB");
	expect_err("port p0\ncredit p0 window 0",
		   "x.conf:2: credit p0: window: 0 out of range 64B..128KB");
}

static void
test_pfc(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	parse_ok(c, "port p0 fc pfc speed 100G\n"
		    "lane p0 vl 3 lossless\n"
		    "pfc p0 headroom auto cable-m 3 proc-ns 1000\n"
		    "pfc p0 xoff dynamic xon 6KB\n"
		    "pfc p0 quanta 1000 refresh-margin-us 2\n"
		    "pfc p0 watchdog alarm detect-ms 100 recover-ms 300\n"
		    "pfc p0 hw on\n");
	assert_true(p->pfc_headroom_auto);
	assert_int_equal(p->pfc_cable_m, 3);
	assert_int_equal(p->pfc_proc_ns, 1000);
	assert_int_equal(p->pfc_xoff_blocks, 0);
	assert_int_equal(p->pfc_xon_gap_blocks, 96);
	assert_int_equal(p->pfc_quanta, 1000);
	assert_int_equal(p->pfc_refresh_margin_us, 2);
	assert_int_equal(p->wd_action, IBEX_PFC_WD_ALARM);
	assert_int_equal(p->wd_detect_ms, 100);
	assert_int_equal(p->wd_recover_ms, 300);
	assert_true(p->pfc_hw);
	assert_int_equal(p->pfc_line, 7);
	validate_ok(c);
	/* static XOFF: xon is the level, the gap xoff - xon */
	parse_ok(c, "pfc p0 headroom 20KB xoff 100KB xon 97KB hw off\n"
		    "pfc p0 watchdog off");
	assert_false(p->pfc_headroom_auto);
	assert_int_equal(p->pfc_headroom_blocks, 320);
	assert_int_equal(p->pfc_xoff_blocks, 1600);
	assert_int_equal(p->pfc_xon_gap_blocks, 48);
	assert_false(p->pfc_hw);
	assert_int_equal(p->wd_action, IBEX_PFC_WD_OFF);
	validate_ok(c);
	parse_ok(c, "pfc p0 headroom auto watchdog forward\n"
		    "pfc p0 watchdog drop");
	assert_true(p->pfc_headroom_auto);
	assert_int_equal(p->wd_action, IBEX_PFC_WD_DROP);
	validate_ok(c);

	expect_err("port p0\npfc p0 xoff 10KB xon 10KB",
		   "x.conf:2: pfc p0: xon 10KB is not below xoff 10KB");
	expect_err("port p0\npfc p0 quanta 0",
		   "x.conf:2: pfc p0: quanta: 0 out of range 1..65535");
	expect_err("port p0\npfc p0 quanta 65536",
		   "x.conf:2: pfc p0: quanta: 65536 out of range 1..65535");
	expect_err("port p0\npfc p0 watchdog panic",
		   "x.conf:2: pfc p0: watchdog: 'panic' is not one of: off, "
		   "alarm, forward, drop");
	expect_err("port p0\npfc p0 headroom 0",
		   "x.conf:2: pfc p0: headroom: 0 out of range 64B..1GB");
	expect_err("port p0\npfc p0 detect-ms 0",
		   "x.conf:2: pfc p0: detect-ms: 0 out of range 1..1000000");
	expect_err("port p0\npfc p0 hw yes",
		   "x.conf:2: pfc p0: hw: 'yes' is not one of: off, on");
	expect_err("port p0\npfc p0",
		   "x.conf:2: pfc p0: missing settings (expected one of: "
		   "headroom, cable-m, proc-ns, xoff, xon, quanta, "
		   "refresh-margin-us, watchdog, detect-ms, recover-ms, hw)");
	/* a refresh margin as long as the pause: 100 quanta at 10G is
	 * 5120 ns */
	expect_verr("port p0 fc pfc speed 10G\npfc p0 quanta 100 "
		    "refresh-margin-us 6",
		    "x.conf:2: port p0: refresh-margin-us 6 is not below the "
		    "pause of 100 quanta (5120 ns at 10000 Mb/s)");
	/* a later static xoff below the gap */
	expect_verr("port p0 fc pfc\npfc p0 xon 8KB\npfc p0 xoff 4KB",
		    "x.conf:3: port p0: xon gap 8KB is not below xoff 4KB");
}

static void
test_pfc_lossless_rules(void **state)
{
	(void)state;
	/* PCP 3 now gives SL 0: nothing reaches VL 3 */
	expect_verr("port p0 fc pfc\nlane p0 vl 3 lossless\npcp2sl p0 3:0",
		    "x.conf:3: port p0: lane vl 3 is lossless but no PCP "
		    "reaches it (PCP -> SL -> VL), so PFC cannot pause it");
	/* VL 8..14 have no PCP with the default tables */
	expect_verr("port p0 fc pfc vls 15\nlane p0 vl 9 lossless",
		    "x.conf:2: port p0: lane vl 9 is lossless but no PCP "
		    "reaches it (PCP -> SL -> VL), so PFC cannot pause it");
	/* at most 8 lossless lanes on a PFC port */
	expect_verr("port p0 fc pfc vls 15\n"
		    "lane p0 vl 0 lossless\nlane p0 vl 1 lossless\n"
		    "lane p0 vl 2 lossless\nlane p0 vl 3 lossless\n"
		    "lane p0 vl 4 lossless\nlane p0 vl 5 lossless\n"
		    "lane p0 vl 6 lossless\nlane p0 vl 7 lossless\n"
		    "lane p0 vl 8 lossless\n",
		    "x.conf:10: port p0: 9 lossless VLs; PFC has 8 priorities");
}

static void
test_pfc_reachable_by_table(void **state)
{
	struct ibex_conf *c = *state;

	/* an SL->VL entry can bring a PCP to a high VL */
	parse_ok(c, "port p0 fc pfc vls 15\nlane p0 vl 9 lossless\n"
		    "sl2vl p0 6:9");
	validate_ok(c);
	assert_int_equal(ibex_conf_vl_prio(&c->ports[0], 9), 6);
	assert_int_equal(ibex_conf_vl_prio(&c->ports[0], 6), -1);
}

static void
test_vl_prio(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];
	unsigned int v;

	parse_ok(c, "port p0");
	for (v = 0; v < 8; v++)
		assert_int_equal(ibex_conf_vl_prio(p, v), v);
	for (v = 8; v < 17; v++)
		assert_int_equal(ibex_conf_vl_prio(p, v), -1);
	/* lowest PCP wins */
	parse_ok(c, "pcp2sl p0 0:5");
	assert_int_equal(ibex_conf_vl_prio(p, 5), 0);
	assert_int_equal(ibex_conf_vl_prio(p, 0), -1);
	parse_ok(c, "port p0 vls 4");
	assert_int_equal(ibex_conf_vl_prio(p, 1), 0);
	assert_int_equal(ibex_conf_vl_prio(p, 0), 4);
	assert_int_equal(ibex_conf_vl_prio(p, 3), 3);
	parse_ok(c, "sl2vl p0 4:drop");
	assert_int_equal(ibex_conf_vl_prio(p, 0), -1);
	assert_int_equal(ibex_conf_vl_prio(p, IBEX_VL_DROP), -1);
	assert_int_equal(ibex_conf_vl_prio(NULL, 0), -1);
}

static void
test_buf_conf(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_buf_conf b;
	struct ibex_buf *buf = malloc(sizeof(*buf));
	uint32_t hr;

	assert_non_null(buf);
	parse_ok(c, "buffer total 2MB alpha 1/4\n"
		    "port p0 fc pfc\n"
		    "lane p0 vl 3 lossless reserved 8KB\n"
		    "port p1 fc credit speed 100G mtu 9000 vls 4\n"
		    "lane p1 vl 1 lossless reserved 64KB\n"
		    "port p2 speed 10G\n"
		    "pfc p2 headroom 20KB\n");
	assert_int_equal(c->buffer_blocks, 32768);
	assert_int_equal(c->buffer_alpha_log2, -2);
	validate_ok(c);
	assert_int_equal(ibex_conf_buf_conf(c, &b), 0);
	assert_int_equal(b.total_blocks, 32768);
	assert_int_equal(b.alpha_log2, -2);
	assert_int_equal(b.n_ports, 3);
	assert_int_equal(b.port[0].mode, IBEX_FC_PFC);
	assert_int_equal(b.port[0].n_vls, 8);
	assert_int_equal(b.port[0].lossless_mask, 1 << 3);
	assert_true(b.port[0].reserved_per_vl);
	assert_int_equal(b.port[0].reserved_vl[3], 128);
	assert_int_equal(b.port[0].reserved_vl[2], 64);
	/* no speed: 25G, MTU 1500 as a 1522-byte frame, 10 m, 2000 ns */
	hr = ibex_buf_headroom_blocks(25000, 10, 2000, 1522);
	assert_int_equal(hr, 350);
	assert_int_equal(b.port[0].headroom_blocks, hr);
	assert_int_equal(ibex_conf_port_headroom_blocks(&c->ports[0]), hr);
	assert_int_equal(b.port[0].xoff_blocks, 0);
	assert_int_equal(b.port[0].xon_gap_blocks, 48);
	/* credit port: no headroom */
	assert_int_equal(b.port[1].mode, IBEX_FC_CREDIT);
	assert_int_equal(b.port[1].n_vls, 4);
	assert_int_equal(b.port[1].headroom_blocks, 0);
	assert_int_equal(b.port[1].reserved_vl[1], 1024);
	/* a fixed headroom counts only on a PFC port */
	assert_int_equal(b.port[2].mode, IBEX_FC_NONE);
	assert_int_equal(b.port[2].headroom_blocks, 0);
	parse_ok(c, "port p2 fc pfc");
	assert_int_equal(ibex_conf_port_headroom_blocks(&c->ports[2]), 320);
	/* auto at the port's speed and MTU */
	parse_ok(c, "port p1 fc pfc");
	assert_int_equal(ibex_conf_port_headroom_blocks(&c->ports[1]),
			 ibex_buf_headroom_blocks(100000, 10, 2000, 9022));
	assert_int_equal(ibex_conf_port_rate_bps(&c->ports[1]) / 1000000000,
			 100);
	assert_int_equal(ibex_conf_port_frame_bytes(&c->ports[1]), 9022);
	/* the layout ibex_buf builds from it, lane by lane */
	assert_int_equal(ibex_conf_buf_conf(c, &b), 0);
	assert_int_equal(ibex_buf_init(buf, &b), 0);
	assert_int_equal(buf->lane[0][3].res_cap, 128);
	assert_int_equal(buf->lane[0][3].hr_cap, hr);
	assert_true(buf->lane[0][3].pfc);
	assert_int_equal(buf->lane[0][2].res_cap, 64);
	assert_int_equal(buf->lane[0][2].hr_cap, 0);
	assert_int_equal(buf->lane[1][1].res_cap, 1024);
	assert_int_equal(buf->lane[1][4].res_cap, 0);   /* beyond vls 4 */
	/* 8 lanes x 64 + 64 more + headroom; 4 lanes incl 64 KB; 8 x 64 */
	assert_int_equal(buf->shared_total,
			 32768 - (8 * 64 + 64 + hr) -
			 (3 * 64 + 1024 +
			  ibex_conf_port_headroom_blocks(&c->ports[1])) -
			 8 * 64);
	free(buf);
	assert_int_equal(ibex_conf_buf_conf(NULL, &b), -EINVAL);
}

static void
test_buffer(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "buffer total 64KB alpha 1/128\nbuffer alpha 8");
	assert_int_equal(c->buffer_blocks, 1024);
	assert_int_equal(c->buffer_alpha_log2, 3);
	assert_int_equal(c->buffer_line, 2);
	parse_ok(c, "buffer alpha 1");
	assert_int_equal(c->buffer_alpha_log2, 0);
	/* two ports of 8 lanes x 4 KB fill 64 KB exactly */
	parse_ok(c, "port p0\nport p1");
	validate_ok(c);
	expect_verr("buffer total 64KB\nport p0\nport p1\n"
		    "lane p1 vl 0 reserved 8KB\nswitch burst 8",
		    "x.conf:4: buffer: reserved and headroom need 68KB, more "
		    "than total 64KB");
	/* a PFC headroom that does not fit: at the buffer line, last */
	expect_verr("port p0 fc pfc\nlane p0 vl 0 lossless\n"
		    "pfc p0 headroom 1MB\nbuffer total 1MB",
		    "x.conf:4: buffer: reserved and headroom need 1056KB, more "
		    "than total 1MB");

	expect_err("buffer", "x.conf:1: buffer: missing settings (expected "
		   "one of: total, alpha)");
	expect_err("buffer total 1KB",
		   "x.conf:1: buffer: total: 1KB out of range 64KB..4GB");
	expect_err("buffer alpha 3/4",
		   "x.conf:1: buffer: alpha: '3/4' is not one of: 1/128, 1/64, "
		   "1/32, 1/16, 1/8, 1/4, 1/2, 1, 2, 4, 8");
	expect_err("buffer size 1MB",
		   "x.conf:1: buffer: unknown key 'size' (expected one of: "
		   "total, alpha)");
}

static void
test_ecn(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];
	unsigned int v;

	parse_ok(c, "port p0\n"
		    "ecn p0 vl 3 kmin 10KB kmax 40KB pmax 0.1\n"
		    "ecn p0 vl 4 ewma 4 fecn on off\n");
	assert_true(p->ecn[3].set);
	assert_int_equal(p->ecn[3].cfg.kmin, 10240);
	assert_int_equal(p->ecn[3].cfg.kmax, 40960);
	assert_true(p->ecn[3].cfg.pmax == 0.1);
	assert_int_equal(p->ecn[3].cfg.wq_log, 0);
	assert_true(p->ecn[3].enabled);
	assert_int_equal(p->ecn[3].line, 2);
	/* keys not given: the default curve */
	assert_int_equal(p->ecn[4].cfg.kmin, 100000);
	assert_int_equal(p->ecn[4].cfg.wq_log, 4);
	assert_true(p->ecn[4].fecn);
	assert_false(p->ecn[4].enabled);
	assert_true(p->ecn[4].cfg.rate_bps == UINT64_C(25000000000));
	assert_false(p->ecn[5].set);
	validate_ok(c);
	/* speed set later: the keys not given follow it, the others stay */
	parse_ok(c, "port p0 speed 100G");
	assert_int_equal(p->ecn[4].cfg.kmin, 400000);
	assert_int_equal(p->ecn[4].cfg.kmax, 1600000);
	assert_int_equal(p->ecn[3].cfg.kmin, 10240);
	assert_true(p->ecn[3].cfg.rate_bps == UINT64_C(100000000000));
	assert_int_equal(p->ecn[5].cfg.kmin, 400000);
	/* vl all: every data lane, keeping what each was given */
	parse_ok(c, "ecn p0 vl all pmax 1 instant on");
	for (v = 0; v < IBEX_VL_DATA_MAX; v++) {
		assert_true(p->ecn[v].set);
		assert_true(p->ecn[v].enabled);
		assert_true(p->ecn[v].cfg.pmax == 1.0);
		assert_int_equal(p->ecn[v].cfg.wq_log, 0);
	}
	assert_int_equal(p->ecn[3].cfg.kmin, 10240);
	assert_true(p->ecn[4].fecn);
	assert_false(p->ecn[15].set);
	validate_ok(c);

	expect_err("port p0\necn p0 vl 3 pmax 1.5",
		   "x.conf:2: ecn p0: pmax: 1.5 is above 1 (a probability, not "
		   "a percentage)");
	expect_err("port p0\necn p0 vl 3 pmax 5%",
		   "x.conf:2: ecn p0: pmax: '5%' is not a probability "
		   "(e.g. 0.2)");
	expect_err("port p0\necn p0 vl 3 pmax .5",
		   "x.conf:2: ecn p0: pmax: '.5' is not a probability "
		   "(e.g. 0.2)");
	expect_err("port p0\necn p0 vl 3 pmax 1.",
		   "x.conf:2: ecn p0: pmax: '1.' is not a probability "
		   "(e.g. 0.2)");
	expect_err("port p0\necn p0 vl 3 pmax 0.2.1",
		   "x.conf:2: ecn p0: pmax: '0.2.1' is not a probability "
		   "(e.g. 0.2)");
	expect_err("port p0\necn p0 vl 3 pmax 1e-3",
		   "x.conf:2: ecn p0: pmax: '1e-3' is not a probability "
		   "(e.g. 0.2)");
	expect_err("port p0\necn p0 vl 3 ewma 17",
		   "x.conf:2: ecn p0: ewma: 17 out of range 1..16");
	expect_err("port p0\necn p0 vl 3 ewma 2 instant",
		   "x.conf:2: ecn p0: 'ewma' and 'instant' exclude each other");
	expect_err("port p0\necn p0 vl 3 on off",
		   "x.conf:2: ecn p0: 'on' and 'off' exclude each other");
	expect_err("port p0\necn p0 vl 3 kmin 5GB",
		   "x.conf:2: ecn p0: kmin: 5GB out of range 0B..4294967295B");
	expect_err("port p0\necn p0 vl 15 on",
		   "x.conf:2: ecn p0: vl: 15 out of range 0..14 (VL15 is "
		   "management)");
	expect_err("port p0\necn p0 vl 2",
		   "x.conf:2: ecn p0: missing settings (expected one of: kmin, "
		   "kmax, pmax, instant, ewma, fecn, on, off)");
	expect_err("port p0\necn p0 kmin 1KB",
		   "x.conf:2: ecn p0: expected 'vl <0-14|all>'");
	/* the curve as a whole, at the line of the lane's ecn statement */
	expect_verr("port p0\necn p0 vl 3 kmin 50KB\necn p0 vl 3 kmax 10KB",
		    "x.conf:3: port p0: ecn vl 3: kmin above kmax");
	expect_verr("port p0\n\necn p0 vl 1 pmax 0",
		    "x.conf:3: port p0: ecn vl 1: pmax must be above 0 (to "
		    "disable marking, leave ECN off)");
	expect_verr("port p0\necn p0 vl all kmin 0 kmax 32",
		    "x.conf:2: port p0: ecn vl 0: kmax below 64 bytes "
		    "(thresholds are in bytes, not KB)");
	/* The EWMA's idle decay is checked for any clock the data path may
	 * run on (lib/ecn's range), not one made up here: the slowest port
	 * with the lightest weight passes. */
	{
		struct ibex_conf *ok = malloc(sizeof(*ok));

		assert_non_null(ok);
		ibex_conf_init(ok);
		parse_ok(ok, "port p0 speed 1M\necn p0 vl 1 ewma 16");
		validate_ok(ok);
		free(ok);
	}
	expect_verr("port p0\necn p0 vl 2 kmax 2GB",
		    "x.conf:2: port p0: ecn vl 2: kmax above 1 GiB (thresholds "
		    "are in bytes, not bits)");
}

static void
test_switch_lane_keys(void **state)
{
	struct ibex_conf *c = *state;
	char text[200], want[IBEX_CONF_ERR_LEN];

	parse_ok(c, "switch vl15-rate 0 ctl-socket /run/ibex.sock");
	assert_int_equal(c->vl15_rate_pps, 0);
	assert_string_equal(c->ctl_socket, "/run/ibex.sock");
	parse_ok(c, "switch vl15-rate 10000000 ctl-socket none");
	assert_int_equal(c->vl15_rate_pps, 10000000);
	assert_string_equal(c->ctl_socket, "");
	validate_ok(c);
	expect_err("switch vl15-rate 10000001",
		   "x.conf:1: switch: vl15-rate: 10000001 out of range "
		   "0..10000000");
	memset(want, 0, sizeof(want));
	strcpy(text, "switch ctl-socket /");
	memset(text + strlen(text), 'x', 107);
	text[19 + 107] = '\0';         /* a path of 108 characters */
	snprintf(want, sizeof(want), "x.conf:1: switch: ctl-socket: '%s' is "
		 "too long (max 107 characters)", text + 18);
	expect_err(text, want);
	text[strlen(text) - 1] = '\0';
	parse_ok(c, text);
	assert_int_equal(strlen(c->ctl_socket), 107);
}

static void
test_fdb_del(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "port p0 vlans 1,5\nport p1\n"
		    "fdb static 02:00:00:00:00:01 port p0\n"
		    "fdb static 02:00:00:00:00:01 port p0 vlan 5\n"
		    "fdb static 02:00:00:00:00:02 port p1\n"
		    "fdb static 02:00:00:00:00:01 port p0\n"
		    "fdb del 02:00:00:00:00:01 vlan 1\n");
	/* both copies of (01, 1) gone, order of the rest kept */
	assert_int_equal(c->nb_static, 2);
	assert_int_equal(c->statics[0].mac[5], 1);
	assert_int_equal(c->statics[0].vid, 5);
	assert_int_equal(c->statics[1].mac[5], 2);
	assert_int_equal(c->statics[1].line, 5);
	validate_ok(c);
	parse_ok(c, "fdb del 02:00:00:00:00:01 vlan 5");
	assert_int_equal(c->nb_static, 1);
	/* a moved station: del, then static on the other port */
	parse_ok(c, "fdb del 02:00:00:00:00:02 vlan 1\n"
		    "fdb static 02:00:00:00:00:02 port p0");
	assert_int_equal(c->statics[0].port, 0);
	validate_ok(c);

	expect_err("port p0\nfdb del 02:00:00:00:00:09 vlan 1",
		   "x.conf:2: fdb del: 02:00:00:00:00:09 vlan 1 is not a static "
		   "entry");
	expect_err("fdb del 02:00:00:00:00:09",
		   "x.conf:1: fdb del: missing 'vlan <vid>'");
	expect_err("fdb del", "x.conf:1: fdb del: missing MAC address");
	expect_err("fdb del 02:00:00 vlan 1",
		   "x.conf:1: fdb del: invalid MAC address '02:00:00'");
	expect_err("fdb del 02:00:00:00:00:01 vlan 1 port p0",
		   "x.conf:1: fdb del: unknown key 'port' (expected one of: "
		   "vlan)");
}

/* Live commands: statements re-stated on a copy of the running config. */
static void
test_live_updates(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];
	char err[IBEX_CONF_ERR_LEN];

	parse_ok(c, "port p0 dev net_ring0 speed 25G\n"
		    "port p1 dev net_ring1\n"
		    "sl2vl p0 0:1\n");
	/* an existing port is updated, not declared again */
	assert_int_equal(ibex_conf_parse_line(c, "port p0 shape 10G vls 4",
					      "ctl", 1, err, sizeof(err)), 0);
	assert_int_equal(c->nb_ports, 2);
	assert_true(p->shape_bps == UINT64_C(10000000000));
	assert_true(p->speed_bps == UINT64_C(25000000000));
	assert_string_equal(p->dev, "net_ring0");
	assert_int_equal(p->line, 1);
	/* tables complete after one line too */
	assert_int_equal(p->sl2vl.vl[0], 1);
	assert_int_equal(p->sl2vl.vl[6], 2);
	assert_int_equal(p->vlarb.nb_low, 4);
	assert_int_equal(p->ecn[0].cfg.kmin, 40000);
	validate_ok(c);
	/* every statement can be given again */
	assert_int_equal(ibex_conf_parse_line(c, "vlarb p0 low 0:8,1:8,2:8,"
					      "3:8", "ctl", 2, err,
					      sizeof(err)), 0);
	assert_int_equal(ibex_conf_parse_line(c, "ecn p0 vl 1 pmax 0.5",
					      "ctl", 3, err, sizeof(err)), 0);
	assert_int_equal(ibex_conf_parse_line(c, "ecn p0 vl 1 kmax 1MB",
					      "ctl", 4, err, sizeof(err)), 0);
	assert_true(p->ecn[1].cfg.pmax == 0.5);
	assert_int_equal(p->ecn[1].cfg.kmax, 1048576);
	assert_int_equal(ibex_conf_parse_line(c, "port p0 fc credit", "ctl", 5,
					      err, sizeof(err)), 0);
	assert_int_equal(ibex_conf_parse_line(c, "lane p0 vl 1 lossless",
					      "ctl", 6, err, sizeof(err)), 0);
	validate_ok(c);
	/* a dev taken by another port: the statement that took it */
	assert_int_equal(ibex_conf_parse_line(c, "port p0 dev net_ring1",
					      "ctl", 7, err, sizeof(err)), 0);
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "x.conf:7: port p0: dev 'net_ring1' is "
			    "already used by port p1 (line 2)");
	assert_int_equal(ibex_conf_parse_line(c, "port p0 dev net_ring2",
					      "ctl", 8, err, sizeof(err)), 0);
	validate_ok(c);
	/* a port's name is not its dev: p2 over p0's old device is fine */
	assert_int_equal(ibex_conf_parse_line(c, "port p2 dev net_ring0",
					      "ctl", 9, err, sizeof(err)), 0);
	validate_ok(c);
}

/* Tables built by code (no statement) are kept by the completion. */
static void
test_tables_built(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_conf_port *p = &c->ports[0];
	char err[IBEX_CONF_ERR_LEN];
	unsigned int s;

	assert_int_equal(ibex_conf_port_add(c, "p0", NULL), 0);
	for (s = 0; s < IBEX_SL_COUNT; s++)
		p->sl2vl.vl[s] = 7 - (s & 7);
	p->sl2vl_set = true;
	p->vlarb.nb_high = 1;
	p->vlarb.high[0].vl = 7;
	p->vlarb.high[0].weight = 9;
	p->vlarb_set = true;
	p->ecn[2].set = true;
	p->ecn[2].cfg.kmin = 1000;
	p->ecn[2].cfg.kmax = 2000;
	p->ecn[2].cfg.pmax = 0.5;
	ibex_conf_port_tables(p);
	assert_int_equal(p->sl2vl.vl[0], 7);
	assert_int_equal(p->vlarb.nb_high, 1);
	assert_int_equal(p->vlarb.nb_low, 8);
	assert_int_equal(p->ecn[2].cfg.kmax, 2000);
	assert_true(p->ecn[2].cfg.rate_bps == UINT64_C(25000000000));
	validate_ok(c);
	/* a statement on top keeps the rest of the built table */
	snprintf(c->origin, sizeof(c->origin), "built");
	assert_int_equal(ibex_conf_parse_line(c, "sl2vl p0 0:0", "ctl", 1,
					      err, sizeof(err)), 0);
	assert_int_equal(p->sl2vl.vl[0], 0);
	assert_int_equal(p->sl2vl.vl[1], 6);
	assert_int_equal(ibex_conf_parse_line(c, "vlarb p0 limit 3", "ctl", 2,
					      err, sizeof(err)), 0);
	assert_int_equal(p->vlarb.high[0].weight, 9);
	assert_int_equal(p->vlarb.limit, 3);
	assert_int_equal(ibex_conf_parse_line(c, "ecn p0 vl 2 pmax 0.25",
					      "ctl", 3, err, sizeof(err)), 0);
	assert_int_equal(p->ecn[2].cfg.kmax, 2000);
	assert_true(p->ecn[2].cfg.pmax == 0.25);
	validate_ok(c);
	/* enums and sizes built out of range */
	p->fc_mode = 7;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "built: port p0: fc: 7 is not one of: none, "
			    "credit, pfc, cbfc");
	p->fc_mode = IBEX_FC_NONE;
	p->nb_vls = 5;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "built: port p0: vls: 5 is not one of: 1, 2, "
			    "4, 8, 15");
	p->nb_vls = 8;
	p->vl_queue_blocks = 0;
	assert_int_equal(ibex_conf_validate(c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "built: port p0: vl-queue: 0B out of range "
			    "64B..1GB");
	p->vl_queue_blocks = 4096;
	p->pfc_xoff_blocks = 0;     /* dynamic */
	p->pfc_headroom_blocks = 0; /* with auto */
	validate_ok(c);
}

static void
test_lanes_docs_example(void **state)
{
	struct ibex_conf *c = *state;

	/* the lanes example of docs/configuration.md */
	parse_ok(c,
		 "switch vl15-rate 1000\n"
		 "buffer total 8MB alpha 1/8\n"
		 "port p0 dev net_ring0 speed 25G vls 4 fc pfc\n"
		 "port p1 dev net_ring1 speed 25G vls 4 fc credit\n"
		 "pcp2sl p0 0-2:0,3:3,4-7:1\n"
		 "sl2vl p0 0:0,1:1,3:3\n"
		 "vlarb p0 high 3:4 low 0:32,1:32,2:32 limit 8\n"
		 "lane p0 vl 3 lossless\n"
		 "pfc p0 headroom auto cable-m 3 proc-ns 2000\n"
		 "pfc p0 watchdog drop detect-ms 200 recover-ms 200\n"
		 "lane p1 vl 3 lossless reserved 128KB\n"
		 "credit p1 period-us 10 min-gap-ns 500\n"
		 "ecn p0 vl all kmin 100KB kmax 400KB pmax 0.2\n"
		 "ecn p1 vl 3 kmin 50KB kmax 200KB pmax 0.1 fecn on\n");
	validate_ok(c);
	assert_int_equal(ibex_conf_vl_prio(&c->ports[0], 3), 3);
	assert_int_equal(c->ports[1].reserved_blocks[3], 2048);
}

/* The configuration examples of docs/virtual-lanes.md and flow-control.md. */
static void
test_lane_fc_docs_examples(void **state)
{
	struct ibex_conf *c = *state;
	const struct ibex_conf_port *p = &c->ports[0];

	parse_ok(c, "port p0 vls 4\n"
		    "port p0 sl-from dscp\n"
		    "sl p0 default 0\n"
		    "pcp2sl p0 0:0,1:1,2:2,3:3,4:4,5:5,6:6,7:7\n"
		    "dscp2sl p0 0-7:0,26:3,46:5 48:6\n"
		    "sl2vl p0 0:0,1:1,2:2,3:3,4:0,5:1,6:2,7:drop\n"
		    "vlarb p0 high 3:2 low 0:1,1:2 limit 0\n"
		    "vlarb p0 low 0:32,1:32,2:64,3:128 limit unbounded\n"
		    "vlarb p0 strict\n");
	validate_ok(c);
	assert_int_equal(p->vlarb.nb_high, 1);
	assert_int_equal(p->vlarb.nb_low, 4);
	assert_int_equal(p->vlarb.limit, 255);
	assert_true(p->vlarb.strict);
	assert_int_equal(p->sl2vl.vl[7], IBEX_VL_DROP);

	ibex_conf_init(c);
	parse_ok(c, "buffer total 8MB alpha 1/8\n"
		    "port p0 fc credit\n"
		    "lane p0 vl 1 lossless reserved 128KB\n"
		    "credit p0 period-us 10\n"
		    "port p1 fc pfc\n"
		    "lane p1 vl 3 lossless\n"
		    "pfc p1 headroom auto cable-m 3\n"
		    "pfc p1 xoff dynamic xon 3KB\n"
		    "pfc p1 watchdog drop detect-ms 200 recover-ms 200\n");
	validate_ok(c);
	assert_int_equal(c->ports[0].lossless_mask, 1 << 1);
	assert_int_equal(c->ports[1].pfc_cable_m, 3);
}

/* mtu, rx-scatter, lldp-to / stp-to and switch mbuf-size. */
static void
test_port_frame_keys(void **state)
{
	struct ibex_conf *c = *state;

	parse_ok(c, "switch mbuf-size 10KB\n"
		 "port p0 dev net_ring0 mtu 9000 rx-scatter on\n"
		 "port cpu dev net_ring1 rx-scatter off\n"
		 "port p1 dev net_ring2 lldp-to cpu stp-to p0\n"
		 "port p0 lldp-to cpu\n");
	validate_ok(c);
	assert_int_equal(c->mbuf_size, 10240);
	assert_int_equal(c->ports[0].mtu, 9000);
	assert_int_equal(c->ports[0].rx_scatter, IBEX_RX_SCATTER_ON);
	assert_int_equal(c->ports[1].rx_scatter, IBEX_RX_SCATTER_OFF);
	assert_int_equal(c->ports[2].rx_scatter, IBEX_RX_SCATTER_AUTO);
	assert_int_equal(c->ports[0].lldp_to, 1);
	assert_int_equal(c->ports[0].stp_to, IBEX_PORT_NONE);
	assert_int_equal(c->ports[2].lldp_to, 1);
	assert_int_equal(c->ports[2].stp_to, 0);
	assert_int_equal(c->ports[1].lldp_to, IBEX_PORT_NONE);
	/* frames: MTU + Ethernet header + one tag; unset takes jumbo */
	assert_int_equal(ibex_conf_port_frame_max(&c->ports[0]), 9018);
	assert_int_equal(ibex_conf_port_frame_max(&c->ports[1]),
			 IBEX_CONF_MTU_MAX + 18);
	parse_ok(c, "port p1 lldp-to none");
	assert_int_equal(c->ports[2].lldp_to, IBEX_PORT_NONE);

	expect_err("port p0 lldp-to cpu\n",
		   "x.conf:1: port p0: unknown port 'cpu'");
	expect_err("port p0 rx-scatter maybe\n",
		   "x.conf:1: port p0: rx-scatter: 'maybe' is not one of: "
		   "auto, on, off");
	expect_err("switch mbuf-size 1KB\n",
		   "x.conf:1: switch: mbuf-size: 1KB out of range "
		   "2KB..60KB");
	expect_verr("port p0 dev net_ring0\nport p0 stp-to p0\n",
		    "x.conf:1: port p0: stp-to names the port itself");
}

/* @p b against running @p a: refused with exactly @p want. */
static void
expect_restart(const char *a, const char *b, const char *want)
{
	struct ibex_conf *ca = malloc(sizeof(*ca)), *cb = malloc(sizeof(*cb));
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_non_null(ca);
	assert_non_null(cb);
	ibex_conf_init(ca);
	ibex_conf_init(cb);
	assert_int_equal(ibex_conf_parse_string(ca, a, "run.conf", err,
						sizeof(err)), 0);
	assert_int_equal(ibex_conf_finish(ca, err, sizeof(err)), 0);
	assert_int_equal(parse(cb, b, err), 0);
	assert_int_equal(ibex_conf_finish(cb, err, sizeof(err)), 0);
	assert_int_equal(ibex_conf_restart_check(ca, cb, err, sizeof(err)),
			 -ENOTSUP);
	assert_string_equal(err, want);
	free(ca);
	free(cb);
}

/* In-network aggregation: a pool, jobs with children in order, a parent
 * or the root, redefined and removed; bad words and references refused
 * with their line; the pool is restart-only, the jobs live. */
static void
test_aggregation(void **state)
{
	struct ibex_conf *c = *state;
	char err[IBEX_CONF_ERR_LEN] = "";

	parse_ok(c, "port r0\nport r1\nport r2\nport up\n"
		    "aggregation pool 4M\n"
		    "aggregation job 7 children r0,r1,r2 parent root\n"
		    "aggregation job 9 children r2,r2 parent up up-child 3 "
		    "slots 128 elements 2048\n");
	assert_int_equal(c->agg_pool_bytes, 4 << 20);
	assert_int_equal(c->nb_agg_jobs, 2);
	assert_int_equal(c->agg_jobs[0].id, 7);
	assert_int_equal(c->agg_jobs[0].n_children, 3);
	assert_int_equal(c->agg_jobs[0].children[2], 2);
	assert_int_equal(c->agg_jobs[0].parent, IBEX_PORT_NONE);
	assert_int_equal(c->agg_jobs[0].slots, IBEX_CONF_AGG_SLOTS);
	assert_int_equal(c->agg_jobs[0].elements, IBEX_CONF_AGG_ELEMENTS);
	assert_int_equal(c->agg_jobs[0].line, 6);
	assert_int_equal(c->agg_jobs[1].parent, 3);
	assert_int_equal(c->agg_jobs[1].up_child, 3);
	assert_int_equal(c->agg_jobs[1].slots, 128);
	assert_int_equal(c->agg_jobs[1].elements, 2048);
	assert_int_equal(ibex_conf_agg_find(c, 9), 1);
	validate_ok(c);
	/* redefined in place, then removed: the later one moves down */
	parse_ok(c, "aggregation job 7 children r1,r0 parent up\n");
	assert_int_equal(c->nb_agg_jobs, 2);
	assert_int_equal(c->agg_jobs[0].children[0], 1);
	parse_ok(c, "aggregation del 7\n");
	assert_int_equal(c->nb_agg_jobs, 1);
	assert_int_equal(c->agg_jobs[0].id, 9);
	assert_int_equal(parse(c, "aggregation del 7", err), -EINVAL);
	assert_string_equal(err, "x.conf:1: aggregation del 7: no "
			    "aggregation job 7");
	expect_err("port p0\naggregation job 1 children p0,p9 parent root",
		   "x.conf:2: aggregation job 1: unknown port 'p9'");
	expect_err("port p0\naggregation job 1 children p0",
		   "x.conf:2: aggregation job 1: missing 'parent <port>|root'");
	expect_err("port p0\naggregation job 1 parent root slots 0",
		   "x.conf:2: aggregation job 1: slots '0' is not 1..32768");
	expect_err("port p0\naggregation job 1 children p0 parent root "
		   "elements 2049",
		   "x.conf:2: aggregation job 1: elements '2049' is not "
		   "1..2048");
	expect_err("port p0\naggregation job 1 children p0 parent root "
		   "colour red",
		   "x.conf:2: aggregation job 1: unknown key 'colour' "
		   "(children, parent, up-child, slots, elements)");
	expect_err("aggregation pool lots",
		   "x.conf:1: aggregation: pool 'lots' is not 0 or a size from "
		   "4K to 1T");
	expect_verr("port p0\nport p1\n"
		    "aggregation job 1 children p0,p1 parent p1\n"
		    "aggregation pool 1M",
		    "x.conf:3: aggregation job 1: port p1 is both a child "
		    "and the parent");
	expect_verr("port p0\naggregation job 1 children p0 parent root",
		    "x.conf:2: aggregation job 1: no slot memory: add "
		    "'aggregation pool <size>'");
	expect_restart("port p0\naggregation pool 1M",
		       "port p0\naggregation pool 2M",
		       "x.conf:2: aggregation pool needs a restart");
	/* jobs change live */
	ibex_conf_init(c);
	parse_ok(c, "port p0\naggregation pool 1M\n");
	assert_int_equal(ibex_conf_finish(c, err, sizeof(err)), 0);
	{
		struct ibex_conf *b = malloc(sizeof(*b));

		assert_non_null(b);
		ibex_conf_init(b);
		parse_ok(b, "port p0\naggregation pool 1M\n"
			    "aggregation job 3 children p0 parent root\n");
		assert_int_equal(ibex_conf_finish(b, err, sizeof(err)), 0);
		assert_int_equal(ibex_conf_restart_check(c, b, err,
							 sizeof(err)), 0);
		free(b);
	}
}

/* fc cbfc: SAI's ranges, the limit auto from the lane, clear refusals. */
static void
test_cbfc(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_cbfc_conf cc;
	char err[IBEX_CONF_ERR_LEN] = "";

	parse_ok(c, "port p0 fc cbfc vls 2\nlane p0 vl 1 lossless "
		 "reserved 64KB\ncbfc p0 cc-timer-us 100 overhead -4");
	validate_ok(c);
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(cc.credit_size, 128);
	assert_int_equal(cc.overhead, -4);
	assert_int_equal(cc.cc_timer_us, 100);
	assert_int_equal(cc.tx_lossless, 2);
	assert_int_equal(cc.rx_lossless, 2);
	/* 64 KB of 64-byte blocks; a credit of 128 bytes with a negative
	 * overhead may stand for 128 + 63 + 4 bytes */
	assert_int_equal(cc.vc_limit[1], 65536 / (128 + 63 + 4));
	parse_ok(c, "cbfc p0 overhead 0 limit 1000");
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(cc.vc_limit[1], 1000);
	parse_ok(c, "cbfc p0 limit auto");
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(cc.vc_limit[1], 512);

	expect_err("port p0\ncbfc p0 overhead 128",
		   "x.conf:2: cbfc p0: overhead: '128' is not a byte count in "
		   "-16..127");
	expect_err("port p0\ncbfc p0 credit-size 8",
		   "x.conf:2: cbfc p0: credit-size: 8 out of range 16..4096");
	expect_err("port p0\ncbfc p0 cc-timer-us 250001",
		   "x.conf:2: cbfc p0: cc-timer-us: 250001 out of range "
		   "0..250000");
	expect_err("port p0\ncbfc p0 cf-min-spacing 100",
		   "x.conf:2: cbfc p0: cf-min-spacing: 100 out of range "
		   "800B..1MB");
	expect_verr("port p0 fc cbfc\nlane p0 vl 1 lossless reserved 2KB\n"
		    "cbfc p0 credit-size 4096",
		    "x.conf:3: port p0: lane vl 1: its reserved share holds no "
		    "4096-byte credit (limit auto)");
	expect_verr("switch workers 2\nport p0 fc cbfc",
		    "x.conf:2: port p0: fc cbfc runs on one worker (switch "
		    "workers 2): several workers are not implemented yet");
	expect_verr("port p0 fc cbfc\ncbfc p0 cf-max-spacing 20000",
		    "x.conf:2: port p0: cbfc: CF_Update maximum spacing: "
		    "16384..1048576 bytes in steps of 16384, not 20000");
	expect_verr("port p0 fc cbfc rx-queues 2",
		    "x.conf:1: port p0: fc cbfc needs one RX queue (rx-queues "
		    "2): a CC_Update must not pass the frames it counts");
	expect_verr("port p0 fc cbfc\nlane p0 vl 1 lossless reserved 2KB\n"
		    "cbfc p0 limit 8",
		    "x.conf:3: port p0: lane vl 1: a limit of 8 credits holds "
		    "no 1522-byte frame (12 credits of 128 bytes): give the "
		    "lane more reserved, or cbfc limit");
	/* a restart-only setting */
	expect_restart("port p0 fc cbfc", "port p0 fc cbfc\ncbfc p0 limit 9",
		       "x.conf:1: port p0: cbfc limit needs a restart (live: "
		       "credit timers, pfc quanta and watchdog, lanes' queues, "
		       "classes and ECN)");
}

#define CBFC_POOLS_CONF \
	"port p0 fc cbfc vls 4\n" \
	"lane p0 vl 0 lossless reserved 64KB\n" \
	"lane p0 vl 1 lossless reserved 64KB\n" \
	"lane p0 vl 2 lossless reserved 64KB\n" \
	"cbfc p0 port-limit 2000\n" \
	"cbfc p0 pool 0 size 600\n" \
	"cbfc p0 pool 1 size 400\n" \
	"cbfc p0 profile 0 pool 0 reserved 100 static 200\n" \
	"cbfc p0 profile 1 pool 0 reserved 50 dynamic -1\n" \
	"cbfc p0 profile 2 pool port reserved 20\n" \
	"cbfc p0 vc 0 profile 0\n" \
	"cbfc p0 vc 1 profile 1\n" \
	"cbfc p0 vc 2 profile 2\n"

/* Credits VC @p vc takes one at a time until the send rule refuses. */
static uint32_t
cbfc_fill(struct ibex_cbfc_port *p, unsigned int vc)
{
	uint32_t n = 0;

	while (ibex_cbfc_tx_take(p, vc, 1))
		n++;
	return n;
}

/* cbfc pool/profile/vc: what the statements give the state machines. */
static void
test_cbfc_pools(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_cbfc_conf cc;
	char err[IBEX_CONF_ERR_LEN] = "";

	parse_ok(c, CBFC_POOLS_CONF);
	validate_ok(c);
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(cc.n_pools, 2);
	assert_int_equal(cc.pool_size[0], 600);
	assert_int_equal(cc.pool_size[1], 400);
	assert_int_equal(cc.n_profiles, 3);
	assert_int_equal(cc.profile[0].pool, 0);
	assert_int_equal(cc.profile[0].reserved, 100);
	assert_int_equal(cc.profile[0].th_mode, IBEX_CBFC_TH_STATIC);
	assert_int_equal(cc.profile[0].static_th, 200);
	assert_int_equal(cc.profile[1].th_mode, IBEX_CBFC_TH_DYNAMIC);
	assert_int_equal(cc.profile[1].dyn_th, -1);
	assert_int_equal(cc.profile[2].pool, IBEX_CBFC_PORT_POOL);
	assert_int_equal(cc.profile[2].th_mode, IBEX_CBFC_TH_NONE);
	assert_int_equal(cc.vc_profile[0], 0);
	assert_int_equal(cc.vc_profile[1], 1);
	assert_int_equal(cc.vc_profile[2], 2);
	assert_int_equal(cc.vc_profile[3], IBEX_CBFC_NO_PROFILE);
	/* a CC_Update may free what a VC may hold: reserved and its pool */
	assert_true(cc.rx_total >= 100 + 600);

	/* Redefined whole; none takes a VC's profile away. */
	parse_ok(c, "cbfc p0 profile 0 pool 1 reserved 10 dynamic 3\n"
		 "cbfc p0 vc 2 profile none");
	validate_ok(c);
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(cc.profile[0].pool, 1);
	assert_int_equal(cc.profile[0].static_th, 0);
	assert_int_equal(cc.profile[0].dyn_th, 3);
	assert_int_equal(cc.vc_profile[2], IBEX_CBFC_NO_PROFILE);
	parse_ok(c, "cbfc p0 pool 1 none\ncbfc p0 profile 0 none\n"
		 "cbfc p0 profile 2 none\ncbfc p0 vc 0 profile none");
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(cc.n_pools, 1);
	assert_int_equal(cc.n_profiles, 2);
}

/* The profiles of CBFC_POOLS_CONF hold on the sender: a static threshold
 * caps a VC, a dynamic one leaves part of the pool free, freed credits
 * go back to the pool, the port's credits are a pool of their own. */
static void
test_cbfc_pools_send_rule(void **state)
{
	struct ibex_conf *c = *state;
	struct ibex_cbfc_cf_update u = { .vc = 0 };
	struct ibex_cbfc_port *p = malloc(sizeof(*p));
	struct ibex_cbfc_conf cc;
	char err[IBEX_CONF_ERR_LEN] = "";

	assert_non_null(p);
	parse_ok(c, CBFC_POOLS_CONF);
	assert_int_equal(ibex_conf_port_cbfc(&c->ports[0], &cc, err,
					     sizeof(err)), 0);
	assert_int_equal(ibex_cbfc_port_init(p, &cc, 0), 0);
	/* pool 0 shares 600 - 100 - 50 = 450 */
	assert_int_equal(p->pool[0].shared, 450);
	assert_int_equal(ibex_cbfc_tx_room(p, 0), 100 + 200);
	/* VC 0: 100 reserved and 200 shared (static), not its lane's 512 */
	assert_int_equal(cbfc_fill(p, 0), 300);
	assert_int_equal(p->pool[0].used, 200);
	/* VC 1: 50 reserved, then shared while it stays within half of
	 * what the pool has free: x <= (250 - x + 1) / 2, x = 83 */
	assert_int_equal(cbfc_fill(p, 1), 50 + 83);
	assert_int_equal(p->pool[0].used, 283);
	assert_int_equal(ibex_cbfc_tx_room(p, 1), 0);
	/* VC 0 frees 150 (its shared part first): VC 1 takes more */
	u.cf = 150;
	assert_int_equal(ibex_cbfc_cf_apply(p, &u), 0);
	assert_int_equal(p->pool[0].used, 133);
	assert_true(cbfc_fill(p, 1) > 0);
	/* VC 2: reserved only on the port's credits */
	assert_int_equal(cbfc_fill(p, 2), 20);
	/* VC 3 is lossy: not gated */
	assert_true(ibex_cbfc_tx_take(p, 3, 1000));
	free(p);
}

/* Every refusal of the pool, profile and vc statements, with its line. */
static void
test_cbfc_pools_refused(void **state)
{
	(void)state;
	expect_err("port p0\ncbfc p0 pool 4 size 10",
		   "x.conf:2: cbfc p0: pool: 4 out of range 0..3");
	expect_err("port p0\ncbfc p0 pool x size 10",
		   "x.conf:2: cbfc p0: pool: 'x' is not a number");
	expect_err("port p0\ncbfc p0 pool",
		   "x.conf:2: cbfc p0: pool: missing its number (0..3)");
	expect_err("port p0\ncbfc p0 pool 0",
		   "x.conf:2: cbfc p0: missing settings (expected one of: "
		   "size)");
	expect_err("port p0\ncbfc p0 pool 0 size 0",
		   "x.conf:2: cbfc p0: size: 0 out of range 1..1048575");
	expect_err("port p0\ncbfc p0 pool 0 size 1048576",
		   "x.conf:2: cbfc p0: size: 1048576 out of range "
		   "1..1048575");
	expect_err("port p0\ncbfc p0 profile 8 pool 0",
		   "x.conf:2: cbfc p0: profile: 8 out of range 0..7");
	expect_err("port p0\ncbfc p0 profile 0 reserved 5",
		   "x.conf:2: cbfc p0: profile 0: missing its pool "
		   "(pool <n>|port)");
	expect_err("port p0\ncbfc p0 profile 0 pool 4",
		   "x.conf:2: cbfc p0: pool: '4' is not a pool (0..3 or "
		   "port)");
	expect_err("port p0\ncbfc p0 profile 0 pool 0 reserved 1048576",
		   "x.conf:2: cbfc p0: reserved: 1048576 out of range "
		   "0..1048575");
	expect_err("port p0\ncbfc p0 profile 0 pool 0 dynamic 8",
		   "x.conf:2: cbfc p0: dynamic: '8' is not a number in -7..7");
	expect_err("port p0\ncbfc p0 profile 0 pool 0 dynamic -8",
		   "x.conf:2: cbfc p0: dynamic: '-8' is not a number in "
		   "-7..7");
	expect_err("port p0\ncbfc p0 profile 0 pool 0 static 5 dynamic 1",
		   "x.conf:2: cbfc p0: 'static' and 'dynamic' exclude each "
		   "other");
	expect_err("port p0\ncbfc p0 vc 15 profile 0",
		   "x.conf:2: cbfc p0: vc: 15 out of range 0..14: a VC is a "
		   "lane, VL15 is management");
	expect_err("port p0\ncbfc p0 vc 1 profile 8",
		   "x.conf:2: cbfc p0: profile: '8' is not a profile (0..7 or "
		   "none)");
	expect_err("port p0\ncbfc p0 bogus 1",
		   "x.conf:2: cbfc p0: unknown key 'bogus' (expected one of: "
		   "credit-size, overhead, cc-timer-us, cf-min-spacing, "
		   "cf-max-spacing, cf-refreshes, limit, port-limit, pool, "
		   "profile, vc)");
	expect_err("port p0\ncbfc p0 vc 1 pool 0",
		   "x.conf:2: cbfc p0: unknown key 'pool' (expected one of: "
		   "profile)");

	/* between statements, at the later of those involved */
	expect_verr("port p0 fc cbfc\ncbfc p0 pool 1 size 10",
		    "x.conf:2: port p0: cbfc pool 1: pools are numbered from "
		    "0, and pool 0 is not defined");
	expect_verr("port p0 fc cbfc\ncbfc p0 pool 0 size 10\n"
		    "cbfc p0 profile 1 pool 0\n",
		    "x.conf:3: port p0: cbfc profile 1: profiles are numbered "
		    "from 0, and profile 0 is not defined");
	expect_verr("port p0 fc cbfc\ncbfc p0 pool 0 size 10\n"
		    "cbfc p0 profile 0 pool 1 static 5\n",
		    "x.conf:3: port p0: cbfc profile 0: pool 1 is not "
		    "defined");
	expect_verr("port p0 fc cbfc\ncbfc p0 profile 0 pool port static 0",
		    "x.conf:2: port p0: cbfc profile 0: pool port shares the "
		    "port's credits, but the port has no port-limit");
	expect_verr("port p0 fc cbfc\ncbfc p0 pool 0 size 100\n"
		    "cbfc p0 profile 0 pool 0 static 0\n"
		    "cbfc p0 vc 5 profile 0\nport p0 vls 4",
		    "x.conf:5: port p0: cbfc vc 5: the port has VCs 0..3 "
		    "(vls 4)");
	expect_verr("port p0 fc cbfc\ncbfc p0 pool 0 size 100\n"
		    "cbfc p0 profile 0 pool 0 static 0\n"
		    "cbfc p0 vc 1 profile 0",
		    "x.conf:4: port p0: cbfc vc 1: lane vl 1 is not lossless: "
		    "a profile shares credits among lossless VCs");
	expect_verr("port p0 fc cbfc\nlane p0 vl 1 lossless\n"
		    "cbfc p0 vc 1 profile 0",
		    "x.conf:3: port p0: cbfc vc 1: profile 0 is not defined");
	/* what ibex_cbfc_conf_check() refuses, with its reason */
	expect_verr("port p0 fc cbfc\nlane p0 vl 0 lossless\n"
		    "lane p0 vl 1 lossless\ncbfc p0 pool 0 size 100\n"
		    "cbfc p0 profile 0 pool 0 reserved 60 static 0\n"
		    "cbfc p0 vc 0 profile 0\ncbfc p0 vc 1 profile 0",
		    "x.conf:7: port p0: cbfc: credit pool 0: its VCs reserve "
		    "120 credits of 100");
	expect_verr("port p0 fc cbfc\ncbfc p0 pool 0 size 100\n"
		    "cbfc p0 port-limit 50",
		    "x.conf:3: port p0: cbfc: credit pools: 100 credits in "
		    "all, above the port's limit 50");
	expect_verr("port p0 fc cbfc\nlane p0 vl 0 lossless\n"
		    "cbfc p0 pool 0 size 100\ncbfc p0 profile 0 pool 0\n"
		    "cbfc p0 vc 0 profile 0",
		    "x.conf:5: port p0: cbfc: VC 0: lossless, but its credit "
		    "profile reserves nothing and shares nothing (it could "
		    "never send)");
	/* a profile must let the port's largest frame go */
	expect_verr("port p0 fc cbfc\nlane p0 vl 0 lossless\n"
		    "cbfc p0 pool 0 size 100\n"
		    "cbfc p0 profile 0 pool 0 reserved 5 static 4\n"
		    "cbfc p0 vc 0 profile 0",
		    "x.conf:5: port p0: cbfc vc 0: profile 0 lets no 1522-byte "
		    "frame (12 credits of 128 bytes) go, even with its pool "
		    "unused");
	/* restart-only, named as the statement that sets it */
	expect_restart("port p0 fc cbfc",
		       "port p0 fc cbfc\ncbfc p0 pool 0 size 10",
		       "x.conf:1: port p0: cbfc pool 0 needs a restart (live: "
		       "credit timers, pfc quanta and watchdog, lanes' queues, "
		       "classes and ECN)");
}

/* A restart-only global setting in a reload is refused with the line
 * that sets it (the first such, when several differ); one setting
 * "needs" a restart, several "need" one. */
static void
test_restart_only_line(void **state)
{
	(void)state;
	expect_restart("port p0\nswitch workers 1\n",
		       "port p0\n# more workers\nswitch burst 32\n"
		       "switch workers 2\n",
		       "x.conf:4: switch workers needs a restart");
	expect_restart("port p0\nfdb max-entries 1000\n",
		       "port p0\n\nfdb max-entries 2000\n",
		       "x.conf:3: fdb max-entries needs a restart");
	expect_restart("port p0\nswitch workers 1\nfdb max-entries 1000\n",
		       "port p0\nfdb max-entries 2000\nswitch workers 2\n",
		       "x.conf:3: switch workers, fdb max-entries need a "
		       "restart");
	/* one setting of a port: needs; two: need */
	expect_restart("port p0\n", "port p0 rx-desc 512\n",
		       "x.conf:1: port p0: rx-desc needs a restart (live: "
		       "credit timers, pfc quanta and watchdog, lanes' "
		       "queues, classes and ECN)");
	expect_restart("port p0\n", "port p0 rx-desc 512 tx-desc 512\n",
		       "x.conf:1: port p0: rx-desc, tx-desc need a restart "
		       "(live: credit timers, pfc quanta and watchdog, "
		       "lanes' queues, classes and ECN)");
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
		T(test_port_flood),
		T(test_port_frame_keys),
		T(test_port_order_and_names),
		T(test_port_vlan_membership),
		T(test_fdb_keys),
		T(test_fdb_static),
		T(test_ecmp_groups),
		T(test_ecmp_adaptive),
		T(test_aggregation),
		T(test_trim),
		cmocka_unit_test(test_ecmp_errors),
		cmocka_unit_test(test_restart_only_line),
		cmocka_unit_test(test_conf_copy),
		cmocka_unit_test_setup_teardown(test_cbfc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cbfc_pools, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cbfc_pools_send_rule,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cbfc_pools_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_static_dup_many, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_static_same_twice, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_static_same_twice_max,
						setup, teardown),
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
		T(test_parse_file_stat),
		T(test_port_diff),
		T(test_lane_defaults),
		T(test_sizes),
		T(test_port_lane_keys),
		T(test_classifier),
		T(test_sl2vl),
		T(test_vlarb),
		T(test_vlarb_max_entries),
		T(test_lane_statements),
		T(test_credit),
		T(test_credit_window),
		T(test_pfc),
		T(test_pfc_lossless_rules),
		T(test_pfc_reachable_by_table),
		T(test_vl_prio),
		T(test_buf_conf),
		T(test_buffer),
		T(test_ecn),
		T(test_switch_lane_keys),
		T(test_fdb_del),
		T(test_live_updates),
		T(test_tables_built),
		T(test_lanes_docs_example),
		T(test_lane_fc_docs_examples),
#undef T
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
