/* SPDX-License-Identifier: BSD-3-Clause */
/* SL classification and SL->VL tables. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_vl.h"

static void
test_pcp_default_identity(void **state)
{
	struct ibex_sl_class c;
	unsigned int p;

	(void)state;
	ibex_sl_class_init(&c, IBEX_SL_FROM_PCP);
	assert_int_equal(ibex_sl_class_validate(&c, NULL, 0), 0);
	for (p = 0; p < 8; p++) {
		/* tagged: SL = PCP, whatever the IP header says */
		assert_int_equal(ibex_sl_classify(&c, true, p, false, 0), p);
		assert_int_equal(ibex_sl_classify(&c, true, p, true, 46), p);
	}
	/* untagged: default SL 0 even for IP with a DSCP (PCP mode) */
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 46), 0);
	assert_int_equal(ibex_sl_classify(&c, false, 5, false, 0), 0);
}

static void
test_dscp_default_class_selector(void **state)
{
	struct ibex_sl_class c;
	unsigned int d;

	(void)state;
	ibex_sl_class_init(&c, IBEX_SL_FROM_DSCP);
	for (d = 0; d < 64; d++) {
		/* independent: the class selector is the top 3 of 6 bits */
		unsigned int cs = (d & 0x38) / 8;

		assert_int_equal(ibex_sl_classify(&c, false, 0, true, d), cs);
		/* a tag does not matter for IP in DSCP mode */
		assert_int_equal(ibex_sl_classify(&c, true, 7, true, d), cs);
	}
	/* well-known code points */
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 46), 5); /* EF */
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 48), 6); /* CS6, CNP */
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 34), 4); /* AF41 */
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 26), 3); /* AF31 */
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 0), 0);  /* BE */
	/* non-IP tagged falls back to the PCP table, untagged to default */
	assert_int_equal(ibex_sl_classify(&c, true, 3, false, 0), 3);
	assert_int_equal(ibex_sl_classify(&c, false, 3, false, 0), 0);
	assert_int_equal(ibex_sl_class_set_default(&c, 2), 0);
	assert_int_equal(ibex_sl_classify(&c, false, 3, false, 0), 2);
	assert_int_equal(ibex_sl_classify(&c, true, 3, false, 0), 3);
}

static void
test_custom_tables(void **state)
{
	struct ibex_sl_class c;

	(void)state;
	ibex_sl_class_init(&c, IBEX_SL_FROM_DSCP);
	assert_int_equal(ibex_sl_class_set_dscp(&c, 26, 12), 0);
	assert_int_equal(ibex_sl_class_set_dscp(&c, 48, 15), 0);
	assert_int_equal(ibex_sl_class_set_pcp(&c, 3, 9), 0);
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 26), 12);
	assert_int_equal(ibex_sl_classify(&c, true, 0, true, 48), 15);
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 27), 3);
	assert_int_equal(ibex_sl_classify(&c, true, 3, false, 0), 9);
	/* out of range arguments change nothing */
	assert_int_equal(ibex_sl_class_set_dscp(&c, 64, 1), -EINVAL);
	assert_int_equal(ibex_sl_class_set_dscp(&c, 26, 16), -EINVAL);
	assert_int_equal(ibex_sl_class_set_pcp(&c, 8, 1), -EINVAL);
	assert_int_equal(ibex_sl_class_set_pcp(&c, 3, 16), -EINVAL);
	assert_int_equal(ibex_sl_class_set_default(&c, 16), -EINVAL);
	assert_int_equal(ibex_sl_classify(&c, false, 0, true, 26), 12);
	assert_int_equal(ibex_sl_classify(&c, true, 3, false, 0), 9);
	assert_int_equal(ibex_sl_class_validate(&c, NULL, 0), 0);
	/* switching mode keeps the tables */
	c.mode = IBEX_SL_FROM_PCP;
	assert_int_equal(ibex_sl_classify(&c, true, 3, true, 26), 9);
}

static void
test_class_validate(void **state)
{
	struct ibex_sl_class c;
	char err[128] = "";

	(void)state;
	ibex_sl_class_init(&c, IBEX_SL_FROM_PCP);
	c.mode = 2;
	assert_int_equal(ibex_sl_class_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "mode"));
	ibex_sl_class_init(&c, IBEX_SL_FROM_PCP);
	c.map[IBEX_SL_MAP_DSCP + 10] = 16;
	assert_int_equal(ibex_sl_class_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "SL 16"));
}

static void
test_vls_valid(void **state)
{
	unsigned int n;

	(void)state;
	for (n = 0; n < 40; n++) {
		bool want = n == 1 || n == 2 || n == 4 || n == 8 || n == 15;

		assert_int_equal(ibex_vls_valid(n), want);
	}
	assert_false(ibex_vls_valid(UINT32_MAX));
}

static void
test_sl2vl_default(void **state)
{
	static const uint8_t want4[16] = {
		0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3 };
	static const uint8_t want15[16] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0 };
	static const uint8_t want1[16] = { 0 };
	struct ibex_sl2vl t;
	unsigned int s;

	(void)state;
	assert_int_equal(ibex_sl2vl_default(&t, 4), 0);
	assert_memory_equal(t.vl, want4, 16);
	assert_int_equal(ibex_sl2vl_default(&t, 15), 0);
	assert_memory_equal(t.vl, want15, 16);
	assert_int_equal(ibex_sl2vl_default(&t, 1), 0);
	assert_memory_equal(t.vl, want1, 16);
	assert_int_equal(ibex_sl2vl_default(&t, 8), 0);
	for (s = 0; s < 16; s++) {
		assert_int_equal(ibex_sl2vl(&t, s), s & 7);
		assert_false(ibex_vl_is_drop(ibex_sl2vl(&t, s)));
	}
	assert_int_equal(ibex_sl2vl_validate(&t, 8, NULL, 0), 0);
	assert_int_equal(ibex_sl2vl_used(&t), 0xff);
	assert_int_equal(ibex_sl2vl_default(&t, 3), -EINVAL);
	assert_int_equal(ibex_sl2vl_default(&t, 0), -EINVAL);
	assert_int_equal(ibex_sl2vl_default(&t, 16), -EINVAL);
}

static void
test_sl2vl_drop_and_validate(void **state)
{
	struct ibex_sl2vl t;
	char err[128] = "";

	(void)state;
	assert_int_equal(ibex_sl2vl_default(&t, 4), 0);
	t.vl[7] = IBEX_VL_DROP;
	assert_int_equal(ibex_sl2vl_validate(&t, 4, err, sizeof(err)), 0);
	assert_int_equal(ibex_sl2vl(&t, 7), 15);
	assert_true(ibex_vl_is_drop(ibex_sl2vl(&t, 7)));
	assert_false(ibex_vl_is_drop(ibex_sl2vl(&t, 6)));
	/* SL 7 feeds no lane; SLs 3, 11, 15 still feed VL3 */
	assert_int_equal(ibex_sl2vl_used(&t), 0xf);
	/* a lane beyond the operational count is refused, not folded */
	t.vl[9] = 4;
	assert_int_equal(ibex_sl2vl_validate(&t, 4, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "SL 9 maps to VL 4"));
	assert_int_equal(ibex_sl2vl_validate(&t, 8, NULL, 0), 0);
	assert_int_equal(ibex_sl2vl_validate(&t, 5, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "operational VLs"));
	/* the lookup masks the SL, so a bad SL cannot read out of bounds */
	assert_int_equal(ibex_sl2vl(&t, 16 + 9), 4);
}

static void
test_classify_then_map(void **state)
{
	struct ibex_sl_class c;
	struct ibex_sl2vl t;

	(void)state;
	/* DSCP 46 (EF) -> SL 5 -> VL 1 on a 4-lane port; CS7 dropped */
	ibex_sl_class_init(&c, IBEX_SL_FROM_DSCP);
	assert_int_equal(ibex_sl2vl_default(&t, 4), 0);
	t.vl[7] = IBEX_VL_DROP;
	assert_int_equal(ibex_sl2vl(&t, ibex_sl_classify(&c, false, 0, true, 46)), 1);
	assert_true(ibex_vl_is_drop(ibex_sl2vl(&t,
			ibex_sl_classify(&c, false, 0, true, 56))));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcp_default_identity),
		cmocka_unit_test(test_dscp_default_class_selector),
		cmocka_unit_test(test_custom_tables),
		cmocka_unit_test(test_class_validate),
		cmocka_unit_test(test_vls_valid),
		cmocka_unit_test(test_sl2vl_default),
		cmocka_unit_test(test_sl2vl_drop_and_validate),
		cmocka_unit_test(test_classify_then_map),
	};

	return cmocka_run_group_tests_name("vl", tests, NULL, NULL);
}
