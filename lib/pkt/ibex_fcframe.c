/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow-control frame codecs. Fields are written and read byte by byte in
 * network order so the code does not depend on alignment or host order.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "ibex_fcframe.h"

static const uint8_t pfc_da[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };
const uint8_t ibex_fcf_credit_da[6] = { 0x03, 0x69, 0x62, 0x65, 0x78, 0x00 };

static const char *const err_names[IBEX_FCF_MAX] = {
	[IBEX_FCF_OK] = "ok",
	[IBEX_FCF_TRUNC] = "truncated",
	[IBEX_FCF_ETHERTYPE] = "ethertype",
	[IBEX_FCF_DA] = "destination",
	[IBEX_FCF_OPCODE] = "opcode",
	[IBEX_FCF_MAGIC_BAD] = "magic",
	[IBEX_FCF_VERSION_BAD] = "version",
	[IBEX_FCF_OP_BAD] = "op",
	[IBEX_FCF_COUNT_BAD] = "vl-count",
	[IBEX_FCF_VL_BAD] = "vl",
	[IBEX_FCF_VL_ORDER] = "vl-order",
	[IBEX_FCF_RESERVED] = "reserved",
};

const char *
ibex_fcf_err_name(enum ibex_fcf_err err)
{
	return (unsigned int)err < IBEX_FCF_MAX ? err_names[err] : "?";
}

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Ethernet header plus zero fill up to the minimum frame. */
static void
put_ether(uint8_t *b, const uint8_t da[6], const uint8_t src[6],
	  uint16_t type, uint32_t len)
{
	memset(b, 0, len);
	memcpy(b, da, 6);
	memcpy(b + 6, src, 6);
	put16(b + 12, type);
}

int
ibex_fcf_pfc_build(void *buf, uint32_t cap, const uint8_t src[6],
		   const struct ibex_fcf_pfc *m)
{
	uint8_t *b = buf;
	unsigned int i;

	if (cap < IBEX_ETHER_MIN_LEN)
		return -ENOSPC;
	put_ether(b, pfc_da, src, IBEX_ETHERTYPE_MACCTL, IBEX_ETHER_MIN_LEN);
	put16(b + 14, IBEX_PFC_OPCODE);
	put16(b + 16, m->cev);
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		put16(b + 18 + 2 * i, m->quanta[i]);
	return IBEX_ETHER_MIN_LEN;
}

enum ibex_fcf_err
ibex_fcf_pfc_parse(const void *frame, uint32_t len, struct ibex_fcf_pfc *m)
{
	const uint8_t *b = frame;
	unsigned int i;

	if (len < 14)
		return IBEX_FCF_TRUNC;
	if (get16(b + 12) != IBEX_ETHERTYPE_MACCTL)
		return IBEX_FCF_ETHERTYPE;
	if (len < 16)
		return IBEX_FCF_TRUNC;
	if (get16(b + 14) != IBEX_PFC_OPCODE)
		return IBEX_FCF_OPCODE;
	if (memcmp(b, pfc_da, 6) != 0)
		return IBEX_FCF_DA;
	if (len < IBEX_PFC_FRAME_HDR_LEN)
		return IBEX_FCF_TRUNC;
	m->cev = b[17];
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		m->quanta[i] = get16(b + 18 + 2 * i);
	return IBEX_FCF_OK;
}

/* Shared by build (as -EINVAL) and parse: a record list is valid when
 * VLs are data VLs in strictly increasing order and counters are 12-bit. */
static enum ibex_fcf_err
check_credit(const struct ibex_fcf_credit *m)
{
	unsigned int i;

	if (m->op > IBEX_FCF_OP_INIT)
		return IBEX_FCF_OP_BAD;
	if (m->n_vls == 0 || m->n_vls > IBEX_FCF_MAX_VLS)
		return IBEX_FCF_COUNT_BAD;
	for (i = 0; i < m->n_vls; i++) {
		if (m->vl[i].vl >= IBEX_FCF_MAX_VLS)
			return IBEX_FCF_VL_BAD;
		if (i > 0 && m->vl[i].vl <= m->vl[i - 1].vl)
			return IBEX_FCF_VL_ORDER;
		if ((m->vl[i].fctbs | m->vl[i].fccl) & 0xf000)
			return IBEX_FCF_RESERVED;
	}
	return IBEX_FCF_OK;
}

int
ibex_fcf_credit_build(void *buf, uint32_t cap, const uint8_t src[6],
		      const struct ibex_fcf_credit *m)
{
	uint8_t *b = buf;
	uint32_t len;
	unsigned int i;

	if (check_credit(m) != IBEX_FCF_OK)
		return -EINVAL;
	len = IBEX_FCF_HDR_LEN + m->n_vls * IBEX_FCF_REC_LEN;
	if (len < IBEX_ETHER_MIN_LEN)
		len = IBEX_ETHER_MIN_LEN;
	if (cap < len)
		return -ENOSPC;
	put_ether(b, ibex_fcf_credit_da, src, IBEX_ETHERTYPE_IBEXFC, len);
	b[14] = IBEX_FCF_MAGIC;
	b[15] = IBEX_FCF_VERSION;
	b[16] = m->op;
	b[17] = m->n_vls;
	put16(b + 18, m->seq);
	for (i = 0; i < m->n_vls; i++) {
		uint8_t *r = b + IBEX_FCF_HDR_LEN + i * IBEX_FCF_REC_LEN;

		r[0] = m->vl[i].vl;
		r[1] = 0;
		put16(r + 2, m->vl[i].fctbs);
		put16(r + 4, m->vl[i].fccl);
	}
	return len;
}

enum ibex_fcf_err
ibex_fcf_credit_parse(const void *frame, uint32_t len,
		      struct ibex_fcf_credit *m)
{
	const uint8_t *b = frame;
	unsigned int i;

	if (len < 14)
		return IBEX_FCF_TRUNC;
	if (get16(b + 12) != IBEX_ETHERTYPE_IBEXFC)
		return IBEX_FCF_ETHERTYPE;
	if (len < IBEX_FCF_HDR_LEN)
		return IBEX_FCF_TRUNC;
	if (b[14] != IBEX_FCF_MAGIC)
		return IBEX_FCF_MAGIC_BAD;
	if (b[15] != IBEX_FCF_VERSION)
		return IBEX_FCF_VERSION_BAD;
	m->op = b[16];
	m->n_vls = b[17];
	m->seq = get16(b + 18);
	/* Check the count before the length so a huge count is named as
	 * such rather than as truncation. */
	if (m->op > IBEX_FCF_OP_INIT)
		return IBEX_FCF_OP_BAD;
	if (m->n_vls == 0 || m->n_vls > IBEX_FCF_MAX_VLS)
		return IBEX_FCF_COUNT_BAD;
	if (len < IBEX_FCF_HDR_LEN + (uint32_t)m->n_vls * IBEX_FCF_REC_LEN)
		return IBEX_FCF_TRUNC;
	for (i = 0; i < m->n_vls; i++) {
		const uint8_t *r = b + IBEX_FCF_HDR_LEN + i * IBEX_FCF_REC_LEN;

		if (r[0] & 0xf0 || r[1] != 0)
			return IBEX_FCF_RESERVED;
		m->vl[i].vl = r[0];
		m->vl[i].fctbs = get16(r + 2);
		m->vl[i].fccl = get16(r + 4);
	}
	return check_credit(m);
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* The lowest @p max set bits of @p mask. */
static uint32_t
low_bits(uint32_t mask, unsigned int max)
{
	uint32_t out = 0;

	while (mask != 0 && max-- > 0) {
		out |= mask & -mask;
		mask &= mask - 1;
	}
	return out;
}

int
ibex_fcf_cbfc_build(void *buf, uint32_t cap, const uint8_t src[6],
		    const struct ibex_fcf_cbfc *m, uint32_t *left)
{
	uint8_t *b = buf, *r;
	uint32_t vcs = low_bits(*left, IBEX_FCF_CBFC_MAX_VCS), v;

	if ((m->type != IBEX_FCF_CBFC_CC && m->type != IBEX_FCF_CBFC_CF) ||
	    vcs == 0 || (*left & ~m->vcs) != 0)
		return -EINVAL;
	for (v = 0; v < IBEX_FCF_CBFC_PORT_VCS; v++)
		if ((vcs >> v & 1) && m->count[v] > 0xfffff)
			return -EINVAL;
	if (cap < IBEX_ETHER_MIN_LEN)
		return -ENOSPC;
	put_ether(b, ibex_fcf_credit_da, src, IBEX_ETHERTYPE_IBEXFC,
		  IBEX_ETHER_MIN_LEN);
	b[14] = IBEX_FCF_CBFC_MAGIC;
	b[15] = IBEX_FCF_VERSION;
	b[16] = m->type;
	put32(b + 18, vcs);
	r = b + IBEX_FCF_CBFC_HDR_LEN;
	for (v = 0; v < IBEX_FCF_CBFC_PORT_VCS; v++) {
		if (!(vcs >> v & 1))
			continue;
		r[0] = (uint8_t)(m->count[v] >> 16);
		put16(r + 1, (uint16_t)m->count[v]);
		r += IBEX_FCF_CBFC_REC_LEN;
	}
	*left &= ~vcs;
	return IBEX_ETHER_MIN_LEN;
}

enum ibex_fcf_err
ibex_fcf_cbfc_parse(const void *frame, uint32_t len, struct ibex_fcf_cbfc *out)
{
	const uint8_t *b = frame, *r;
	struct ibex_fcf_cbfc msg, *m = &msg;
	unsigned int n, v;

	if (len < 14)
		return IBEX_FCF_TRUNC;
	if (get16(b + 12) != IBEX_ETHERTYPE_IBEXFC)
		return IBEX_FCF_ETHERTYPE;
	if (len < IBEX_FCF_CBFC_HDR_LEN)
		return IBEX_FCF_TRUNC;
	if (b[14] != IBEX_FCF_CBFC_MAGIC)
		return IBEX_FCF_MAGIC_BAD;
	if (b[15] != IBEX_FCF_VERSION)
		return IBEX_FCF_VERSION_BAD;
	if (b[16] != IBEX_FCF_CBFC_CC && b[16] != IBEX_FCF_CBFC_CF)
		return IBEX_FCF_OP_BAD;
	if (b[17] != 0)
		return IBEX_FCF_RESERVED;
	m->type = b[16];
	m->vcs = get32(b + 18);
	n = (unsigned int)__builtin_popcount(m->vcs);
	if (n == 0 || n > IBEX_FCF_CBFC_MAX_VCS)
		return IBEX_FCF_COUNT_BAD;
	if (len < IBEX_FCF_CBFC_HDR_LEN + n * IBEX_FCF_CBFC_REC_LEN)
		return IBEX_FCF_TRUNC;
	r = b + IBEX_FCF_CBFC_HDR_LEN;
	for (v = 0; v < IBEX_FCF_CBFC_PORT_VCS; v++) {
		if (!(m->vcs >> v & 1))
			continue;
		if (r[0] & 0xf0)
			return IBEX_FCF_RESERVED;
		m->count[v] = (uint32_t)r[0] << 16 | get16(r + 1);
		r += IBEX_FCF_CBFC_REC_LEN;
	}
	/* Only a valid frame changes *out: a caller gathers the three
	 * frames of a CC_Update in one message. */
	out->type = m->type;
	out->vcs = m->vcs;
	for (v = 0; v < IBEX_FCF_CBFC_PORT_VCS; v++)
		if (m->vcs >> v & 1)
			out->count[v] = m->count[v];
	return IBEX_FCF_OK;
}
