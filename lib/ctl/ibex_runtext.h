/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_RUNTEXT_H
#define IBEX_RUNTEXT_H

/**
 * @file
 * The running configuration as text ("show config"): the statements that
 * configure it, each once, in the order they were given.
 *
 * It starts as the config file's statements (or one "port NAME dev DEV"
 * per probed port) and grows by each accepted live change. A change that
 * overrides an earlier statement, changes nothing, or cancels an earlier
 * one ("fdb static", then "fdb del") does not pile up: after each
 * statement, ibex_runtext_add() drops every line whose removal leaves the
 * text configuring exactly the same thing (the text is replayed through
 * the configuration parser, ibex_conf_parse_line(), and the two results
 * compared byte for byte).
 *
 * Pure C, no EAL: tests/unit/ctl/test_runtext.c. The owner of the running
 * config (ibex_running.h) keeps one; nothing here knows the data path.
 */

#include <stddef.h>

#include "ibex_cmd.h"

struct ibex_conf;

/** The text, and two scratch configs for its replays. */
struct ibex_runtext {
	struct ibex_out text;       /**< statements, one per line, each
				       ending with a newline */
	struct ibex_conf *replay[2]; /**< scratch: the whole text, and the
					text without some lines */
};

/** Allocate the scratch configs; the text is empty. @return 0 or -ENOMEM. */
int ibex_runtext_init(struct ibex_runtext *t);

/** Free everything (@p t may be only zeroed). */
void ibex_runtext_free(struct ibex_runtext *t);

/** The text: "" when empty, never NULL. */
const char *ibex_runtext_str(const struct ibex_runtext *t);

/**
 * Append @p stmt (one statement, without a newline) and then drop what it
 * made redundant: an earlier statement about the same subject that it
 * overrides, itself when it changed nothing, or it together with an
 * earlier one when the two cancel out. Only lines about the same subject
 * (the same first word, and the same second or third: "port p0 ...",
 * "fdb static MAC ...") are candidates, so comment lines already in the
 * text stay where they are; a comment given as @p stmt changes nothing
 * and is dropped. Every other line keeps its place. A text that does not
 * replay (it always should) is left as it is, @p stmt appended.
 * @return 0 or -ENOMEM (then the text is cut: t->text.oom).
 */
int ibex_runtext_add(struct ibex_runtext *t, const char *stmt);

#endif /* IBEX_RUNTEXT_H */
