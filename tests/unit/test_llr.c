/* SPDX-License-Identifier: BSD-3-Clause */
/* UEC link-level retry: profiles and their ranges, the INIT handshake,
 * ACK/NACK and go-back-N at the sequence's wrap, the replay timer, flush
 * and its actions, and long runs over a link that corrupts frames and
 * loses control ordered sets: nothing lost, nothing reordered, every
 * frame given up counted. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_rnd.h"

#include "ibex_llr.h"

static struct ibex_llr_profile
prof(void)
{
	const struct ibex_llr_profile *p = ibex_llr_preset("400g-5m");

	assert_non_null(p);
	return *p;
}

/* A port whose sender is in step (INIT echoed). */
static void
active(struct ibex_llr_port *l, const struct ibex_llr_profile *p,
       uint32_t seq0)
{
	uint32_t s;

	assert_int_equal(ibex_llr_port_init(l, p, seq0, 0), 0);
	assert_int_equal(ibex_llr_ctl_next(l, 0, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(s, seq0);
	assert_int_equal(ibex_llr_ctl_rx(l, IBEX_LLR_CTL_INIT_ECHO, seq0, 0), 0);
	assert_int_equal(l->tx.state, IBEX_LLR_TX_ACTIVE);
}

static void
test_profiles(void **state)
{
	struct ibex_llr_profile p = prof(), q;
	struct ibex_llr_port l;
	char err[160] = "";

	(void)state;
	assert_int_equal(p.max_frames, 115);
	assert_int_equal(p.max_bytes, 58768);
	assert_int_equal(ibex_llr_preset("200g-5m")->max_frames, 61);
	assert_int_equal(ibex_llr_preset("200g-5m")->flush_action,
			 IBEX_LLR_BLOCK);
	assert_null(ibex_llr_preset("100g-1m"));
	for (unsigned int i = 0; ibex_llr_presets[i].name != NULL; i++)
		assert_int_equal(ibex_llr_profile_check(&ibex_llr_presets[i].p,
							err, sizeof(err)), 0);
#define BAD(f, v, why) do { q = p; q.f = v;				\
		assert_int_equal(ibex_llr_profile_check(&q, err,	\
				 sizeof(err)), -EINVAL);		\
		if (strstr(err, why) == NULL)				\
			fail_msg("'%s' does not say '%s'", err, why);	\
		assert_int_equal(ibex_llr_port_init(&l, &q, 0, 0), -EINVAL); \
	} while (0)
	BAD(max_frames, 0, "outstanding frames");
	BAD(max_frames, IBEX_LLR_MAX_FRAMES + 1, "half the 19-bit");
	BAD(max_bytes, 63, "outstanding bytes");
	BAD(replay_timer_ns, 65536, "replay timer: 0..65535");
	BAD(replay_timer_ns, 0, "0 (SAI's default) is refused");
	BAD(replay_count, 0, "replay count: 1..255");
	BAD(replay_count, 256, "replay count");
	BAD(data_age_ns, UINT32_MAX, "timeouts");
	BAD(ctlos_spacing, 399, "CtlOS spacing: 400..16384");
	BAD(ctlos_spacing, 16385, "CtlOS spacing");
	BAD(flush_action, 3, "best_effort, block or discard");
#undef BAD
	assert_int_equal(ibex_llr_port_init(&l, &p, IBEX_LLR_SEQ_MOD, 0),
			 -EINVAL);
}

/* Before the echo, new frames follow init_action; after it they are
 * protected. An echo of another INIT does nothing. */
static void
test_init(void **state)
{
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port l;
	uint32_t s;

	(void)state;
	p.init_action = IBEX_LLR_BLOCK;
	assert_int_equal(ibex_llr_port_init(&l, &p, 7, 0), 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 100, 0, &s), IBEX_LLR_HOLD);
	assert_int_equal(ibex_llr_ctl_next(&l, 0, &s), IBEX_LLR_CTL_INIT);
	/* No echo within the replay timer: INIT again. */
	ibex_llr_tx_tick(&l, 4999);
	assert_int_equal(ibex_llr_ctl_next(&l, 5000, &s), IBEX_LLR_CTL_NONE);
	ibex_llr_tx_tick(&l, 5000);
	assert_int_equal(ibex_llr_ctl_next(&l, 5000, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(l.st.tx_init_ctl_os, 2);
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT_ECHO, 8, 0), 0);
	assert_int_equal(l.tx.state, IBEX_LLR_TX_INIT);
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT_ECHO, 7, 0), 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 100, 0, &s), IBEX_LLR_SEND);
	assert_int_equal(s, 7);
	ibex_llr_port_free(&l);
	p.init_action = IBEX_LLR_BEST_EFFORT;
	assert_int_equal(ibex_llr_port_init(&l, &p, 0, 0), 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 100, 0, &s), IBEX_LLR_SEND_PLAIN);
	ibex_llr_port_free(&l);
	p.init_action = IBEX_LLR_DISCARD;
	assert_int_equal(ibex_llr_port_init(&l, &p, 0, 0), 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 100, 0, &s), IBEX_LLR_DROP);
	assert_int_equal(l.st.tx_discard, 1);
	/* The receiver: INIT sets the sequence it expects, and is echoed. */
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT, 42, 0), 0);
	assert_int_equal(ibex_llr_ctl_next(&l, 0, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(ibex_llr_ctl_next(&l, 2047, &s), IBEX_LLR_CTL_NONE);
	assert_int_equal(ibex_llr_ctl_next(&l, 2048, &s),
			 IBEX_LLR_CTL_INIT_ECHO);
	assert_int_equal(s, 42);
	assert_int_equal(l.rx.expected, 42);
	ibex_llr_port_free(&l);
}

/* A reset (the partner came back up): INIT again at the sequence given,
 * the receiver out of step, the outstanding frames given up and counted,
 * the counters and the buffer kept. */
static void
test_reset(void **state)
{
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port l;
	struct ibex_llr_slot *slot;
	uint32_t s, i;

	(void)state;
	active(&l, &p, 10);
	slot = l.tx.slot;
	for (i = 0; i < 4; i++)
		assert_int_equal(ibex_llr_tx_frame(&l, 500, 0, &s),
				 IBEX_LLR_SEND);
	ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT, 77, 0);
	assert_true(l.rx.synced);
	ibex_llr_port_reset(&l, l.tx.next_seq, 9000);
	assert_ptr_equal(l.tx.slot, slot);
	assert_int_equal(l.tx.state, IBEX_LLR_TX_INIT);
	assert_int_equal(l.tx.frames, 0);
	assert_int_equal(l.tx.oldest, 14);
	assert_int_equal(l.tx.init_ns, 9000);
	assert_false(l.rx.synced);
	assert_int_equal(l.st.tx_discard, 4);
	assert_int_equal(l.st.tx_ok, 4);
	assert_int_equal(l.st.tx_init_ctl_os, 1);
	assert_int_equal(ibex_llr_ctl_next(&l, 0, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(s, 14);
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT_ECHO, 14, 0), 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 500, 0, &s), IBEX_LLR_SEND);
	assert_int_equal(s, 14);
	/* the sequence given wraps */
	ibex_llr_port_reset(&l, IBEX_LLR_SEQ_MOD + 3, 0);
	assert_int_equal(l.tx.init_seq, 3);
	assert_int_equal(l.st.tx_discard, 5);
	ibex_llr_port_free(&l);
}

/* The buffer's bounds, ACKs across the wrap, a NACK's go-back-N. */
static void
test_ack_nack_wrap(void **state)
{
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port l;
	uint32_t s, i, seq0 = IBEX_LLR_SEQ_MOD - 3;
	uint64_t t_now = 0;

	(void)state;
	p.max_frames = 8;
	p.max_bytes = 7 * 1000;
	active(&l, &p, seq0);
	for (i = 0; i < 7; i++) {
		assert_int_equal(ibex_llr_tx_frame(&l, 1000, 0, &s),
				 IBEX_LLR_SEND);
		assert_int_equal(s, ibex_llr_seq(seq0 + i));
	}
	/* 7,000 bytes: the bytes bound holds the 8th. */
	assert_int_equal(ibex_llr_tx_frame(&l, 1000, 0, &s), IBEX_LLR_HOLD);
	/* ACK of seq0+1 (before the wrap) frees two. */
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_ACK, seq0 + 1, 0), 0);
	assert_int_equal(l.tx.frames, 5);
	/* NACK 1 (after the wrap: seq0+4): frees seq0+2, seq0+3 (= 0), then
	 * replays 1, 2, 3 before anything new. */
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_NACK, 1, 0), 0);
	assert_int_equal(l.tx.frames, 3);
	assert_int_equal(ibex_llr_tx_frame(&l, 1000, 0, &s), IBEX_LLR_HOLD);
	for (i = 1; i <= 3; i++) {
		assert_true(ibex_llr_tx_replay_next(&l, t_now, &s));
		assert_int_equal(s, i);
	}
	assert_false(ibex_llr_tx_replay_next(&l, t_now, &s));
	assert_int_equal(l.st.tx_replay, 3);
	assert_int_equal(ibex_llr_tx_frame(&l, 1000, 0, &s), IBEX_LLR_SEND);
	assert_int_equal(s, 4);
	/* An ACK of a frame never sent, or long acknowledged: ignored. */
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_ACK, 9, 0), -EINVAL);
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_NACK, seq0, 0),
			 -EINVAL);
	assert_int_equal(l.st.rx_ack_nack_seq_error, 2);
	assert_int_equal(l.tx.frames, 4);
	/* A repeated ACK of what was acknowledged changes nothing. */
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_ACK, 0, 0), 0);
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_ACK, 4, 0), 0);
	assert_int_equal(l.tx.frames, 0);
	ibex_llr_port_free(&l);
}

/* The receiver: in order only; a gap or a bad frame asks for a replay
 * once; duplicates after a go-back-N are dropped and counted. */
static void
test_receiver(void **state)
{
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port l;
	uint32_t s;
	uint64_t b = 0;

	(void)state;
	assert_int_equal(ibex_llr_port_init(&l, &p, 0, 0), 0);
	/* Before INIT frames pass unprotected. */
	assert_int_equal(ibex_llr_rx_frame(&l, 99, true, true), IBEX_LLR_DELIVER);
	ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT, IBEX_LLR_SEQ_MASK, 0);
	assert_int_equal(ibex_llr_ctl_next(&l, b, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(ibex_llr_ctl_next(&l, b += 2048, &s),
			 IBEX_LLR_CTL_INIT_ECHO);
	assert_int_equal(ibex_llr_rx_frame(&l, IBEX_LLR_SEQ_MASK, true, true),
			 IBEX_LLR_DELIVER);
	assert_int_equal(ibex_llr_rx_frame(&l, 0, true, true), IBEX_LLR_DELIVER);
	assert_int_equal(ibex_llr_ctl_next(&l, b += 2048, &s), IBEX_LLR_CTL_ACK);
	assert_int_equal(s, 0);
	/* 1 is lost: 2 and 3 are refused, one NACK 1. */
	assert_int_equal(ibex_llr_rx_frame(&l, 2, true, true), IBEX_LLR_REJECT);
	assert_int_equal(ibex_llr_rx_frame(&l, 3, true, true), IBEX_LLR_REJECT);
	assert_int_equal(ibex_llr_ctl_next(&l, b += 2048, &s), IBEX_LLR_CTL_NACK);
	assert_int_equal(s, 1);
	assert_int_equal(ibex_llr_rx_frame(&l, 4, true, true), IBEX_LLR_REJECT);
	assert_int_equal(ibex_llr_ctl_next(&l, b += 2048, &s), IBEX_LLR_CTL_NONE);
	assert_int_equal(l.st.rx_missing_seq, 3);
	/* The replay: 1 delivered (a replay), then 0 again (a duplicate). */
	assert_int_equal(ibex_llr_rx_frame(&l, 1, true, true), IBEX_LLR_DELIVER);
	assert_int_equal(l.st.rx_replay, 1);
	assert_int_equal(ibex_llr_rx_frame(&l, 0, true, true), IBEX_LLR_REJECT);
	assert_int_equal(l.st.rx_duplicate_seq, 1);
	/* A bad frame: a NACK at once. */
	assert_int_equal(ibex_llr_rx_frame(&l, 12345, true, false), IBEX_LLR_REJECT);
	assert_int_equal(ibex_llr_ctl_next(&l, b += 2048, &s), IBEX_LLR_CTL_NACK);
	assert_int_equal(s, 2);
	assert_int_equal(l.st.rx_bad, 1);
	assert_int_equal(l.st.rx_ok, 4);
	ibex_llr_port_free(&l);
}

/* The last ACK of a burst is lost on an idle link: the replay's
 * duplicates are acknowledged again, nothing is given up. A frame larger
 * than the buffer goes unprotected; a synced receiver takes it. */
static void
test_lost_ack(void **state)
{
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port a, b;
	uint32_t s, i;
	uint64_t t_now = 0, bytes = 0;

	(void)state;
	active(&a, &p, 0);
	assert_int_equal(ibex_llr_port_init(&b, &p, 0, 0), 0);
	ibex_llr_ctl_rx(&b, IBEX_LLR_CTL_INIT, 0, 0);
	assert_int_equal(ibex_llr_ctl_next(&b, bytes, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(ibex_llr_ctl_next(&b, bytes += 4096, &s),
			 IBEX_LLR_CTL_INIT_ECHO);
	for (i = 0; i < 5; i++) {
		assert_int_equal(ibex_llr_tx_frame(&a, 500, 0, &s),
				 IBEX_LLR_SEND);
		assert_int_equal(ibex_llr_rx_frame(&b, s, true, true),
				 IBEX_LLR_DELIVER);
	}
	assert_int_equal(ibex_llr_ctl_next(&b, bytes += 4096, &s),
			 IBEX_LLR_CTL_ACK);     /* ACK 4: lost */
	ibex_llr_tx_tick(&a, t_now = 5000);
	while (ibex_llr_tx_replay_next(&a, t_now, &s))
		assert_int_equal(ibex_llr_rx_frame(&b, s, true, true),
				 IBEX_LLR_REJECT);
	assert_int_equal(b.st.rx_duplicate_seq, 5);
	assert_int_equal(ibex_llr_ctl_next(&b, bytes += 4096, &s),
			 IBEX_LLR_CTL_ACK);
	assert_int_equal(s, 4);
	assert_int_equal(ibex_llr_ctl_rx(&a, IBEX_LLR_CTL_ACK, s, t_now), 0);
	assert_int_equal(a.tx.frames, 0);
	ibex_llr_tx_tick(&a, t_now + 100000);
	assert_int_equal(a.st.flushes, 0);
	assert_int_equal(a.st.tx_discard, 0);
	assert_int_equal(ibex_llr_tx_frame(&a, p.max_bytes + 1, 0, &s),
			 IBEX_LLR_SEND_PLAIN);
	assert_int_equal(a.st.tx_unprotected, 1);
	assert_int_equal(ibex_llr_rx_frame(&b, 0, false, true),
			 IBEX_LLR_DELIVER);
	ibex_llr_port_free(&a);
	ibex_llr_port_free(&b);
}

/* Nothing comes back: replays at the timer, then a flush after
 * replay_count of them; the frames given up are counted and the sender
 * starts again with INIT at the next sequence. The data age does the
 * same to a frame held too long. */
static void
test_timer_flush(void **state)
{
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port l;
	uint32_t s, i;
	uint64_t t = 0;

	(void)state;
	p.data_age_ns = 0;
	active(&l, &p, 100);
	for (i = 0; i < 5; i++)
		assert_int_equal(ibex_llr_tx_frame(&l, 500, t, &s),
				 IBEX_LLR_SEND);
	for (i = 1; i <= 3; i++) {
		t += 5000;
		ibex_llr_tx_tick(&l, t);
		assert_true(ibex_llr_tx_replay_next(&l, t, &s));
		assert_int_equal(s, 100);
		while (ibex_llr_tx_replay_next(&l, t, &s))
			;
	}
	assert_int_equal(l.st.tx_replay, 15);
	t += 5000;
	ibex_llr_tx_tick(&l, t);
	assert_int_equal(l.tx.state, IBEX_LLR_TX_FLUSH);
	assert_int_equal(l.st.tx_discard, 5);
	assert_int_equal(l.st.flushes, 1);
	/* flush_action best_effort (this preset): sent unprotected. */
	assert_int_equal(ibex_llr_tx_frame(&l, 500, t, &s), IBEX_LLR_SEND_PLAIN);
	assert_int_equal(ibex_llr_ctl_next(&l, 100000, &s), IBEX_LLR_CTL_INIT);
	assert_int_equal(s, 105);
	assert_int_equal(ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_INIT_ECHO, 105, t), 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 500, t, &s), IBEX_LLR_SEND);
	assert_int_equal(s, 105);
	ibex_llr_port_free(&l);
	/* Data age (20 us in the preset): the frame first sent at 1,000 ns
	 * is given up at 21,000 ns, however its replays go. */
	p = prof();
	active(&l, &p, 0);
	assert_int_equal(ibex_llr_tx_frame(&l, 500, 1000, &s), IBEX_LLR_SEND);
	ibex_llr_ctl_rx(&l, IBEX_LLR_CTL_NACK, 0, 5000);  /* progress: none */
	ibex_llr_tx_tick(&l, 20999);
	assert_int_equal(l.st.flushes, 0);
	ibex_llr_tx_tick(&l, 21000);
	assert_int_equal(l.st.flushes, 1);
	assert_int_equal(l.st.tx_discard, 1);
	ibex_llr_port_free(&l);
}

/*
 * Two ports over a link of LINK_TICKS each way, 20-ns ticks (1,000 byte
 * times at 400 Gb/s): A offers a 1,000-byte frame every tick, B receives.
 * Data frames are corrupted with probability @p p_bad, CtlOS lost with
 * @p p_ctl; between ticks @p dead_from and @p dead_to every frame is
 * corrupted (a link that fails for a while). Checks that B delivers the
 * frames in order with none missing except those A counted as given up.
 */
#define LINK_TICKS 25
#define TICK_NS 20
#define Q (LINK_TICKS + 1)

struct wire_frame { bool valid, bad; uint32_t seq, id; bool llr; };
struct wire_ctl { enum ibex_llr_ctl kind; uint32_t seq; };

struct run {
	uint64_t offered, delivered, order_errors, given_up, unprotected;
	uint64_t outstanding;   /* in A's buffer at the end */
	uint64_t ticks;
	struct ibex_llr_stats a, b;
};

static uint64_t rng;

static double
rnd(void)
{
	return test_rnd(&rng);
}

static void
ctl_send(struct wire_ctl *slot, struct ibex_llr_port *from, uint64_t t,
	 double p_ctl)
{
	uint32_t s;
	enum ibex_llr_ctl k = ibex_llr_ctl_next(from, t * 1000, &s);

	if (k != IBEX_LLR_CTL_NONE && rnd() >= p_ctl)
		*slot = (struct wire_ctl){ k, s };
}

/* A sends a replay or a new frame (one a tick). */
static void
a_send(struct ibex_llr_port *a, struct wire_frame *out, uint32_t *ids,
       uint64_t t, bool bad, struct run *r)
{
	uint32_t s;

	if (ibex_llr_tx_replay_next(a, t * TICK_NS, &s)) {
		*out = (struct wire_frame){ true, bad, s, ids[s], true };
		return;
	}
	switch (ibex_llr_tx_frame(a, 1000, t * TICK_NS, &s)) {
	case IBEX_LLR_SEND:
		ids[s] = (uint32_t)r->offered;
		*out = (struct wire_frame){ true, bad, s, ids[s], true };
		r->offered++;
		break;
	case IBEX_LLR_SEND_PLAIN:
		*out = (struct wire_frame){ true, bad, 0, (uint32_t)r->offered,
					    false };
		r->offered++;
		r->unprotected++;
		break;
	case IBEX_LLR_DROP:
		r->offered++;
		break;
	default:
		break;
	}
}

static void
sim(uint64_t ticks, double p_bad, double p_ctl, uint64_t dead_from,
    uint64_t dead_to, uint32_t seq0, struct run *r)
{
	static uint32_t ids[IBEX_LLR_SEQ_MOD];
	static struct wire_frame fwd[Q];
	static struct wire_ctl to_a[Q], to_b[Q];
	struct ibex_llr_profile p = prof();
	struct ibex_llr_port a, b;
	uint64_t t, next_id = 0;

	memset(r, 0, sizeof(*r));
	r->ticks = ticks;
	memset(fwd, 0, sizeof(fwd));
	memset(to_a, 0, sizeof(to_a));
	memset(to_b, 0, sizeof(to_b));
	rng = 0x2545f4914f6cdd1dull;
	p.init_action = p.flush_action = IBEX_LLR_BLOCK;
	assert_int_equal(ibex_llr_port_init(&a, &p, seq0, 0), 0);
	assert_int_equal(ibex_llr_port_init(&b, &p, 0, 0), 0);
	b.tx.init_due = false;                   /* B sends no data */
	for (t = 0; t < ticks; t++) {
		struct wire_frame *in = &fwd[t % Q];
		struct wire_ctl *ca = &to_a[t % Q], *cb = &to_b[t % Q];
		bool dead = t >= dead_from && t < dead_to;

		if (in->valid &&
		    ibex_llr_rx_frame(&b, in->seq, in->llr, !in->bad) ==
		    IBEX_LLR_DELIVER) {
			/* in order; a gap only over frames A gave up */
			if (in->id < next_id)
				r->order_errors++;
			next_id = in->id + 1;
			r->delivered++;
		}
		in->valid = false;
		if (ca->kind != IBEX_LLR_CTL_NONE)
			ibex_llr_ctl_rx(&a, ca->kind, ca->seq, t * TICK_NS);
		if (cb->kind != IBEX_LLR_CTL_NONE)
			ibex_llr_ctl_rx(&b, cb->kind, cb->seq, t * TICK_NS);
		ca->kind = cb->kind = IBEX_LLR_CTL_NONE;
		ibex_llr_tx_tick(&a, t * TICK_NS);
		ctl_send(&to_b[(t + LINK_TICKS) % Q], &a, t, p_ctl);
		ctl_send(&to_a[(t + LINK_TICKS) % Q], &b, t, p_ctl);
		a_send(&a, &fwd[(t + LINK_TICKS) % Q], ids, t,
		       dead || rnd() < p_bad, r);
	}
	r->given_up = a.st.tx_discard;
	r->a = a.st;
	r->b = b.st;
	r->outstanding = a.tx.frames;
	ibex_llr_port_free(&a);
	ibex_llr_port_free(&b);
}

static void
report(const char *what, const struct run *r)
{
	print_message("%s: %llu offered, %llu delivered, %llu given up, "
		      "%llu replayed, %llu NACKs, %llu flushes, goodput %.4f "
		      "of the line\n",
		      what, (unsigned long long)r->offered,
		      (unsigned long long)r->delivered,
		      (unsigned long long)r->given_up,
		      (unsigned long long)r->a.tx_replay,
		      (unsigned long long)r->b.tx_nack_ctl_os,
		      (unsigned long long)r->a.flushes,
		      (double)r->delivered / (double)r->ticks);
}

/* Nothing given up, nothing out of order, and every frame offered
 * arrived but those still in the replay buffer. */
static void
assert_lossless(const struct run *r)
{
	assert_int_equal(r->a.flushes, 0);
	assert_int_equal(r->given_up, 0);
	assert_int_equal(r->order_errors, 0);
	assert_true(r->delivered <= r->offered);
	assert_true(r->delivered + r->outstanding >= r->offered);
}

static void
test_sim_lossless(void **state)
{
	struct run r;

	(void)state;
	/* 10^-3 of the frames corrupted, 10^-3 of the CtlOS lost; 1.2 x 10^6
	 * frames: the 19-bit sequence wraps twice. */
	sim(1300000, 1e-3, 1e-3, 0, 0, IBEX_LLR_SEQ_MOD - 1000, &r);
	report("corrupt 1e-3", &r);
	assert_true(r.offered > 2 * IBEX_LLR_SEQ_MOD);
	assert_true(r.b.rx_bad > 500);
	assert_lossless(&r);
	assert_true(r.a.tx_replay > 0 && r.b.tx_nack_ctl_os > 0);
	assert_true(r.b.rx_replay > 0);
	sim(1300000, 1e-5, 0, 0, 0, 0, &r);
	report("corrupt 1e-5", &r);
	assert_lossless(&r);
}

/* A noisy link is not a dead one: at 10^-2 the go-back-N repairs every
 * frame and never gives up (one NACK per gap, not one per bad frame). */
static void
test_sim_noisy(void **state)
{
	struct run r;

	(void)state;
	sim(300000, 1e-2, 1e-3, 0, 0, 0, &r);
	report("corrupt 1e-2", &r);
	assert_lossless(&r);
}

static void
test_sim_dead_link(void **state)
{
	struct run r;

	(void)state;
	/* The link corrupts everything for 100 us: the sender gives up
	 * after 3 replays, counts what it flushed, and resumes. */
	sim(300000, 0, 0, 100000, 105000, 0, &r);
	report("dead for 100 us", &r);
	assert_true(r.a.flushes >= 1);
	assert_true(r.given_up > 0);
	assert_int_equal(r.order_errors, 0);
	/* nothing lost silently: every frame that did not arrive was given
	 * up and counted (a frame given up may still have arrived: its ACK
	 * did not) */
	assert_true(r.delivered <= r.offered);
	assert_true(r.offered - r.delivered - r.outstanding <= r.given_up);
	assert_true(r.delivered > 290000 - 5000 - 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_ack_nack_wrap),
		cmocka_unit_test(test_receiver),
		cmocka_unit_test(test_lost_ack),
		cmocka_unit_test(test_timer_flush),
		cmocka_unit_test(test_sim_lossless),
		cmocka_unit_test(test_sim_noisy),
		cmocka_unit_test(test_sim_dead_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
