/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a pcap of aggregation packets built by the codec (lib/agg), in
 * Ethernet/IPv4/UDP to port 0xBEF0, for the dissector's test:
 *   1. a contribution: int32 x4 (1, -2, 3, -4), job 0xA1B2C3D4, slot 5,
 *      seq 7 (set 1), child 3, offset 4096, a retransmission
 *   2. a result: fp32 x3 (1.5, -0.25, 1e8), job 7, slot 0, seq 2, child all
 *   3. packet 1 with version 2: malformed
 *
 *   agg_pcap OUT.pcap
 */

#include <stdio.h>
#include <string.h>

#include "ibex_agg_proto.h"

#define L2L3 42

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet, IPv4 (checksummed) and UDP (checksum 0) before @p len bytes
 * of payload at f + L2L3. */
static void
headers(uint8_t *f, uint32_t len)
{
	static const uint8_t eth[14] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0,
					 0, 1, 0x08, 0x00 };
	uint8_t *ip = f + 14, *udp = f + 34;
	uint32_t sum = 0, i;

	memcpy(f, eth, sizeof(eth));
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + 8 + len));
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10, ip[15] = 1;
	ip[16] = 10, ip[19] = 2;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, (uint16_t)~sum);
	put16(udp, 0xBEF0);
	put16(udp + 2, IBEX_AGG_UDP_PORT);
	put16(udp + 4, (uint16_t)(8 + len));
	put16(udp + 6, 0);
}

static int
record(FILE *o, const uint8_t *f, uint32_t len)
{
	uint32_t rec[4] = { 0, 0, len, len };

	return fwrite(rec, sizeof(rec), 1, o) == 1 &&
	       fwrite(f, len, 1, o) == 1 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	/* pcap: magic, v2.4, zone, sigfigs, snaplen, Ethernet */
	uint32_t gh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	int32_t iv[4] = { 1, -2, 3, -4 };
	float fv[3] = { 1.5f, -0.25f, 1e8f };
	struct ibex_agg_hdr h1 = { IBEX_AGG_CONTRIB, IBEX_AGG_INT32, 4,
				   0xA1B2C3D4, 4096, 5, 3, 7, IBEX_AGG_F_RETX };
	struct ibex_agg_hdr h2 = { IBEX_AGG_RESULT, IBEX_AGG_FP32, 3, 7, 0, 0,
				   IBEX_AGG_CHILD_ALL, 2, 0 };
	uint8_t f[L2L3 + 64];
	FILE *o;
	int n, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: agg_pcap OUT.pcap\n");
		return 2;
	}
	o = fopen(argv[1], "wb");
	if (o == NULL || fwrite(gh, sizeof(gh), 1, o) != 1) {
		perror(argv[1]);
		return 1;
	}
	n = ibex_agg_build(f + L2L3, sizeof(f) - L2L3, &h1, iv);
	headers(f, (uint32_t)n);
	rc |= record(o, f, L2L3 + (uint32_t)n);
	n = ibex_agg_build(f + L2L3, sizeof(f) - L2L3, &h2, fv);
	headers(f, (uint32_t)n);
	rc |= record(o, f, L2L3 + (uint32_t)n);
	/* the malformed one: packet 1 again, its version byte changed */
	n = ibex_agg_build(f + L2L3, sizeof(f) - L2L3, &h1, iv);
	headers(f, (uint32_t)n);
	f[L2L3] = 0x21;
	rc |= record(o, f, L2L3 + (uint32_t)n);
	if (fclose(o) != 0 || rc != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
