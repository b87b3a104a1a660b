/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the running config's text (lib/ctl/ibex_runtext.c, the text
 * "show config" prints): each statement once, in order. A statement that
 * overrides an earlier one about the same subject replaces it at the end;
 * one that changes nothing leaves no trace; "fdb del" takes the "fdb
 * static" it undoes with it; lines about other subjects, the file's own
 * lines that still set something, and comments keep their place.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_runtext.h"

#define PORTS "port p0 dev net_null0 vlans 1-10\nport p1 dev net_null1\n"

static int
setup(void **state)
{
	struct ibex_runtext *t = calloc(1, sizeof(*t));

	if (t == NULL || ibex_runtext_init(t) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct ibex_runtext *t = *state;

	ibex_runtext_free(t);
	free(t);
	return 0;
}

/* The text at start: what the config file held (ibex_running.c). */
static void
start(struct ibex_runtext *t, const char *text)
{
	ibex_out_reset(&t->text);
	assert_int_equal(ibex_out_printf(&t->text, "%s", text), 0);
}

static void
add(struct ibex_runtext *t, const char *stmt)
{
	assert_int_equal(ibex_runtext_add(t, stmt), 0);
}

/* No file and no port: the text starts empty and takes statements. */
static void
test_empty_text(void **state)
{
	struct ibex_runtext *t = *state;

	assert_string_equal(ibex_runtext_str(t), "");
	/* The default (300 s): it changes nothing. */
	add(t, "fdb ageing 300");
	assert_string_equal(ibex_runtext_str(t), "");
	add(t, "fdb ageing 120");
	assert_string_equal(ibex_runtext_str(t), "fdb ageing 120\n");
	add(t, "fdb ageing 60");
	assert_string_equal(ibex_runtext_str(t), "fdb ageing 60\n");
	/* A comment sets nothing: it does not stay. */
	add(t, "# nothing");
	assert_string_equal(ibex_runtext_str(t), "fdb ageing 60\n");
}

/* A statement replaces an earlier one with the same subject; the new one
 * goes to the end, the others keep their order. */
static void
test_replaces_same_subject(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, PORTS);
	add(t, "port p0 pvid 5");
	add(t, "port p1 trusted on");
	add(t, "fdb ageing 120");
	assert_string_equal(ibex_runtext_str(t), PORTS "port p0 pvid 5\n"
			    "port p1 trusted on\nfdb ageing 120\n");
	add(t, "port p0 pvid 7");
	assert_string_equal(ibex_runtext_str(t), PORTS "port p1 trusted on\n"
			    "fdb ageing 120\nport p0 pvid 7\n");
	add(t, "fdb ageing 60");
	assert_string_equal(ibex_runtext_str(t), PORTS "port p1 trusted on\n"
			    "port p0 pvid 7\nfdb ageing 60\n");
}

/* The same statement again and again: one line. */
static void
test_repeat_is_once(void **state)
{
	struct ibex_runtext *t = *state;
	int i;

	start(t, PORTS);
	for (i = 0; i < 100; i++)
		add(t, "port p0 pvid 5");
	assert_string_equal(ibex_runtext_str(t), PORTS "port p0 pvid 5\n");
}

/* Another port's statement is not the same subject, though its words
 * after the name are the same. */
static void
test_other_subject_stays(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, PORTS);
	add(t, "port p0 pvid 5");
	add(t, "port p1 pvid 5");
	assert_string_equal(ibex_runtext_str(t), PORTS "port p0 pvid 5\n"
			    "port p1 pvid 5\n");
}

/* A line that still sets something stays, even about the same subject:
 * the file's "port p0 dev ..." defines the port "port p0 pvid" changes. */
static void
test_file_line_that_sets_stays(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, "port p0 dev net_null0 vlans 1-10 pvid 5\n");
	add(t, "port p0 pvid 7");
	assert_string_equal(ibex_runtext_str(t),
			    "port p0 dev net_null0 vlans 1-10 pvid 5\n"
			    "port p0 pvid 7\n");
}

/* Back to what the file said: the change and its undoing both go. */
static void
test_back_to_start(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, PORTS);
	add(t, "port p0 pvid 5");
	add(t, "port p0 pvid 1");
	assert_string_equal(ibex_runtext_str(t), PORTS);
}

/* cbfc pools, profiles and VCs' profiles: a statement gives one whole,
 * so a later one about the same pool or profile replaces it, and a VC's
 * "profile none" undoes the statement that gave it one. */
static void
test_cbfc_pools(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, PORTS);
	add(t, "cbfc p0 pool 0 size 100");
	add(t, "cbfc p0 profile 0 pool 0 reserved 10 static 20");
	add(t, "cbfc p0 vc 1 profile 0");
	add(t, "cbfc p0 pool 1 size 50");
	assert_string_equal(ibex_runtext_str(t), PORTS
			    "cbfc p0 pool 0 size 100\n"
			    "cbfc p0 profile 0 pool 0 reserved 10 static 20\n"
			    "cbfc p0 vc 1 profile 0\n"
			    "cbfc p0 pool 1 size 50\n");
	add(t, "cbfc p0 pool 0 size 200");
	add(t, "cbfc p0 profile 0 pool port reserved 10 dynamic -2");
	add(t, "cbfc p0 vc 1 profile none");
	add(t, "cbfc p0 pool 1 none");
	assert_string_equal(ibex_runtext_str(t), PORTS
			    "cbfc p0 pool 0 size 200\n"
			    "cbfc p0 profile 0 pool port reserved 10 dynamic -2\n");
}

/* "fdb del" removes the "fdb static" it undoes, and itself: whether the
 * entry was added live or came from the file. */
static void
test_del_removes_static(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, PORTS);
	add(t, "fdb static 02:00:00:00:00:01 port p0 vlan 3");
	add(t, "fdb static 02:00:00:00:00:02 port p1");
	add(t, "fdb del 02:00:00:00:00:01 vlan 3");
	assert_string_equal(ibex_runtext_str(t), PORTS
			    "fdb static 02:00:00:00:00:02 port p1\n");

	start(t, PORTS "fdb static 02:00:00:00:00:09 port p1\n"
	      "fdb ageing 120\n");
	add(t, "fdb del 02:00:00:00:00:09 vlan 1");
	assert_string_equal(ibex_runtext_str(t), PORTS "fdb ageing 120\n");
}

/* An entry among many moved to another port (del, then static again):
 * one line for it, at the end, the others as they were. */
static void
test_many_statics_move(void **state)
{
	struct ibex_runtext *t = *state;
	char stmt[80], want[8192];
	size_t n = 0;
	int i;

	start(t, PORTS);
	n += (size_t)snprintf(want + n, sizeof(want) - n, "%s", PORTS);
	for (i = 0; i < 100; i++) {
		snprintf(stmt, sizeof(stmt),
			 "fdb static 02:00:00:00:01:%02x port p0", i);
		add(t, stmt);
		if (i != 70)
			n += (size_t)snprintf(want + n, sizeof(want) - n,
					      "%s\n", stmt);
	}
	add(t, "fdb del 02:00:00:00:01:46 vlan 1");
	add(t, "fdb static 02:00:00:00:01:46 port p1");
	snprintf(want + n, sizeof(want) - n,
		 "fdb static 02:00:00:00:01:46 port p1\n");
	assert_string_equal(ibex_runtext_str(t), want);
}

/* "ecmp del" takes the group's statements with it. */
static void
test_ecmp_del_cancels(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, PORTS);
	add(t, "ecmp g1 ports p0,p1");
	add(t, "fdb ageing 120");
	add(t, "ecmp g1 adaptive packet");
	add(t, "ecmp del g1");
	assert_string_equal(ibex_runtext_str(t), PORTS "fdb ageing 120\n");
}

/* Comment lines already in the text (the note of an unreadable file)
 * stay where they are while statements come and go around them. */
static void
test_comments_stay(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, "# sw.conf: unreadable\n" PORTS "# port p0 pvid 2\n");
	add(t, "port p0 pvid 5");
	add(t, "port p0 pvid 6");
	assert_string_equal(ibex_runtext_str(t), "# sw.conf: unreadable\n"
			    PORTS "# port p0 pvid 2\nport p0 pvid 6\n");
	add(t, "port p0 pvid 1");
	assert_string_equal(ibex_runtext_str(t), "# sw.conf: unreadable\n"
			    PORTS "# port p0 pvid 2\n");
}

/* A text that does not replay (it always should) is not compacted: the
 * statement is appended and nothing else moves. */
static void
test_unreplayable_text_kept(void **state)
{
	struct ibex_runtext *t = *state;

	start(t, "port p0 colour blue\nfdb ageing 120\n");
	add(t, "fdb ageing 120");
	assert_string_equal(ibex_runtext_str(t), "port p0 colour blue\n"
			    "fdb ageing 120\nfdb ageing 120\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_replaces_same_subject,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeat_is_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_other_subject_stays,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_line_that_sets_stays,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_back_to_start, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cbfc_pools, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_del_removes_static, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_many_statics_move,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ecmp_del_cancels, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_comments_stay, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unreplayable_text_kept,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
