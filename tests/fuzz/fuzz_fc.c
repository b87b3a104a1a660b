/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the flow-control frame decoders (lib/pkt
 * ibex_fcframe.c) and of what a received PFC frame drives (lib/credit
 * ibex_pfc.c): any bytes as a PFC frame, as an ibex credit frame and as
 * a UEC CBFC message frame.
 *
 * Checked beyond "no crash": a frame that parses is rebuilt from what was
 * parsed, and the rebuilt frame parses to the same contents (the decoders
 * and encoders agree); a parsed PFC frame is applied to a receiver whose
 * pause times and watchdog then run at times taken from the input.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_fcframe.h"
#include "ibex_pfc.h"

#define FUZZ_FRAME_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fuzz_src[6] = { 0x02, 0, 0, 0, 0, 0x01 };

static void
check_pfc(const uint8_t *frame, uint32_t len)
{
	struct ibex_fcf_pfc m, m2;
	struct ibex_pfc_event ev[IBEX_PFC_PRIOS];
	struct ibex_pfc_rx_params par;
	struct ibex_pfc_rx_stats st;
	struct ibex_pfc_rx rx;
	uint8_t buf[64];
	uint64_t now = 0;
	unsigned int i;

	if (ibex_fcf_pfc_parse(frame, len, &m) != IBEX_FCF_OK)
		return;
	if (ibex_fcf_pfc_build(buf, sizeof(buf), fuzz_src, &m) != 60 ||
	    ibex_fcf_pfc_parse(buf, 60, &m2) != IBEX_FCF_OK ||
	    m2.cev != m.cev)
		abort();
	for (i = 0; i < IBEX_PFC_PRIOS; i++)
		if ((m.cev >> i & 1) && m2.quanta[i] != m.quanta[i])
			abort();
	if (ibex_pfc_rx_params_set(&par, 25000, IBEX_PFC_WD_DROP, 200000000,
				   200000000) != 0)
		abort();
	ibex_pfc_rx_init(&rx);
	memset(&st, 0, sizeof(st));
	/* the frame, then the watchdog at times from the frame's bytes */
	for (i = 0; i < len && i < 64; i++) {
		now += (uint64_t)frame[i] << (i % 32);
		if (i % 8 == 0)
			ibex_pfc_rx_frame(&par, &rx, &st, &m, now);
		if (ibex_pfc_rx_watchdog(&par, &rx, &st, now, ev) >
		    IBEX_PFC_PRIOS)
			abort();
	}
}

static void
check_credit(const uint8_t *frame, uint32_t len)
{
	struct ibex_fcf_credit m, m2;
	uint8_t buf[128];
	unsigned int i;
	int n;

	if (ibex_fcf_credit_parse(frame, len, &m) != IBEX_FCF_OK)
		return;
	if (m.n_vls == 0 || m.n_vls > IBEX_FCF_MAX_VLS)
		abort();
	n = ibex_fcf_credit_build(buf, sizeof(buf), fuzz_src, &m);
	if (n < 60 || ibex_fcf_credit_parse(buf, (uint32_t)n, &m2) !=
	    IBEX_FCF_OK || m2.op != m.op || m2.n_vls != m.n_vls ||
	    m2.seq != m.seq)
		abort();
	for (i = 0; i < m.n_vls; i++)
		if (m2.vl[i].vl != m.vl[i].vl ||
		    m2.vl[i].fctbs != m.vl[i].fctbs ||
		    m2.vl[i].fccl != m.vl[i].fccl)
			abort();
}

static void
check_cbfc(const uint8_t *frame, uint32_t len)
{
	struct ibex_fcf_cbfc m, m2;
	uint8_t buf[64];
	uint32_t left, v;

	memset(&m, 0, sizeof(m));
	if (ibex_fcf_cbfc_parse(frame, len, &m) != IBEX_FCF_OK)
		return;
	left = m.vcs;
	if (m.vcs == 0 || __builtin_popcount(m.vcs) > IBEX_FCF_CBFC_MAX_VCS ||
	    ibex_fcf_cbfc_build(buf, sizeof(buf), fuzz_src, &m, &left) != 60 ||
	    left != 0)
		abort();
	memset(&m2, 0, sizeof(m2));
	if (ibex_fcf_cbfc_parse(buf, 60, &m2) != IBEX_FCF_OK ||
	    m2.type != m.type || m2.vcs != m.vcs)
		abort();
	for (v = 0; v < IBEX_FCF_CBFC_PORT_VCS; v++)
		if (m2.count[v] != m.count[v] || m.count[v] > 0xfffff)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = size > FUZZ_FRAME_MAX ? FUZZ_FRAME_MAX : (uint32_t)size;
	uint8_t *frame = malloc(len != 0 ? len : 1);

	if (frame == NULL)
		return 0;
	memcpy(frame, data, len);
	check_pfc(frame, len);
	check_credit(frame, len);
	check_cbfc(frame, len);
	/* every result has a name */
	if (ibex_fcf_err_name(ibex_fcf_pfc_parse(frame, len, &(struct
	    ibex_fcf_pfc){ 0 })) == NULL)
		abort();
	free(frame);
	return 0;
}
