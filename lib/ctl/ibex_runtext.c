/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The running config's text: each statement once (ibex_runtext.h).
 *
 * Which lines are redundant is decided by the configuration parser itself,
 * not by rules about the grammar kept here: a line may go when the text
 * without it replays to exactly the same struct ibex_conf as the whole
 * text. The replays give every line the same origin and line number, so
 * two of them differ only in what their statements set.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_conf.h"
#include "ibex_runtext.h"

/* Lines about the same subject a new statement is compared against: the
 * first this many in the text, when there are more. */
#define RUNTEXT_MAX_CAND 64

int
ibex_runtext_init(struct ibex_runtext *t)
{
	ibex_out_init(&t->text);
	t->replay[0] = malloc(sizeof(*t->replay[0]));
	t->replay[1] = malloc(sizeof(*t->replay[1]));
	if (t->replay[0] == NULL || t->replay[1] == NULL) {
		ibex_runtext_free(t);
		return -ENOMEM;
	}
	return 0;
}

void
ibex_runtext_free(struct ibex_runtext *t)
{
	ibex_out_free(&t->text);
	free(t->replay[0]);
	free(t->replay[1]);
	t->replay[0] = NULL;
	t->replay[1] = NULL;
}

const char *
ibex_runtext_str(const struct ibex_runtext *t)
{
	return t->text.buf != NULL ? t->text.buf : "";
}

/* Replay @p text, without the lines starting at @p skip_a and @p skip_b
 * (SIZE_MAX: none), into @p c. Every line gets the same origin and line
 * number, so two replays differ only in what their statements set. */
static int
text_replay(const struct ibex_out *text, size_t skip_a, size_t skip_b,
	    struct ibex_conf *c)
{
	char line[IBEX_CONF_LINE_MAX + 1], err[8];
	size_t off = 0, n;
	const char *nl;

	ibex_conf_init(c);
	while (off < text->len) {
		nl = memchr(text->buf + off, '\n', text->len - off);
		n = nl != NULL ? (size_t)(nl - text->buf) - off : text->len - off;
		if (off != skip_a && off != skip_b && n < sizeof(line)) {
			memcpy(line, text->buf + off, n);
			line[n] = '\0';
			if (ibex_conf_parse_line(c, line, "", 0, err,
						 sizeof(err)) < 0)
				return -EINVAL;
		}
		off += n + 1;
	}
	/* "fdb del", "ecmp del" and "aggregation del" leave copies in the slots past the last
	 * entry: not part of the config, so not compared. */
	memset(&c->statics[c->nb_static], 0,
	       sizeof(c->statics[0]) * (IBEX_CONF_MAX_STATIC - c->nb_static));
	memset(&c->ecmp[c->nb_ecmp], 0,
	       sizeof(c->ecmp[0]) * (IBEX_MAX_ECMP_GROUPS - c->nb_ecmp));
	memset(&c->agg_jobs[c->nb_agg_jobs], 0, sizeof(c->agg_jobs[0]) *
	       (IBEX_MAX_AGG_JOBS - c->nb_agg_jobs));
	return 0;
}

/* Whether the text without those lines configures exactly the same as
 * the whole text (in t->replay[0]). */
static bool
text_same_without(struct ibex_runtext *t, size_t a, size_t b)
{
	return text_replay(&t->text, a, b, t->replay[1]) == 0 &&
	       memcmp(t->replay[0], t->replay[1], sizeof(*t->replay[0])) == 0;
}

static void
text_remove_line(struct ibex_out *o, size_t off)
{
	const char *nl = memchr(o->buf + off, '\n', o->len - off);
	size_t n = nl != NULL ? (size_t)(nl - o->buf) - off + 1 : o->len - off;

	memmove(o->buf + off, o->buf + off + n, o->len - off - n);
	o->len -= n;
	o->buf[o->len] = '\0';
}

/* The @p k-th word (1: the first) of a line, and its length in *@p n;
 * *@p n is 0 when the line has fewer words. */
static const char *
nth_word(const char *a, unsigned int k, size_t *n)
{
	for (;;) {
		a += strspn(a, " \t");
		*n = strcspn(a, " \t\n");
		if (--k == 0 || *n == 0)
			return a;
		a += *n;
	}
}

static bool
word_is(const char *w, size_t n, const char *s)
{
	return n == strlen(s) && strncmp(w, s, n) == 0;
}

/* What a statement is about: its first word and the name after it ("port
 * p0 ...", "fdb ageing ...", "ecmp g1 ..."), or after a verb that comes
 * first ("fdb static MAC ...", "fdb del MAC ...", "ecmp del g1",
 * "aggregation job 7 ...", "aggregation del 7"). */
static const char *
subject(const char *a, size_t *n)
{
	const char *w = nth_word(a, 2, n);

	if (word_is(w, *n, "static") || word_is(w, *n, "del") ||
	    word_is(w, *n, "job"))
		w = nth_word(a, 3, n);
	return w;
}

/* Statements about the same thing: the only ones a new statement may make
 * redundant. This only narrows the candidates (each costs two replays);
 * what goes is decided by the replays. */
static bool
same_subject(const char *a, const char *b)
{
	const char *wa, *wb;
	size_t na, nb;

	wa = nth_word(a, 1, &na);
	wb = nth_word(b, 1, &nb);
	if (na == 0 || na != nb || strncmp(wa, wb, na) != 0)
		return false;
	wa = subject(a, &na);
	wb = subject(b, &nb);
	return na != 0 && na == nb && strncmp(wa, wb, na) == 0;
}

/*
 * The statement just appended at @p last: drop what it made redundant, so
 * the text is the running config with each statement once. A line goes
 * only when the text without it replays to exactly the same config: an
 * earlier statement it overrides, itself when it changed nothing, or an
 * earlier one together with it when they cancel out (fdb static, then
 * fdb del). Candidates are the lines about the same subject.
 */
static void
text_compact(struct ibex_runtext *t, size_t last)
{
	size_t off, n, cand[RUNTEXT_MAX_CAND], nc = 0, i;
	struct ibex_out *o = &t->text;
	const char *nl;

	if (text_replay(o, SIZE_MAX, SIZE_MAX, t->replay[0]) < 0)
		return;
	for (off = 0; off < last && nc < RUNTEXT_MAX_CAND; off += n + 1) {
		nl = memchr(o->buf + off, '\n', last - off);
		n = nl != NULL ? (size_t)(nl - o->buf) - off : last - off;
		if (same_subject(o->buf + off, o->buf + last))
			cand[nc++] = off;
	}
	/* Newest first; removing a line moves the ones after it. */
	for (i = nc; i-- > 0;) {
		size_t j;

		if (!text_same_without(t, cand[i], SIZE_MAX))
			continue;
		n = (size_t)(strchr(o->buf + cand[i], '\n') -
			     (o->buf + cand[i])) + 1;
		text_remove_line(o, cand[i]);
		cand[i] = SIZE_MAX;
		for (j = i + 1; j < nc; j++)
			if (cand[j] != SIZE_MAX)
				cand[j] -= n;
		last -= n;
	}
	if (text_same_without(t, last, SIZE_MAX)) {
		text_remove_line(o, last);
		return;
	}
	for (i = nc; i-- > 0;) {
		if (cand[i] != SIZE_MAX &&
		    text_same_without(t, cand[i], last)) {
			text_remove_line(o, last);
			text_remove_line(o, cand[i]);
			return;
		}
	}
}

int
ibex_runtext_add(struct ibex_runtext *t, const char *stmt)
{
	size_t last = t->text.len;
	int ret = ibex_out_printf(&t->text, "%s\n", stmt);

	/* A cut text is no longer the running config's: leave it be. */
	if (ret == 0)
		text_compact(t, last);
	return ret;
}
