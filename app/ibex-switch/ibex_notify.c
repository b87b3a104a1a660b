/* SPDX-License-Identifier: BSD-3-Clause */
/* sd_notify's protocol without libsystemd (ibex_notify.h). */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ibex_notify.h"

int
ibex_notify(const char *state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	size_t n;
	ssize_t sent;
	int fd, ret = 0;

	if (path == NULL || path[0] == '\0')
		return 1;
	n = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';  /* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		      (struct sockaddr *)&sa,
		      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	if (sent < 0)
		ret = -errno;
	close(fd);
	return ret;
}
