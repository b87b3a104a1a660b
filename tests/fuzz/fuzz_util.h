/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the text harnesses: the input as a file the parser
 * opens by path (a memfd, so nothing touches the disk), and the input as
 * NUL-terminated lines.
 */
#ifndef IBEX_FUZZ_UTIL_H
#define IBEX_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Write @p data to a fresh memfd; its path goes to @p path.
 * @return the fd (close it after use) or -1. */
static inline int
fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("ibex-fuzz", MFD_CLOEXEC);
	size_t off = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (off < size) {
		n = write(fd, data + off, size - off);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The input as one NUL-terminated string (cut at its first NUL, as a C
 * caller would see it). Free it. */
static inline char *
fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif /* IBEX_FUZZ_UTIL_H */
