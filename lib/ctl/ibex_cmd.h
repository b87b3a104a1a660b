/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IBEX_CMD_H
#define IBEX_CMD_H

/**
 * @file
 * The control socket's command language, without the socket or the data
 * path (no EAL: unit-tested on its own).
 *
 * A command is one line. Changes speak the configuration grammar
 * (docs/configuration.md): "set <statement>" or the bare statement, and
 * "add fdb ..." / "del fdb ..." as short forms of the fdb statements. They
 * are applied to a copy of the running configuration, which is then
 * validated as a whole; only a copy that passed is handed to the data path.
 *
 * A reply is zero or more lines of output, then one status line: "OK" or
 * "ERR <command>: <reason>". An output line that could be taken for a
 * status line (it starts with "OK", "ERR" or ".") is sent with one extra
 * leading "." which the client removes, as SMTP does, so replies can be
 * pipelined and read without knowing the command. docs/control.md is the
 * reference of every command.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "ibex_conf.h"
#include "ibex_topics.h"

/** Longest command line the server reads (a statement plus a verb). */
#define IBEX_CMD_LINE_MAX (IBEX_CONF_LINE_MAX + 64)

/** A growable text buffer: replies, JSON, the running config's text. */
struct ibex_out {
	char *buf;       /**< NUL-terminated; NULL until the first write */
	size_t len;      /**< bytes in buf, without the NUL */
	size_t cap;
	bool oom;        /**< a write failed for memory: the text is cut */
};

/** An empty buffer (no allocation yet). */
void ibex_out_init(struct ibex_out *o);
/** Release the memory. */
void ibex_out_free(struct ibex_out *o);
/** Make it empty, keeping the memory. */
void ibex_out_reset(struct ibex_out *o);
/** Append formatted text. @return 0 or -ENOMEM (then o->oom is set). */
int ibex_out_printf(struct ibex_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** Append @p n bytes. @return 0 or -ENOMEM. */
int ibex_out_append(struct ibex_out *o, const char *s, size_t n);
/** Drop the first @p n bytes (those a write sent). */
void ibex_out_consume(struct ibex_out *o, size_t n);
/** Append @p s as a JSON string, quotes included, by the one escaper
 * (ibex_json_escape(), lib/common/ibex_json.h). @return 0 or -ENOMEM. */
int ibex_out_json_str(struct ibex_out *o, const char *s);
/**
 * Append the text in @p body as reply output: each line, dot-stuffed when
 * it could be read as a status line, ending with a newline.
 */
int ibex_out_reply_body(struct ibex_out *o, const char *body, size_t n);

/** What a command line asks for. */
enum ibex_cmd_kind {
	IBEX_CMD_EMPTY,  /**< blank or comment: no reply at all */
	IBEX_CMD_HELP,
	IBEX_CMD_SHOW,
	IBEX_CMD_CHANGE, /**< apply stmt to the running config */
	IBEX_CMD_RELOAD, /**< re-read the config file */
	IBEX_CMD_VERSION, /**< the switch's ibex and DPDK versions */
	IBEX_CMD_LOG_LEVEL, /**< "set log-level TYPE LEVEL": stmt, level */
	IBEX_CMD_CLEAR,  /**< "clear counters": a new baseline for rates */
	IBEX_CMD_CAPTURE, /**< "capture ...": start or stop a capture */
};

/** Things "show" knows (ibex_topics.h); IBEX_SHOW_NB is not one. */
enum ibex_show {
#define IBEX_TOPIC_ENUM(id, name, port, tel, final, metrics, help) \
	IBEX_SHOW_##id,
	IBEX_TOPICS(IBEX_TOPIC_ENUM)
#undef IBEX_TOPIC_ENUM
	IBEX_SHOW_NB,
};

/** One parsed command line. */
struct ibex_cmd_req {
	enum ibex_cmd_kind kind;
	bool json;                 /**< "--json" was one of the words */
	char verb[16];             /**< first word, for messages ("set") */
	enum ibex_show show;       /**< IBEX_CMD_SHOW */
	char port[IBEX_NAME_LEN];  /**< IBEX_CMD_SHOW: only this port ("" all) */
	bool force;                /**< IBEX_CMD_RELOAD: "reload --force" */
	char stmt[IBEX_CONF_LINE_MAX + 1]; /**< IBEX_CMD_CHANGE: a statement;
					    *  IBEX_CMD_LOG_LEVEL: the log type
					    *  pattern ("lib.eal", "ibex.*") */
	int level;  /**< IBEX_CMD_LOG_LEVEL: 1 (emergency) .. 8 (debug), the
		     *  numbering of DPDK's RTE_LOG_* levels */
	/** IBEX_CMD_CAPTURE: "capture stop", or "capture PORT [rx|tx|both]
	 * [COUNT] FILE [snaplen N] [background] [filter EXPR...]" (PORT in
	 * port). */
	struct ibex_cmd_capture {
		bool stop;
		unsigned int dir;    /**< bit 0 rx, bit 1 tx */
		unsigned long long count; /**< 0: until stopped */
		unsigned int snaplen; /**< 0: the port's longest frame */
		bool background;     /**< answer at once, do not wait */
		char file[256];
		char filter[256];
	} cap;
};

/**
 * A log level by name ("emergency", "alert", "critical", "error",
 * "warning", "notice", "info", "debug") or number 1..8.
 * @return the level (DPDK's RTE_LOG_* numbering) or -EINVAL.
 */
int ibex_cmd_log_level(const char *s);

/** Name of a show topic ("ports"), or NULL. */
const char *ibex_show_name(enum ibex_show s);
/** Does "show <s> PORT" take a port? */
bool ibex_show_takes_port(enum ibex_show s);
/** The topic's telemetry command after "/ibex/" ("port_stats"), or NULL
 * when it has none. */
const char *ibex_show_tel_name(enum ibex_show s);
/** Is the topic in the final --json? */
bool ibex_show_in_final(enum ibex_show s);
/** The topic's help line (its row in ibex_topics.h). */
const char *ibex_cmd_topic_help(enum ibex_show s);
/** Does /metrics carry the topic's counters? */
bool ibex_show_in_metrics(enum ibex_show s);

/**
 * Parse one command line (without its newline) into @p req.
 * @return 0, or -EINVAL with "<verb>: <reason>" in @p err.
 */
int ibex_cmd_parse(const char *line, struct ibex_cmd_req *req,
		   char *err, size_t errlen);

/**
 * The running config with one statement applied: copies @p running into
 * @p out, parses @p stmt into it and finishes the result
 * (ibex_conf_finish(): completed and validated as a whole, the one
 * validation of the change).
 * Messages start with @p verb ("set: port p9: ..."). @p running is never
 * changed. @return 0 or -EINVAL.
 */
int ibex_cmd_conf_change(const struct ibex_conf *running, const char *stmt,
			 const char *verb, struct ibex_conf *out,
			 char *err, size_t errlen);

/**
 * A config file read into @p out for "reload": parsed from scratch and
 * finished (ibex_conf_finish()). Ports are carried over from @p running when the file names
 * none (the switch was started on every probed ethdev), with the
 * defaults of every setting.
 *
 * A reload that looks like an accident is refused (docs/control.md,
 * "Reload safety"), unless @p force:
 *  - the file holds no statement (empty, or only comments and blanks);
 *  - its last line has no newline (cut short while being written);
 *  - it names no port and a running port would lose settings to the
 *    defaults (VLANs, lanes, flow control, ...) or its static FDB entries.
 * Never accepted, @p force or not: a file that names some ports but not
 * every running one (ports are removed only by a restart). Messages are
 * "file[:line]: reason". @return 0 or -errno.
 */
int ibex_cmd_conf_reload(const struct ibex_conf *running, const char *path,
			 bool force, struct ibex_conf *out,
			 char *err, size_t errlen);

/**
 * Append the statements of config file @p path to @p text, without comments
 * and blank lines, one per line: the start of "show config".
 * @return 0 or -errno.
 */
int ibex_cmd_conf_text(struct ibex_out *text, const char *path);

/** The help text (one command per line). */
const char *ibex_cmd_help(void);

#endif /* IBEX_CMD_H */
