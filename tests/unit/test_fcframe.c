/* SPDX-License-Identifier: BSD-3-Clause */
/* PFC and ibex credit frame codecs: exact bytes, round trips, and every
 * malformation named. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ibex_fcframe.h"

static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x07 };

static void
test_pfc_bytes(void **state)
{
	static const uint8_t want[34] = {
		0x01, 0x80, 0xC2, 0x00, 0x00, 0x01,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x07,
		0x88, 0x08, 0x01, 0x01, 0x00, 0x09,
		0xff, 0xff, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct ibex_fcf_pfc m = { .cev = 0x09, .quanta = { 0xffff, 0, 0, 0x1234 } };
	uint8_t buf[64];
	unsigned int i;

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(ibex_fcf_pfc_build(buf, sizeof(buf), src, &m), 60);
	assert_memory_equal(buf, want, sizeof(want));
	for (i = 34; i < 60; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(buf[60], 0xaa);
	assert_int_equal(ibex_fcf_pfc_build(buf, 59, src, &m), -ENOSPC);
}

static void
test_pfc_round_trip(void **state)
{
	struct ibex_fcf_pfc m = { .cev = 0xa5 }, got;
	uint8_t buf[60];
	unsigned int i;

	(void)state;
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		m.quanta[i] = (uint16_t)(i * 0x1111 + 1);
	assert_int_equal(ibex_fcf_pfc_build(buf, sizeof(buf), src, &m), 60);
	memset(&got, 0, sizeof(got));
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_OK);
	assert_int_equal(got.cev, 0xa5);
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		assert_int_equal(got.quanta[i], i * 0x1111 + 1);
	/* Zero vector parses: the PFC state ignores it. */
	m.cev = 0;
	ibex_fcf_pfc_build(buf, sizeof(buf), src, &m);
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_OK);
	assert_int_equal(got.cev, 0);
	/* The reserved high byte of the vector is ignored. */
	buf[16] = 0xff;
	buf[17] = 0x02;
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_OK);
	assert_int_equal(got.cev, 0x02);
}

static void
test_pfc_malformed(void **state)
{
	struct ibex_fcf_pfc m = { .cev = 1, .quanta = { 7 } }, got;
	uint8_t buf[60];
	uint32_t len;

	(void)state;
	ibex_fcf_pfc_build(buf, sizeof(buf), src, &m);
	for (len = 0; len < IBEX_PFC_FRAME_HDR_LEN; len++)
		assert_int_equal(ibex_fcf_pfc_parse(buf, len, &got), IBEX_FCF_TRUNC);
	assert_int_equal(ibex_fcf_pfc_parse(buf, 34, &got), IBEX_FCF_OK);
	buf[14] = 0x00;
	buf[15] = 0x01; /* 802.3x PAUSE */
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_OPCODE);
	buf[15] = 0x01;
	buf[14] = 0x01;
	buf[5] = 0x02; /* wrong destination */
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_DA);
	buf[5] = 0x01;
	buf[13] = 0x00;
	assert_int_equal(ibex_fcf_pfc_parse(buf, 60, &got), IBEX_FCF_ETHERTYPE);
	assert_string_equal(ibex_fcf_err_name(IBEX_FCF_TRUNC), "truncated");
	assert_string_equal(ibex_fcf_err_name(IBEX_FCF_MAX), "?");
}

static struct ibex_fcf_credit
credit_msg(void)
{
	struct ibex_fcf_credit m = { .op = IBEX_FCF_OP_NORMAL, .n_vls = 2,
				     .seq = 0xbeef };

	m.vl[0] = (struct ibex_fcf_vl){ 0, 0x0123, 0x0fff };
	m.vl[1] = (struct ibex_fcf_vl){ 3, 0x0800, 0x0000 };
	return m;
}

static void
test_credit_bytes(void **state)
{
	static const uint8_t want[32] = {
		0x03, 0x69, 0x62, 0x65, 0x78, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x07,
		0x88, 0xB5, 0xFC, 0x01, 0x00, 0x02, 0xbe, 0xef,
		0x00, 0x00, 0x01, 0x23, 0x0f, 0xff,
		0x03, 0x00, 0x08, 0x00, 0x00, 0x00,
	};
	struct ibex_fcf_credit m = credit_msg(), got;
	uint8_t buf[IBEX_FCF_MAX_LEN];
	unsigned int i;

	(void)state;
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), 60);
	assert_memory_equal(buf, want, sizeof(want));
	for (i = 32; i < 60; i++)
		assert_int_equal(buf[i], 0);
	memset(&got, 0, sizeof(got));
	assert_int_equal(ibex_fcf_credit_parse(buf, 60, &got), IBEX_FCF_OK);
	assert_int_equal(got.op, 0);
	assert_int_equal(got.n_vls, 2);
	assert_int_equal(got.seq, 0xbeef);
	assert_int_equal(got.vl[1].vl, 3);
	assert_int_equal(got.vl[0].fctbs, 0x123);
	assert_int_equal(got.vl[0].fccl, 0xfff);
	assert_int_equal(got.vl[1].fctbs, 0x800);
}

static void
test_credit_full(void **state)
{
	struct ibex_fcf_credit m = { .op = IBEX_FCF_OP_INIT, .n_vls = 15 }, got;
	uint8_t buf[IBEX_FCF_MAX_LEN];
	unsigned int i;

	(void)state;
	for (i = 0; i < 15; i++)
		m.vl[i] = (struct ibex_fcf_vl){ i, (uint16_t)(4095 - i), (uint16_t)(i * 273) };
	assert_int_equal(IBEX_FCF_MAX_LEN, 110);
	assert_int_equal(ibex_fcf_credit_build(buf, 109, src, &m), -ENOSPC);
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), 110);
	assert_int_equal(ibex_fcf_credit_parse(buf, 110, &got), IBEX_FCF_OK);
	assert_int_equal(got.op, IBEX_FCF_OP_INIT);
	for (i = 0; i < 15; i++) {
		assert_int_equal(got.vl[i].vl, i);
		assert_int_equal(got.vl[i].fctbs, 4095 - i);
		assert_int_equal(got.vl[i].fccl, i * 273);
	}
	/* One byte short of the last record. */
	assert_int_equal(ibex_fcf_credit_parse(buf, 109, &got), IBEX_FCF_TRUNC);
}

static void
test_credit_build_invalid(void **state)
{
	struct ibex_fcf_credit m;
	uint8_t buf[IBEX_FCF_MAX_LEN];

	(void)state;
	m = credit_msg();
	m.n_vls = 0;
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), -EINVAL);
	m = credit_msg();
	m.vl[1].vl = 0; /* duplicate */
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), -EINVAL);
	m = credit_msg();
	m.vl[1].vl = 15;
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), -EINVAL);
	m = credit_msg();
	m.vl[0].fccl = 4096;
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), -EINVAL);
	m = credit_msg();
	m.op = 2;
	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), -EINVAL);
}

/* Corrupt one byte of a good frame and expect a reason. */
static void
expect_bad(unsigned int off, uint8_t val, enum ibex_fcf_err err)
{
	struct ibex_fcf_credit m = credit_msg(), got;
	uint8_t buf[IBEX_FCF_MAX_LEN];

	assert_int_equal(ibex_fcf_credit_build(buf, sizeof(buf), src, &m), 60);
	buf[off] = val;
	assert_int_equal(ibex_fcf_credit_parse(buf, 60, &got), err);
}

static void
test_credit_malformed(void **state)
{
	struct ibex_fcf_credit m = credit_msg(), got;
	uint8_t buf[IBEX_FCF_MAX_LEN];
	uint32_t len;

	(void)state;
	ibex_fcf_credit_build(buf, sizeof(buf), src, &m);
	for (len = 0; len < 32; len++)
		assert_int_equal(ibex_fcf_credit_parse(buf, len, &got), IBEX_FCF_TRUNC);
	assert_int_equal(ibex_fcf_credit_parse(buf, 32, &got), IBEX_FCF_OK);
	expect_bad(13, 0xB6, IBEX_FCF_ETHERTYPE);
	expect_bad(14, 0xFD, IBEX_FCF_MAGIC_BAD);
	expect_bad(15, 2, IBEX_FCF_VERSION_BAD);
	expect_bad(16, 2, IBEX_FCF_OP_BAD);
	expect_bad(17, 0, IBEX_FCF_COUNT_BAD);
	expect_bad(17, 16, IBEX_FCF_COUNT_BAD);
	expect_bad(17, 7, IBEX_FCF_TRUNC);   /* 20 + 7 x 6 = 62 > 60 */
	expect_bad(17, 5, IBEX_FCF_VL_ORDER); /* zero padding read as VL0 */
	expect_bad(20, 0x10, IBEX_FCF_RESERVED);
	expect_bad(21, 0x01, IBEX_FCF_RESERVED);
	expect_bad(22, 0x10, IBEX_FCF_RESERVED); /* FCTBS above 12 bits */
	expect_bad(30, 0x80, IBEX_FCF_RESERVED); /* FCCL above 12 bits */
	expect_bad(26, 0x0f, IBEX_FCF_VL_BAD);
	expect_bad(26, 0x00, IBEX_FCF_VL_ORDER);
}

/* A CC_Update of all 32 VCs: three frames of 12, 12 and 8 counts, each
 * 60 bytes, the counts at their documented offsets. */
static void
test_cbfc_round_trip(void **state)
{
	struct ibex_fcf_cbfc m = { .type = IBEX_FCF_CBFC_CC,
				   .vcs = UINT32_MAX }, got = { 0 };
	uint8_t buf[64];
	uint32_t left = UINT32_MAX, v, frames = 0;

	(void)state;
	for (v = 0; v < 32; v++)
		m.count[v] = (v * 40503u + 7) & 0xfffff;
	m.count[31] = 0xfffff;
	while (left != 0) {
		uint32_t before = left;

		assert_int_equal(ibex_fcf_cbfc_build(buf, sizeof(buf), src, &m,
						     &left), 60);
		assert_int_equal(buf[14], 0xcb);
		assert_int_equal(buf[16], IBEX_FCF_CBFC_CC);
		assert_int_equal(ibex_fcf_cbfc_parse(buf, 60, &got),
				 IBEX_FCF_OK);
		assert_int_equal(got.vcs, before & ~left);
		assert_int_equal(__builtin_popcount(got.vcs),
				 frames < 2 ? 12 : 8);
		frames++;
	}
	assert_int_equal(frames, 3);
	for (v = 0; v < 32; v++)
		assert_int_equal(got.count[v], m.count[v]);
	/* The last frame: VCs 24..31, VC 24's count first, at byte 22. */
	assert_int_equal((uint32_t)buf[18] << 24 | (uint32_t)buf[19] << 16 |
			 (uint32_t)buf[20] << 8 | buf[21], 0xff000000u);
	assert_int_equal(buf[22] << 16 | buf[23] << 8 | buf[24], m.count[24]);
	/* A CF_Update shim of one VC. */
	m = (struct ibex_fcf_cbfc){ .type = IBEX_FCF_CBFC_CF, .vcs = 1u << 5 };
	m.count[5] = 12345;
	left = m.vcs;
	assert_int_equal(ibex_fcf_cbfc_build(buf, sizeof(buf), src, &m, &left),
			 60);
	assert_int_equal(ibex_fcf_cbfc_parse(buf, 60, &got), IBEX_FCF_OK);
	assert_int_equal(got.type, IBEX_FCF_CBFC_CF);
	assert_int_equal(got.vcs, 1u << 5);
	assert_int_equal(got.count[5], 12345);
	/* An ibex credit frame is not a CBFC one, and the other way round. */
	{
		struct ibex_fcf_credit c;

		assert_int_equal(ibex_fcf_credit_parse(buf, 60, &c),
				 IBEX_FCF_MAGIC_BAD);
	}
}

static void
test_cbfc_invalid(void **state)
{
	struct ibex_fcf_cbfc m = { .type = IBEX_FCF_CBFC_CC, .vcs = 3 }, got;
	uint8_t buf[64], bad[64];
	uint32_t left;

	(void)state;
	left = 3;
	m.count[1] = 0x100000;            /* 21 bits */
	assert_int_equal(ibex_fcf_cbfc_build(buf, 64, src, &m, &left), -EINVAL);
	m.count[1] = 1;
	left = 4;                         /* not in the message */
	assert_int_equal(ibex_fcf_cbfc_build(buf, 64, src, &m, &left), -EINVAL);
	left = 0;
	assert_int_equal(ibex_fcf_cbfc_build(buf, 64, src, &m, &left), -EINVAL);
	left = 3;
	m.type = 3;
	assert_int_equal(ibex_fcf_cbfc_build(buf, 64, src, &m, &left), -EINVAL);
	m.type = IBEX_FCF_CBFC_CC;
	assert_int_equal(ibex_fcf_cbfc_build(buf, 59, src, &m, &left), -ENOSPC);
	assert_int_equal(left, 3);
	assert_int_equal(ibex_fcf_cbfc_build(buf, 64, src, &m, &left), 60);
	assert_int_equal(left, 0);
#define MANGLE(i, val, err) do { memcpy(bad, buf, 60); bad[i] = (val);	\
		assert_int_equal(ibex_fcf_cbfc_parse(bad, 60, &got), err);	\
	} while (0)
	MANGLE(14, 0xfc, IBEX_FCF_MAGIC_BAD);
	MANGLE(15, 2, IBEX_FCF_VERSION_BAD);
	MANGLE(16, 0, IBEX_FCF_OP_BAD);
	MANGLE(16, 3, IBEX_FCF_OP_BAD);
	MANGLE(17, 1, IBEX_FCF_RESERVED);
	MANGLE(22, 0x10, IBEX_FCF_RESERVED);   /* a count's top nibble */
	/* and a refused frame leaves the message as it was */
	got.type = 9;
	got.count[0] = 77;
	MANGLE(25, 0x10, IBEX_FCF_RESERVED);   /* VC 1's, after VC 0's */
	assert_int_equal(got.type, 9);
	assert_int_equal(got.count[0], 77);
	MANGLE(21, 0, IBEX_FCF_COUNT_BAD);     /* no VC */
	MANGLE(12, 0x08, IBEX_FCF_ETHERTYPE);
#undef MANGLE
	/* 13 VCs are more than a frame carries. */
	memcpy(bad, buf, 60);
	bad[20] = 0x1f;
	bad[21] = 0xff;
	assert_int_equal(ibex_fcf_cbfc_parse(bad, 60, &got), IBEX_FCF_COUNT_BAD);
	/* 12 VCs need 22 + 36 bytes: one short is truncated. */
	memcpy(bad, buf, 60);
	bad[20] = 0x0f;
	bad[21] = 0xff;
	assert_int_equal(ibex_fcf_cbfc_parse(bad, 57, &got), IBEX_FCF_TRUNC);
	assert_int_equal(ibex_fcf_cbfc_parse(bad, 58, &got), IBEX_FCF_OK);
	assert_int_equal(ibex_fcf_cbfc_parse(bad, 21, &got), IBEX_FCF_TRUNC);
	assert_int_equal(ibex_fcf_cbfc_parse(bad, 13, &got), IBEX_FCF_TRUNC);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pfc_bytes),
		cmocka_unit_test(test_pfc_round_trip),
		cmocka_unit_test(test_pfc_malformed),
		cmocka_unit_test(test_credit_bytes),
		cmocka_unit_test(test_credit_full),
		cmocka_unit_test(test_credit_build_invalid),
		cmocka_unit_test(test_credit_malformed),
		cmocka_unit_test(test_cbfc_round_trip),
		cmocka_unit_test(test_cbfc_invalid),
	};

	return cmocka_run_group_tests_name("fcframe", tests, NULL, NULL);
}
