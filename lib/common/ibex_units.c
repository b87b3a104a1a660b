/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sizes and rates: one grammar (ibex_units.h). A number is read exactly,
 * as an integer part and a fraction frac / scale (scale a power of ten),
 * so "1.5K" is 1536 bytes and "2.5" bit/s is refused instead of rounded.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ibex_units.h"

#define KIB UINT64_C(1024)

/* An exact decimal: ip + frac / scale. */
struct dec {
	uint64_t ip;
	uint64_t frac;
	uint64_t scale;   /* power of ten; 1: no fraction */
};

static int
dec_digits(const char *s, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (r > (UINT64_MAX - d) / 10)
			return -ERANGE;
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

/* Fraction digits after the '.', trailing zeros removed. Digits past
 * 10^18 can only be zeros (no multiplier is larger), so they must be '0'. */
static int
dec_fraction(const char **pp, struct dec *d)
{
	const char *p = *pp;
	size_t n = strspn(p, "0123456789");

	if (n == 0)
		return -EINVAL;
	for (; n > 0; n--, p++) {
		if (d->scale >= UINT64_C(1000000000000000000)) {
			if (*p != '0')
				return -EINVAL;
			continue;
		}
		d->frac = d->frac * 10 + (uint64_t)(*p - '0');
		d->scale *= 10;
	}
	while (d->scale > 1 && d->frac % 10 == 0) {
		d->frac /= 10;
		d->scale /= 10;
	}
	*pp = p;
	return 0;
}

/* "123" or "1.25" at *pp; *pp moves past it. */
static int
dec_parse(const char **pp, struct dec *d)
{
	size_t n = strspn(*pp, "0123456789");
	int ret = dec_digits(*pp, n, &d->ip);

	d->frac = 0;
	d->scale = 1;
	if (ret != 0)
		return ret;
	*pp += n;
	if (**pp != '.')
		return 0;
	(*pp)++;
	return dec_fraction(pp, d);
}

/* d x mult, exactly. @return -EINVAL when not whole, -ERANGE too large. */
static int
dec_scale(const struct dec *d, uint64_t mult, uint64_t *out)
{
	unsigned __int128 f = (unsigned __int128)d->frac * mult;
	uint64_t whole;

	if (f % d->scale != 0)
		return -EINVAL;
	if (__builtin_mul_overflow(d->ip, mult, &whole) ||
	    __builtin_add_overflow(whole, (uint64_t)(f / d->scale), &whole))
		return -ERANGE;
	*out = whole;
	return 0;
}

static double
dec_double(const struct dec *d, double mult)
{
	return ((double)d->ip + (double)d->frac / (double)d->scale) * mult;
}

/* Size unit at @p p: "", B, or K/M/G/T (either case) then "", B or iB. */
static int
size_unit(const char *p, uint64_t *mult)
{
	static const char letters[] = "KMGT";
	const char *l;
	char c = *p;

	*mult = 1;
	if (c == '\0' || strcmp(p, "B") == 0)
		return 0;
	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	l = strchr(letters, c);
	if (l == NULL)
		return -EINVAL;
	*mult = KIB << (10 * (l - letters));
	p++;
	return *p == '\0' || strcmp(p, "B") == 0 || strcmp(p, "iB") == 0 ?
	       0 : -EINVAL;
}

/* SI multiplier at *pp (k K M G g T t; not m, SI's milli). */
static uint64_t
si_mult(const char **pp)
{
	static const struct {
		char c;
		uint64_t mult;
	} si[] = {
		{ 'k', UINT64_C(1000) }, { 'K', UINT64_C(1000) },
		{ 'M', UINT64_C(1000000) }, { 'G', UINT64_C(1000000000) },
		{ 'g', UINT64_C(1000000000) }, { 'T', UINT64_C(1000000000000) },
		{ 't', UINT64_C(1000000000000) },
	};
	size_t i;

	for (i = 0; i < sizeof(si) / sizeof(si[0]); i++)
		if (**pp == si[i].c) {
			(*pp)++;
			return si[i].mult;
		}
	return 1;
}

int
ibex_parse_size(const char *s, uint64_t *bytes)
{
	const char *p = s;
	struct dec d;
	uint64_t mult, v;
	int ret;

	if (s == NULL || bytes == NULL)
		return -EINVAL;
	ret = dec_parse(&p, &d);
	if (ret == 0)
		ret = size_unit(p, &mult);
	if (ret == 0)
		ret = dec_scale(&d, mult, &v);
	if (ret == 0)
		*bytes = v;
	return ret;
}

int
ibex_parse_time_ps(const char *s, uint64_t *ps)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = {
		{ "", UINT64_C(1000) }, { "ps", 1 }, { "ns", UINT64_C(1000) },
		{ "us", UINT64_C(1000000) }, { "ms", UINT64_C(1000000000) },
		{ "s", UINT64_C(1000000000000) },
	};
	const char *p = s;
	struct dec d;
	size_t i;
	int ret;

	if (s == NULL || ps == NULL)
		return -EINVAL;
	ret = dec_parse(&p, &d);
	if (ret != 0)
		return ret;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(p, units[i].unit) == 0)
			return dec_scale(&d, units[i].mult, ps);
	return -EINVAL;
}

int
ibex_parse_rate(const char *s, uint64_t *bps)
{
	const char *p = s;
	struct dec d;
	uint64_t mult, v;
	int ret;

	if (s == NULL || bps == NULL)
		return -EINVAL;
	ret = dec_parse(&p, &d);
	if (ret != 0)
		return ret;
	mult = si_mult(&p);
	if (*p != '\0' && strcmp(p, "b") != 0 && strcmp(p, "bps") != 0)
		return -EINVAL;
	ret = dec_scale(&d, mult, &v);
	if (ret == 0)
		*bps = v;
	return ret;
}

int
ibex_parse_pps(const char *s, double *pps)
{
	const char *p = s;
	struct dec d;
	uint64_t mult;
	int ret;

	if (s == NULL || pps == NULL)
		return -EINVAL;
	ret = dec_parse(&p, &d);
	if (ret != 0)
		return ret;
	mult = si_mult(&p);
	if (*p != '\0' && strcmp(p, "pps") != 0)
		return -EINVAL;
	*pps = dec_double(&d, (double)mult);
	return 0;
}

int
ibex_parse_share(const char *s, double *frac)
{
	const char *p = s;
	struct dec d;
	int ret;

	if (s == NULL || frac == NULL)
		return -EINVAL;
	ret = dec_parse(&p, &d);
	if (ret != 0)
		return ret;
	if (*p != '\0' && strcmp(p, "%") != 0)
		return -EINVAL;
	*frac = dec_double(&d, *p == '%' ? 0.01 : 1.0);
	return 0;
}

int
ibex_parse_uint(const char *s, uint64_t *v)
{
	size_t n;

	if (s == NULL || v == NULL)
		return -EINVAL;
	n = strspn(s, "0123456789");
	if (s[n] != '\0')
		return -EINVAL;
	return dec_digits(s, n, v);
}

const char *
ibex_size_str(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "GB", "MB", "KB" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		uint64_t m = KIB << (10 * (2 - i));

		if (bytes != 0 && bytes % m == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", bytes / m, unit[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "B", bytes);
	return buf;
}
