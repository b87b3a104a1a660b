/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket and the commands it runs.
 *
 * Everything runs on the control thread, from ibex_sock_poll() once per
 * control-loop tick: accept, read whole lines, run each through
 * ibex_sock_exec() and write the reply. Sockets are non-blocking; a client
 * whose reply is not yet written gets no further command run until it has
 * read it, so a slow reader holds back only itself. The running config,
 * its text and history, its lock and the one path by which a change, a
 * reload or SIGHUP commits belong to ibex_running.c: a change or a reload
 * here is a call to it.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "ibex_capture_cmd.h"
#include "ibex_clock.h"
#include "ibex_cmd.h"
#include "ibex_conf.h"
#include "ibex_counters.h"
#include "ibex_dp.h"
#include "ibex_fdb.h"
#include "ibex_pkt.h"
#include "ibex_rates.h"
#include "ibex_running.h"
#include "ibex_show.h"
#include "ibex_ctl.h"
#include "ibex_sock.h"
#include "ibex_stale.h"
#include "ibex_hist.h"
#include "ibex_version.h"

RTE_LOG_REGISTER(ibex_sock_logtype, ibex.ctl.sock, INFO);
#define RTE_LOGTYPE_IBEX_SOCK ibex_sock_logtype

#define SOCK_MAX_CLIENTS 16
#define SOCK_BACKLOG 16
/* A client that sent nothing and was sent nothing for this long is
 * closed (docs/control.md): a forgotten connection frees its slot. */
#define SOCK_IDLE_TIMEOUT_MS (300 * 1000)
/* Commands one client may run per tick: the loop has other work too. */
#define SOCK_CMDS_PER_TICK 64
#define SOCK_ERR_LEN 512

struct sock_client {
	int fd;                  /* -1: free slot */
	bool eof;                /* peer closed its side: finish, then close */
	bool discard;            /* inside an overlong line: skip to newline */
	uint64_t active_ms;      /* last byte read or reply written */
	uint32_t cap_wait;       /* capture whose end this client waits for
				    (its reply comes then), 0: none */
	bool cap_json;           /* that reply in JSON */
	size_t in_len;
	char in[IBEX_CMD_LINE_MAX + 2];
	struct ibex_out out;     /* reply bytes not yet written */
};

struct ibex_sock {
	struct ibex_dp *dp;
	struct ibex_running *run; /* the running config's owner */
	const struct ibex_conf *conf; /* ibex_running_conf(run): the same
					 pointer for run's life */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd;                 /* listening socket or -1 */
	struct ibex_out body;    /* a reply's output, before stuffing */
	struct ibex_cmd_req req;
	struct ibex_hist hist;   /* scratch for "show latency" */
	struct ibex_rates *rates; /* "show rates", "clear counters" */
	uint64_t idle_timeout_ms; /* SOCK_IDLE_TIMEOUT_MS, or the test's */
	uint64_t last_reap_ms;
	struct sock_client *exec_client; /* the client of the running line,
					    NULL for other callers */
	uint32_t exec_wait;      /* the line's reply waits for this capture */
	struct sock_client cl[SOCK_MAX_CLIENTS];
};

const char *
ibex_sock_path(const struct ibex_sock *s)
{
	return s->lfd >= 0 ? s->path : "";
}

int
ibex_sock_default_path(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", rte_eal_get_runtime_dir(),
			 IBEX_CTL_SOCK_NAME);

	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* ---- show: the topics (ibex_show.c) with what they read ---- */

/* What a topic reads: the data path, the running config and its owner,
 * the rates; the ports of "show X PORT" (all without one). */
static int
sock_topic_ctx(struct ibex_sock *s, const struct ibex_cmd_req *req,
	       struct ibex_topic_ctx *c, char *err, size_t errlen)
{
	int p;

	memset(c, 0, sizeof(*c));
	c->dp = s->dp;
	c->conf = s->conf;
	c->run = s->run;
	c->rates = s->rates;
	c->hist = &s->hist;
	c->end = s->dp->nb_ports;
	if (req == NULL || req->port[0] == '\0')
		return 0;
	p = ibex_conf_port_find(s->conf, req->port);
	if (p < 0 || p >= s->dp->nb_ports) {
		snprintf(err, errlen, "show: no port '%s'", req->port);
		return -ENOENT;
	}
	c->first = (uint16_t)p;
	c->end = (uint16_t)(p + 1);
	return 0;
}

static int
ctl_show(struct ibex_sock *s, const struct ibex_cmd_req *req,
	 struct ibex_out *o, char *err, size_t errlen)
{
	struct ibex_topic_ctx c;
	int ret;

	ret = sock_topic_ctx(s, req, &c, err, errlen);
	if (ret < 0)
		return ret;
	ret = ibex_topic_show(&c, req->show, req->json, o);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "show: out of memory");
	return ret;
}

int
ibex_sock_json_sections(struct ibex_sock *s, struct ibex_out *o)
{
	struct ibex_topic_ctx c;
	char err[SOCK_ERR_LEN];

	sock_topic_ctx(s, NULL, &c, err, sizeof(err));
	c.rates = NULL; /* the final --json counts from the start */
	return ibex_topic_final_json(&c, o);
}

/* ---- one command ---- */

static void
ctl_version(const struct ibex_cmd_req *req, struct ibex_out *o)
{
	if (req->json && ibex_ctl_meta() != NULL) {
		/* the meta block: version, git, dpdk and schema among it */
		ibex_out_printf(o, "%s\n", ibex_ctl_meta());
		return;
	}
	if (req->json) {
		ibex_out_printf(o, "{\"version\": \"%s\", \"git\": \"%s\", "
				"\"dpdk\": \"%s\", \"schema\": %d}\n",
				IBEX_VERSION, IBEX_GIT, rte_version(),
				IBEX_SCHEMA_VERSION);
		return;
	}
	ibex_out_printf(o, "ibex-switch %s (git %s)\n%s\n", IBEX_VERSION,
			IBEX_GIT, rte_version());
}

/* "set log-level TYPE LEVEL": DPDK's own log types and ours (ibex.*). */
static int
ctl_log_level(const struct ibex_cmd_req *req, char *err, size_t errlen)
{
	if (rte_log_set_level_pattern(req->stmt, (uint32_t)req->level) < 0) {
		snprintf(err, errlen, "log-level: cannot set '%.200s'", req->stmt);
		return -EINVAL;
	}
	RTE_LOG(NOTICE, IBEX_SOCK, "log level of %s set to %d\n", req->stmt,
		req->level);
	return 0;
}

int
ibex_sock_exec(struct ibex_sock *s, const char *line, struct ibex_out *reply)
{
	struct ibex_cmd_req *req = &s->req;
	char err[SOCK_ERR_LEN];
	char *c;
	int ret;

	ibex_out_reset(&s->body);
	err[0] = '\0';
	ret = ibex_cmd_parse(line, req, err, sizeof(err));
	if (ret == 0) {
		switch (req->kind) {
		case IBEX_CMD_EMPTY:
			break;
		case IBEX_CMD_HELP:
			ibex_out_printf(&s->body, "%s", ibex_cmd_help());
			break;
		case IBEX_CMD_SHOW:
			ret = ctl_show(s, req, &s->body, err, sizeof(err));
			break;
		case IBEX_CMD_CHANGE:
			ret = ibex_running_change(s->run, req->stmt,
						  req->verb, err, sizeof(err));
			break;
		case IBEX_CMD_RELOAD:
			ret = ibex_running_reload(s->run, req->force, err,
						  sizeof(err));
			break;
		case IBEX_CMD_VERSION:
			ctl_version(req, &s->body);
			break;
		case IBEX_CMD_LOG_LEVEL:
			ret = ctl_log_level(req, err, sizeof(err));
			break;
		case IBEX_CMD_CLEAR:
			ibex_rates_clear(s->rates, s->dp);
			break;
		case IBEX_CMD_CAPTURE:
			ret = ibex_capture_cmd_run(s->dp, s->conf, req,
						   s->exec_client != NULL,
						   &s->exec_wait, &s->body,
						   err, sizeof(err));
			/* The reply comes when the capture ends. */
			if (ret == 0 && s->exec_wait != 0)
				return 0;
			break;
		}
	}
	if (ret == 0 && s->body.len != 0)
		ibex_out_reply_body(reply, s->body.buf, s->body.len);
	if (ret == 0)
		return ibex_out_printf(reply, "OK\n");
	/* The status is one line whatever the message holds. */
	for (c = err; *c != '\0'; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (err[0] == '\0')
		snprintf(err, sizeof(err), "%s: %s", req->verb, strerror(-ret));
	ibex_out_printf(reply, "ERR %s\n", err);
	return ret;
}

/* ---- the socket ---- */

/*
 * A socket file at @p path: replaced when nobody listens on it (a switch
 * that was killed left it), refused when a live process does.
 */
static int
sock_clear_stale(const char *path, char *err, size_t errlen)
{
	char msg[SOCK_ERR_LEN];
	int ret = ibex_stale_socket_clear(path, true, msg, sizeof(msg));

	if (ret == 1)
		RTE_LOG(NOTICE, IBEX_SOCK, "control socket %s\n", msg);
	if (ret == -EADDRINUSE)
		snprintf(err, errlen, "%s: another switch is listening there",
			 path);
	else if (ret < 0 && msg[0] != '\0')
		snprintf(err, errlen, "control socket %s", msg);
	return ret < 0 ? ret : 0;
}

/*
 * Another user who may write the socket's directory may put a socket of
 * their own there before we start, or in place of ours: say so. ibex-ctl
 * checks who answers (SO_PEERCRED), but a private directory is better.
 */
static void
sock_check_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) < 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) == 0)
		return;
	RTE_LOG(WARNING, IBEX_SOCK, "control socket directory %s is writable "
		"by %s (mode %04o): another user could listen on %s before "
		"the switch; prefer a directory only this user can write\n",
		dir, st.st_mode & S_IWOTH ? "every user" : "its group",
		(unsigned int)(st.st_mode & 07777), path);
}

static int
sock_listen(struct ibex_sock *s, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, ret;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", s->path);
	sock_check_dir(s->path);
	ret = sock_clear_stale(s->path, err, errlen);
	if (ret < 0)
		goto fail;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* Never visible with wider permissions, not even between bind and
	 * chmod. */
	old = umask(0177);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (ret == 0)
		ret = chmod(s->path, 0600);
	if (ret == 0)
		ret = listen(fd, SOCK_BACKLOG);
	if (ret < 0) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	s->lfd = fd;
	return 0;
fail:
	if (err[0] == '\0')
		snprintf(err, errlen, "control socket %s: %s", s->path,
			 strerror(-ret));
	return ret;
}

static uint64_t
sock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
client_close(struct sock_client *c)
{
	close(c->fd);
	c->fd = -1;
	ibex_out_free(&c->out);
}

/* Write what we can; false when the peer is gone. */
static bool
client_flush(struct sock_client *c)
{
	while (c->out.len > 0) {
		ssize_t n = send(c->fd, c->out.buf, c->out.len,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR;
		ibex_out_consume(&c->out, (size_t)n);
		c->active_ms = sock_now_ms();
	}
	return true;
}

/* Only our own uid and root may talk to us, whatever the file mode. */
static bool
peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	if (cr.uid == 0 || cr.uid == geteuid())
		return true;
	RTE_LOG(WARNING, IBEX_SOCK, "refused a connection from uid %u "
		"(pid %d)\n", (unsigned int)cr.uid, (int)cr.pid);
	return false;
}

/*
 * Every slot taken: make room for a new client by closing the one idle
 * longest, i.e. with no reply pending (a client half-way through reading
 * a reply keeps its slot). -1 when every client is mid-reply.
 */
static int
sock_evict_idle(struct ibex_sock *s)
{
	static const char bye[] = "ERR closed: idle, and a new client needed "
				  "the slot\n";
	struct sock_client *c, *old = NULL;
	unsigned int i;

	for (i = 0; i < SOCK_MAX_CLIENTS; i++) {
		c = &s->cl[i];
		if (c->out.len == 0 && c->cap_wait == 0 && (old == NULL ||
					c->active_ms < old->active_ms))
			old = c;
	}
	if (old == NULL)
		return -1;
	RTE_LOG(NOTICE, IBEX_SOCK, "%u control connections: closed the one "
		"idle for %" PRIu64 " ms to serve a new one\n",
		SOCK_MAX_CLIENTS, sock_now_ms() - old->active_ms);
	(void)!send(old->fd, bye, sizeof(bye) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	client_close(old);
	return (int)(old - s->cl);
}

static void
sock_accept(struct ibex_sock *s)
{
	static const char refused[] = "ERR permission denied: this uid may "
				      "not use the control socket\n";
	static const char busy[] = "ERR too many control connections, all "
				   "of them busy\n";
	unsigned int i;
	int fd;

	while ((fd = accept4(s->lfd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (!peer_allowed(fd)) {
			(void)!send(fd, refused, sizeof(refused) - 1,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		for (i = 0; i < SOCK_MAX_CLIENTS && s->cl[i].fd >= 0; i++)
			;
		if (i == SOCK_MAX_CLIENTS)
			i = (unsigned int)sock_evict_idle(s);
		if (i >= SOCK_MAX_CLIENTS) {
			(void)!send(fd, busy, sizeof(busy) - 1,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		memset(&s->cl[i], 0, sizeof(s->cl[i]));
		s->cl[i].fd = fd;
		s->cl[i].active_ms = sock_now_ms();
		ibex_out_init(&s->cl[i].out);
	}
}

/* Read more input; false when the connection failed. */
static bool
client_read(struct sock_client *c)
{
	size_t room = sizeof(c->in) - 1 - c->in_len;
	ssize_t n;

	if (c->eof || room == 0)
		return true;
	n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
	if (n == 0) {
		c->eof = true;
	} else if (n > 0) {
		c->in_len += (size_t)n;
		c->active_ms = sock_now_ms();
	}
	else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		return false;
	return true;
}

/*
 * The next whole line in c->in, NUL-terminated, with its length including
 * the newline in *used; NULL when there is none yet. A line longer than
 * the buffer is answered with ERR and skipped. Only a newline ends a
 * command: bytes left without one when the client closes are a command
 * cut short (a client that died mid-write) and never run.
 */
static char *
client_line(struct sock_client *c, size_t *used)
{
	char *nl;

	for (;;) {
		nl = memchr(c->in, '\n', c->in_len);
		if (nl == NULL && c->in_len == sizeof(c->in) - 1) {
			if (!c->discard)
				ibex_out_printf(&c->out, "ERR command: line "
						"too long (max %d characters)\n",
						IBEX_CMD_LINE_MAX);
			c->discard = true;
			c->in_len = 0;
			return NULL;
		}
		if (nl == NULL)
			return NULL;
		*nl = '\0';
		*used = (size_t)(nl - c->in) + 1;
		if (!c->discard)
			return c->in;
		/* The tail of an overlong line. */
		c->discard = false;
		memmove(c->in, c->in + *used, c->in_len - *used);
		c->in_len -= *used;
	}
}

/* Run one whole line, unless a NUL byte in it would cut it short. */
static void
client_exec(struct ibex_sock *s, struct sock_client *c, const char *line,
	    size_t len)
{
	const char *nul = memchr(line, '\0', len);

	if (nul == NULL) {
		s->exec_client = c;
		s->exec_wait = 0;
		ibex_sock_exec(s, line, &c->out);
		c->cap_wait = s->exec_wait;
		c->cap_json = s->req.json;
		s->exec_client = NULL;
		s->exec_wait = 0;
		return;
	}
	ibex_out_printf(&c->out, "ERR command: a NUL byte at offset %zu: "
			"refused, not run\n", (size_t)(nul - line));
}

/* The client closed: what is left without a newline is never run. */
static void
client_eof_close(struct sock_client *c)
{
	if (c->in_len > 0 && !c->discard)
		RTE_LOG(WARNING, IBEX_SOCK, "a client closed with %zu bytes of "
			"a command not ended by a newline: discarded, not "
			"run\n", c->in_len);
	client_close(c);
}

/*
 * A client waiting for capture c->cap_wait to end: its reply once it has
 * (then its next lines run), a stop when it closed its side (ibex-ctl on
 * ^C, or killed). @return true when the wait is over.
 */
static bool
client_capture_wait(struct ibex_sock *s, struct sock_client *c)
{
	struct ibex_capture_view v;

	ibex_capture_view(s->dp, &v);
	if (v.id == c->cap_wait && v.state == IBEX_CAPTURE_RUNNING &&
	    c->eof)
		ibex_capture_stop(s->dp, "the client left");
	if (v.id == c->cap_wait && v.state != IBEX_CAPTURE_DONE)
		return false;
	c->cap_wait = 0;
	c->active_ms = sock_now_ms();
	ibex_out_reset(&s->body);
	ibex_capture_cmd_render(s->dp, &v, c->cap_json, &s->body);
	if (c->cap_json)
		ibex_out_printf(&s->body, "\n");
	ibex_out_reply_body(&c->out, s->body.buf, s->body.len);
	if (v.error != 0)
		ibex_out_printf(&c->out, "ERR capture: writing %s: %s\n",
				v.path, strerror(-v.error));
	else
		ibex_out_printf(&c->out, "OK\n");
	return client_flush(c);
}

static void
client_service(struct ibex_sock *s, struct sock_client *c)
{
	unsigned int budget = SOCK_CMDS_PER_TICK;
	size_t used;
	char *line;

	if (!client_flush(c) || !client_read(c)) {
		if (c->cap_wait != 0)
			ibex_capture_stop(s->dp, "the client left");
		client_close(c);
		return;
	}
	if (c->cap_wait != 0 && !client_capture_wait(s, c))
		return;
	while (c->out.len == 0 && budget-- > 0) {
		line = client_line(c, &used);
		if (line == NULL)
			break;
		client_exec(s, c, line, used - 1);
		memmove(c->in, c->in + used, c->in_len - used);
		c->in_len -= used;
		if (!client_flush(c)) {
			client_close(c);
			return;
		}
		if (c->out.len == 0 && !client_read(c)) {
			client_close(c);
			return;
		}
	}
	/* At EOF with no whole line left, nothing more will run. */
	if (c->eof && c->out.len == 0 &&
	    (c->in_len == 0 || memchr(c->in, '\n', c->in_len) == NULL))
		client_eof_close(c);
}

/* Close the clients idle for SOCK_IDLE_TIMEOUT_MS: at most once a second. */
static void
sock_reap_idle(struct ibex_sock *s)
{
	static const char bye[] = "ERR closed: idle for too long\n";
	uint64_t now = sock_now_ms();
	unsigned int i;

	if (now - s->last_reap_ms < 1000)
		return;
	s->last_reap_ms = now;
	for (i = 0; i < SOCK_MAX_CLIENTS; i++) {
		struct sock_client *c = &s->cl[i];

		if (c->fd < 0 || c->cap_wait != 0 ||
		    now - c->active_ms < s->idle_timeout_ms)
			continue;
		RTE_LOG(NOTICE, IBEX_SOCK, "closed a control connection idle "
			"for %" PRIu64 " s\n", (now - c->active_ms) / 1000);
		(void)!send(c->fd, bye, sizeof(bye) - 1,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
		client_close(c);
	}
}

void
ibex_sock_poll(struct ibex_sock *s)
{
	unsigned int i;

	ibex_running_poll(s->run);
	if (s->lfd < 0)
		return;
	sock_accept(s);
	for (i = 0; i < SOCK_MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			client_service(s, &s->cl[i]);
	sock_reap_idle(s);
}

unsigned int
ibex_sock_fds(const struct ibex_sock *s, struct pollfd *pfd, unsigned int max,
	      bool *more)
{
	unsigned int i, n = 0;

	*more = ibex_running_reload_pending();
	if (s->lfd < 0 || max == 0)
		return 0;
	pfd[n++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	for (i = 0; i < SOCK_MAX_CLIENTS && n < max; i++) {
		const struct sock_client *c = &s->cl[i];

		if (c->fd < 0)
			continue;
		/* Waiting for a capture: only its end (the timer) or the
		 * client leaving matter; once it left, or with its buffer
		 * full, its fd would only spin the loop. */
		if (c->cap_wait != 0) {
			bool full = c->in_len == sizeof(c->in) - 1;

			pfd[n++] = (struct pollfd){
				.fd = c->eof || full ? -1 : c->fd,
				.events = POLLIN };
			continue;
		}
		/* A whole line already read (a client past its per-tick
		 * budget, or one whose last line has no newline) is work
		 * no fd will announce. */
		if (c->out.len == 0 && (c->eof ||
		    memchr(c->in, '\n', c->in_len) != NULL))
			*more = true;
		pfd[n++] = (struct pollfd){ .fd = c->fd,
			.events = c->out.len > 0 ? POLLOUT : POLLIN };
	}
	return n;
}

/* ---- life cycle ---- */

static int
sock_choose_path(struct ibex_sock *s, const struct ibex_sock_params *p)
{
	const char *path = p->path != NULL ? p->path : p->conf->ctl_socket;

	/* --ctl-socket "" or none: no socket. In the config "" is "not
	 * given", so the default; a literal "none" is none there too. */
	if ((p->path != NULL && path[0] == '\0') || strcmp(path, "none") == 0) {
		s->path[0] = '\0';
		return 0;
	}
	if (path[0] == '\0')
		return ibex_sock_default_path(s->path, sizeof(s->path));
	if (strlen(path) >= sizeof(s->path))
		return -ENAMETOOLONG;
	snprintf(s->path, sizeof(s->path), "%s", path);
	return 0;
}

/* IBEX_CTL_IDLE_TIMEOUT_S shortens the idle timeout for tests. */
static uint64_t
sock_idle_timeout(void)
{
	const char *e = getenv("IBEX_CTL_IDLE_TIMEOUT_S");
	char *end;
	long v;

	if (e == NULL || *e == '\0')
		return SOCK_IDLE_TIMEOUT_MS;
	v = strtol(e, &end, 10);
	if (*end != '\0' || v <= 0 || v > 86400) {
		RTE_LOG(WARNING, IBEX_SOCK, "IBEX_CTL_IDLE_TIMEOUT_S='%s' is not "
			"a number of seconds (1-86400): ignored\n", e);
		return SOCK_IDLE_TIMEOUT_MS;
	}
	return (uint64_t)v * 1000;
}

int
ibex_sock_create(struct ibex_sock **sp, const struct ibex_sock_params *p,
		 char *err, size_t errlen)
{
	struct ibex_sock *s;
	unsigned int i;
	int ret;

	err[0] = '\0';
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->lfd = -1;
	s->idle_timeout_ms = sock_idle_timeout();
	for (i = 0; i < SOCK_MAX_CLIENTS; i++)
		s->cl[i].fd = -1;
	s->dp = p->dp;
	ret = ibex_running_create(&s->run, s->dp, p->conf, p->config_path);
	if (ret < 0)
		goto fail;
	s->conf = ibex_running_conf(s->run);
	ret = ibex_rates_create(&s->rates, s->dp);
	if (ret < 0)
		goto fail;
	ret = sock_choose_path(s, p);
	if (ret < 0) {
		snprintf(err, errlen, "control socket path too long (max %zu "
			 "characters)", sizeof(s->path) - 1);
		goto fail;
	}
	if (s->path[0] != '\0') {
		ret = sock_listen(s, err, errlen);
		if (ret < 0)
			goto fail;
		/* Scripts and units wait for this line (or the notify
		 * readiness) rather than polling for the file. */
		RTE_LOG(NOTICE, IBEX_SOCK, "listening on %s\n", s->path);
	}
	/* Telemetry's topics read the running config under its lock. */
	if (ibex_telemetry_set_running(s->dp, s->run) < 0)
		RTE_LOG(WARNING, IBEX_SOCK, "telemetry: too many switches; "
			"the topics of this one are not answered\n");
	*sp = s;
	return 0;
fail:
	ibex_sock_destroy(s);
	return ret;
}

void
ibex_sock_destroy(struct ibex_sock *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	for (i = 0; i < SOCK_MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			client_close(&s->cl[i]);
	if (s->lfd >= 0) {
		close(s->lfd);
		unlink(s->path);
	}
	/* Telemetry keeps its commands: they must find nothing freed. */
	if (s->dp != NULL)
		ibex_telemetry_set_running(s->dp, NULL);
	ibex_out_free(&s->body);
	ibex_rates_free(s->rates);
	ibex_running_destroy(s->run);
	free(s);
}
