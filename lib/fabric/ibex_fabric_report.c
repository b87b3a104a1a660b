/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-fabric's per-hop report: the table, its JSON and the diagnosis of
 * a failed run, all from struct ibex_fabric_hop (ibex_fabric_report.h).
 *
 * One source per figure. A frame a lane drops is counted twice in the
 * data path, once in the lane's counters and once by its reason on the
 * port (lane_drop() in lib/dp): the port's drops by reason are all of
 * them, and the lane figure is a part, never added. A port's RX count
 * has the flow-control frames in it (rx = forwarded + dropped + consumed):
 * rx here is data only, the flow control beside it.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_json.h"
#include "ibex_fabric_report.h"

void
ibex_fabric_hop_rx(struct ibex_fabric_hop *h, uint64_t rx_all,
		   uint64_t consumed, uint64_t agg_taken)
{
	/* aggregation frames are data the switch took, not flow control */
	uint64_t fc = consumed - agg_taken + h->drop[IBEX_R_FC_IGNORED] +
		      h->drop[IBEX_R_FC_FRAME_BAD];

	h->fc_rx = fc < rx_all ? fc : rx_all;
	h->rx = rx_all - h->fc_rx;
}

uint64_t
ibex_fabric_hop_dropped(const struct ibex_fabric_hop *h)
{
	uint64_t sum = 0;
	unsigned int r;

	for (r = 1; r < IBEX_R_MAX; r++)
		sum += h->drop[r];
	return sum;
}

/* LLR at the switch ports' link ends (@p peer false), or at the ranks'
 * ends of their links (true), summed: what the links repaired and what
 * they gave up on. Nothing when no such end runs it. */
static void
print_llr(FILE *o, const struct ibex_fabric_hops *t, bool peer)
{
	struct ibex_fabric_llr sum = { 0 };
	unsigned int i, ends = 0;

	for (i = 0; i < t->n; i++) {
		const struct ibex_fabric_llr *l = peer ? &t->hop[i].peer_llr :
						  &t->hop[i].llr;

		if (!l->on)
			continue;
		ends++;
		sum.tx_replay += l->tx_replay;
		sum.rx_nack += l->rx_nack;
		sum.rx_bad += l->rx_bad;
		sum.tx_discard += l->tx_discard;
	}
	if (ends == 0)
		return;
	fprintf(o, "llr: %u %s link end%s: %" PRIu64 " frames arrived bad, "
		"%" PRIu64 " NACKs, %" PRIu64 " frames replayed, %" PRIu64
		" given up\n", ends, peer ? "rank" : "switch",
		ends == 1 ? "" : "s", sum.rx_bad, sum.rx_nack, sum.tx_replay,
		sum.tx_discard);
}

/* One end's LLR counters as JSON keys, @p prefix before each name. */
static void
json_llr(FILE *o, const char *prefix, const struct ibex_fabric_llr *l)
{
	if (!l->on)
		return;
	fprintf(o, ", \"%sllr_tx_replay\": %" PRIu64
		", \"%sllr_rx_nack_ctl_os\": %" PRIu64
		", \"%sllr_tx_nack_ctl_os\": %" PRIu64
		", \"%sllr_rx_bad\": %" PRIu64 ", \"%sllr_tx_discard\": %"
		PRIu64, prefix, l->tx_replay, prefix, l->rx_nack, prefix,
		l->tx_nack, prefix, l->rx_bad, prefix, l->tx_discard);
}

void
ibex_fabric_hops_print(FILE *o, const struct ibex_fabric_hops *t)
{
	uint64_t missed_sw = 0, missed_rank = 0;
	unsigned int i;

	fprintf(o, "\nfabric %s: %u switches, %u ranks, %u links, %.2f s\n"
		"per hop (each switch port's egress; rx, tx: data frames, "
		"fc-rx: flow-control frames received; residence = RX to TX in "
		"the switch, ns):\n", t->fabric, t->n_sw, t->n_ranks,
		t->n_links, t->elapsed_s);
	fprintf(o, "%-8s %-5s %-14s %12s %9s %12s %7s %9s %9s %10s %8s %8s "
		"%8s %10s %9s\n", "switch", "port", "to", "rx", "fc-rx", "tx",
		"queued%", "res-p50", "res-p99", "res-max", "dropped",
		"pause-tx", "pause-rx", "paused-us", "credit-tx");
	for (i = 0; i < t->n; i++) {
		const struct ibex_fabric_hop *h = &t->hop[i];
		uint64_t sent = h->queued + h->cut;

		missed_sw += h->rx_missed;
		if (h->to_rank)
			missed_rank += h->peer_rx_missed;
		fprintf(o, "%-8s %-5s %-14s %12" PRIu64 " %9" PRIu64 " %12"
			PRIu64 " %7.2f %9" PRIu64 " %9" PRIu64 " %10" PRIu64
			" %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10" PRIu64
			" %9" PRIu64 "\n", h->sw, h->port, h->to, h->rx,
			h->fc_rx, h->tx, sent != 0 ? 100.0 * (double)h->queued /
			(double)sent : 0.0, h->res_p50_ns, h->res_p99_ns,
			h->res_max_ns, ibex_fabric_hop_dropped(h), h->pfc_tx,
			h->pfc_rx, h->paused_us, h->credit_tx);
	}
	fprintf(o, "links: %" PRIu64 " frames missed at a full RX ring of a "
		"switch port, %" PRIu64 " at a rank's (a poller away longer "
		"than its ring lasts)\n", missed_sw, missed_rank);
	print_llr(o, t, false);
	print_llr(o, t, true);
}

/* The hop's drops by reason, those that are not 0. */
static void
json_drops(FILE *o, const struct ibex_fabric_hop *h)
{
	unsigned int r;
	bool first = true;

	fprintf(o, ", \"drops\": {");
	for (r = 1; r < IBEX_R_MAX; r++) {
		if (h->drop[r] == 0)
			continue;
		fprintf(o, "%s\"%s\": %" PRIu64, first ? "" : ", ",
			ibex_reason_name(r), h->drop[r]);
		first = false;
	}
	fprintf(o, "}");
}

static void
json_hop(FILE *o, const struct ibex_fabric_hop *h)
{
	fprintf(o, "{\"port\": ");
	ibex_json_fputs(o, h->port);
	fprintf(o, ", \"to\": ");
	ibex_json_fputs(o, h->to);
	fprintf(o, ", \"rx_frames\": %" PRIu64 ", \"fc_rx_frames\": %" PRIu64
		", \"tx_frames\": %" PRIu64 ", \"fc_tx_frames\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"cut_through\": %" PRIu64
		", \"residence_p50_ns\": %" PRIu64 ", \"residence_p99_ns\": %"
		PRIu64 ", \"residence_max_ns\": %" PRIu64, h->rx, h->fc_rx,
		h->tx, h->fc_tx, h->queued, h->cut, h->res_p50_ns,
		h->res_p99_ns, h->res_max_ns);
	fprintf(o, ", \"dropped\": %" PRIu64 ", \"lane_drops\": %" PRIu64
		", \"pfc_tx\": %" PRIu64 ", \"pfc_rx\": %" PRIu64
		", \"paused_us\": %" PRIu64 ", \"credit_tx\": %" PRIu64
		", \"credit_rx\": %" PRIu64 ", \"violations\": %" PRIu64
		", \"trimmed\": %" PRIu64 ", \"pfc_storms\": %" PRIu64
		", \"pfc_restored\": %" PRIu64 ", \"rx_missed\": %" PRIu64
		", \"peer_rx_missed\": %" PRIu64, ibex_fabric_hop_dropped(h),
		h->lane_drops, h->pfc_tx, h->pfc_rx, h->paused_us,
		h->credit_tx, h->credit_rx, h->violations, h->trimmed,
		h->storms, h->restored, h->rx_missed, h->peer_rx_missed);
	fprintf(o, ", \"xoff_tx\": %" PRIu64 ", \"xon_tx\": %" PRIu64
		", \"buf_peak_blocks\": %" PRIu64
		", \"headroom_peak_blocks\": %" PRIu64
		", \"cbfc_recovered\": %" PRIu64
		", \"cbfc_used_watermark\": %" PRIu64, h->xoff_tx, h->xon_tx,
		h->buf_peak, h->hr_peak, h->cbfc_recovered, h->cbfc_used_wm);
	json_llr(o, "", &h->llr);
	json_llr(o, "peer_", &h->peer_llr);
	json_drops(o, h);
	fprintf(o, "}");
}

void
ibex_fabric_hops_json(FILE *o, const struct ibex_fabric_hops *t)
{
	unsigned int i;

	fprintf(o, "\"elapsed_s\": %.6f, \"ranks\": %u, \"links\": %u, "
		"\"switches\": [", t->elapsed_s, t->n_ranks, t->n_links);
	for (i = 0; i < t->n; i++) {
		const struct ibex_fabric_hop *h = &t->hop[i];
		bool first = i == 0 || strcmp(t->hop[i - 1].sw, h->sw) != 0;

		if (first) {
			fprintf(o, "%s{\"name\": ", i ? "]}, " : "");
			ibex_json_fputs(o, h->sw);
			fprintf(o, ", \"ports\": [");
		} else {
			fprintf(o, ", ");
		}
		json_hop(o, h);
	}
	fprintf(o, "%s]", t->n ? "]}" : "");
}

/* Most frames first; ties in hop order, then reason order. */
static int
loss_cmp(const void *a, const void *b)
{
	const struct ibex_fabric_loss *x = a, *y = b;

	if (x->frames != y->frames)
		return x->frames > y->frames ? -1 : 1;
	if (x->hop != y->hop)
		return x->hop < y->hop ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
}

/* Append one loss, keeping the @p max largest (@p out sorted). */
static void
loss_add(struct ibex_fabric_loss *out, unsigned int *n, unsigned int max,
	 const struct ibex_fabric_hop *h, unsigned int what, uint64_t frames)
{
	struct ibex_fabric_loss l = { .hop = h, .what = what, .frames = frames };

	if (frames == 0 || max == 0)
		return;
	if (*n == max) {
		if (loss_cmp(&l, &out[max - 1]) >= 0)
			return;
		(*n)--;
	}
	out[(*n)++] = l;
	qsort(out, *n, sizeof(*out), loss_cmp);
}

unsigned int
ibex_fabric_losses(const struct ibex_fabric_hops *t,
		   struct ibex_fabric_loss *out, unsigned int max)
{
	unsigned int i, r, n = 0;

	for (i = 0; i < t->n; i++) {
		const struct ibex_fabric_hop *h = &t->hop[i];

		for (r = 1; r < IBEX_R_MAX; r++)
			loss_add(out, &n, max, h, r, h->drop[r]);
		loss_add(out, &n, max, h, IBEX_FABRIC_LOSS_RX_MISSED,
			 h->rx_missed);
		/* a switch's far end is its own port's hop: counted there */
		if (h->to_rank)
			loss_add(out, &n, max, h, IBEX_FABRIC_LOSS_PEER_MISSED,
				 h->peer_rx_missed);
	}
	return n;
}

const char *
ibex_fabric_loss_name(unsigned int what)
{
	if (what == IBEX_FABRIC_LOSS_RX_MISSED)
		return "rx-missed";
	if (what == IBEX_FABRIC_LOSS_PEER_MISSED)
		return "rank-rx-missed";
	return ibex_reason_name(what);
}

static const char *
loss_help(unsigned int what)
{
	if (what == IBEX_FABRIC_LOSS_RX_MISSED)
		return "the switch port's RX ring was full: its worker was "
		       "away longer than the ring lasts";
	if (what == IBEX_FABRIC_LOSS_PEER_MISSED)
		return "the rank's RX ring was full: the generator was away "
		       "longer than the ring lasts";
	return ibex_reason_help(what);
}

/* How many losses the diagnosis names. */
#define DIAG_MAX 8

void
ibex_fabric_diagnose_print(FILE *o, const struct ibex_fabric_hops *t,
			   const char *why)
{
	struct ibex_fabric_loss l[DIAG_MAX];
	unsigned int i, n = ibex_fabric_losses(t, l, DIAG_MAX);

	fprintf(o, "\nibex-fabric: the run failed: %s\n", why);
	if (n == 0) {
		fprintf(o, "no switch port dropped a frame and no link end "
			"missed one: the frames were held, not lost (flow "
			"control: see pause-rx, paused-us and credit-tx above, "
			"and the generator's credit stalls and PFC pauses), or "
			"never sent (the generator's tx)\n");
		return;
	}
	fprintf(o, "where frames were lost, most first (switch port, the "
		"far end of its link, frames, reason):\n");
	for (i = 0; i < n; i++)
		fprintf(o, "  %s %s (link to %s): %" PRIu64 " %s: %s\n",
			l[i].hop->sw, l[i].hop->port, l[i].hop->to,
			l[i].frames, ibex_fabric_loss_name(l[i].what),
			loss_help(l[i].what));
}

void
ibex_fabric_diagnose_json(FILE *o, const struct ibex_fabric_hops *t,
			  const char *why)
{
	struct ibex_fabric_loss l[DIAG_MAX];
	unsigned int i, n = ibex_fabric_losses(t, l, DIAG_MAX);

	fprintf(o, "{\"reason\": ");
	ibex_json_fputs(o, why);
	fprintf(o, ", \"losses\": [");
	for (i = 0; i < n; i++) {
		fprintf(o, "%s{\"switch\": ", i ? ", " : "");
		ibex_json_fputs(o, l[i].hop->sw);
		fprintf(o, ", \"port\": ");
		ibex_json_fputs(o, l[i].hop->port);
		fprintf(o, ", \"to\": ");
		ibex_json_fputs(o, l[i].hop->to);
		fprintf(o, ", \"reason\": \"%s\", \"frames\": %" PRIu64 "}",
			ibex_fabric_loss_name(l[i].what), l[i].frames);
	}
	fprintf(o, "]}");
}
