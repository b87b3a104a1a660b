/* SPDX-License-Identifier: BSD-3-Clause */
/* UEC credit-based flow control: the 20-bit counters at their wrap, the
 * send rule with VC, port and profile limits, CF_Update spacing, CC_Update
 * leak recovery, refused settings and messages, and a long run of a
 * sender and a receiver over a link that corrupts data and loses
 * CF_Updates. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_rnd.h"

#include "ibex_cbfc.h"

/* One lossless VC 0 (both directions) with limit @p limit. */
static void
one_vc(struct ibex_cbfc_port *p, struct ibex_cbfc_conf *c, uint32_t limit)
{
	ibex_cbfc_conf_default(c, 1);
	c->tx_lossless = c->rx_lossless = 1;
	c->vc_limit[0] = limit;
	assert_int_equal(ibex_cbfc_port_init(p, c, 0), 0);
}

static void
test_credits(void **state)
{
	struct ibex_cbfc_port p;
	struct ibex_cbfc_conf c;

	(void)state;
	one_vc(&p, &c, 100);
	assert_int_equal(ibex_cbfc_credits(&p, 64), 1);
	assert_int_equal(ibex_cbfc_credits(&p, 128), 1);
	assert_int_equal(ibex_cbfc_credits(&p, 129), 2);
	assert_int_equal(ibex_cbfc_credits(&p, 9000), 71);
	c.overhead = -16;
	assert_int_equal(ibex_cbfc_port_init(&p, &c, 0), 0);
	assert_int_equal(ibex_cbfc_credits(&p, 144), 1);
	assert_int_equal(ibex_cbfc_credits(&p, 145), 2);
	assert_int_equal(ibex_cbfc_credits(&p, 10), 1); /* never 0 */
	c.overhead = 127;
	assert_int_equal(ibex_cbfc_port_init(&p, &c, 0), 0);
	/* a frame is padded to 60 bytes: 60 + 127 = 187 */
	assert_int_equal(ibex_cbfc_credits(&p, 1), 2);
	assert_int_equal(ibex_cbfc_credits(&p, 129), 2);
	assert_int_equal(ibex_cbfc_credits(&p, 130), 3);
	c.overhead = 0;
	c.credit_size = 32;
	assert_int_equal(ibex_cbfc_port_init(&p, &c, 0), 0);
	assert_int_equal(ibex_cbfc_credits(&p, 10), 2);   /* 60 bytes */
	assert_int_equal(ibex_cbfc_credits(&p, 65), 3);
	c.overhead = 0;
	c.credit_size = 96;       /* not a power of two: a division */
	assert_int_equal(ibex_cbfc_port_init(&p, &c, 0), 0);
	assert_int_equal(p.credit_shift, 0xff);
	assert_int_equal(ibex_cbfc_credits(&p, 96), 1);
	assert_int_equal(ibex_cbfc_credits(&p, 97), 2);
}

static void
test_send_rule(void **state)
{
	struct ibex_cbfc_port p;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u = { .vc = 0 };

	(void)state;
	one_vc(&p, &c, 10);
	assert_true(ibex_cbfc_tx_take(&p, 0, 4));
	assert_true(ibex_cbfc_tx_take(&p, 0, 4));
	/* S_CU + n <= S_CL: 8 + 2 fits, 8 + 3 does not. */
	assert_true(ibex_cbfc_tx_ok(&p, 0, 2));
	assert_false(ibex_cbfc_tx_take(&p, 0, 3));
	assert_int_equal(p.st.vc[0].tx_blocked, 1);
	assert_int_equal(p.tx[0].cu, 8);
	assert_int_equal(p.tx[0].cc, 8);
	/* The receiver freed 4: the frame goes. */
	u.cf = 4;
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), 0);
	assert_int_equal(p.tx[0].cu, 4);
	assert_true(ibex_cbfc_tx_take(&p, 0, 3));
	assert_int_equal(p.st.vc[0].sender_credits_consumed, 11);
	assert_int_equal(p.st.vc[0].sender_credits_freed, 4);
	assert_int_equal(p.st.vc[0].sender_credits_used_watermark, 8);
	/* A best-effort VC is never gated and counts nothing. */
	p.tx_lossless = 0;
	assert_true(ibex_cbfc_tx_take(&p, 0, 1000));
	assert_int_equal(p.tx[0].cc, 11);
}

/* R_CF from what the buffer holds: across the wrap, never back, and a
 * leak a CC_Update recovers freed by the next look at the buffer. */
static void
test_rx_held(void **state)
{
	struct ibex_cbfc_port r;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cc_update cc = { .vcs = 1 };

	(void)state;
	one_vc(&r, &c, 1000);
	r.rx[0].cc = r.rx[0].cf = IBEX_CBFC_MOD - 4;
	ibex_cbfc_rx_stored(&r, 0, 10);          /* 10 stored, past the wrap */
	ibex_cbfc_rx_held(&r, 0, 10);
	assert_int_equal(r.rx[0].cf, IBEX_CBFC_MOD - 4);
	ibex_cbfc_rx_held(&r, 0, 3);             /* 7 left the buffer */
	assert_int_equal(r.rx[0].cf, 3);
	assert_int_equal(r.st.vc[0].receiver_credits_freed, 7);
	ibex_cbfc_rx_held(&r, 0, 5);             /* a bound that grew: kept */
	assert_int_equal(r.rx[0].cf, 3);
	ibex_cbfc_rx_held(&r, 0, 0);
	assert_int_equal(r.rx[0].cf, 6);
	/* The sender consumed 4 more the link lost: a CC_Update counts
	 * them, and they are free as the buffer holds none of them. */
	cc.cc[0] = ibex_cbfc_mod(r.rx[0].cc + 4);
	assert_int_equal(ibex_cbfc_cc_apply(&r, &cc), 4);
	ibex_cbfc_rx_held(&r, 0, 0);
	assert_int_equal(r.rx[0].cf, 10);
	/* A VC that is not lossless is left alone. */
	r.rx_lossless = 0;
	r.rx[0].cc = ibex_cbfc_mod(r.rx[0].cc + 5);
	ibex_cbfc_rx_held(&r, 0, 0);
	assert_int_equal(r.rx[0].cf, 10);
}

/* cf_refreshes N: a count that stopped moving is refreshed N times, then
 * not until it moves; 0 refreshes it forever. */
static void
test_cf_refreshes(void **state)
{
	struct ibex_cbfc_port r;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u;
	uint64_t t = 0, step = IBEX_CBFC_CF_MAX_SPACING_DEF;
	unsigned int i, n;

	(void)state;
	ibex_cbfc_conf_default(&c, 1);
	c.tx_lossless = c.rx_lossless = 1;
	c.vc_limit[0] = 100;
	c.cf_refreshes = 2;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	/* Idle from the start: nothing to refresh. */
	assert_false(ibex_cbfc_cf_next(&r, t += step, &u));
	ibex_cbfc_rx_stored(&r, 0, 5);
	ibex_cbfc_rx_freed(&r, 0, 5);
	assert_true(ibex_cbfc_cf_next(&r, t += step, &u));   /* the news */
	for (i = 0, n = 0; i < 10; i++)
		n += ibex_cbfc_cf_next(&r, t += step, &u);
	assert_int_equal(n, 2);
	ibex_cbfc_rx_stored(&r, 0, 1);
	ibex_cbfc_rx_freed(&r, 0, 1);
	for (i = 0, n = 0; i < 10; i++)
		n += ibex_cbfc_cf_next(&r, t += step, &u);
	assert_int_equal(n, 3);
	/* 0: every maximum spacing, forever. */
	c.cf_refreshes = 0;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	for (i = 0, n = 0; i < 10; i++)
		n += ibex_cbfc_cf_next(&r, t += step, &u);
	assert_int_equal(n, 10);
}

static void
test_wrap(void **state)
{
	struct ibex_cbfc_port p, r;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u = { .vc = 0 };
	struct ibex_cbfc_cc_update cc;

	(void)state;
	one_vc(&p, &c, 1000);
	one_vc(&r, &c, 1000);
	/* Both ends 10 credits short of the wrap. */
	p.tx[0].cc = p.tx[0].cf = IBEX_CBFC_MOD - 10;
	r.rx[0].cc = r.rx[0].cf = r.rx[0].cf_sent = IBEX_CBFC_MOD - 10;
	assert_true(ibex_cbfc_tx_take(&p, 0, 25));
	assert_int_equal(p.tx[0].cc, 15);
	assert_int_equal(p.tx[0].cu, 25);
	ibex_cbfc_rx_stored(&r, 0, 25);
	ibex_cbfc_rx_freed(&r, 0, 25);
	assert_int_equal(r.rx[0].cc, 15);
	assert_int_equal(r.rx[0].cf, 15);
	u.cf = r.rx[0].cf;
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), 0);
	assert_int_equal(p.tx[0].cu, 0);
	/* A CC_Update across the wrap recovers exactly what was lost. */
	assert_true(ibex_cbfc_tx_take(&p, 0, 7));   /* lost on the link */
	ibex_cbfc_cc_build(&p, 0, &cc);
	assert_int_equal(ibex_cbfc_cc_apply(&r, &cc), 7);
	assert_int_equal(r.rx[0].cf, 22);
	assert_int_equal(r.st.vc[0].leaked_recovered, 7);
}

static void
test_port_limit(void **state)
{
	struct ibex_cbfc_port p;
	struct ibex_cbfc_conf c;

	(void)state;
	ibex_cbfc_conf_default(&c, 4);
	c.tx_lossless = 0xf;
	c.port_limit = 10;
	c.vc_limit[0] = c.vc_limit[1] = c.vc_limit[2] = c.vc_limit[3] = 8;
	assert_int_equal(ibex_cbfc_port_init(&p, &c, 0), 0);
	assert_true(ibex_cbfc_tx_take(&p, 0, 6));
	assert_false(ibex_cbfc_tx_take(&p, 1, 5));   /* port: 6 + 5 > 10 */
	assert_true(ibex_cbfc_tx_take(&p, 1, 4));
	assert_int_equal(p.cu, 10);
	assert_int_equal(p.st.sender_credits_used_watermark, 10);
}

/* Two VCs on one pool of 100 with 10 reserved each: 80 shared. */
static void
pool_port(struct ibex_cbfc_port *p, uint8_t mode, int8_t dyn, uint32_t st)
{
	struct ibex_cbfc_conf c;

	ibex_cbfc_conf_default(&c, 2);
	c.tx_lossless = 3;
	c.port_limit = 100;
	c.n_pools = 1;
	c.pool_size[0] = 100;
	c.n_profiles = 1;
	c.profile[0] = (struct ibex_cbfc_profile){ .pool = 0,
		.th_mode = mode, .dyn_th = dyn, .reserved = 10,
		.static_th = st };
	c.vc_profile[0] = c.vc_profile[1] = 0;
	assert_int_equal(ibex_cbfc_port_init(p, &c, 0), 0);
	assert_int_equal(p->pool[0].shared, 80);
}

static void
test_profiles(void **state)
{
	struct ibex_cbfc_port p;
	struct ibex_cbfc_cf_update u = { .vc = 0 };

	(void)state;
	/* NONE: the reserved credits and no more. */
	pool_port(&p, IBEX_CBFC_TH_NONE, 0, 0);
	assert_true(ibex_cbfc_tx_take(&p, 0, 10));
	assert_false(ibex_cbfc_tx_take(&p, 0, 1));
	/* STATIC 30: reserved 10 + 30 shared. */
	pool_port(&p, IBEX_CBFC_TH_STATIC, 0, 30);
	assert_true(ibex_cbfc_tx_take(&p, 0, 40));
	assert_false(ibex_cbfc_tx_take(&p, 0, 1));
	assert_int_equal(p.pool[0].used, 30);
	/* The other VC: its reserved, then the 30 the pool still shares...
	 * of which its own threshold allows 30. */
	assert_true(ibex_cbfc_tx_take(&p, 1, 40));
	assert_int_equal(p.pool[0].used, 60);
	/* Credits freed leave the pool first (shared before reserved). */
	u.cf = 35;
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), 0);
	assert_int_equal(p.tx[0].cu, 5);
	assert_int_equal(p.pool[0].used, 30);
	/* DYNAMIC 2^0: a VC's shared use at most what the pool has free. */
	pool_port(&p, IBEX_CBFC_TH_DYNAMIC, 0, 0);
	assert_true(ibex_cbfc_tx_take(&p, 0, 10 + 40)); /* 40 <= 80 free */
	assert_false(ibex_cbfc_tx_take(&p, 0, 1));      /* 41 > 40 free */
	assert_true(ibex_cbfc_tx_take(&p, 1, 10 + 20)); /* 20 <= 40 */
	assert_false(ibex_cbfc_tx_take(&p, 1, 1));      /* 21 > 20 */
	/* DYNAMIC 2^-2 over 80 free: 20 shared. */
	pool_port(&p, IBEX_CBFC_TH_DYNAMIC, -2, 0);
	assert_true(ibex_cbfc_tx_take(&p, 0, 30));
	assert_false(ibex_cbfc_tx_take(&p, 0, 1));
}

static void
test_cf_bad(void **state)
{
	struct ibex_cbfc_port p;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u = { .vc = 0, .cf = 6 };

	(void)state;
	one_vc(&p, &c, 100);
	assert_true(ibex_cbfc_tx_take(&p, 0, 5));
	/* Freeing 6 of 5 in use: a counter that jumped. */
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), -EINVAL);
	assert_int_equal(p.tx[0].cu, 5);
	assert_int_equal(p.st.cf_update_bad, 1);
	/* A counter gone back (by wrap: frees nearly 2^20). */
	u.cf = IBEX_CBFC_MASK;
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), -EINVAL);
	u.cf = IBEX_CBFC_MOD;         /* not 20 bits */
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), -EINVAL);
	u = (struct ibex_cbfc_cf_update){ .vc = 9, .cf = 1 }; /* no VC 9 */
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), -EINVAL);
	assert_int_equal(p.st.cf_update_bad, 4);
	assert_int_equal(p.st.cf_update_rx, 4);
	assert_int_equal(p.tx[0].cu, 5);
}

/* A peer that restarts counts from 0: before the link reset its
 * CF_Updates are refused and the VC stays full; after it they free
 * credits again. The receiver's frames from before keep their room:
 * R_CF stays at 0 until they leave. Pools are given back too. */
static void
test_link_reset(void **state)
{
	struct ibex_cbfc_port p, q;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u = { .vc = 0 };
	struct ibex_cbfc_cc_update cc = { .vcs = 1 };

	(void)state;
	one_vc(&p, &c, 10);
	p.tx[0].cc = p.tx[0].cf = 5000;         /* a long-running sender */
	assert_true(ibex_cbfc_tx_take(&p, 0, 10));
	assert_false(ibex_cbfc_tx_ok(&p, 0, 1));
	/* the new peer freed 4 of what it received since its start */
	u.cf = 4;
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), -EINVAL);
	assert_false(ibex_cbfc_tx_ok(&p, 0, 1));
	ibex_cbfc_link_reset(&p, 1000);
	assert_int_equal(p.st.link_resets, 1);
	assert_int_equal(p.cu, 0);
	assert_int_equal(p.tx[0].cc, 0);
	assert_int_equal(p.next_cc_ns, 1000 + p.cc_period_ns);
	assert_true(ibex_cbfc_tx_take(&p, 0, 10));
	assert_int_equal(ibex_cbfc_cf_apply(&p, &u), 0);
	assert_int_equal(p.tx[0].cu, 6);
	/* counters and configuration stay */
	assert_int_equal(p.st.cf_update_bad, 1);
	assert_int_equal(p.tx[0].limit, 10);

	/* the receiver: 6 credits of the old peer's frames held */
	one_vc(&q, &c, 10);
	q.rx[0].cc = 7006;
	q.rx[0].cf = 7000;
	ibex_cbfc_link_reset(&q, 0);
	assert_int_equal(q.rx[0].cc, 0);
	assert_int_equal(q.rx[0].cf, 0);
	ibex_cbfc_rx_stored(&q, 0, 3);          /* the new peer's first */
	ibex_cbfc_rx_held(&q, 0, 6 + 3);
	assert_int_equal(q.rx[0].cf, 0);
	ibex_cbfc_rx_held(&q, 0, 5);            /* 4 of the old left */
	assert_int_equal(q.rx[0].cf, 0);
	ibex_cbfc_rx_held(&q, 0, 1);            /* all old, 2 new left */
	assert_int_equal(q.rx[0].cf, 2);
	/* the new peer's CC_Update counts from 0 too: no leak, not bad */
	cc.cc[0] = 3;
	assert_int_equal(ibex_cbfc_cc_apply(&q, &cc), 0);
	assert_int_equal(q.st.cc_update_bad, 0);

	/* profiled VCs: their pool's shared use goes with the reset */
	pool_port(&p, IBEX_CBFC_TH_STATIC, 0, 30);
	assert_true(ibex_cbfc_tx_take(&p, 0, 40));
	assert_int_equal(p.pool[0].used, 30);
	ibex_cbfc_link_reset(&p, 0);
	assert_int_equal(p.pool[0].used, 0);
	assert_true(ibex_cbfc_tx_take(&p, 0, 40));
}

static void
test_cf_spacing(void **state)
{
	struct ibex_cbfc_port r;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u;

	(void)state;
	ibex_cbfc_conf_default(&c, 3);
	c.tx_lossless = c.rx_lossless = 5;      /* VCs 0 and 2 */
	c.vc_limit[0] = c.vc_limit[2] = 100;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	r.last_cf_bytes = 0;
	/* Nothing freed: nothing due before the maximum spacing. */
	assert_false(ibex_cbfc_cf_next(&r, 6400, &u));
	assert_false(ibex_cbfc_cf_next(&r, 262143, &u));
	assert_true(ibex_cbfc_cf_next(&r, 262144, &u));  /* refresh */
	assert_int_equal(u.vc, 0);
	/* Both VCs freed: not before 6,400 byte times, then in turn. */
	ibex_cbfc_rx_stored(&r, 0, 3);
	ibex_cbfc_rx_freed(&r, 0, 3);
	ibex_cbfc_rx_stored(&r, 2, 5);
	ibex_cbfc_rx_freed(&r, 2, 5);
	ibex_cbfc_rx_freed(&r, 1, 5);  /* VC 1 is not lossless: ignored */
	assert_false(ibex_cbfc_cf_next(&r, 262144 + 6399, &u));
	assert_true(ibex_cbfc_cf_next(&r, 262144 + 6400, &u));
	assert_int_equal(u.vc, 2);
	assert_int_equal(u.cf, 5);
	assert_false(ibex_cbfc_cf_next(&r, 262144 + 12799, &u));
	assert_true(ibex_cbfc_cf_next(&r, 262144 + 12800, &u));
	assert_int_equal(u.vc, 0);
	assert_int_equal(u.cf, 3);
	assert_false(ibex_cbfc_cf_next(&r, 262144 + 20000, &u));
	assert_int_equal(r.st.cf_update_tx, 3);
}

static void
test_cc_bad(void **state)
{
	struct ibex_cbfc_port r;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cc_update cc = { .vcs = 1 };

	(void)state;
	ibex_cbfc_conf_default(&c, 1);
	c.rx_lossless = 1;
	c.rx_total = 1000;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	ibex_cbfc_rx_stored(&r, 0, 50);
	/* The sender claims 2,000 more than arrived: more than the buffer. */
	cc.cc[0] = 2050;
	assert_int_equal(ibex_cbfc_cc_apply(&r, &cc), 0);
	/* Behind what arrived (wraps to nearly 2^20). */
	cc.cc[0] = 40;
	assert_int_equal(ibex_cbfc_cc_apply(&r, &cc), 0);
	assert_int_equal(r.st.cc_update_bad, 2);
	assert_int_equal(r.rx[0].cc, 50);
	assert_int_equal(r.rx[0].cf, 0);
	cc.cc[0] = 60;
	assert_int_equal(ibex_cbfc_cc_apply(&r, &cc), 10);
	assert_int_equal(r.rx[0].cf, 10);
	/* The timer: due a period after the start, then after each. */
	c.tx_lossless = 1;
	c.vc_limit[0] = 10;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 1000), 0);
	assert_false(ibex_cbfc_cc_due(&r, 256999));
	assert_true(ibex_cbfc_cc_due(&r, 257000));
	ibex_cbfc_cc_build(&r, 300000, &cc);
	assert_false(ibex_cbfc_cc_due(&r, 555999));
	assert_true(ibex_cbfc_cc_due(&r, 556000));
	c.cc_timer_us = 0;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	assert_false(ibex_cbfc_cc_due(&r, UINT64_MAX));
	/* SAI's defaults (no receiver total given): a count one behind what
	 * arrived is a count gone back, not 2^20 - 1 credits leaked. */
	ibex_cbfc_conf_default(&c, 1);
	c.rx_lossless = 1;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	ibex_cbfc_rx_stored(&r, 0, 50);
	cc.cc[0] = 49;
	assert_int_equal(ibex_cbfc_cc_apply(&r, &cc), 0);
	assert_int_equal(r.st.cc_update_bad, 1);
	assert_int_equal(r.rx[0].cf, 0);
}

/* A VC whose CF_Update was lost is refreshed after the maximum spacing
 * even while another VC keeps the port's CF_Updates going. */
static void
test_cf_refresh_per_vc(void **state)
{
	struct ibex_cbfc_port r;
	struct ibex_cbfc_conf c;
	struct ibex_cbfc_cf_update u;
	uint64_t b = 0;
	unsigned int vc1 = 0, n = 0;

	(void)state;
	ibex_cbfc_conf_default(&c, 2);
	c.rx_lossless = 3;
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	ibex_cbfc_rx_stored(&r, 1, 10);
	ibex_cbfc_rx_freed(&r, 1, 10);
	assert_true(ibex_cbfc_cf_next(&r, b += 6400, &u));  /* VC 1: lost */
	assert_int_equal(u.vc, 1);
	/* VC 0 frees a credit every 6,400 byte times, for 4 x the maximum
	 * spacing: VC 1 is refreshed about every 262,144. */
	while (b < 4 * 262144) {
		ibex_cbfc_rx_stored(&r, 0, 1);
		ibex_cbfc_rx_freed(&r, 0, 1);
		while (ibex_cbfc_cf_next(&r, b, &u)) {
			n++;
			if (u.vc == 1) {
				assert_int_equal(u.cf, 10);
				vc1++;
			}
		}
		b += 6400;
	}
	assert_true(vc1 >= 3 && vc1 <= 4);
	assert_true(n > 100);
}

/* @p c refused with a reason containing @p why. */
static void
refused(const struct ibex_cbfc_conf *c, const char *why)
{
	struct ibex_cbfc_port p;
	char err[200] = "";

	assert_int_equal(ibex_cbfc_conf_check(c, err, sizeof(err)), -EINVAL);
	if (strstr(err, why) == NULL)
		fail_msg("'%s' does not say '%s'", err, why);
	assert_int_equal(ibex_cbfc_port_init(&p, c, 0), -EINVAL);
}

static void
test_conf_refused(void **state)
{
	struct ibex_cbfc_conf c, d;
	char err[200];

	(void)state;
	ibex_cbfc_conf_default(&d, 8);
	assert_int_equal(ibex_cbfc_conf_check(&d, err, sizeof(err)), 0);
#define BAD(field, value, why) do { c = d; c.field = value;		\
		refused(&c, why); } while (0)
	BAD(n_vcs, 0, "VCs: 1..32");
	BAD(n_vcs, 33, "VCs: 1..32");
	BAD(credit_size, 8, "credit size");
	BAD(credit_size, 8192, "credit size");
	BAD(overhead, -17, "packet overhead: -16..127");
	BAD(overhead, 128, "packet overhead");
	BAD(cc_timer_us, 250001, "CC_Update timer");
	BAD(cf_min_spacing, 799, "minimum spacing");
	BAD(cf_max_spacing, 16383, "maximum spacing");
	BAD(cf_max_spacing, 20000, "steps of 16384");
	BAD(cf_max_spacing, 2 * 1048576, "maximum spacing");
	BAD(port_limit, IBEX_CBFC_MOD, "port credit limit");
	BAD(rx_total, 0, "receiver's total credits");
	BAD(tx_lossless, 0x100, "beyond the port's 8");
	BAD(tc_vc[3], 8, "TC 3 -> VC 8");
	BAD(queue_vc[15], 9, "queue 15 -> VC 9");
	BAD(vc_limit[2], IBEX_CBFC_MOD, "VC 2: credit limit");
	c = d;
	c.cf_min_spacing = 32768;
	c.cf_max_spacing = 16384;
	refused(&c, "minimum 32768 above maximum 16384");
	c = d;
	c.tx_lossless = 2;
	refused(&c, "VC 1: lossless, but it has neither");
	c = d;
	c.vc_profile[0] = 0;
	refused(&c, "VC 0: no credit profile 0");
	c.n_profiles = 1;
	c.profile[0].pool = IBEX_CBFC_PORT_POOL;
	refused(&c, "the port has no limit");
	c.profile[0].pool = 1;
	refused(&c, "names a pool the port does not have");
	c.n_pools = 2;
	c.pool_size[0] = c.pool_size[1] = 50;
	c.profile[0].reserved = 60;
	refused(&c, "credit pool 1: its VCs reserve 60 credits of 50");
	c.profile[0].reserved = 10;
	c.port_limit = 90;
	refused(&c, "100 credits in all, above the port's limit 90");
	c.port_limit = 100;
	c.profile[0].th_mode = IBEX_CBFC_TH_DYNAMIC;
	c.profile[0].dyn_th = 8;
	refused(&c, "n -7..7, not 8");
	c.profile[0].dyn_th = -7;
	assert_int_equal(ibex_cbfc_conf_check(&c, err, sizeof(err)), 0);
	c.tx_lossless = 1;
	c.profile[0].th_mode = IBEX_CBFC_TH_NONE;
	c.profile[0].reserved = 0;
	refused(&c, "reserves nothing and shares nothing");
#undef BAD
}

/*
 * A sender and a receiver, one lossless VC, over a link of LINK_TICKS
 * each way: the sender offers a 1,024-byte frame (8 credits) every tick,
 * the receiver drains one every second tick, so the VC is limited by
 * credits most of the time. The link corrupts 10^-4 of the data frames
 * (the receiver drops them: their credits leak) and loses 10^-3 of the
 * CF_Updates. Returns the frames delivered; checks the receiver's buffer
 * never holds more than the limit (lossless) and, with CC_Update, that
 * every leak is repaired within one CC_Update period plus a round trip.
 */
#define LINK_TICKS 20
#define TICK_NS 20
#define TICK_BYTES 1000     /* 400 Gb/s: 1,000 bytes in 20 ns */
#define RUN_TICKS 2000000
#define Q (LINK_TICKS + 2)

struct sim_msg {
	bool valid, data, corrupt;
	uint32_t cc;            /* CC_Update: S_CC */
	uint64_t built;         /* CC_Update: the tick it was built */
	uint32_t cf;            /* CF_Update: R_CF */
};

static uint64_t rng;

static double
rnd(void)
{
	return test_rnd(&rng);
}

struct sim_result {
	uint64_t delivered, corrupted, repaired, cf_lost;
	uint64_t repair_ticks_max;   /* corrupted frame sent -> CC applied */
	uint32_t final_cu;
};

/* Corrupted frames not yet repaired: the ticks they were sent. */
struct sim_leaks {
	uint64_t sent[4096];
	unsigned int head, tail;
};

/* A CC_Update built at @p built arrived at @p now: it repairs every
 * corrupted frame sent before it was built. */
static void
leaks_repair(struct sim_leaks *l, uint64_t built, uint64_t now,
	     struct sim_result *res)
{
	while (l->head != l->tail && l->sent[l->head % 4096] < built) {
		uint64_t d = now - l->sent[l->head % 4096];

		if (d > res->repair_ticks_max)
			res->repair_ticks_max = d;
		res->repaired++;
		l->head++;
	}
}

/* The arrivals of tick @p t at the receiver, in order: the data frame,
 * then a CC_Update. */
static void
sim_arrive(struct ibex_cbfc_port *r, struct sim_msg *in, uint64_t t,
	   uint32_t n, uint32_t *held, uint32_t limit, struct sim_leaks *l,
	   struct sim_result *res)
{
	struct ibex_cbfc_cc_update cc = { .vcs = 1 };

	if (in[0].valid && !in[0].corrupt) {
		ibex_cbfc_rx_stored(r, 0, n);
		*held += n;
		assert_true(*held <= limit);  /* lossless */
	}
	if (in[1].valid) {
		cc.cc[0] = in[1].cc;
		ibex_cbfc_cc_apply(r, &cc);
		leaks_repair(l, in[1].built, t, res);
	}
	in[0].valid = in[1].valid = false;
}

static void
sim_run(uint32_t cc_timer_us, struct sim_result *res)
{
	/* Per tick, at most one frame and one CC_Update forward and one
	 * CF_Update back: slot t % Q arrives LINK_TICKS later. */
	static struct sim_msg fwd[Q][2], back[Q];
	static struct sim_leaks leaks;
	struct ibex_cbfc_port s, r;
	struct ibex_cbfc_conf c;
	uint32_t limit = 400, held = 0, n = 8;
	uint64_t t;

	memset(fwd, 0, sizeof(fwd));
	memset(back, 0, sizeof(back));
	memset(&leaks, 0, sizeof(leaks));
	memset(res, 0, sizeof(*res));
	rng = 0x9e3779b97f4a7c15ull;
	ibex_cbfc_conf_default(&c, 1);
	c.tx_lossless = c.rx_lossless = 1;
	c.vc_limit[0] = limit;
	c.rx_total = limit;
	c.cc_timer_us = cc_timer_us;
	assert_int_equal(ibex_cbfc_port_init(&s, &c, 0), 0);
	assert_int_equal(ibex_cbfc_port_init(&r, &c, 0), 0);
	for (t = 0; t < RUN_TICKS; t++) {
		struct sim_msg *ack = &back[t % Q];
		struct sim_msg *out = fwd[(t + LINK_TICKS) % Q];
		struct ibex_cbfc_cf_update u;
		struct ibex_cbfc_cc_update cc;

		sim_arrive(&r, fwd[t % Q], t, n, &held, limit, &leaks, res);
		if (ack->valid) {
			u = (struct ibex_cbfc_cf_update){ .vc = 0,
							  .cf = ack->cf };
			assert_int_equal(ibex_cbfc_cf_apply(&s, &u), 0);
			ack->valid = false;
		}
		/* The receiver drains a frame every second tick. */
		if (t % 2 == 0 && held >= n) {
			held -= n;
			ibex_cbfc_rx_freed(&r, 0, n);
			res->delivered++;
		}
		if (ibex_cbfc_cf_next(&r, t * TICK_BYTES, &u)) {
			if (rnd() < 1e-3)
				res->cf_lost++;
			else
				back[(t + LINK_TICKS) % Q] = (struct sim_msg){
					.valid = true, .cf = u.cf };
		}
		/* The sender: a frame if credits allow, a CC_Update when due. */
		if (ibex_cbfc_tx_take(&s, 0, n)) {
			bool bad = rnd() < 1e-4;

			out[0] = (struct sim_msg){ .valid = true, .data = true,
						   .corrupt = bad };
			if (bad) {
				res->corrupted++;
				leaks.sent[leaks.tail++ % 4096] = t;
			}
		}
		if (ibex_cbfc_cc_due(&s, t * TICK_NS)) {
			ibex_cbfc_cc_build(&s, t * TICK_NS, &cc);
			out[1] = (struct sim_msg){ .valid = true,
						   .cc = cc.cc[0], .built = t };
		}
	}
	res->final_cu = s.tx[0].cu;
}

static void
test_sim_leaks(void **state)
{
	struct sim_result with, without;
	uint64_t bound;

	(void)state;
	sim_run(IBEX_CBFC_CC_TIMER_US_DEF, &with);
	print_message("CC_Update every %u us: %llu frames delivered, %llu "
		      "corrupted (%llu repaired), %llu CF_Updates lost, "
		      "longest repair %llu ns\n", IBEX_CBFC_CC_TIMER_US_DEF,
		      (unsigned long long)with.delivered,
		      (unsigned long long)with.corrupted,
		      (unsigned long long)with.repaired,
		      (unsigned long long)with.cf_lost,
		      (unsigned long long)with.repair_ticks_max * TICK_NS);
	assert_true(with.corrupted >= 20);
	assert_true(with.cf_lost >= 10);
	/* Offered a frame a tick, drained one every second: the VC runs at
	 * the drain rate. */
	assert_true(with.delivered >= RUN_TICKS / 2 * 99 / 100);
	/* Each leak is repaired within a CC_Update period and a link delay
	 * of the corrupted frame (all but those of the last period). */
	bound = (IBEX_CBFC_CC_TIMER_US_DEF * 1000ull) / TICK_NS + LINK_TICKS;
	assert_true(with.repair_ticks_max <= bound);
	assert_true(with.repaired + 5 >= with.corrupted);
	/* Without CC_Update the leaks starve the VC: the 50 frames of its
	 * limit are gone after 50 corrupted frames (here half-way through
	 * the run), and no credit ever comes back. */
	sim_run(0, &without);
	print_message("CC_Update off: %llu frames delivered, %llu corrupted, "
		      "credits in use at the end %u of 400\n",
		      (unsigned long long)without.delivered,
		      (unsigned long long)without.corrupted,
		      without.final_cu);
	assert_int_equal(without.corrupted, 50);
	assert_int_equal(without.final_cu, 400);
	assert_true(without.delivered < with.delivered * 3 / 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credits),
		cmocka_unit_test(test_send_rule),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_rx_held),
		cmocka_unit_test(test_cf_refreshes),
		cmocka_unit_test(test_port_limit),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_cf_bad),
		cmocka_unit_test(test_link_reset),
		cmocka_unit_test(test_cf_spacing),
		cmocka_unit_test(test_cc_bad),
		cmocka_unit_test(test_cf_refresh_per_vc),
		cmocka_unit_test(test_conf_refused),
		cmocka_unit_test(test_sim_leaks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
