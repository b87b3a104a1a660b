/* SPDX-License-Identifier: BSD-3-Clause */
/* PFC: quanta arithmetic, XOFF/XON/refresh generation, obeying received
 * frames, and the watchdog's storm detection and recovery. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ibex_pfc.h"

static void
test_quanta_time(void **state)
{
	(void)state;
	/* one quantum = 512 bit times */
	assert_int_equal(ibex_pfc_quanta_to_ps(1, 10000), 51200);
	assert_int_equal(ibex_pfc_quanta_to_ps(1, 25000), 20480);
	assert_int_equal(ibex_pfc_quanta_to_ps(1, 40000), 12800);
	assert_int_equal(ibex_pfc_quanta_to_ps(1, 100000), 5120);
	/* 65535 quanta */
	assert_int_equal(ibex_pfc_quanta_to_ns(65535, 40000), 838848);
	assert_int_equal(ibex_pfc_quanta_to_ns(65535, 10000), 3355392);
	assert_int_equal(ibex_pfc_quanta_to_ps(65535, 25000), 1342156800);
	assert_int_equal(ibex_pfc_quanta_to_ns(65535, 25000), 1342157);
	assert_int_equal(ibex_pfc_quanta_to_ps(65535, 100000), 335539200);
	assert_int_equal(ibex_pfc_quanta_to_ns(65535, 100000), 335540);
	assert_int_equal(ibex_pfc_quanta_to_ns(0, 100000), 0);
	assert_int_equal(ibex_pfc_quanta_to_ns(10, 0), 0);
	/* and back, rounded up, capped */
	assert_int_equal(ibex_pfc_ns_to_quanta(838848, 40000), 65535);
	assert_int_equal(ibex_pfc_ns_to_quanta(52, 10000), 2);
	assert_int_equal(ibex_pfc_ns_to_quanta(51, 10000), 1);
	assert_int_equal(ibex_pfc_ns_to_quanta(10000000, 100000), 65535);
}

/* Params and counters of the machines under test (one of each side per
 * test, as the data path gives one to each port). */
static struct ibex_pfc_tx_params tpar;
static struct ibex_pfc_tx_stats tst;
static struct ibex_pfc_rx_params rpar;
static struct ibex_pfc_rx_stats rst;

/* A generator with fresh counters, as the old all-in-one init made it. */
static int
tx_init(struct ibex_pfc_tx *t, uint64_t rate_mbps, uint16_t quanta,
	uint64_t margin_ns)
{
	int ret = ibex_pfc_tx_params_set(&tpar, rate_mbps, quanta, margin_ns);

	if (ret < 0)
		return ret;
	ibex_pfc_tx_init(t);
	memset(&tst, 0, sizeof(tst));
	return 0;
}

static int
rx_init(struct ibex_pfc_rx *r, uint64_t rate_mbps,
	enum ibex_pfc_wd_action action, uint64_t detect_ns,
	uint64_t recover_ns)
{
	int ret = ibex_pfc_rx_params_set(&rpar, rate_mbps, action, detect_ns,
					 recover_ns);

	if (ret < 0)
		return ret;
	ibex_pfc_rx_init(r);
	memset(&rst, 0, sizeof(rst));
	return 0;
}

static void
test_tx_edges_and_refresh(void **state)
{
	struct ibex_pfc_tx t;
	struct ibex_fcf_pfc m;

	(void)state;
	assert_int_equal(tx_init(&t, 40000, 0, 0), -EINVAL);
	assert_int_equal(tx_init(&t, 0, 100, 0), -EINVAL);
	assert_int_equal(tx_init(&t, 40000, 65535, 838848), -EINVAL);
	/* 65535 quanta at 40G: 838848 ns; refresh 100 us before expiry */
	assert_int_equal(tx_init(&t, 40000, 65535, 100000), 0);
	assert_false(ibex_pfc_tx_poll(&tpar, &t, &tst, 0, &m));
	ibex_pfc_tx_set(&t, 3, true);
	ibex_pfc_tx_set(&t, 3, true); /* no second edge */
	assert_true(ibex_pfc_tx_poll(&tpar, &t, &tst, 1000, &m));
	assert_int_equal(m.cev, 1 << 3);
	assert_int_equal(m.quanta[3], 65535);
	assert_int_equal(m.quanta[2], 0);
	assert_int_equal(t.expires_ns[3], 1000 + 838848);
	/* not yet within the margin */
	assert_false(ibex_pfc_tx_poll(&tpar, &t, &tst, 1000 + 738847, &m));
	assert_true(ibex_pfc_tx_poll(&tpar, &t, &tst, 1000 + 738848, &m));
	assert_int_equal(m.cev, 1 << 3);
	assert_int_equal(m.quanta[3], 65535);
	assert_int_equal(tst.refresh_tx, 1);
	/* XON on priority 3 together with XOFF on priority 5 */
	ibex_pfc_tx_set(&t, 3, false);
	ibex_pfc_tx_set(&t, 5, true);
	assert_true(ibex_pfc_tx_poll(&tpar, &t, &tst, 800000, &m));
	assert_int_equal(m.cev, (1 << 3) | (1 << 5));
	assert_int_equal(m.quanta[3], 0);
	assert_int_equal(m.quanta[5], 65535);
	assert_int_equal(tst.xoff_tx, 2);
	assert_int_equal(tst.xon_tx, 1);
	/* An XOFF and XON between two polls cancel out. */
	ibex_pfc_tx_set(&t, 1, true);
	ibex_pfc_tx_set(&t, 1, false);
	assert_false(ibex_pfc_tx_poll(&tpar, &t, &tst, 800001, &m));
	/* Repeat: an XON for a priority never asserted here (another
	 * generator paused it), an XOFF again before its refresh is due. */
	ibex_pfc_tx_repeat(&t, 2);
	ibex_pfc_tx_repeat(&t, 5);
	assert_true(ibex_pfc_tx_poll(&tpar, &t, &tst, 800002, &m));
	assert_int_equal(m.cev, (1 << 2) | (1 << 5));
	assert_int_equal(m.quanta[2], 0);
	assert_int_equal(m.quanta[5], 65535);
	assert_int_equal(t.expires_ns[5], 800002 + 838848);
	assert_int_equal(t.asserted, 1 << 5);
	assert_false(ibex_pfc_tx_poll(&tpar, &t, &tst, 800003, &m));
	/* Default margin: half the pause. */
	assert_int_equal(tx_init(&t, 100000, 65535, 0), 0);
	assert_int_equal(tpar.pause_ns, 335539);
	assert_int_equal(tpar.margin_ns, 167769);
}

static void
test_rx_obey(void **state)
{
	struct ibex_pfc_rx r;
	struct ibex_fcf_pfc m = { .cev = 0x81, .quanta = { 100 } };

	(void)state;
	assert_int_equal(rx_init(&r, 0, IBEX_PFC_WD_OFF, 0, 0), -EINVAL);
	assert_int_equal(rx_init(&r, 10000, IBEX_PFC_WD_DROP, 0, 1), -EINVAL);
	assert_int_equal(rx_init(&r, 10000, IBEX_PFC_WD_OFF, 0, 0), 0);
	m.quanta[7] = 0;
	/* 100 quanta at 10G = 5120 ns on prio 0; prio 7 XON (no effect) */
	assert_int_equal(ibex_pfc_rx_frame(&rpar, &r, &rst, &m, 1000), 0x81);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 0, 1000), IBEX_PFC_PAUSED);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 0, 6119), IBEX_PFC_PAUSED);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 0, 6120), IBEX_PFC_OPEN);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 7, 1000), IBEX_PFC_OPEN);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 1, 1000), IBEX_PFC_OPEN);
	/* quanta 0 resumes at once */
	ibex_pfc_rx_frame(&rpar, &r, &rst, &m, 2000);
	m.cev = 0x01;
	m.quanta[0] = 0;
	ibex_pfc_rx_frame(&rpar, &r, &rst, &m, 2500);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 0, 2500), IBEX_PFC_OPEN);
	/* a zero class-enable vector is ignored, even with quanta set */
	m.cev = 0;
	m.quanta[0] = 0xffff;
	assert_int_equal(ibex_pfc_rx_frame(&rpar, &r, &rst, &m, 3000), 0);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 0, 3000), IBEX_PFC_OPEN);
	assert_int_equal(rst.ignored, 1);
	assert_int_equal(rst.frames, 3);
}

static void
test_rx_round_trip_frame(void **state)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };
	struct ibex_pfc_tx t;
	struct ibex_pfc_rx r;
	struct ibex_fcf_pfc m, got;
	uint8_t buf[60];

	(void)state;
	/* A 25G sender pauses priority 2; the receiver parses and obeys. */
	assert_int_equal(tx_init(&t, 25000, 1000, 0), 0);
	assert_int_equal(rx_init(&r, 25000, IBEX_PFC_WD_OFF, 0, 0), 0);
	ibex_pfc_tx_set(&t, 2, true);
	assert_true(ibex_pfc_tx_poll(&tpar, &t, &tst, 0, &m));
	assert_int_equal(ibex_fcf_pfc_build(buf, sizeof(buf), mac, &m), 60);
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_OK);
	assert_int_equal(ibex_pfc_rx_frame(&rpar, &r, &rst, &got, 0), 1 << 2);
	/* 1000 quanta x 20.48 ns = 20480 ns */
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 2, 20479), IBEX_PFC_PAUSED);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 2, 20480), IBEX_PFC_OPEN);
}

/* A peer refreshing 65535 quanta at 100G (335540 ns) every 100 us: an
 * unbroken pause. Watchdog: detect 1 ms, recover 2 ms. */
static void
run_storm(enum ibex_pfc_wd_action action, enum ibex_pfc_lane stormed_lane)
{
	struct ibex_pfc_rx r;
	struct ibex_fcf_pfc m = { .cev = 1 << 4 };
	struct ibex_pfc_event ev[IBEX_PFC_PRIOS];
	uint64_t t, detected = 0, restored = 0;
	unsigned int n, i;

	m.quanta[4] = 65535;
	assert_int_equal(rx_init(&r, 100000, action, 1000000, 2000000), 0);
	for (t = 0; t <= 10000000; t += 10000) {
		if (t % 100000 == 0 && t <= 5000000)
			ibex_pfc_rx_frame(&rpar, &r, &rst, &m, t);
		n = ibex_pfc_rx_watchdog(&rpar, &r, &rst, t, ev);
		for (i = 0; i < n; i++) {
			assert_int_equal(ev[i].prio, 4);
			if (ev[i].type == IBEX_PFC_EV_STORM) {
				assert_int_equal(detected, 0);
				detected = t;
				assert_int_equal(ev[i].paused_ns, 1000000);
			} else {
				assert_int_equal(ev[i].type, IBEX_PFC_EV_RESTORED);
				restored = t;
			}
		}
		if (t == 1500000)
			assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 4, t), stormed_lane);
		if (t == 900000)
			assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 4, t), IBEX_PFC_PAUSED);
	}
	assert_int_equal(detected, 1000000);
	/* last pause at 5 ms, quiet for 2 ms */
	assert_int_equal(restored, 7000000);
	assert_int_equal(rst.storms, 1);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 4, 7000000), IBEX_PFC_OPEN);
	/* Obeying again after recovery. */
	ibex_pfc_rx_frame(&rpar, &r, &rst, &m, 10000000);
	assert_int_equal(ibex_pfc_rx_lane(&rpar, &r, 4, 10000001), IBEX_PFC_PAUSED);
}

static void
test_watchdog_drop(void **state)
{
	(void)state;
	run_storm(IBEX_PFC_WD_DROP, IBEX_PFC_DROP);
}

static void
test_watchdog_forward(void **state)
{
	(void)state;
	run_storm(IBEX_PFC_WD_FORWARD, IBEX_PFC_OPEN);
}

static void
test_watchdog_alarm(void **state)
{
	(void)state;
	run_storm(IBEX_PFC_WD_ALARM, IBEX_PFC_PAUSED);
}

static void
test_watchdog_broken_pauses(void **state)
{
	struct ibex_pfc_rx r;
	struct ibex_fcf_pfc m = { .cev = 1 };
	struct ibex_pfc_event ev[IBEX_PFC_PRIOS];
	uint64_t t;

	(void)state;
	/* 1000 quanta at 10G = 51200 ns pauses, re-sent every 60 us: each
	 * expires before the next, so no storm however long it lasts. */
	m.quanta[0] = 1000;
	assert_int_equal(rx_init(&r, 10000, IBEX_PFC_WD_DROP, 100000,
					  100000), 0);
	for (t = 0; t < 5000000; t += 1000) {
		if (t % 60000 == 0)
			ibex_pfc_rx_frame(&rpar, &r, &rst, &m, t);
		assert_int_equal(ibex_pfc_rx_watchdog(&rpar, &r, &rst, t, ev), 0);
	}
	/* Re-sent every 50 us instead: unbroken, a storm after 100 us. */
	for (; t < 6000000; t += 1000) {
		if (t % 50000 == 0)
			ibex_pfc_rx_frame(&rpar, &r, &rst, &m, t);
		if (ibex_pfc_rx_watchdog(&rpar, &r, &rst, t, ev) == 1)
			break;
	}
	assert_int_equal(ev[0].type, IBEX_PFC_EV_STORM);
	/* The pause of 4.98 ms (until 5.0312 ms) was still running when
	 * the 5.0 ms frame came: the unbroken pause began at 4.98 ms. */
	assert_int_equal(t, 4980000 + 100000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quanta_time),
		cmocka_unit_test(test_tx_edges_and_refresh),
		cmocka_unit_test(test_rx_obey),
		cmocka_unit_test(test_rx_round_trip_frame),
		cmocka_unit_test(test_watchdog_drop),
		cmocka_unit_test(test_watchdog_forward),
		cmocka_unit_test(test_watchdog_alarm),
		cmocka_unit_test(test_watchdog_broken_pauses),
	};

	return cmocka_run_group_tests_name("pfc", tests, NULL, NULL);
}
