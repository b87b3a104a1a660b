/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the packet parser (lib/pkt): any bytes as a frame.
 *
 * The frame is copied into a buffer of exactly its length, so ASan sees a
 * read of one byte past it. Beyond "no crash", the harness checks what the
 * parser promises:
 *  - ibex_pkt_check() (the data path's check) gives the verdict of
 *    ibex_pkt_parse(), and on a good frame the same flags and BTH offset;
 *    its short cuts give the answer of the general checks, bit for bit;
 *  - offsets of a good frame lie inside it;
 *  - ibex_pkt_set_ecn() keeps a good IPv4 header's checksum valid and
 *    sets exactly the ECN bits, for each codepoint.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_pkt.h"

#define FUZZ_FRAME_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_ecn(const uint8_t *frame, uint32_t len, const struct ibex_pkt_info *in)
{
	uint8_t *f = malloc(len);
	unsigned int ecn;

	if (f == NULL)
		return;
	for (ecn = 0; ecn < 4; ecn++) {
		memcpy(f, frame, len);
		ibex_pkt_set_ecn(f, in, (uint8_t)ecn);
		if (in->l3 == IBEX_L3_IPV4) {
			const uint8_t *ip = f + in->l3_off;
			uint32_t hlen = (ip[0] & 0xfu) * 4u;
			uint16_t before = ibex_csum_fold(frame + in->l3_off,
							 hlen, 0);

			if ((ip[1] & 3u) != ecn)
				abort();
			/* a header whose sum was right stays right */
			if (before == 0 && ibex_csum_fold(ip, hlen, 0) != 0)
				abort();
		} else if (in->l3 == IBEX_L3_IPV6) {
			const uint8_t *ip = f + in->l3_off;

			if (((ip[1] >> 4) & 3u) != ecn)
				abort();
		} else if (memcmp(f, frame, len) != 0) {
			abort(); /* no IP: nothing may change */
		}
	}
	free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibex_pkt_info info;
	enum ibex_reason r;
	uint32_t len = size > FUZZ_FRAME_MAX ? FUZZ_FRAME_MAX : (uint32_t)size;
	uint32_t c;
	uint8_t *frame = malloc(len != 0 ? len : 1);

	if (frame == NULL)
		return 0;
	memcpy(frame, data, len);
	memset(&info, 0, sizeof(info));
	r = ibex_pkt_parse(frame, len, &info);
	c = ibex_pkt_check(frame, len);
	if (IBEX_PKT_CHECK_REASON(c) != r)
		abort();
	/* the short cuts answer as the general checks do */
	if (ibex_pkt_check_l2(frame, len) != c)
		abort();
	if (r == IBEX_R_OK) {
		if (IBEX_PKT_CHECK_FLAGS(c) != info.flags)
			abort();
		if ((info.flags & IBEX_PKT_F_ROCE) &&
		    IBEX_PKT_CHECK_BTH(c) != info.bth_off)
			abort();
		if (info.l3_off > len ||
		    ((info.flags & IBEX_PKT_F_UDP) && info.l4_off + 8u > len) ||
		    ((info.flags & IBEX_PKT_F_ROCE) &&
		     info.bth_off + IBEX_BTH_LEN > len))
			abort();
		check_ecn(frame, len, &info);
	}
	free(frame);
	return 0;
}
