/* SPDX-License-Identifier: BSD-3-Clause */
/* UEC link-level retry: the sender's replay buffer and timers, the
 * receiver's sequence check, and the control ordered sets between them. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_llr.h"
#include "ibex_require.h"

/* SONiC's sample lookup (doc/llr/llr_profile_lookup.ini.sample) and its
 * LLR_PROFILE example (800G, 40 m). */
const struct ibex_llr_preset ibex_llr_presets[] = {
	{ "200g-5m", { 61, 31184, 5000, 3, 50000, 20000, 2048,
		       IBEX_LLR_BEST_EFFORT, IBEX_LLR_BLOCK } },
	{ "200g-40m", { 71, 35952, 5500, 3, 55000, 24000, 2048,
			IBEX_LLR_BEST_EFFORT, IBEX_LLR_BLOCK } },
	{ "400g-5m", { 115, 58768, 5000, 3, 50000, 20000, 2048,
		       IBEX_LLR_BEST_EFFORT, IBEX_LLR_BEST_EFFORT } },
	{ "400g-40m", { 133, 67760, 5500, 3, 55000, 24000, 2048,
			IBEX_LLR_BEST_EFFORT, IBEX_LLR_DISCARD } },
	{ "800g-40m", { 264, 135000, 5000, 3, 50000, 20000, 2048,
			IBEX_LLR_BEST_EFFORT, IBEX_LLR_BEST_EFFORT } },
	{ NULL, { 0 } },
};

const struct ibex_llr_profile *
ibex_llr_preset(const char *name)
{
	const struct ibex_llr_preset *q;

	for (q = ibex_llr_presets; q->name != NULL; q++)
		if (strcmp(q->name, name) == 0)
			return &q->p;
	return NULL;
}

int
ibex_llr_profile_check(const struct ibex_llr_profile *p, char *err,
		       size_t errlen)
{
	IBEX_REQUIRE(
		p->max_frames >= 1 && p->max_frames <= IBEX_LLR_MAX_FRAMES,
		"outstanding frames: 1..%u (half the 19-bit sequence space), "
		"not %u",
		IBEX_LLR_MAX_FRAMES, p->max_frames);
	IBEX_REQUIRE(p->max_bytes >= 64,
		     "outstanding bytes: at least 64 (a frame), "
		     "not %u",
		     p->max_bytes);
	IBEX_REQUIRE(p->replay_timer_ns <= IBEX_LLR_REPLAY_TIMER_MAX,
		     "replay timer: 0..%u ns, not %u",
		     IBEX_LLR_REPLAY_TIMER_MAX, p->replay_timer_ns);
	IBEX_REQUIRE(p->replay_timer_ns != 0,
		     "replay timer: 0 (SAI's default) is refused: the timer "
		     "recovers a lost ACK or NACK");
	IBEX_REQUIRE(p->replay_count >= 1 &&
			     p->replay_count <= IBEX_LLR_REPLAY_COUNT_MAX,
		     "replay count: 1..%u, not %u", IBEX_LLR_REPLAY_COUNT_MAX,
		     p->replay_count);
	IBEX_REQUIRE(p->pcs_lost_ns <= IBEX_LLR_TIMEOUT_MAX &&
			     p->data_age_ns <= IBEX_LLR_TIMEOUT_MAX,
		     "PCS-lost and data-age timeouts: 0..%u ns",
		     IBEX_LLR_TIMEOUT_MAX);
	IBEX_REQUIRE(p->ctlos_spacing >= IBEX_LLR_CTLOS_SPACING_MIN &&
			     p->ctlos_spacing <= IBEX_LLR_CTLOS_SPACING_MAX,
		     "CtlOS spacing: %u..%u bytes, not %u",
		     IBEX_LLR_CTLOS_SPACING_MIN, IBEX_LLR_CTLOS_SPACING_MAX,
		     p->ctlos_spacing);
	IBEX_REQUIRE(p->init_action <= IBEX_LLR_DISCARD &&
			     p->flush_action <= IBEX_LLR_DISCARD,
		     "init and flush actions: best_effort, block or discard");
	return 0;
}

int
ibex_llr_port_init(struct ibex_llr_port *l, const struct ibex_llr_profile *p,
		   uint32_t seq0, uint64_t now_ns)
{
	char err[128];

	if (ibex_llr_profile_check(p, err, sizeof(err)) != 0 ||
	    seq0 > IBEX_LLR_SEQ_MASK)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->tx.slot = calloc(p->max_frames, sizeof(*l->tx.slot));
	if (l->tx.slot == NULL)
		return -ENOMEM;
	l->tx.p = *p;
	ibex_llr_port_reset(l, seq0, now_ns);
	return 0;
}

void
ibex_llr_port_reset(struct ibex_llr_port *l, uint32_t seq0, uint64_t now_ns)
{
	struct ibex_llr_slot *slot = l->tx.slot;
	struct ibex_llr_profile p = l->tx.p;
	struct ibex_llr_stats st = l->st;

	st.tx_discard += l->tx.frames;
	memset(l, 0, sizeof(*l));
	l->st = st;
	l->tx.slot = slot;
	l->tx.p = p;
	l->tx.state = IBEX_LLR_TX_INIT;
	l->tx.next_seq = l->tx.oldest = ibex_llr_seq(seq0);
	l->tx.init_due = true;
	l->tx.init_seq = l->tx.next_seq;
	l->tx.init_ns = now_ns;
}

void
ibex_llr_port_free(struct ibex_llr_port *l)
{
	free(l->tx.slot);
	l->tx.slot = NULL;
}

static struct ibex_llr_slot *
slot_of(struct ibex_llr_tx *t, uint32_t seq)
{
	return &t->slot[seq % t->p.max_frames];
}

/* Forget the buffered frames before @p seq (acknowledged). @return how
 * many. */
static uint32_t
tx_free_to(struct ibex_llr_tx *t, uint32_t seq, uint64_t now_ns)
{
	uint32_t n = 0;

	while (t->oldest != seq) {
		t->bytes -= slot_of(t, t->oldest)->len;
		t->frames--;
		t->oldest = ibex_llr_seq(t->oldest + 1);
		n++;
	}
	if (n != 0) {
		t->replays = 0;
		t->progress_ns = now_ns;
	}
	return n;
}

/* Give up: every buffered frame is discarded (counted), and the sender
 * starts again with INIT at the next sequence. */
static void
tx_flush(struct ibex_llr_port *l, uint64_t now_ns)
{
	struct ibex_llr_tx *t = &l->tx;

	l->st.tx_discard += t->frames;
	l->st.flushes++;
	t->frames = t->bytes = 0;
	t->oldest = t->next_seq;
	t->replaying = false;
	t->replays = 0;
	t->state = IBEX_LLR_TX_FLUSH;
	t->init_seq = t->next_seq;
	t->init_due = true;
	t->init_ns = now_ns;
}

/* Replay from @p seq; a flush instead once replay_count replays made no
 * progress. */
static void
tx_replay_from(struct ibex_llr_port *l, uint32_t seq, uint64_t now_ns)
{
	struct ibex_llr_tx *t = &l->tx;

	if (++t->replays > t->p.replay_count) {
		tx_flush(l, now_ns);
		return;
	}
	t->replaying = seq != t->next_seq;
	t->replay_seq = seq;
	t->progress_ns = now_ns;
}

enum ibex_llr_verdict
ibex_llr_tx_frame(struct ibex_llr_port *l, uint32_t len, uint64_t now_ns,
		  uint32_t *seq)
{
	struct ibex_llr_tx *t = &l->tx;
	uint8_t action;

	if (t->state != IBEX_LLR_TX_ACTIVE) {
		action = t->state == IBEX_LLR_TX_INIT ? t->p.init_action :
			 t->p.flush_action;
		if (action == IBEX_LLR_BEST_EFFORT) {
			l->st.tx_unprotected++;
			return IBEX_LLR_SEND_PLAIN;
		}
		if (action == IBEX_LLR_DISCARD) {
			l->st.tx_discard++;
			return IBEX_LLR_DROP;
		}
		l->st.tx_held++;
		return IBEX_LLR_HOLD;
	}
	if (len > t->p.max_bytes) {
		/* It could never fit: sent without protection, counted. */
		l->st.tx_unprotected++;
		return IBEX_LLR_SEND_PLAIN;
	}
	if (t->replaying || t->frames == t->p.max_frames ||
	    (uint64_t)t->bytes + len > t->p.max_bytes) {
		l->st.tx_held++;
		return IBEX_LLR_HOLD;
	}
	*seq = t->next_seq;
	*slot_of(t, *seq) = (struct ibex_llr_slot){ .len = len,
						   .sent_ns = now_ns };
	if (t->frames == 0)
		t->progress_ns = now_ns;
	t->frames++;
	t->bytes += len;
	t->next_seq = ibex_llr_seq(t->next_seq + 1);
	l->st.tx_ok++;
	return IBEX_LLR_SEND;
}

bool
ibex_llr_tx_replay_next(struct ibex_llr_port *l, uint64_t now_ns,
			uint32_t *seq)
{
	struct ibex_llr_tx *t = &l->tx;

	if (!t->replaying)
		return false;
	*seq = t->replay_seq;
	t->replay_seq = ibex_llr_seq(t->replay_seq + 1);
	t->replaying = t->replay_seq != t->next_seq;
	/* The timer runs from the replay's last frame: a replay longer than
	 * the timer is not itself a silence. */
	if (!t->replaying)
		t->progress_ns = now_ns;
	l->st.tx_replay++;
	return true;
}

void
ibex_llr_tx_tick(struct ibex_llr_port *l, uint64_t now_ns)
{
	struct ibex_llr_tx *t = &l->tx;

	if (t->state != IBEX_LLR_TX_ACTIVE) {
		/* INIT again when no echo came within the replay timer. */
		if (!t->init_due &&
		    now_ns - t->init_ns >= t->p.replay_timer_ns) {
			t->init_due = true;
			t->init_ns = now_ns;
		}
		return;
	}
	if (t->frames == 0)
		return;
	if (t->p.data_age_ns != 0 &&
	    now_ns - slot_of(t, t->oldest)->sent_ns >= t->p.data_age_ns) {
		tx_flush(l, now_ns);
		return;
	}
	if (!t->replaying && now_ns - t->progress_ns >= t->p.replay_timer_ns)
		tx_replay_from(l, t->oldest, now_ns);
}

/* Frames from the oldest unacknowledged one up to @p seq (exclusive):
 * within what is outstanding, or -1. */
static int64_t
tx_span(const struct ibex_llr_tx *t, uint32_t seq)
{
	uint32_t d = ibex_llr_seq(seq - t->oldest);

	return d <= t->frames ? (int64_t)d : -1;
}

static int
tx_ack(struct ibex_llr_port *l, enum ibex_llr_ctl kind, uint32_t seq,
       uint64_t now_ns)
{
	struct ibex_llr_tx *t = &l->tx;
	/* ACK n covers n; NACK n covers what is before n. */
	uint32_t upto = kind == IBEX_LLR_CTL_ACK ? ibex_llr_seq(seq + 1) : seq;

	if (t->state != IBEX_LLR_TX_ACTIVE)
		return 0;       /* about frames a flush already forgot */
	if (tx_span(t, upto) < 0) {
		l->st.rx_ack_nack_seq_error++;
		return -EINVAL;
	}
	tx_free_to(t, upto, now_ns);
	if (t->replaying &&
	    ibex_llr_seq(t->replay_seq - t->oldest) > t->frames)
		t->replay_seq = t->oldest;   /* acknowledged meanwhile */
	t->replaying = t->replaying && t->replay_seq != t->next_seq;
	if (kind == IBEX_LLR_CTL_NACK && t->frames != 0)
		tx_replay_from(l, t->oldest, now_ns);
	return 0;
}

int
ibex_llr_ctl_rx(struct ibex_llr_port *l, enum ibex_llr_ctl kind,
		uint32_t seq, uint64_t now_ns)
{
	seq = ibex_llr_seq(seq);
	switch (kind) {
	case IBEX_LLR_CTL_INIT:         /* to our receiver */
		l->st.rx_init_ctl_os++;
		l->rx.synced = true;
		l->rx.expected = seq;
		l->rx.nack_due = l->rx.nacked = l->rx.ack_due = false;
		l->rx.echo_due = true;
		l->rx.echo_seq = seq;
		return 0;
	case IBEX_LLR_CTL_INIT_ECHO:    /* to our sender */
		l->st.rx_init_echo_ctl_os++;
		if (l->tx.state != IBEX_LLR_TX_ACTIVE &&
		    seq == l->tx.init_seq) {
			l->tx.state = IBEX_LLR_TX_ACTIVE;
			l->tx.init_due = false;
		}
		return 0;
	case IBEX_LLR_CTL_ACK:
		l->st.rx_ack_ctl_os++;
		return tx_ack(l, kind, seq, now_ns);
	case IBEX_LLR_CTL_NACK:
		l->st.rx_nack_ctl_os++;
		return tx_ack(l, kind, seq, now_ns);
	default:
		l->st.rx_ack_nack_seq_error++;
		return -EINVAL;
	}
}

enum ibex_llr_rx_verdict
ibex_llr_rx_frame(struct ibex_llr_port *l, uint32_t seq, bool llr, bool good)
{
	struct ibex_llr_rx *r = &l->rx;
	uint32_t ahead;

	if (!good) {
		l->st.rx_bad++;
		if (!llr)
			return IBEX_LLR_REJECT;
		/* One NACK per gap: the frames behind a bad one in flight
		 * would each restart the go-back-N (and count as a replay
		 * without progress). A NACK lost is the sender's replay
		 * timer's. */
		l->st.rx_expected_seq_bad++;
		r->nack_due = r->synced && !r->nacked;
		return IBEX_LLR_REJECT;
	}
	if (!llr || !r->synced) {       /* unprotected, or before INIT */
		l->st.rx_ok++;
		return IBEX_LLR_DELIVER;
	}
	seq = ibex_llr_seq(seq);
	ahead = ibex_llr_seq(seq - r->expected);
	if (ahead == 0) {
		l->st.rx_ok++;
		l->st.rx_expected_seq_good++;
		if (r->nacked)
			l->st.rx_replay++;
		r->expected = ibex_llr_seq(r->expected + 1);
		r->ack_due = true;
		r->nack_due = r->nacked = false;
		return IBEX_LLR_DELIVER;
	}
	if (ahead >= IBEX_LLR_SEQ_MOD - IBEX_LLR_MAX_FRAMES) {
		/* Behind: delivered already. The sender replays what it
		 * thinks unacknowledged: our ACK was lost, say it again. */
		l->st.rx_duplicate_seq++;
		r->ack_due = true;
		return IBEX_LLR_REJECT;
	}
	l->st.rx_missing_seq++;               /* ahead: a frame was lost */
	r->nack_due = !r->nacked;
	return IBEX_LLR_REJECT;
}

enum ibex_llr_ctl
ibex_llr_ctl_next(struct ibex_llr_port *l, uint64_t now_bytes, uint32_t *seq)
{
	struct ibex_llr_rx *r = &l->rx;
	enum ibex_llr_ctl k = IBEX_LLR_CTL_NONE;

	if (r->ctlos_sent &&
	    now_bytes - r->last_ctlos_bytes < l->tx.p.ctlos_spacing)
		return k;
	if (l->tx.init_due) {
		k = IBEX_LLR_CTL_INIT;
		*seq = l->tx.init_seq;
		l->tx.init_due = false;
		l->st.tx_init_ctl_os++;
	} else if (r->echo_due) {
		k = IBEX_LLR_CTL_INIT_ECHO;
		*seq = r->echo_seq;
		r->echo_due = false;
		l->st.tx_init_echo_ctl_os++;
	} else if (r->nack_due) {
		k = IBEX_LLR_CTL_NACK;
		*seq = r->expected;
		r->nack_due = false;
		r->nacked = true;
		l->st.tx_nack_ctl_os++;
	} else if (r->ack_due) {
		k = IBEX_LLR_CTL_ACK;
		*seq = ibex_llr_seq(r->expected - 1);
		r->ack_due = false;
		l->st.tx_ack_ctl_os++;
	}
	if (k != IBEX_LLR_CTL_NONE) {
		r->last_ctlos_bytes = now_bytes;
		r->ctlos_sent = true;
	}
	return k;
}
