/* SPDX-License-Identifier: BSD-3-Clause */
/* The aggregation packet's codec: header fields in network order, checked
 * one by one so a refusal names its reason. */

#include <string.h>

#include "ibex_agg_proto.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the elements are little-endian and summed in place");

static const char *const err_names[IBEX_AGG_E_MAX] = {
	[IBEX_AGG_OK] = "ok",
	[IBEX_AGG_E_SHORT] = "short",
	[IBEX_AGG_E_VERSION] = "version",
	[IBEX_AGG_E_TYPE] = "type",
	[IBEX_AGG_E_DTYPE] = "dtype",
	[IBEX_AGG_E_COUNT] = "count",
	[IBEX_AGG_E_LENGTH] = "length",
	[IBEX_AGG_E_SET] = "set",
	[IBEX_AGG_E_RESERVED] = "reserved",
	[IBEX_AGG_E_SPACE] = "space",
	[IBEX_AGG_E_SLOT] = "slot",
};

const char *
ibex_agg_err_name(enum ibex_agg_err e)
{
	if ((unsigned int)e >= IBEX_AGG_E_MAX)
		return "unknown";
	return err_names[e];
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* The checks a header passes whichever way it came: parsed or to be
 * built. */
static enum ibex_agg_err
hdr_check(const struct ibex_agg_hdr *h)
{
	if (h->type != IBEX_AGG_CONTRIB && h->type != IBEX_AGG_RESULT)
		return IBEX_AGG_E_TYPE;
	if (h->dtype != IBEX_AGG_INT32 && h->dtype != IBEX_AGG_FP32)
		return IBEX_AGG_E_DTYPE;
	if (h->count == 0 || h->count > IBEX_AGG_MAX_ELEMS)
		return IBEX_AGG_E_COUNT;
	if ((h->flags & ~IBEX_AGG_F_RETX) != 0)
		return IBEX_AGG_E_RESERVED;
	return IBEX_AGG_OK;
}

enum ibex_agg_err
ibex_agg_parse(const void *buf, uint32_t len, struct ibex_agg_hdr *h,
	       const void **elems)
{
	const uint8_t *p = buf;
	enum ibex_agg_err e;
	uint16_t slot_set;

	if (len < IBEX_AGG_HDR_LEN)
		return IBEX_AGG_E_SHORT;
	if (p[0] >> 4 != IBEX_AGG_VERSION)
		return IBEX_AGG_E_VERSION;
	h->type = p[0] & 0x0f;
	h->dtype = p[1];
	h->count = get16(p + 2);
	h->job = get32(p + 4);
	h->offset = get32(p + 8);
	slot_set = get16(p + 12);
	h->slot = slot_set & (IBEX_AGG_MAX_SLOTS - 1);
	h->child = get16(p + 14);
	h->seq = get32(p + 16);
	h->flags = p[20];
	e = hdr_check(h);
	if (e != IBEX_AGG_OK)
		return e;
	if (p[21] != 0)
		return IBEX_AGG_E_RESERVED;
	if (len != ibex_agg_pkt_len(h->count))
		return IBEX_AGG_E_LENGTH;
	/* The set is carried twice, as SwitchML's pool_index bit and as
	 * the sequence's parity: disagreeing copies mean a corrupt header. */
	if ((slot_set >> 15) != (h->seq & 1))
		return IBEX_AGG_E_SET;
	*elems = p + IBEX_AGG_HDR_LEN;
	return IBEX_AGG_OK;
}

int
ibex_agg_build(void *buf, uint32_t cap, const struct ibex_agg_hdr *h,
	       const void *elems)
{
	enum ibex_agg_err e = hdr_check(h);
	uint8_t *p = buf;
	uint32_t len;

	if (e == IBEX_AGG_OK && h->slot >= IBEX_AGG_MAX_SLOTS)
		e = IBEX_AGG_E_SLOT;
	if (e != IBEX_AGG_OK)
		return -(int)e;
	len = ibex_agg_pkt_len(h->count);
	if (cap < len)
		return -(int)IBEX_AGG_E_SPACE;
	p[0] = (uint8_t)(IBEX_AGG_VERSION << 4 | h->type);
	p[1] = h->dtype;
	put16(p + 2, h->count);
	put32(p + 4, h->job);
	put32(p + 8, h->offset);
	put16(p + 12, (uint16_t)((h->seq & 1) << 15 | h->slot));
	put16(p + 14, h->child);
	put32(p + 16, h->seq);
	p[20] = h->flags;
	p[21] = 0;
	memmove(p + IBEX_AGG_HDR_LEN, elems, 4 * (size_t)h->count);
	return (int)len;
}
