/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_REQUIRE_H
#define IBEX_REQUIRE_H

/**
 * @file
 * The settings checks of the pure libraries (CBFC, LLR): a setting out of
 * range is refused with its reason, in the caller's (err, errlen).
 */

#include <errno.h>
#include <stdio.h>

/** In a function with `char *err, size_t errlen`: unless @p cond holds,
 * write the reason (a printf format and its arguments) and return
 * -EINVAL. */
#define IBEX_REQUIRE(cond, ...) do {					\
	if (!(cond)) {							\
		snprintf(err, errlen, __VA_ARGS__);			\
		return -EINVAL;						\
	}								\
} while (0)

#endif /* IBEX_REQUIRE_H */
