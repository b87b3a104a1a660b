/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rank addresses and frame templates. The headers of a flow are built once
 * with ibex_pkt_build (so the generator and the switch's parser share one
 * definition of a RoCEv2 frame); per frame only lengths, checksum, opcode,
 * PSN and the trailer change.
 */

#include <errno.h>
#include <string.h>

#include "ibex_gen_frame.h"

void
ibex_gen_rank_addr(unsigned int idx, struct ibex_gen_rank *r)
{
	static const uint8_t base[6] = { 0x02, 0x00, 0x00, 0x0e, 0, 0 };

	memcpy(r->mac, base, sizeof(base));
	r->mac[4] = (uint8_t)(idx >> 8);
	r->mac[5] = (uint8_t)idx;
	r->ip4 = UINT32_C(0x0a0e0000) + idx + 1; /* 10.14.0.(idx+1) */
	r->qp = 0x1000 + idx;
	r->port = 0;
}

int
ibex_gen_tmpl_build(struct ibex_gen_tmpl *t, const struct ibex_gen_rank *src,
		    const struct ibex_gen_rank *dst,
		    const struct ibex_gen_frame_opts *o)
{
	struct ibex_pkt_spec s = {
		.vlan = o->vlan, .pcp = o->pcp, .l3 = IBEX_L3_IPV4,
		.dscp = o->dscp, .ecn = o->ecn, .src_ip4 = src->ip4,
		.dst_ip4 = dst->ip4, .roce = true,
		/* The source port spreads flows over ECMP paths, as RoCE
		 * NICs do with a hash of the QP. */
		.sport = (uint16_t)(49152 + (src->qp & 0x3fff)),
		.bth_opcode = IBEX_GEN_OP_ONLY, .dest_qp = dst->qp,
	};
	uint8_t buf[128];
	int len;

	memcpy(s.dst, dst->mac, 6);
	memcpy(s.src, src->mac, 6);
	s.frame_len = ibex_pkt_spec_hdr_len(&s) + IBEX_ICRC_LEN;
	len = ibex_pkt_build(buf, sizeof(buf), &s);
	if (len < 0)
		return len;
	memset(t, 0, sizeof(*t));
	t->hdr_len = (uint16_t)ibex_pkt_spec_hdr_len(&s);
	if (t->hdr_len > sizeof(t->hdr))
		return -EINVAL;
	t->ip_off = (uint16_t)(IBEX_ETHER_HDR_LEN +
			       (o->vlan >= 0 ? IBEX_VLAN_HDR_LEN : 0));
	t->udp_off = (uint16_t)(t->ip_off + 20);
	t->bth_off = (uint16_t)(t->udp_off + 8);
	if (t->bth_off + IBEX_BTH_LEN != t->hdr_len)
		return -EINVAL;
	memcpy(t->hdr, buf, t->hdr_len);
	return 0;
}
