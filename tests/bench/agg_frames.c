/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes one pcap a child of an aggregation job: each child's
 * contributions, built by lib/agg's codec, in Ethernet/IPv4/UDP to port
 * 0xBEF0 (as the generator's inc engine sends them), for agg_cost.sh.
 * Child c's file PREFIXc.pcap holds USES uses of slots 0..SLOTS-1, use by
 * use (slot 0..SLOTS-1 of use 0, then of use 1, ...): slot s's use u has
 * sequence u (set u & 1) and chunk offset (u * SLOTS + s) * ELEMENTS, so a
 * switch that reads the children's files side by side sums every
 * contribution once (the reuse rule holds while no file runs more than
 * 2 * SLOTS frames ahead of another). Child c sends from 02:00:00:0c:00:c
 * (10.0.c.1) to 02:00:00:0e:ff:c (10.14.255.255): a switch that does not
 * run the job forwards the files by those destinations.
 *
 *   agg_frames PREFIX CHILDREN int32|fp32 ELEMENTS SLOTS USES [JOB]
 *
 * JOB is 1 by default. Prints the frames a file and their length.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_agg_proto.h"

#define L2L3 42

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet, IPv4 (checksummed) and UDP (checksum 0) of child @p c before
 * @p len bytes of payload at f + L2L3. */
static void
headers(uint8_t *f, unsigned int c, uint32_t len)
{
	uint8_t *ip = f + 14, *udp = f + 34;
	uint32_t sum = 0, i;

	memcpy(f, (const uint8_t[]){ 0x02, 0, 0, 0x0e, 0xff, (uint8_t)c,
				     0x02, 0, 0, 0x0c, 0, (uint8_t)c,
				     0x08, 0x00 }, 14);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + 8 + len));
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10, ip[14] = (uint8_t)c, ip[15] = 1;
	ip[16] = 10, ip[17] = 14, ip[18] = 255, ip[19] = 255;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, (uint16_t)~sum);
	put16(udp, (uint16_t)(0xc000 | c));
	put16(udp + 2, IBEX_AGG_UDP_PORT);
	put16(udp + 4, (uint16_t)(8 + len));
	put16(udp + 6, 0);
}

static unsigned long
number(const char *what, const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "agg_frames: %s: %lu..%lu\n", what, min, max);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	/* pcap: magic, v2.4, zone, sigfigs, snaplen, Ethernet */
	const uint32_t gh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	static uint8_t f[L2L3 + IBEX_AGG_HDR_LEN + 4 * IBEX_AGG_MAX_ELEMS];
	static uint32_t elems[IBEX_AGG_MAX_ELEMS];
	struct ibex_agg_hdr h = { .type = IBEX_AGG_CONTRIB };
	unsigned long children, n, slots, uses, u, s, c, i;
	char path[4096];
	uint32_t job = 1, rec[4];
	FILE *o;
	int len;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: agg_frames PREFIX CHILDREN int32|fp32 "
			"ELEMENTS SLOTS USES [JOB]\n");
		return 2;
	}
	children = number("CHILDREN", argv[2], 1, 64);
	if (strcmp(argv[3], "int32") == 0)
		h.dtype = IBEX_AGG_INT32;
	else if (strcmp(argv[3], "fp32") == 0)
		h.dtype = IBEX_AGG_FP32;
	else {
		fprintf(stderr, "agg_frames: int32 or fp32, not %s\n", argv[3]);
		return 2;
	}
	n = number("ELEMENTS", argv[4], 1, IBEX_AGG_MAX_ELEMS);
	slots = number("SLOTS", argv[5], 1, IBEX_AGG_MAX_SLOTS);
	uses = number("USES", argv[6], 1, 1ul << 31);
	if (argc == 8)
		job = (uint32_t)number("JOB", argv[7], 0, 0xffffffffu);
	h.count = (uint16_t)n;
	h.job = job;
	for (c = 0; c < children; c++) {
		/* child-seeded values, the same every use: normal floats or
		 * small integers, never a denormal */
		for (i = 0; i < n; i++) {
			if (h.dtype == IBEX_AGG_FP32) {
				float v = (float)(c + 1) * 0.5f +
					  (float)(i % 97) * 0.125f;

				memcpy(&elems[i], &v, 4);
			} else {
				elems[i] = (uint32_t)((c + 1) * 1000 + i);
			}
		}
		snprintf(path, sizeof(path), "%s%lu.pcap", argv[1], c);
		o = fopen(path, "wb");
		if (o == NULL || fwrite(gh, sizeof(gh), 1, o) != 1) {
			perror(path);
			return 1;
		}
		h.child = (uint16_t)c;
		for (u = 0; u < uses; u++) {
			for (s = 0; s < slots; s++) {
				h.seq = (uint32_t)u;
				h.slot = (uint16_t)s;
				h.offset = (uint32_t)((u * slots + s) * n);
				len = ibex_agg_build(f + L2L3, sizeof(f) - L2L3,
						     &h, elems);
				if (len < 0) {
					fprintf(stderr, "agg_frames: %s\n",
						ibex_agg_err_name(
							(enum ibex_agg_err)-len));
					return 1;
				}
				headers(f, (unsigned int)c, (uint32_t)len);
				rec[0] = rec[1] = 0;
				rec[2] = rec[3] = L2L3 + (uint32_t)len;
				if (fwrite(rec, sizeof(rec), 1, o) != 1 ||
				    fwrite(f, rec[2], 1, o) != 1) {
					perror(path);
					return 1;
				}
			}
		}
		if (fclose(o) != 0) {
			perror(path);
			return 1;
		}
	}
	printf("%lu frames of %lu bytes a child\n", uses * slots,
	       (unsigned long)(L2L3 + ibex_agg_pkt_len((uint32_t)n)));
	return 0;
}
