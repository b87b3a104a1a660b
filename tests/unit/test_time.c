/* SPDX-License-Identifier: BSD-3-Clause */
/* ibex_parse_time: the strict parser of every time option. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_time.h"

static int
parse(const char *s, double *v, char *err, size_t len)
{
	return ibex_parse_time(s, "seconds", 0.001, 4e6, v, err, len);
}

static void
test_accepts_plain_decimals(void **state)
{
	static const struct {
		const char *s;
		double v;
	} ok[] = {
		{ "1", 1 }, { "2.5", 2.5 }, { ".25", 0.25 }, { "3.", 3 },
		{ "0.001", 0.001 }, { "4000000", 4e6 }, { "007", 7 },
	};
	char err[160];
	unsigned int i;
	double v;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		assert_int_equal(parse(ok[i].s, &v, err, sizeof(err)), 0);
		assert_true(v == ok[i].v);
	}
}

static void
test_refuses_the_rest(void **state)
{
	static const char *const bad[] = {
		"nan", "NaN", "inf", "-inf", "infinity", "0x10", "1e-9", "1e3",
		"-1", "+1", "0", "0.0", ".", "", " 1", "1 ", "1s", "abc",
		"1..2", "0.0001", "4000000.5", "99999999999999999999",
	};
	char err[160];
	unsigned int i;
	double v;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		err[0] = '\0';
		assert_int_equal(parse(bad[i], &v, err, sizeof(err)), -EINVAL);
		assert_true(v == 42);   /* untouched */
		assert_true(strlen(err) > 0);
		assert_non_null(strstr(err, bad[i]));
	}
	assert_int_equal(ibex_parse_time(NULL, "s", 1, 2, &v, err,
					 sizeof(err)), -EINVAL);
}

static void
test_messages_say_why(void **state)
{
	char err[160];
	double v;

	(void)state;
	parse("0", &v, err, sizeof(err));
	assert_non_null(strstr(err, "zero"));
	parse("0.0001", &v, err, sizeof(err));
	assert_non_null(strstr(err, "resolution"));
	parse("5000000", &v, err, sizeof(err));
	assert_non_null(strstr(err, "more than"));
	parse("nan", &v, err, sizeof(err));
	assert_non_null(strstr(err, "not a decimal number"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_plain_decimals),
		cmocka_unit_test(test_refuses_the_rest),
		cmocka_unit_test(test_messages_say_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
