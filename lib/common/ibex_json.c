/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one JSON string escaper (ibex_json.h). RFC 8259 section 7: '"',
 * '\\' and the control characters U+0000..U+001F must be escaped; every
 * other byte may stand for itself, so UTF-8 passes through untouched.
 */

#include <errno.h>
#include <stdio.h>

#include "ibex_json.h"

int
ibex_json_escape(const char *s,
		 int (*put)(void *ctx, const char *bytes, size_t n), void *ctx)
{
	const char *run = s;
	int ret = put(ctx, "\"", 1);

	for (; ret == 0 && *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;
		char esc[8];
		int n;

		if (ch != '"' && ch != '\\' && ch >= 0x20)
			continue;
		if (s > run)
			ret = put(ctx, run, (size_t)(s - run));
		if (ret != 0)
			break;
		if (ch == '"' || ch == '\\')
			n = snprintf(esc, sizeof(esc), "\\%c", ch);
		else
			n = snprintf(esc, sizeof(esc), "\\u%04x", ch);
		ret = put(ctx, esc, (size_t)n);
		run = s + 1;
	}
	if (ret == 0 && s > run)
		ret = put(ctx, run, (size_t)(s - run));
	return ret == 0 ? put(ctx, "\"", 1) : ret;
}

static int
file_put(void *ctx, const char *bytes, size_t n)
{
	return fwrite(bytes, 1, n, ctx) == n ? 0 : -EIO;
}

int
ibex_json_fputs(FILE *f, const char *s)
{
	return ibex_json_escape(s, file_put, f);
}
