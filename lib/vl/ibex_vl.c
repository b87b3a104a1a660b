/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SL classification and SL->VL tables: builders and validation. The
 * per-frame lookups are inline in ibex_vl.h.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ibex_vl.h"

static int
fail(char *err, size_t errlen, const char *msg, unsigned int a, unsigned int b)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, msg, a, b);
	return -EINVAL;
}

void
ibex_sl_class_init(struct ibex_sl_class *c, enum ibex_sl_mode mode)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->mode = (uint8_t)mode;
	/* DSCP: the class-selector bits (RFC 2474 §4.2.2) pick SL 0..7, so
	 * CSx and AFx1..AFx3 (RFC 2597: 8x + 2y) share SL x. */
	for (i = 0; i < 64; i++)
		c->map[IBEX_SL_MAP_DSCP + i] = (uint8_t)(i >> 3);
	/* PCP: 802.1p priority carried through unchanged. */
	for (i = 0; i < 8; i++)
		c->map[IBEX_SL_MAP_PCP + i] = (uint8_t)i;
	/* Untagged, unclassifiable traffic is best effort. */
	c->map[IBEX_SL_MAP_DEFAULT] = 0;
}

int
ibex_sl_class_set_pcp(struct ibex_sl_class *c, unsigned int pcp,
		      unsigned int sl)
{
	if (pcp > 7 || sl >= IBEX_SL_COUNT)
		return -EINVAL;
	c->map[IBEX_SL_MAP_PCP + pcp] = (uint8_t)sl;
	return 0;
}

int
ibex_sl_class_set_dscp(struct ibex_sl_class *c, unsigned int dscp,
		       unsigned int sl)
{
	if (dscp > 63 || sl >= IBEX_SL_COUNT)
		return -EINVAL;
	c->map[IBEX_SL_MAP_DSCP + dscp] = (uint8_t)sl;
	return 0;
}

int
ibex_sl_class_set_default(struct ibex_sl_class *c, unsigned int sl)
{
	if (sl >= IBEX_SL_COUNT)
		return -EINVAL;
	c->map[IBEX_SL_MAP_DEFAULT] = (uint8_t)sl;
	return 0;
}

int
ibex_sl_class_validate(const struct ibex_sl_class *c, char *err, size_t errlen)
{
	unsigned int i;

	if (c->mode != IBEX_SL_FROM_PCP && c->mode != IBEX_SL_FROM_DSCP)
		return fail(err, errlen, "unknown SL mode %u%.0u", c->mode, 0);
	for (i = 0; i < IBEX_SL_MAP_LEN; i++) {
		if (c->map[i] >= IBEX_SL_COUNT)
			return fail(err, errlen,
				    "SL %u out of range 0..15 (map entry %u)",
				    c->map[i], i);
	}
	return 0;
}

int
ibex_sl2vl_default(struct ibex_sl2vl *t, unsigned int nb_vls)
{
	unsigned int s;

	if (!ibex_vls_valid(nb_vls))
		return -EINVAL;
	for (s = 0; s < IBEX_SL_COUNT; s++)
		t->vl[s] = (uint8_t)(s % nb_vls);
	return 0;
}

int
ibex_sl2vl_validate(const struct ibex_sl2vl *t, unsigned int nb_vls,
		    char *err, size_t errlen)
{
	unsigned int s;

	if (!ibex_vls_valid(nb_vls))
		return fail(err, errlen,
			    "%u operational VLs: must be 1, 2, 4, 8 or 15%.0u",
			    nb_vls, 0);
	for (s = 0; s < IBEX_SL_COUNT; s++) {
		unsigned int vl = t->vl[s];

		if (vl == IBEX_VL_DROP)
			continue;
		if (vl >= nb_vls)
			return fail(err, errlen,
				    "SL %u maps to VL %u, which is not operational",
				    s, vl);
	}
	return 0;
}

uint32_t
ibex_sl2vl_used(const struct ibex_sl2vl *t)
{
	uint32_t m = 0;
	unsigned int s;

	for (s = 0; s < IBEX_SL_COUNT; s++)
		m |= UINT32_C(1) << (t->vl[s] & 15);
	return m & IBEX_VL_DATA_MASK;
}
