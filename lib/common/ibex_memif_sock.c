/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibex_memif_sock.h"

/* The value of "key=" after the device name of @p args, or NULL. */
static const char *
memif_arg(const char *args, const char *key, size_t *vlen)
{
	size_t klen = strlen(key);
	const char *p = strchr(args, ',');

	while (p != NULL) {
		p++;
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			*vlen = strcspn(p + klen + 1, ",");
			return p + klen + 1;
		}
		p = strchr(p, ',');
	}
	return NULL;
}

static bool
arg_is(const char *v, size_t n, const char *want)
{
	return v != NULL && n == strlen(want) && strncmp(v, want, n) == 0;
}

static int
put(char *out, size_t len, const char *fmt, const char *a, const char *b)
{
	int n = snprintf(out, len, fmt, a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int
ibex_memif_devargs(const char *devargs, const char *dir, char *out,
		   size_t len)
{
	const char *sock, *abs, *role;
	size_t sn = 0, an = 0, rn = 0;
	int ret;

	if (strncmp(devargs, "net_memif", 9) != 0)
		return put(out, len, "%s%s", devargs, "") < 0 ?
		       -ENAMETOOLONG : IBEX_MEMIF_KEEP;
	sock = memif_arg(devargs, "socket", &sn);
	abs = memif_arg(devargs, "socket-abstract", &an);
	role = memif_arg(devargs, "role", &rn);
	if (abs != NULL && !arg_is(abs, an, "no")) {
		if (put(out, len, "%s%s", devargs, "") < 0)
			return -ENAMETOOLONG;
		/* A client dialling an abstract server: the server's risk. */
		return role == NULL || arg_is(role, rn, "server") ?
		       IBEX_MEMIF_ABSTRACT : IBEX_MEMIF_KEEP;
	}
	if (sock == NULL || sn == 0) {
		char path[108];

		if (dir == NULL)
			return -ENOENT;
		if (snprintf(path, sizeof(path), "%s/%.*s.sock", dir,
			     (int)strcspn(devargs, ","), devargs) >=
		    (int)sizeof(path))
			return -ENAMETOOLONG;
		/* An empty socket= is DPDK's default too: replaced by ours
		 * (a later key wins in DPDK's kvargs). */
		ret = put(out, len, abs == NULL ?
			  "%s,socket=%s,socket-abstract=no" : "%s,socket=%s",
			  devargs, path);
		return ret < 0 ? ret : IBEX_MEMIF_DEFAULT;
	}
	if (abs == NULL) {
		ret = put(out, len, "%s%s", devargs, ",socket-abstract=no");
		return ret < 0 ? ret : IBEX_MEMIF_FILE;
	}
	return put(out, len, "%s%s", devargs, "") < 0 ? -ENAMETOOLONG :
	       IBEX_MEMIF_KEEP;
}

/* mkdir @p path with mode 0700 unless it exists. */
static int
make_dir(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int
ibex_memif_dir(char *buf, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("IBEX_MEMIF_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	uid_t uid = geteuid();
	char parent[4096];
	struct stat st;
	char *slash;
	int n, ret;

	err[0] = '\0';
	if (env != NULL && env[0] != '\0')
		n = snprintf(buf, len, "%s", env);
	else if (uid == 0)
		n = snprintf(buf, len, "/run/ibex/memif");
	else if (xdg != NULL && xdg[0] == '/')
		n = snprintf(buf, len, "%s/ibex/memif", xdg);
	else
		n = snprintf(buf, len, "/tmp/ibex-%u/memif", (unsigned int)uid);
	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(parent)) {
		snprintf(err, errlen, "memif socket directory: path too long");
		return -ENAMETOOLONG;
	}
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	memcpy(parent, buf, (size_t)n + 1);
	slash = strrchr(parent, '/');
	if (slash == NULL || slash == parent) {
		snprintf(err, errlen, "%s: memif socket directory needs a "
			 "parent directory", buf);
		return -EINVAL;
	}
	*slash = '\0';
	ret = make_dir(parent);
	if (ret == 0)
		ret = make_dir(buf);
	if (ret < 0) {
		snprintf(err, errlen, "%s: cannot make the memif socket "
			 "directory: %s", buf, strerror(-ret));
		return ret;
	}
	if (lstat(parent, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    (st.st_uid != uid && st.st_uid != 0) || (st.st_mode & 022) != 0) {
		snprintf(err, errlen, "%s: refusing it for memif sockets: not a "
			 "directory owned by uid %u or root that only its owner "
			 "may write", parent, (unsigned int)uid);
		return -EPERM;
	}
	if (lstat(buf, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & 077) != 0) {
		snprintf(err, errlen, "%s: refusing it for memif sockets: not a "
			 "directory of uid %u that only its owner may enter "
			 "(mode 0700)", buf, (unsigned int)uid);
		return -EPERM;
	}
	return 0;
}

int
ibex_memif_fix_argv(int argc, char **argv, const char *prog)
{
	char dir[256], out[1024], err[512];
	bool have_dir = false;
	int i, k, ret;
	char **slot;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc) {
			slot = &argv[++i];
			k = 0;
		} else if (strncmp(argv[i], "--vdev=", 7) == 0) {
			slot = &argv[i];
			k = 7;
		} else {
			continue;
		}
		ret = ibex_memif_devargs(*slot + k, have_dir ? dir : NULL,
					 out, sizeof(out));
		if (ret == -ENOENT) {
			ret = ibex_memif_dir(dir, sizeof(dir), err, sizeof(err));
			if (ret < 0) {
				fprintf(stderr, "%s: %s\n", prog, err);
				return ret;
			}
			have_dir = true;
			ret = ibex_memif_devargs(*slot + k, dir, out,
						 sizeof(out));
		}
		if (ret < 0) {
			fprintf(stderr, "%s: --vdev %s: %s\n", prog, *slot + k,
				strerror(-ret));
			return ret;
		}
		if (ret == IBEX_MEMIF_ABSTRACT)
			fprintf(stderr, "%s: WARNING: --vdev %s: an abstract "
				"memif socket has no permissions: any local "
				"process in this network namespace can attach "
				"to the port and send into the switch (on an "
				"fc credit port, grant credits). Drop "
				"socket-abstract=yes for a socket file in a "
				"directory only this user may enter "
				"(docs/configuration.md, memif sockets)\n",
				prog, *slot + k);
		if (ret == IBEX_MEMIF_KEEP || ret == IBEX_MEMIF_ABSTRACT)
			continue;
		if (ret == IBEX_MEMIF_DEFAULT)
			fprintf(stderr, "%s: %.*s: memif socket %s/%.*s.sock\n",
				prog, (int)strcspn(*slot + k, ","), *slot + k,
				dir, (int)strcspn(*slot + k, ","), *slot + k);
		/* Keep the "--vdev=" form if it was given so. */
		if (k > 0) {
			char *s = malloc(k + strlen(out) + 1);

			if (s == NULL)
				return -ENOMEM;
			memcpy(s, *slot, k);
			strcpy(s + k, out);
			*slot = s;
		} else {
			*slot = strdup(out);
			if (*slot == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}
