/* SPDX-License-Identifier: BSD-3-Clause */
/* ibex_units: the one size and rate syntax of the config, ibex-gen,
 * ibex-pcapgen and the net_ibexlink devargs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_units.h"

#define KI UINT64_C(1024)

struct ok_u64 {
	const char *s;
	uint64_t v;
};

struct bad {
	const char *s;
	int ret;
};

static void
check_u64(int (*parse)(const char *, uint64_t *), const char *what,
	  const struct ok_u64 *ok, size_t nok, const struct bad *bad,
	  size_t nbad)
{
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < nok; i++) {
		v = 12345;
		ret = parse(ok[i].s, &v);
		if (ret != 0 || v != ok[i].v)
			fail_msg("%s '%s': %d, %llu, want %llu", what, ok[i].s,
				 ret, (unsigned long long)v,
				 (unsigned long long)ok[i].v);
	}
	for (i = 0; i < nbad; i++) {
		v = 12345;
		ret = parse(bad[i].s, &v);
		if (ret != bad[i].ret || v != 12345)
			fail_msg("%s '%s': %d, want %d (output %llu)", what,
				 bad[i].s, ret, bad[i].ret,
				 (unsigned long long)v);
	}
	assert_int_equal(parse(NULL, &v), -EINVAL);
	assert_int_equal(parse("1", NULL), -EINVAL);
}

/* Sizes are binary whatever the spelling: K = KB = KiB = 1024. */
static void
test_size(void **state)
{
	static const struct ok_u64 ok[] = {
		{ "0", 0 }, { "64", 64 }, { "64B", 64 }, { "1500", 1500 },
		{ "4K", 4 * KI }, { "4k", 4 * KI }, { "4KB", 4 * KI },
		{ "4kB", 4 * KI }, { "4KiB", 4 * KI }, { "64KB", 64 * KI },
		{ "64K", 64 * KI }, { "1M", KI * KI }, { "1m", KI * KI },
		{ "1MB", KI * KI }, { "1MiB", KI * KI }, { "2GB", 2 * KI * KI * KI },
		{ "2G", 2 * KI * KI * KI }, { "1T", KI * KI * KI * KI },
		{ "1TiB", KI * KI * KI * KI }, { "007KB", 7 * KI },
		{ "16777215T", UINT64_C(16777215) << 40 },
		/* a fraction is fine when the bytes are whole */
		{ "1.5K", 1536 }, { "1.5KB", 1536 }, { "0.5M", 512 * KI },
		{ "1.25K", 1280 }, { "2.0", 2 }, { "1.000000000000000000000K", KI },
		{ "17179869183GB", UINT64_C(17179869183) * KI * KI * KI },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const struct bad bad[] = {
		{ "", -EINVAL }, { "K", -EINVAL }, { "KB", -EINVAL },
		{ "B", -EINVAL }, { ".5K", -EINVAL }, { "1.", -EINVAL },
		{ "-1", -EINVAL }, { "+1", -EINVAL }, { " 1", -EINVAL },
		{ "1 ", -EINVAL }, { "4 KB", -EINVAL }, { "0x10", -EINVAL },
		{ "1e3", -EINVAL }, { "1,5K", -EINVAL }, { "1.5.1K", -EINVAL },
		/* b is a bit: never in a size */
		{ "64b", -EINVAL }, { "4kb", -EINVAL }, { "4Kb", -EINVAL },
		{ "4Kib", -EINVAL }, { "4KIB", -EINVAL }, { "4BB", -EINVAL },
		{ "4KK", -EINVAL }, { "4P", -EINVAL }, { "4%", -EINVAL },
		/* a fraction of a byte is refused, not rounded */
		{ "1.5", -EINVAL }, { "0.3K", -EINVAL }, { "1.0001K", -EINVAL },
		/* beyond 64 bits */
		{ "17179869184GB", -ERANGE }, { "16777216T", -ERANGE },
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999", -ERANGE },
	};
	(void)state;
	check_u64(ibex_parse_size, "size", ok, sizeof(ok) / sizeof(ok[0]), bad,
		  sizeof(bad) / sizeof(bad[0]));
}

/* Rates are decimal bit/s: 25G = 25Gbps = 25Gb = 25 x 10^9. */
static void
test_rate(void **state)
{
	static const struct ok_u64 ok[] = {
		{ "0", 0 }, { "400000000", 400000000 }, { "100b", 100 },
		{ "100bps", 100 }, { "1k", 1000 }, { "1K", 1000 },
		{ "10G", UINT64_C(10000000000) }, { "25Gbps", UINT64_C(25000000000) },
		{ "25Gb", UINT64_C(25000000000) }, { "2.5g", UINT64_C(2500000000) },
		{ "2.5gbps", UINT64_C(2500000000) }, { "400M", 400000000 },
		{ "400Mbps", 400000000 }, { "1.6T", UINT64_C(1600000000000) },
		{ "1.6t", UINT64_C(1600000000000) }, { "1.25k", 1250 },
		{ "0.000000000001T", 1 }, { "007M", 7000000 },
		{ "18446744073709551615", UINT64_MAX },
		{ "18446744.073709551615T", UINT64_MAX },
	};
	static const struct bad bad[] = {
		{ "", -EINVAL }, { "G", -EINVAL }, { "Gbps", -EINVAL },
		{ ".5G", -EINVAL }, { "1.", -EINVAL }, { "-1G", -EINVAL },
		{ "+1", -EINVAL }, { " 1", -EINVAL }, { "1 ", -EINVAL },
		{ "1e9", -EINVAL }, { "0x10", -EINVAL }, { "1,5G", -EINVAL },
		/* m is SI's milli; B is bytes; no other units */
		{ "25m", -EINVAL }, { "25mbps", -EINVAL }, { "25Bps", -EINVAL },
		{ "25GBps", -EINVAL }, { "25Gbit", -EINVAL }, { "25GG", -EINVAL },
		{ "25X", -EINVAL }, { "25Gbpss", -EINVAL }, { "25GBPS", -EINVAL },
		{ "40%", -EINVAL },
		/* a fraction of a bit/s is refused, not rounded */
		{ "2.5", -EINVAL }, { "1.0001k", -EINVAL },
		{ "0.0000000000001T", -EINVAL },
		{ "18446744073709551616", -ERANGE }, { "18446744074G", -ERANGE },
		{ "20000000T", -ERANGE },
	};

	(void)state;
	check_u64(ibex_parse_rate, "rate", ok, sizeof(ok) / sizeof(ok[0]), bad,
		  sizeof(bad) / sizeof(bad[0]));
}

/* Times are picoseconds, whole; a bare number is nanoseconds. */
static void
test_time(void **state)
{
	static const struct ok_u64 ok[] = {
		{ "0", 0 }, { "500", 500000 }, { "500ns", 500000 },
		{ "500NS", 500000 }, { "250ps", 250 }, { "1.5us", 1500000 },
		{ "2ms", UINT64_C(2000000000) }, { "1s", UINT64_C(1000000000000) },
		{ "0.001ns", 1 }, { "1.25", 1250 },
	};
	static const struct bad bad[] = {
		{ "", -EINVAL }, { "ns", -EINVAL }, { "-1ns", -EINVAL },
		{ " 1ns", -EINVAL }, { "1 ns", -EINVAL }, { "1e3", -EINVAL },
		{ "5furlongs", -EINVAL }, { "1m", -EINVAL }, { "1.ns", -EINVAL },
		/* a fraction of a picosecond is refused, not rounded */
		{ "0.0001ns", -EINVAL }, { "1.5ps", -EINVAL },
		{ "18446744073709552s", -ERANGE },
	};

	(void)state;
	check_u64(ibex_parse_time_ps, "time", ok, sizeof(ok) / sizeof(ok[0]),
		  bad, sizeof(bad) / sizeof(bad[0]));
}

static void
test_pps(void **state)
{
	static const struct {
		const char *s;
		double v;
	} ok[] = {
		{ "1M", 1e6 }, { "1Mpps", 1e6 }, { "1.5M", 1.5e6 },
		{ "1600K", 1.6e6 }, { "100k", 1e5 }, { "200000", 2e5 },
		{ "0.5", 0.5 }, { "10G", 1e10 }, { "0", 0 }, { "25pps", 25 },
	};
	static const char *const bad[] = {
		"", "M", "1e6", "-1", "1m", "1 M", "1Mbps", "1MB", "0x10", "1.",
		"40%",
	};
	double v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		if (ibex_parse_pps(ok[i].s, &v) != 0 || v != ok[i].v)
			fail_msg("pps '%s': %g, want %g", ok[i].s, v, ok[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -1;
		if (ibex_parse_pps(bad[i], &v) != -EINVAL || v != -1)
			fail_msg("pps '%s' accepted", bad[i]);
	}
}

static void
test_share(void **state)
{
	static const struct {
		const char *s;
		double v;
	} ok[] = {
		{ "0.4", 0.4 }, { "40%", 0.4 }, { "0.1%", 0.001 }, { "1", 1 },
		{ "100%", 1 }, { "0", 0 }, { "0.001", 0.001 },
	};
	static const char *const bad[] = {
		"", "%", "40 %", "-1", ".5", "1e-3", "40%%", "0.4x",
	};
	double v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		if (ibex_parse_share(ok[i].s, &v) != 0 ||
		    v < ok[i].v * (1 - 1e-12) || v > ok[i].v * (1 + 1e-12))
			fail_msg("share '%s': %g, want %g", ok[i].s, v, ok[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -1;
		if (ibex_parse_share(bad[i], &v) != -EINVAL || v != -1)
			fail_msg("share '%s' accepted", bad[i]);
	}
}

static void
test_uint(void **state)
{
	static const struct ok_u64 ok[] = {
		{ "0", 0 }, { "8", 8 }, { "007", 7 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const struct bad bad[] = {
		{ "", -EINVAL }, { "1K", -EINVAL }, { "1.5", -EINVAL },
		{ "-1", -EINVAL }, { "0x10", -EINVAL }, { " 1", -EINVAL },
		{ "18446744073709551616", -ERANGE },
	};

	(void)state;
	check_u64(ibex_parse_uint, "uint", ok, sizeof(ok) / sizeof(ok[0]), bad,
		  sizeof(bad) / sizeof(bad[0]));
}

/* What the config prints reads back as the same size. */
static void
test_size_str(void **state)
{
	static const uint64_t v[] = {
		0, 1, 64, 1500, 4096, 4100, 65536, 1048576, 3 * 1048576 + 1024,
		2147483648u, UINT64_C(1) << 40,
	};
	static const struct {
		uint64_t v;
		const char *s;
	} shown[] = {
		{ 0, "0B" }, { 1500, "1500B" }, { 4096, "4KB" },
		{ 1048576, "1MB" }, { 2147483648u, "2GB" },
		{ UINT64_C(1) << 40, "1024GB" },
	};
	char buf[32];
	uint64_t back;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ibex_size_str(v[i], buf, sizeof(buf));
		assert_int_equal(ibex_parse_size(buf, &back), 0);
		assert_true(back == v[i]);
	}
	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		assert_string_equal(ibex_size_str(shown[i].v, buf, sizeof(buf)),
				    shown[i].s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_pps),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_size_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
