/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-ctl: client of the ibex-switch control socket (docs/control.md).
 *
 *   ibex-ctl [--socket PATH | --file-prefix PREFIX [--switch NAME]] [--json]
 *            COMMAND...
 *   ibex-ctl [...] < commands        one command per line, pipelined
 *   ibex-ctl [...]                   on a terminal: interactive
 *
 * The server answers every line with output lines and one status line,
 * "OK" or "ERR <command>: <reason>"; output lines that could be read as a
 * status line arrive with one extra leading "." that is removed here. So
 * the client never needs to know what a command prints, and may send the
 * next commands before the replies are in. Exit status, as every ibex
 * program's: 0 when every command succeeded, 1 when one was refused or
 * the switch could not be reached or stopped answering, 2 on a usage
 * error (a bad option or value, an unknown command word).
 *
 * With --json (or a COMMAND with the word --json) every reply that is
 * one JSON object is printed as a document of the results schema
 * (docs/results.md): the switch's meta block first (its "version
 * --json", asked once per connection, in the pipeline before the first
 * such command), then the time it was read, then the reply's members.
 * With --interval too, that is one line per run: JSON Lines.
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "ibex_cmd.h"
#include "ibex_common.h"
#include "ibex_conf.h"
#include "ibex_json.h"
#include "ibex_version.h"
#include "ibex_time.h"

#define CTL_LINE_MAX 8192
#define CTL_SEND_HIGH (64 * 1024)   /* stop reading stdin above this */
#define CTL_TIMEOUT_MS_DEFAULT 30000

struct buf {
	char *p;
	size_t len;
	size_t cap;
};

struct client {
	int fd;
	bool json;
	bool tty;
	bool stdin_eof;
	bool prompted;
	int timeout_ms;
	bool timeout_set;        /* -t given */
	bool wait_long;          /* a capture's reply: no timeout */
	bool half_closed;        /* ^C during a capture: our side shut */
	unsigned long sent;      /* command lines sent */
	unsigned long answered;  /* status lines read */
	unsigned long errors;
	struct buf in;           /* stdin bytes not yet a whole line */
	struct buf tx;           /* to the switch */
	struct buf rx;           /* from the switch, not yet a whole line */
	struct buf *capture;     /* set: output lines go here, not stdout */
	struct buf pend;         /* per command not yet answered: enum reply */
	struct buf doc;          /* a document's output, until its status */
	struct buf meta_rx;      /* the meta block's reply, until its status */
	char *meta;              /* the switch's meta block, or NULL */
	bool meta_asked;
	bool jsonl;              /* --json --interval: every run one line */
};

/* What a command's reply becomes (one byte of client.pend each). */
enum reply {
	REPLY_RAW,  /* its lines as they come */
	REPLY_DOC,  /* a --json document (doc_emit) */
	REPLY_META, /* the switch's meta block, kept; not a user's command */
};

/* Exit statuses (docs/control.md, man ibex-ctl(1)). */
#define EXIT_FAIL 1   /* a command refused, the switch unreachable */
#define EXIT_USAGE 2  /* a bad option or value, an unknown command */

/*
 * The first words a command may start with besides a configuration
 * statement's (ibex_conf_statement_name): the switch's 'help'
 * (ibex_cmd_help) lists them. A COMMAND starting with another word is a
 * usage error, told before connecting.
 */
static const char *const ctl_verbs[] = {
	"show", "set", "add", "del", "reload", "clear", "capture", "version",
	"help", NULL,
};

/* The first word of @p arg (a COMMAND argument may hold the whole line:
 * "ibex-ctl 'show ports'") is a command, or there is none. */
static bool
known_command(const char *arg)
{
	const char *w = arg + strspn(arg, " \t");
	size_t n = strcspn(w, " \t");
	unsigned int i;
	const char *s;

	if (n == 0 || w[0] == '#')
		return true; /* nothing to run, or a comment: the switch says */
	for (i = 0; ctl_verbs[i] != NULL; i++)
		if (strlen(ctl_verbs[i]) == n && strncmp(w, ctl_verbs[i], n) == 0)
			return true;
	for (i = 0; (s = ibex_conf_statement_name(i)) != NULL; i++)
		if (strlen(s) == n && strncmp(w, s, n) == 0)
			return true;
	return false;
}

/* The command words, one a line (the hidden --dump-commands: the drift
 * test holds the man page to them, and the completion reads its topics
 * from it). */
static void
dump_commands(void)
{
	unsigned int i;
	const char *s;

	for (i = 0; ctl_verbs[i] != NULL; i++)
		printf("verb %s\n", ctl_verbs[i]);
	for (i = 0; (s = ibex_conf_statement_name(i)) != NULL; i++)
		printf("statement %s\n", s);
	/* the show topics, from the table of topics (ibex_topics.h) */
	for (i = 0; (s = ibex_show_name((enum ibex_show)i)) != NULL; i++)
		printf("topic %s\n", s);
}

static void
unknown_command(const char *arg)
{
	const char *w = arg + strspn(arg, " \t");
	unsigned int i;
	const char *s;

	fprintf(stderr, "ibex-ctl: unknown command '%.*s' (one of:",
		(int)strcspn(w, " \t"), w);
	for (i = 0; ctl_verbs[i] != NULL; i++)
		fprintf(stderr, " %s", ctl_verbs[i]);
	fprintf(stderr, "; or a configuration statement:");
	for (i = 0; (s = ibex_conf_statement_name(i)) != NULL; i++)
		fprintf(stderr, " %s", s);
	fprintf(stderr, ")\nTry 'ibex-ctl help' with a switch running, or "
		"'ibex-ctl --help'.\n");
}

static void
usage(const char *prog)
{
	printf("usage: %s [options] [COMMAND...]\n"
	       "  -s, --socket PATH       control socket of the switch\n"
	       "  -f, --file-prefix NAME  the switch's DPDK --file-prefix (default\n"
	       "                          'rte'): the socket is in its runtime dir\n"
	       "  -w, --switch NAME       switch NAME of an ibex-fabric process (its\n"
	       "                          socket in the runtime dir)\n"
	       "  -j, --json              JSON instead of tables (show commands): a\n"
	       "                          document with the switch's meta block and\n"
	       "                          the time; with -i one line per run\n"
	       "  -t, --timeout SEC       give up when a reply takes longer (30)\n"
	       "  -i, --interval SEC      run COMMAND again every SEC seconds\n"
	       "                          ('-i 1 show rates': a live view)\n"
	       "  -n, --count N           with -i: stop after N runs\n"
	       "  -u, --server-uid USER   the switch may also run as this user (name\n"
	       "                          or uid); by default only root or yourself\n"
	       "  -h, --help              this text\n"
	       "  -V, --version           ibex-ctl's version ('%s version': the\n"
	       "                          switch's)\n"
	       "Without COMMAND, commands are read from stdin, one per line.\n"
	       "Run '%s help' for the commands; docs/control.md has them all.\n"
	       "Exit status: 0 every command succeeded, 1 one was refused or the\n"
	       "switch could not be reached, 2 a usage error (bad option or value,\n"
	       "unknown command).\n",
	       prog, prog, prog);
}

static int
buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap != 0 ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (p == NULL)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static void
buf_drop(struct buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* The socket in the directory DPDK's EAL uses for a file prefix
 * (eal_get_runtime_dir): the switch's, or switch @p sw's of ibex-fabric. */
static int
default_path(const char *prefix, const char *sw, char *out, size_t len)
{
	const char *base = "/var/run";
	char name[128];
	int n;

	if (sw == NULL)
		snprintf(name, sizeof(name), "%s", IBEX_CTL_SOCK_NAME);
	else if (snprintf(name, sizeof(name), IBEX_CTL_SOCK_SWITCH_FMT, sw) >=
		 (int)sizeof(name))
		return -ENAMETOOLONG;

	if (getuid() != 0) {
		base = getenv("XDG_RUNTIME_DIR");
		if (base == NULL || base[0] == '\0')
			base = "/tmp";
	}
	n = snprintf(out, len, "%s/dpdk/%s/%s", base, prefix, name);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/*
 * Whoever listens on the path answers: make sure it is the switch's user
 * before sending a command or believing a reply (a socket in a directory
 * others may write could be anyone's). SO_PEERCRED gives the uid that
 * created the listening socket.
 */
static int
check_server(int fd, const char *path, long server_uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		fprintf(stderr, "ibex-ctl: %s: cannot tell who listens there: "
			"%s\n", path, strerror(errno));
		return -1;
	}
	if (cr.uid == 0 || cr.uid == getuid() || cr.uid == geteuid() ||
	    (server_uid >= 0 && cr.uid == (uid_t)server_uid))
		return 0;
	fprintf(stderr, "ibex-ctl: refusing %s: the process listening there "
		"(pid %d) runs as uid %u, not root or uid %u, so it is not a "
		"switch of yours; if it is, say so with --server-uid %u\n",
		path, (int)cr.pid, (unsigned int)cr.uid,
		(unsigned int)getuid(), (unsigned int)cr.uid);
	return -1;
}

/* A user name or a number: the uid, or -1. */
static long
parse_uid(const char *s)
{
	struct passwd *pw = getpwnam(s);
	char *end;
	long v;

	if (pw != NULL)
		return (long)pw->pw_uid;
	v = strtol(s, &end, 10);
	return *s != '\0' && *end == '\0' && v >= 0 && v < (1L << 32) - 1 ?
	       v : -1;
}

static int
ctl_connect(const char *path, long server_uid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "ibex-ctl: %s: path too long\n", path);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "ibex-ctl: cannot connect to %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (check_server(fd, path, server_uid) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static volatile sig_atomic_t interrupted;

/* ^C while a capture runs: the first one ends the capture (the switch
 * answers with what it wrote), a second one ends ibex-ctl. */
static void
on_sigint(int sig)
{
	interrupted = 1;
	signal(sig, SIG_DFL);
}

/* "capture ..." answers when the capture ends, unless it is "capture
 * status" or runs in the background: no reply timeout then (unless -t),
 * and ^C stops the capture instead of leaving it running. */
static void
capture_note(struct client *c, const char *line, size_t n)
{
	struct sigaction sa = { .sa_handler = on_sigint };
	const char *p = line;

	while (p < line + n && (*p == ' ' || *p == '\t'))
		p++;
	if (line + n - p < 8 || strncmp(p, "capture", 7) != 0 ||
	    (p[7] != ' ' && p[7] != '\t') ||
	    strncmp(p + 8 + strspn(p + 8, " \t"), "status", 6) == 0 ||
	    memmem(p, (size_t)(line + n - p), "background", 10) != NULL)
		return;
	if (!c->timeout_set)
		c->wait_long = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* Is one of the words of @p line "--json"? */
static bool
has_json_word(const char *line, size_t n)
{
	const char *p = line, *end = line + n;

	while (p < end) {
		size_t w;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (w = 0; p + w < end && p[w] != ' ' && p[w] != '\t'; w++)
			;
		if (w == 6 && memcmp(p, "--json", 6) == 0)
			return true;
		p += w;
	}
	return false;
}

/* Queue one command line for the switch. */
static int
queue_cmd(struct client *c, const char *line, size_t n)
{
	static const char json[] = " --json";
	static const char meta[] = "version --json\n";
	char kind = c->json || has_json_word(line, n) ? REPLY_DOC : REPLY_RAW;
	int ret = 0;

	capture_note(c, line, n);

	/* a document's meta block: asked once, before the first one */
	if (kind == REPLY_DOC && !c->meta_asked && c->capture == NULL) {
		char m = REPLY_META;

		ret = buf_add(&c->tx, meta, sizeof(meta) - 1);
		if (ret == 0)
			ret = buf_add(&c->pend, &m, 1);
		c->meta_asked = true;
	}
	if (ret == 0)
		ret = buf_add(&c->tx, line, n);
	if (ret == 0 && c->json)
		ret = buf_add(&c->tx, json, sizeof(json) - 1);
	if (ret == 0)
		ret = buf_add(&c->tx, "\n", 1);
	if (ret == 0)
		ret = buf_add(&c->pend, c->capture != NULL ? "\0" : &kind, 1);
	c->sent++;
	c->prompted = false;
	return ret;
}

/* "time": UTC ISO 8601 with milliseconds, "time_unix": seconds. */
static void
doc_time(void)
{
	struct timespec now;
	char iso[32];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("\"time\": \"%s.%03ldZ\", \"time_unix\": %lld.%03ld", iso,
	       now.tv_nsec / 1000000L, (long long)now.tv_sec,
	       now.tv_nsec / 1000000L);
}

/*
 * --json: print the reply's output (c->doc) as a document. One JSON
 * object: {"meta": M, "time": .., "time_unix": .., its members}, on one
 * line ("version", whose reply is the meta block itself, alone as it
 * is). Anything else (help text) as it came, except under --interval,
 * where every run is one object: its lines then as the list "text". A
 * refused command (@p ok false) is no document: its output as it came.
 */
static void
doc_emit(struct client *c, bool ok)
{
	static char none[1];
	char *body = c->doc.p != NULL ? c->doc.p : none;
	size_t n = c->doc.len;
	bool obj;

	while (n > 0 && body[n - 1] == '\n')
		n--;
	body[n] = '\0';
	c->doc.len = 0;
	obj = n >= 2 && body[0] == '{' && body[n - 1] == '}' &&
	      strchr(body, '\n') == NULL;
	if (!ok || (!c->jsonl && (n == 0 || !obj))) {
		if (n > 0)
			puts(body);
		return;
	}
	if (!c->jsonl && c->meta != NULL && strcmp(body, c->meta) == 0) {
		puts(body);
		return;
	}
	putchar('{');
	if (c->meta != NULL)
		printf("\"meta\": %s, ", c->meta);
	doc_time();
	if (obj) {
		const char *rest = body + 1 + strspn(body + 1, " ");

		printf("%s%s\n", *rest != '}' ? ", " : "", rest);
		return;
	}
	if (n > 0) {
		char *line = body, *eol;

		printf(", \"text\": [");
		for (; line != NULL; line = eol != NULL ? eol + 1 : NULL) {
			eol = strchr(line, '\n');
			if (eol != NULL)
				*eol = '\0';
			if (line != body)
				printf(", ");
			ibex_json_fputs(stdout, line);
		}
		putchar(']');
	}
	printf("}\n");
}

/* The reply to "version --json" is in: the meta block when it is one
 * JSON object on one line, else none (the documents go without). */
static void
meta_done(struct client *c, bool ok)
{
	char *m = c->meta_rx.p;
	size_t n = c->meta_rx.len;

	while (n > 0 && m[n - 1] == '\n')
		n--;
	if (ok && n >= 2 && m[0] == '{' && m[n - 1] == '}' &&
	    memchr(m, '\n', n) == NULL) {
		m[n] = '\0';
		c->meta = m;
		c->meta_rx.p = NULL;
		c->meta_rx.cap = 0;
	}
	c->meta_rx.len = 0;
}

/* One line from the switch. */
static void
reply_line(struct client *c, const char *l)
{
	bool status = strcmp(l, "OK") == 0 || strncmp(l, "ERR", 3) == 0;
	enum reply kind = c->pend.len > 0 ? (enum reply)c->pend.p[0] :
			  REPLY_RAW;

	if (status && c->pend.len > 0)
		buf_drop(&c->pend, 1);
	if (kind == REPLY_META) {
		if (status)
			meta_done(c, strcmp(l, "OK") == 0);
		else if (buf_add(&c->meta_rx, l[0] == '.' ? l + 1 : l,
				 strlen(l[0] == '.' ? l + 1 : l)) < 0 ||
			 buf_add(&c->meta_rx, "\n", 1) < 0)
			c->meta_rx.len = 0; /* out of memory: no meta */
		return;
	}
	if (status && kind == REPLY_DOC)
		doc_emit(c, strcmp(l, "OK") == 0);
	if (strcmp(l, "OK") == 0) {
		c->answered++;
	} else if (strncmp(l, "ERR", 3) == 0) {
		c->answered++;
		c->errors++;
		fflush(stdout);
		if (c->sent > 1 && !c->tty)
			fprintf(stderr, "ibex-ctl: command %lu: %s\n",
				c->answered, l[3] == ' ' ? l + 4 : l + 3);
		else
			fprintf(stderr, "ibex-ctl: %s\n",
				l[3] == ' ' ? l + 4 : l + 3);
	} else if (c->capture != NULL) {
		l = l[0] == '.' ? l + 1 : l;
		if (buf_add(c->capture, l, strlen(l)) < 0 ||
		    buf_add(c->capture, "\n", 1) < 0)
			c->capture = NULL;
	} else if (kind == REPLY_DOC) {
		l = l[0] == '.' ? l + 1 : l;
		if (buf_add(&c->doc, l, strlen(l)) < 0 ||
		    buf_add(&c->doc, "\n", 1) < 0) {
			fprintf(stderr, "ibex-ctl: out of memory\n");
			exit(EXIT_FAIL);
		}
	} else {
		puts(l[0] == '.' ? l + 1 : l);
	}
}

static int
split_lines(struct buf *b, void (*fn)(struct client *, const char *),
	    struct client *c)
{
	char *nl;

	while (b->len > 0 && (nl = memchr(b->p, '\n', b->len)) != NULL) {
		*nl = '\0';
		fn(c, b->p);
		buf_drop(b, (size_t)(nl - b->p) + 1);
	}
	return 0;
}

static void
stdin_line(struct client *c, const char *l)
{
	if (queue_cmd(c, l, strlen(l)) < 0) {
		fprintf(stderr, "ibex-ctl: out of memory\n");
		exit(EXIT_FAIL);
	}
}

/* Read what stdin has; whole lines become commands. */
static int
read_stdin(struct client *c)
{
	char tmp[4096];
	ssize_t n = read(0, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0) {
		c->stdin_eof = true;
		if (c->in.len > 0) /* a last line without newline */
			stdin_line(c, c->in.p);
		c->in.len = 0;
		return 0;
	}
	if (buf_add(&c->in, tmp, (size_t)n) < 0)
		return -ENOMEM;
	if (c->in.len > CTL_LINE_MAX && memchr(c->in.p, '\n', c->in.len) == NULL) {
		fprintf(stderr, "ibex-ctl: input line longer than %d characters\n",
			CTL_LINE_MAX);
		return -E2BIG;
	}
	return split_lines(&c->in, stdin_line, c);
}

static int
read_sock(struct client *c)
{
	char tmp[65536];
	ssize_t n = recv(c->fd, tmp, sizeof(tmp), 0);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	if (buf_add(&c->rx, tmp, (size_t)n) < 0)
		return -ENOMEM;
	return split_lines(&c->rx, reply_line, c);
}

static int
write_sock(struct client *c)
{
	ssize_t n = send(c->fd, c->tx.p, c->tx.len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		int err = -errno;

		/* The switch answered and closed (a refusal): show what it
		 * said before the close, which is still to be read. */
		while (read_sock(c) == 0)
			;
		return err;
	}
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	buf_drop(&c->tx, (size_t)n);
	return 0;
}

static bool
done(const struct client *c)
{
	return c->stdin_eof && c->tx.len == 0 && c->answered >= c->sent;
}

/* Pump stdin -> switch -> stdout until every command has its answer. */
static int
run(struct client *c)
{
	while (!done(c)) {
		bool waiting = c->answered < c->sent;
		bool want_stdin = !c->stdin_eof &&
			(c->tty ? !waiting && c->tx.len == 0 :
				  c->tx.len < CTL_SEND_HIGH);
		struct pollfd pf[2] = {
			{ .fd = c->fd, .events = POLLIN |
			  (c->tx.len > 0 ? POLLOUT : 0) },
			{ .fd = want_stdin ? 0 : -1, .events = POLLIN },
		};
		int n, ret = 0;

		if (want_stdin && c->tty && !c->prompted) {
			fputs("ibex> ", stdout);
			fflush(stdout);
			c->prompted = true;
		}
		fflush(stdout);
		n = poll(pf, 2, (waiting || c->tx.len > 0) && !c->wait_long ?
			 c->timeout_ms : -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (interrupted && !c->half_closed && c->tx.len == 0) {
			/* The switch takes our end of the stream as the
			 * stop, and still answers. */
			fprintf(stderr, "ibex-ctl: stopping the capture (^C "
				"again to leave at once)\n");
			shutdown(c->fd, SHUT_WR);
			c->half_closed = true;
			c->stdin_eof = true;
		}
		if (n == 0) {
			fprintf(stderr, "ibex-ctl: no reply from the switch in "
				"%d ms\n", c->timeout_ms);
			return -ETIMEDOUT;
		}
		if (n < 0)
			continue;
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR))
			ret = read_sock(c);
		if (ret == 0 && (pf[0].revents & POLLOUT))
			ret = write_sock(c);
		if (ret == 0 && (pf[1].revents & (POLLIN | POLLHUP)))
			ret = read_stdin(c);
		if (ret == -ECONNRESET) {
			fprintf(stderr, "ibex-ctl: the switch closed the "
				"connection\n");
			return ret;
		}
		if (ret < 0) {
			fprintf(stderr, "ibex-ctl: %s\n", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* ---- interactive: libedit line editing, history, completion ---- */

#define CTL_WORDS_MAX 256
static char *words[CTL_WORDS_MAX];
static unsigned int nb_words;

static void
word_add(const char *w, size_t n)
{
	unsigned int i;

	if (n == 0 || nb_words == CTL_WORDS_MAX || w[0] == '[' ||
	    (w[0] >= 'A' && w[0] <= 'Z'))
		return;
	for (i = 0; i < nb_words; i++)
		if (strlen(words[i]) == n && strncmp(words[i], w, n) == 0)
			return;
	words[nb_words] = strndup(w, n);
	if (words[nb_words] != NULL)
		nb_words++;
}

/* Words of the switch's own help text ("show ports|lanes [PORT]") and
 * the first column of a table (port names): what completion offers. */
static void
words_learn(const char *text, bool first_column_only)
{
	const char *p = text;

	while (*p != '\0') {
		const char *eol = strchrnul(p, '\n');
		const char *q = p;
		unsigned int col = 0;

		while (q < eol && (col < 2 || !first_column_only)) {
			size_t n = strcspn(q, " |\n");

			if (n > (size_t)(eol - q))
				n = (size_t)(eol - q);
			/* Two spaces start the help's description. */
			if (!first_column_only && q > p && q[-1] == ' ' &&
			    q - p >= 2 && q[-2] == ' ')
				break;
			if (!first_column_only || col == 0)
				word_add(q, n);
			q += n;
			while (q < eol && (*q == ' ' || *q == '|'))
				q++;
			col++;
		}
		p = *eol == '\n' ? eol + 1 : eol;
	}
}

/* Run one command, its output kept in @p out. */
static int
capture_cmd(struct client *c, const char *cmd, struct buf *out)
{
	unsigned long errors = c->errors;
	int ret;

	c->capture = out;
	ret = queue_cmd(c, cmd, strlen(cmd));
	if (ret == 0)
		ret = run(c);
	c->capture = NULL;
	c->errors = errors;
	return ret;
}

static char *
complete_word(const char *text, int state)
{
	static unsigned int i;
	size_t n = strlen(text);

	if (state == 0)
		i = 0;
	while (i < nb_words) {
		const char *w = words[i++];

		if (strncmp(w, text, n) == 0)
			return strdup(w);
	}
	return NULL;
}

static char **
complete(const char *text, int start, int end)
{
	(void)start;
	(void)end;
	rl_attempted_completion_over = 1;
	return rl_completion_matches(text, complete_word);
}

static int
interactive(struct client *c, const char *path)
{
	struct buf help = { 0 }, ports = { 0 };
	const char *home = getenv("HOME");
	char hist[512] = "";
	bool json = c->json;
	char *line;
	int ret;

	c->stdin_eof = true; /* run() never reads stdin: libedit does */
	c->json = false;
	ret = capture_cmd(c, "help", &help);
	if (ret == 0)
		ret = capture_cmd(c, "show ports", &ports);
	c->json = json;
	if (ret < 0)
		return ret;
	if (help.p != NULL)
		words_learn(help.p, false);
	if (ports.p != NULL)
		words_learn(ports.p, true);
	word_add("counters", 8);
	word_add("log-level", 9);
	free(help.p);
	free(ports.p);
	rl_readline_name = "ibex-ctl";
	rl_attempted_completion_function = complete;
	if (home != NULL)
		snprintf(hist, sizeof(hist), "%s/.ibex_ctl_history", home);
	if (hist[0] != '\0')
		read_history(hist);
	printf("ibex-ctl: connected to %s; 'help' for commands, Tab "
	       "completes, ^D leaves\n", path);
	while ((line = readline("ibex> ")) != NULL) {
		char *l = line + strspn(line, " \t");

		if (*l == '\0') {
			free(line);
			continue;
		}
		if (strcmp(l, "quit") == 0 || strcmp(l, "exit") == 0) {
			free(line);
			break;
		}
		add_history(l);
		ret = queue_cmd(c, l, strlen(l));
		if (ret == 0)
			ret = run(c);
		free(line);
		if (ret < 0)
			break;
	}
	if (hist[0] != '\0')
		write_history(hist);
	c->errors = 0; /* a refused command was shown; not the exit status */
	return ret;
}

/* -i SEC: the command again every SEC seconds, until an error, the
 * count, or a signal. */
static int
repeat(struct client *c, const char *line, size_t n, double interval,
       long count)
{
	struct timespec next, now;
	long done_runs = 0;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &now);
		/* JSON Lines carry their time in each line */
		if (!c->jsonl)
			printf("--- %s", ctime(&now.tv_sec));
		if (queue_cmd(c, line, n) < 0)
			return -ENOMEM;
		ret = run(c);
		if (ret < 0 || c->errors != 0)
			return ret;
		fflush(stdout);
		if (count != 0 && ++done_runs >= count)
			return 0;
		next.tv_sec += (time_t)interval;
		next.tv_nsec += (long)((interval - (double)(time_t)interval) * 1e9);
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "file-prefix", required_argument, NULL, 'f' },
		{ "switch", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "server-uid", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "dump-commands", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	double interval = 0;
	long count = 0;
	struct client c = { .fd = -1, .timeout_ms = CTL_TIMEOUT_MS_DEFAULT };
	const char *path = getenv("IBEX_CTL_SOCKET");
	const char *prefix = "rte", *sw = NULL;
	char dflt[256], err[160];
	long server_uid = -1;
	const char *prog = strrchr(argv[0], '/') != NULL ?
			   strrchr(argv[0], '/') + 1 : argv[0];
	double timeout_s;
	char *end;
	int opt, i, ret;

	/* '+': stop at the first command word, so "show ports --json" and
	 * "set port p0 admin down" reach the switch as written. */
	while ((opt = getopt_long(argc, argv, "+s:f:w:jt:u:hVi:n:", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 's': path = optarg; break;
		case 'f': prefix = optarg; path = NULL; break;
		case 'w': sw = optarg; path = NULL; break;
		case 'j': c.json = true; break;
		case 't':
			if (ibex_parse_time(optarg, "seconds", 0.001, 86400,
					    &timeout_s, err, sizeof(err)) < 0) {
				fprintf(stderr, "ibex-ctl: --timeout: %s (0.001.."
					"86400 seconds)\n", err);
				return EXIT_USAGE;
			}
			c.timeout_ms = (int)(timeout_s * 1000);
			c.timeout_set = true;
			break;
		case 'u':
			server_uid = parse_uid(optarg);
			if (server_uid < 0) {
				fprintf(stderr, "ibex-ctl: --server-uid: no user "
					"'%s' (a user name or a uid)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(prog); return 0;
		case 'D': dump_commands(); return 0;
		case 'i':
			if (ibex_parse_time(optarg, "seconds", 0.1, 86400,
					    &interval, err, sizeof(err)) < 0 ||
			    interval < 0.1) {
				fprintf(stderr, "ibex-ctl: --interval: bad value "
					"'%s' (0.1..86400 seconds)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (end == optarg || *end != '\0' || count < 1) {
				fprintf(stderr, "ibex-ctl: --count: bad value '%s' "
					"(a whole number, 1 or more)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'V':
			printf("ibex-ctl %s (git %s)\nbuilt against DPDK %s "
			       "headers\n", IBEX_VERSION, IBEX_GIT,
			       IBEX_DPDK_BUILT);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return EXIT_USAGE;
		}
	}
	if (c.timeout_ms <= 0)
		c.timeout_ms = CTL_TIMEOUT_MS_DEFAULT;
	if (path == NULL || path[0] == '\0') {
		if (default_path(prefix, sw, dflt, sizeof(dflt)) < 0) {
			fprintf(stderr, "ibex-ctl: file prefix or switch name "
				"too long\n");
			return EXIT_USAGE;
		}
		path = dflt;
	}
	if (interval > 0 && optind >= argc) {
		fprintf(stderr, "ibex-ctl: --interval needs a COMMAND\n");
		return EXIT_USAGE;
	}
	if (optind < argc && !known_command(argv[optind])) {
		unknown_command(argv[optind]);
		return EXIT_USAGE;
	}
	c.fd = ctl_connect(path, server_uid);
	if (c.fd < 0)
		return EXIT_FAIL;
	if (optind < argc) {
		struct buf line = { 0 };

		for (i = optind; i < argc; i++)
			if (buf_add(&line, " ", i > optind) < 0 ||
			    buf_add(&line, argv[i], strlen(argv[i])) < 0)
				return EXIT_FAIL;
		c.stdin_eof = true;
		c.jsonl = interval > 0 &&
			  (c.json || has_json_word(line.p, line.len));
		if (interval > 0)
			ret = repeat(&c, line.p, line.len, interval, count);
		else
			ret = queue_cmd(&c, line.p, line.len) < 0 ? -ENOMEM :
			      run(&c);
		free(line.p);
	} else {
		c.tty = isatty(0);
		ret = c.tty ? interactive(&c, path) : run(&c);
	}
	if (c.tty)
		putchar('\n');
	close(c.fd);
	/* the client's buffers: freed so that a sanitizer build's leak
	 * check (ASan system runs) sees a clean exit */
	free(c.in.p);
	free(c.tx.p);
	free(c.rx.p);
	free(c.pend.p);
	free(c.doc.p);
	free(c.meta_rx.p);
	free(c.meta);
	if (ret < 0)
		return EXIT_FAIL;
	return c.errors != 0 ? EXIT_FAIL : 0;
}
