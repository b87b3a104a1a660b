/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_time.h"

/* Digits, at most one '.', at least one digit, nothing else. */
static bool
plain_decimal(const char *s)
{
	bool digit = false, dot = false;

	for (; *s != '\0'; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

int
ibex_parse_time(const char *s, const char *unit, double res, double max,
		double *out, char *err, size_t errlen)
{
	double v;

	if (s == NULL || !plain_decimal(s)) {
		snprintf(err, errlen, "'%s' is not a decimal number of %s "
			 "(like 2 or 0.5)", s != NULL ? s : "", unit);
		return -EINVAL;
	}
	/* Only digits and a dot: strtod reads all of it, finite. */
	v = strtod(s, NULL);
	if (v == 0) {
		snprintf(err, errlen, "'%s' is zero: leave the option out for "
			 "no limit", s);
		return -EINVAL;
	}
	if (v < res) {
		snprintf(err, errlen, "'%s' is below the resolution of %g %s",
			 s, res, unit);
		return -EINVAL;
	}
	if (v > max) {
		snprintf(err, errlen, "'%s' is more than %g %s", s, max, unit);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int
ibex_parse_seconds_opt(const char *prog, const char *name, const char *s,
		       double *out)
{
	char err[160];

	if (ibex_parse_time(s, "seconds", 0.001, IBEX_OPT_SECONDS_MAX, out,
			    err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: --%s: %s\n", prog, name, err);
		return -EINVAL;
	}
	return 0;
}
