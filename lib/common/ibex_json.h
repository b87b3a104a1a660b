/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_JSON_H
#define IBEX_JSON_H

/**
 * @file
 * The one JSON string escaper of ibex. Every JSON ibex writes (the
 * generator's and the fabric's result files, the meta block, the control
 * socket's replies, ibex-ctl's documents) quotes its strings here, so a
 * name with a quote, a backslash or a control byte reads back the same
 * from all of them (docs/results.md). Pure C in the lowest library
 * (lib/common, part of ibex_pure), so every writer links it without EAL.
 */

#include <stddef.h>
#include <stdio.h>

/**
 * Write @p s as a JSON string, quotes included: '"' and '\\' escaped
 * with a backslash, control bytes (< 0x20) as \\u00XX, every other byte
 * as it is (UTF-8 passes through). The text goes out through @p put in
 * runs (@p put(ctx, bytes, n)); the first non-zero return stops the
 * escaper and is returned. @return 0 or what @p put returned.
 */
int ibex_json_escape(const char *s,
		     int (*put)(void *ctx, const char *bytes, size_t n),
		     void *ctx);

/**
 * ibex_json_escape() into a stdio stream. @return 0, or -EIO when the
 * stream refused a byte (its error flag tells the rest).
 */
int ibex_json_fputs(FILE *f, const char *s);

#endif /* IBEX_JSON_H */
