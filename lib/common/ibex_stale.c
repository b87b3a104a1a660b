/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ibex_stale.h"

/* DPDK's memif default (drivers/net/memif: ETH_MEMIF_DEFAULT_SOCKET_FILENAME). */
#define MEMIF_DEFAULT_SOCKET "/run/memif.sock"

/* 0 when something accepts a connection at @p sa, else -errno. */
static int
probe(const struct sockaddr_un *sa, int type)
{
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return -errno;
	ret = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ?
	      -errno : 0;
	close(fd);
	return ret;
}

/*
 * Whether a socket listening on @p path is in /proc/net/unix (this
 * network namespace's unix sockets): 1 yes, 0 no, -errno. It asks without
 * connecting, which matters for memif: a connection that goes without a
 * handshake makes DPDK's memif server abort.
 */
static int
listed_listening(const char *path)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512], name[256];
	unsigned long flags;
	int found = 0;

	if (f == NULL)
		return -errno;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags,
			   name) != 2)
			continue;
		found = (flags & 0x10000) != 0 && strcmp(name, path) == 0;
	}
	fclose(f);
	return found;
}

int
ibex_stale_socket_clear(const char *path, bool connect_probe, char *err,
			size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int ret;

	err[0] = '\0';
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: path too long for a socket", path);
		return -ENAMETOOLONG;
	}
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket", path);
		return -EEXIST;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect_probe) {
		ret = probe(&sa, SOCK_STREAM);
	} else {
		ret = listed_listening(path);
		if (ret == 1)
			ret = 0;
		else if (ret == 0)
			ret = -ECONNREFUSED;
	}
	if (ret == 0 || ret == -EAGAIN) { /* EAGAIN: its backlog is full */
		snprintf(err, errlen, "%s: another process is listening there",
			 path);
		return -EADDRINUSE;
	}
	if (ret != -ECONNREFUSED) {
		snprintf(err, errlen, "%s: cannot tell whether a process "
			 "listens there: %s", path, strerror(-ret));
		return ret;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		ret = -errno;
		snprintf(err, errlen, "%s: stale socket, cannot remove it: %s",
			 path, strerror(errno));
		return ret;
	}
	snprintf(err, errlen, "%s: removed a stale socket (no process "
		 "listened on it: left by a process that was killed)", path);
	return 1;
}

/* The value of "key=" in a devargs string, as a pointer and length. */
static bool
devarg(const char *args, const char *key, const char **val, size_t *len)
{
	size_t klen = strlen(key);
	const char *p = strchr(args, ',');

	while (p != NULL) {
		p++;
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			*val = p + klen + 1;
			*len = strcspn(*val, ",");
			return true;
		}
		p = strchr(p, ',');
	}
	return false;
}

static bool
devarg_is(const char *args, const char *key, const char *want, bool dflt)
{
	const char *v;
	size_t n;

	if (!devarg(args, key, &v, &n))
		return dflt;
	return n == strlen(want) && strncmp(v, want, n) == 0;
}

int
ibex_vdev_server_socket(const char *devargs, char *path, size_t len)
{
	const char *v;
	size_t n;

	if (strncmp(devargs, "net_vhost", 9) == 0) {
		/* vhost-user: a server unless client=1; the path is iface=.
		 * The vhost library does not remove an old file itself. */
		if (devarg_is(devargs, "client", "1", false) ||
		    !devarg(devargs, "iface", &v, &n))
			return 0;
	} else if (strncmp(devargs, "net_memif", 9) == 0) {
		if (!devarg_is(devargs, "role", "server", true))
			return 0;
		if (!devarg_is(devargs, "socket-abstract", "no", false))
			return 0;
		if (!devarg(devargs, "socket", &v, &n)) {
			v = MEMIF_DEFAULT_SOCKET;
			n = strlen(v);
		}
	} else {
		return 0;
	}
	if (n == 0)
		return 0;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(path, v, n);
	path[n] = '\0';
	return 1;
}
