/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP groups: the bucket table and the flow hash (see ibex_ecmp.h).
 * Called by the control thread (build) and, for frames to a group only,
 * by the workers (hash).
 */
#include <errno.h>
#include <string.h>

#include "ibex_ecmp.h"

const char *
ibex_ecmp_mode_name(unsigned int mode)
{
	static const char *const name[] = {
		[IBEX_ECMP_HASH] = "hash",
		[IBEX_ECMP_PACKET] = "packet",
		[IBEX_ECMP_FLOWLET] = "flowlet",
	};

	return mode < sizeof(name) / sizeof(name[0]) ? name[mode] : "?";
}

int
ibex_ecmp_group_build(struct ibex_ecmp_group *g, const uint16_t *ports,
		      unsigned int n)
{
	unsigned int i;

	memset(g, 0, sizeof(*g));
	if (n == 0 || n > IBEX_ECMP_MAX_MEMBERS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (ports[i] >= IBEX_MAX_PORTS ||
		    ((g->mask >> ports[i]) & 1))
			return -EINVAL;
		g->mask |= UINT64_C(1) << ports[i];
		g->port[i] = ports[i];
	}
	g->n = (uint16_t)n;
	for (i = 0; i < IBEX_ECMP_BUCKETS; i++)
		g->bucket[i] = (uint8_t)(i % n);
	return 0;
}

/* One 32-bit word into the running hash (multiply-rotate, as in the
 * well-known multiplicative hashes): every input bit reaches the top. */
static inline uint32_t
ecmp_mix(uint32_t h, uint32_t v)
{
	h ^= v * UINT32_C(0x9e3779b1);
	h = (h << 13) | (h >> 19);
	return h * 5 + UINT32_C(0xe6546b64);
}

/* Spread the hash's bits over the low ones the bucket index uses. */
static inline uint32_t
ecmp_final(uint32_t h)
{
	h ^= h >> 16;
	h *= UINT32_C(0x7feb352d);
	h ^= h >> 15;
	h *= UINT32_C(0x846ca68b);
	return h ^ (h >> 16);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint32_t
ecmp_mix_bytes(uint32_t h, const uint8_t *p, unsigned int words)
{
	unsigned int i;

	for (i = 0; i < words; i++)
		h = ecmp_mix(h, rd32(p + 4 * i));
	return h;
}

static inline uint32_t
rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* IP addresses, protocol and UDP ports at @p l3 (ether type @p et); the
 * UDP source port comes back in @p sport. */
static uint32_t
ecmp_hash_ip(uint32_t h, const uint8_t *frame, uint32_t len, uint32_t l3,
	     uint32_t et, uint32_t *sport)
{
	const uint8_t *ip = frame + l3;
	uint32_t l4, proto;

	if (et == 0x0800) {
		if (len < l3 + 20)
			return h;
		h = ecmp_mix_bytes(h, ip + 12, 2);       /* source, destination */
		proto = ip[9];
		/* no ports in a non-first fragment */
		l4 = (rd16(ip + 6) & 0x1fff) ? len : l3 + (ip[0] & 0xfu) * 4;
	} else {
		if (len < l3 + 40)
			return h;
		h = ecmp_mix_bytes(h, ip + 8, 8);
		proto = ip[6];
		l4 = l3 + 40;
	}
	h = ecmp_mix(h, proto);
	if (proto == 17 && len >= l4 + 4) {
		*sport = rd16(frame + l4);
		h = ecmp_mix(h, rd16(frame + l4 + 2));
	}
	return h;
}

uint32_t
ibex_ecmp_hash(const uint8_t *frame, uint32_t len, uint32_t seed)
{
	uint32_t h = ecmp_mix(UINT32_C(0x2545f491), seed);
	uint32_t l3 = 14, et, vid = 0, sport = 0;

	if (len < 14)
		return ecmp_final(h);
	et = rd16(frame + 12);
	if ((et == 0x8100 || et == 0x88a8) && len >= 18) {
		vid = rd16(frame + 14) & 0xfff;
		et = rd16(frame + 16);
		l3 = 18;
	}
	if (et == 0x0800 || et == 0x86dd) {
		h = ecmp_hash_ip(h, frame, len, l3, et, &sport);
	} else {
		/* Not IP: the addresses, VLAN and EtherType. */
		h = ecmp_mix_bytes(h, frame, 3);         /* destination, source */
		h = ecmp_mix(h, vid << 16 | et);
	}
	/* The entropy field last and unmixed: consecutive source ports take
	 * consecutive buckets. */
	return ecmp_final(h) + sport;
}
