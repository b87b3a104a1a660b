/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_TIME_H
#define IBEX_TIME_H

/**
 * @file
 * The one parser of time options given on a command line (--duration,
 * --idle-stop, --stats-period, ...), shared by every ibex program so they
 * all accept and refuse the same things.
 *
 * A time is a plain decimal: digits with an optional fraction ("2",
 * "0.5", ".25"). Anything else is refused: a sign, an exponent, hex
 * ("0x10"), "nan", "inf", trailing garbage, zero, and a value that is
 * not zero but rounds to zero at the program's resolution ("1e-9" s
 * would be written 0.000000001 and is still refused at 1 ms). strtod()
 * accepts all of those, and a NaN or infinity converted to an integer
 * is undefined behaviour.
 */

#include <stddef.h>

/**
 * Parse @p s as a finite positive decimal time.
 *
 * @param s       the text ("2.5")
 * @param unit    what the number counts ("s", "ms"), for messages
 * @param res     resolution, in the same unit: the value must be >= res
 * @param max     largest value accepted, in the same unit
 * @param out     the value on success
 * @param err     the reason on failure ("'nan' is not a decimal number")
 * @return 0 or -EINVAL (then @p out is unchanged).
 */
int ibex_parse_time(const char *s, const char *unit, double res, double max,
		    double *out, char *err, size_t errlen);

/** Longest run time option in seconds: times are kept in 32-bit
 * milliseconds, 1 ms up to about 46 days. */
#define IBEX_OPT_SECONDS_MAX 4e6

/**
 * A program's option in seconds (--duration and the like), 1 ms ..
 * IBEX_OPT_SECONDS_MAX: ibex_parse_time(), with a refusal printed on
 * stderr as "PROG: --NAME: reason". @return 0 or -EINVAL.
 */
int ibex_parse_seconds_opt(const char *prog, const char *name, const char *s,
			   double *out);

#endif /* IBEX_TIME_H */
