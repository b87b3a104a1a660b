/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric's per-hop report (lib/fabric/ibex_fabric_report.c), no EAL:
 * the table and the JSON show the same drops (a lane's drops are a part
 * of the port's, never added to them), rx counts data frames with the
 * flow-control frames beside it, and a failed run names the hops that
 * lost frames, most first, with their reasons; LLR's counters only for
 * the link ends that run it.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_fabric_report.h"

/* Two switches: leaf1 (p0 to rank0, p1 to spine1) and spine1 (p0). */
static void
hops_init(struct ibex_fabric_hops *t, struct ibex_fabric_hop *h)
{
	memset(t, 0, sizeof(*t));
	memset(h, 0, 3 * sizeof(*h));
	h[0].sw = "leaf1";
	h[0].port = "p0";
	snprintf(h[0].to, sizeof(h[0].to), "rank0:eth0");
	h[0].to_rank = true;
	h[1].sw = "leaf1";
	h[1].port = "p1";
	snprintf(h[1].to, sizeof(h[1].to), "spine1:p0");
	h[2].sw = "spine1";
	h[2].port = "p0";
	snprintf(h[2].to, sizeof(h[2].to), "leaf1:p1");
	t->fabric = "f";
	t->n_sw = 2;
	t->n_ranks = 1;
	t->n_links = 2;
	t->elapsed_s = 1.5;
	t->n = 3;
	t->hop = h;
}

static char *
print_to_string(void (*fn)(FILE *, const struct ibex_fabric_hops *),
		const struct ibex_fabric_hops *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, t);
	fclose(f);
	return buf;
}

/* The value of column @p col of the table row of switch @p sw, port
 * @p port, from the heading line's names. */
static long long
table_cell(const char *text, const char *sw, const char *port,
	   const char *col)
{
	char *copy = strdup(text), *line, *save = NULL;
	int want = -1;
	long long v = -1;

	assert_non_null(copy);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *w, *s2 = NULL, *l2 = strdup(line);
		int k = 0;
		const char *first = NULL, *second = NULL;
		long long cell = -1;

		assert_non_null(l2);
		for (w = strtok_r(l2, " ", &s2); w != NULL;
		     w = strtok_r(NULL, " ", &s2), k++) {
			if (k == 0)
				first = w;
			if (k == 1)
				second = w;
			if (strcmp(first, "switch") == 0 && strcmp(w, col) == 0)
				want = k;
			if (k == want && strcmp(first, "switch") != 0)
				cell = strtoll(w, NULL, 10);
		}
		if (first != NULL && second != NULL && strcmp(first, sw) == 0 &&
		    strcmp(second, port) == 0)
			v = cell;
		free(l2);
	}
	free(copy);
	return v;
}

/* The number after "KEY": in the JSON object of port @p port of @p sw. */
static long long
json_cell(const char *json, const char *sw, const char *port, const char *key)
{
	char pat[64], kpat[64];
	const char *s, *p, *k;

	snprintf(pat, sizeof(pat), "{\"name\": \"%s\"", sw);
	s = strstr(json, pat);
	assert_non_null(s);
	snprintf(pat, sizeof(pat), "{\"port\": \"%s\"", port);
	p = strstr(s, pat);
	assert_non_null(p);
	snprintf(kpat, sizeof(kpat), "\"%s\": ", key);
	k = strstr(p, kpat);
	assert_non_null(k);
	return strtoll(k + strlen(kpat), NULL, 10);
}

/* A lossy lane that tail-drops: 100 frames, counted by the data path as
 * 100 lossy-full on the port and 100 lane drops. The table once showed
 * 200 (both added), the JSON 100. */
static void
test_text_json_drops_agree(void **state)
{
	struct ibex_fabric_hop h[3];
	struct ibex_fabric_hops t;
	char *txt, *json;

	(void)state;
	hops_init(&t, h);
	h[1].drop[IBEX_R_LOSSY_FULL] = 100;
	h[1].lane_drops = 100;
	h[2].drop[IBEX_R_FLOOD_OFF] = 2;
	h[2].drop[IBEX_R_FC_VIOLATION] = 7;
	h[2].lane_drops = 7;
	txt = print_to_string(ibex_fabric_hops_print, &t);
	json = print_to_string(ibex_fabric_hops_json, &t);
	assert_int_equal(ibex_fabric_hop_dropped(&h[1]), 100);
	assert_int_equal(table_cell(txt, "leaf1", "p1", "dropped"), 100);
	assert_int_equal(json_cell(json, "leaf1", "p1", "dropped"), 100);
	assert_int_equal(json_cell(json, "leaf1", "p1", "lane_drops"), 100);
	assert_int_equal(table_cell(txt, "spine1", "p0", "dropped"), 9);
	assert_int_equal(json_cell(json, "spine1", "p0", "dropped"), 9);
	assert_int_equal(table_cell(txt, "leaf1", "p0", "dropped"), 0);
	assert_int_equal(json_cell(json, "leaf1", "p0", "dropped"), 0);
	assert_non_null(strstr(json, "\"drops\": {\"lossy-full\": 100}"));
	assert_non_null(strstr(json, "\"drops\": {\"fc-violation\": 7, "
			       "\"flood-off\": 2}"));
	/* both switches, each with its own ports */
	assert_non_null(strstr(json, "\"switches\": [{\"name\": \"leaf1\", "
			       "\"ports\": [{\"port\": \"p0\""));
	assert_non_null(strstr(json, "]}, {\"name\": \"spine1\", \"ports\": "
			       "[{\"port\": \"p0\""));
	assert_non_null(strstr(json, "}]}]"));
	free(txt);
	free(json);
}

/* rx: data frames; flow-control frames (taken, ignored, malformed) apart. */
static void
test_rx_data_and_fc(void **state)
{
	struct ibex_fabric_hop h[3];
	struct ibex_fabric_hops t;
	char *txt, *json;

	(void)state;
	hops_init(&t, h);
	/* 1000 received: 30 credit frames taken, 5 PFC frames ignored
	 * (the port runs no PFC), 1 malformed */
	h[0].drop[IBEX_R_FC_IGNORED] = 5;
	h[0].drop[IBEX_R_FC_FRAME_BAD] = 1;
	ibex_fabric_hop_rx(&h[0], 1000, 30, 0);
	assert_int_equal(h[0].rx, 964);
	assert_int_equal(h[0].fc_rx, 36);
	h[0].tx = 900;
	h[0].credit_tx = 12;
	h[0].fc_tx = 12;
	/* only flow control arrived: no data */
	ibex_fabric_hop_rx(&h[1], 44, 44, 0);
	assert_int_equal(h[1].rx, 0);
	assert_int_equal(h[1].fc_rx, 44);
	/* aggregation frames the switch summed are data, not flow control */
	ibex_fabric_hop_rx(&h[2], 100, 60, 50);
	assert_int_equal(h[2].rx, 90);
	assert_int_equal(h[2].fc_rx, 10);
	txt = print_to_string(ibex_fabric_hops_print, &t);
	json = print_to_string(ibex_fabric_hops_json, &t);
	assert_int_equal(table_cell(txt, "leaf1", "p0", "rx"), 964);
	assert_int_equal(table_cell(txt, "leaf1", "p0", "fc-rx"), 36);
	assert_int_equal(table_cell(txt, "leaf1", "p0", "tx"), 900);
	assert_int_equal(table_cell(txt, "leaf1", "p1", "rx"), 0);
	assert_int_equal(table_cell(txt, "leaf1", "p1", "fc-rx"), 44);
	assert_int_equal(json_cell(json, "leaf1", "p0", "rx_frames"), 964);
	assert_int_equal(json_cell(json, "leaf1", "p0", "fc_rx_frames"), 36);
	assert_int_equal(json_cell(json, "leaf1", "p0", "fc_tx_frames"), 12);
	assert_int_equal(json_cell(json, "leaf1", "p1", "rx_frames"), 0);
	free(txt);
	free(json);
}

/* LLR: a link end that runs it has its counters in the JSON and in the
 * summed line; one that does not has neither (no zeros that would read
 * as "LLR on, nothing to repair"). */
static void
test_llr(void **state)
{
	struct ibex_fabric_hop h[3];
	struct ibex_fabric_hops t;
	char *txt, *json;

	(void)state;
	hops_init(&t, h);
	txt = print_to_string(ibex_fabric_hops_print, &t);
	json = print_to_string(ibex_fabric_hops_json, &t);
	assert_null(strstr(txt, "llr:"));
	assert_null(strstr(json, "llr_"));
	free(txt);
	free(json);
	h[1].llr = (struct ibex_fabric_llr){ .on = true, .tx_replay = 26,
		.rx_nack = 9, .tx_nack = 4, .rx_bad = 4 };
	h[2].llr = (struct ibex_fabric_llr){ .on = true, .tx_replay = 10,
		.rx_nack = 4, .tx_nack = 9, .rx_bad = 9, .tx_discard = 2 };
	txt = print_to_string(ibex_fabric_hops_print, &t);
	json = print_to_string(ibex_fabric_hops_json, &t);
	assert_non_null(strstr(txt, "llr: 2 switch link ends: 13 frames "
			       "arrived bad, 13 NACKs, 36 frames replayed, 2 "
			       "given up\n"));
	assert_int_equal(json_cell(json, "leaf1", "p1", "llr_tx_replay"), 26);
	assert_int_equal(json_cell(json, "leaf1", "p1", "llr_rx_nack_ctl_os"),
			 9);
	assert_int_equal(json_cell(json, "spine1", "p0", "llr_tx_nack_ctl_os"),
			 9);
	assert_int_equal(json_cell(json, "spine1", "p0", "llr_rx_bad"), 9);
	assert_int_equal(json_cell(json, "spine1", "p0", "llr_tx_discard"), 2);
	/* leaf1 p0 (towards the rank) runs none: its object has no key */
	assert_true(strstr(json, "llr_") > strstr(json, "{\"port\": \"p1\""));
	assert_null(strstr(txt, "rank link ends"));
	free(txt);
	free(json);
	/* the rank's end of leaf1 p0's link: a line of its own, and
	 * peer_llr_* keys in that port's row */
	h[0].peer_llr = (struct ibex_fabric_llr){ .on = true, .tx_replay = 7,
		.rx_nack = 3, .tx_nack = 5, .rx_bad = 5 };
	txt = print_to_string(ibex_fabric_hops_print, &t);
	json = print_to_string(ibex_fabric_hops_json, &t);
	assert_non_null(strstr(txt, "llr: 2 switch link ends: 13 frames "
			       "arrived bad, 13 NACKs, 36 frames replayed, 2 "
			       "given up\nllr: 1 rank link end: 5 frames "
			       "arrived bad, 3 NACKs, 7 frames replayed, 0 "
			       "given up\n"));
	assert_int_equal(json_cell(json, "leaf1", "p0", "peer_llr_tx_replay"),
			 7);
	assert_int_equal(json_cell(json, "leaf1", "p0",
				   "peer_llr_tx_nack_ctl_os"), 5);
	assert_int_equal(json_cell(json, "leaf1", "p0", "peer_llr_rx_bad"), 5);
	assert_int_equal(json_cell(json, "leaf1", "p0", "peer_llr_tx_discard"),
			 0);
	assert_null(strstr(json, "\"llr_tx_replay\": 7"));
	free(txt);
	free(json);
}

/* The losses, most first, capped; a rank's full RX ring counts, a
 * switch's far end is its own row. */
static void
test_losses(void **state)
{
	struct ibex_fabric_hop h[3];
	struct ibex_fabric_hops t;
	struct ibex_fabric_loss l[3];
	unsigned int n;

	(void)state;
	hops_init(&t, h);
	assert_int_equal(ibex_fabric_losses(&t, l, 3), 0);
	h[0].drop[IBEX_R_SL_DROP] = 1104;
	h[0].peer_rx_missed = 3;      /* rank0's ring */
	h[1].peer_rx_missed = 500;    /* spine1 p0's ring: h[2]'s own */
	h[2].rx_missed = 500;
	h[2].drop[IBEX_R_NO_EGRESS] = 1;
	n = ibex_fabric_losses(&t, l, 3);
	assert_int_equal(n, 3);
	assert_ptr_equal(l[0].hop, &h[0]);
	assert_int_equal(l[0].what, IBEX_R_SL_DROP);
	assert_int_equal(l[0].frames, 1104);
	assert_ptr_equal(l[1].hop, &h[2]);
	assert_int_equal(l[1].what, IBEX_FABRIC_LOSS_RX_MISSED);
	assert_int_equal(l[1].frames, 500);
	assert_ptr_equal(l[2].hop, &h[0]);
	assert_int_equal(l[2].what, IBEX_FABRIC_LOSS_PEER_MISSED);
	assert_string_equal(ibex_fabric_loss_name(l[0].what), "sl-drop");
	assert_string_equal(ibex_fabric_loss_name(l[1].what), "rx-missed");
	assert_string_equal(ibex_fabric_loss_name(l[2].what), "rank-rx-missed");
	/* one fewer slot: the smallest (the 1 no-egress) was already out,
	 * now the 3 go too */
	assert_int_equal(ibex_fabric_losses(&t, l, 2), 2);
	assert_int_equal(l[1].frames, 500);
}

/* A failed run says why, and where: hop, far end, count, reason. */
static void
test_diagnose(void **state)
{
	struct ibex_fabric_hop h[3];
	struct ibex_fabric_hops t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	hops_init(&t, h);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ibex_fabric_diagnose_print(f, &t, "3 iterations failed");
	fclose(f);
	assert_non_null(strstr(buf, "the run failed: 3 iterations failed"));
	assert_non_null(strstr(buf, "no switch port dropped a frame"));
	free(buf);

	h[0].drop[IBEX_R_SL_DROP] = 1104;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ibex_fabric_diagnose_print(f, &t, "3 iterations failed");
	fclose(f);
	assert_non_null(strstr(buf, "  leaf1 p0 (link to rank0:eth0): 1104 "
			       "sl-drop: SL maps to VL15"));
	free(buf);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ibex_fabric_diagnose_json(f, &t, "say \"why\"");
	fclose(f);
	assert_string_equal(buf, "{\"reason\": \"say \\\"why\\\"\", \"losses\": "
			    "[{\"switch\": \"leaf1\", \"port\": \"p0\", \"to\": "
			    "\"rank0:eth0\", \"reason\": \"sl-drop\", "
			    "\"frames\": 1104}]}");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_json_drops_agree),
		cmocka_unit_test(test_rx_data_and_fc),
		cmocka_unit_test(test_llr),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_diagnose),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
