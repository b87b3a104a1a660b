/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the aggregation packet codec and the slot state
 * machine (lib/agg): the input is a run of packets, each a length byte
 * and that many bytes (the last takes what is left), fed to a root
 * switch and to a switch below it, whose jobs start afresh for every
 * input.
 *
 * Checked beyond "no crash": a packet that parses is rebuilt from what
 * was parsed into the same bytes (the codec has one encoding); every
 * packet a switch answers with parses; a switch's counters add up (each
 * packet is counted once: summed, a duplicate, or refused under one
 * reason) and no more (slot, set)s are in use than exist.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_agg.h"

#define FUZZ_PKT_MAX (IBEX_AGG_HDR_LEN + 4 * 64)
#define FUZZ_SLOTS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ibex_agg_pool *sw[2];

static void
pools_init(void)
{
	struct ibex_agg_pool_conf pc = { 1 << 20, 2, 0, 1 };
	char err[128];
	int i;

	for (i = 0; i < 2; i++) {
		sw[i] = ibex_agg_pool_create(&pc, err, sizeof(err));
		if (sw[i] == NULL)
			abort();
	}
}

static void
jobs_reset(void)
{
	struct ibex_agg_job_conf c = { 7, FUZZ_SLOTS, 3, 64, 1, true };
	char err[128];
	int i;

	for (i = 0; i < 2; i++) {
		ibex_agg_job_del(sw[i], 7);
		c.root = i == 0;
		if (ibex_agg_job_add(sw[i], &c, err, sizeof(err)) != 0)
			abort();
	}
}

static void
check_codec(const uint8_t *pkt, uint32_t len)
{
	static uint8_t again[IBEX_AGG_HDR_LEN + 4 * IBEX_AGG_MAX_ELEMS];
	struct ibex_agg_hdr h;
	const void *el;

	if (ibex_agg_parse(pkt, len, &h, &el) != IBEX_AGG_OK)
		return;
	if (ibex_agg_build(again, sizeof(again), &h, el) != (int)len ||
	    memcmp(again, pkt, len) != 0)
		abort();
}

/* Every packet is counted once, under one heading. */
static uint64_t
counted(const struct ibex_agg_stats *st)
{
	uint64_t n = st->contributions + st->duplicates + st->results_rx +
		     st->results_dup + st->no_job + st->not_mine +
		     st->bad_slot + st->bad_child + st->too_long +
		     st->mismatch + st->stale + st->early +
		     st->result_unexpected;
	int e;

	for (e = 0; e < IBEX_AGG_E_MAX; e++)
		n += st->malformed[e];
	return n;
}

static void
check_switch(struct ibex_agg_pool *p, const uint8_t *pkt, uint32_t len,
	     uint64_t now)
{
	static uint8_t out_pkt[IBEX_AGG_HDR_LEN + 4 * IBEX_AGG_MAX_ELEMS];
	uint64_t before = counted(ibex_agg_stats(p));
	struct ibex_agg_out out;
	struct ibex_agg_hdr h;
	const void *el;
	int n;

	if (ibex_agg_rx(p, pkt, len, now, &out) != IBEX_AGG_NONE) {
		n = ibex_agg_build(out_pkt, sizeof(out_pkt), &out.hdr,
				   out.elems);
		if (n <= 0 || ibex_agg_parse(out_pkt, (uint32_t)n, &h, &el) !=
		    IBEX_AGG_OK)
			abort();
	}
	if (counted(ibex_agg_stats(p)) != before + 1 ||
	    ibex_agg_stats(p)->slots_in_use > 2 * FUZZ_SLOTS)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t now = 0;
	size_t off = 0;

	if (sw[0] == NULL)
		pools_init();
	jobs_reset();
	while (off < size) {
		uint32_t len = data[off++];
		uint8_t *pkt;

		if (len > size - off || data[off - 1] == 0xff)
			len = (uint32_t)(size - off);
		if (len > FUZZ_PKT_MAX)
			len = FUZZ_PKT_MAX;
		/* its own buffer of its exact size: ASan sees any overread */
		pkt = malloc(len != 0 ? len : 1);
		if (pkt == NULL)
			return 0;
		memcpy(pkt, data + off, len);
		check_codec(pkt, len);
		check_switch(sw[0], pkt, len, now);
		check_switch(sw[1], pkt, len, now);
		free(pkt);
		off += len;
		now += 1000;
	}
	return 0;
}
