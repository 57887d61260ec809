/*
 * fuzz_file.h: for loaders that take a path, write each input to one temporary
 * file (made once per process, removed at exit) and return its path.
 */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_path[64];

static void
fuzz_unlink(void)
{
	if (fuzz_path[0] != '\0')
		unlink(fuzz_path);
}

static const char *
fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	FILE *fp;

	if (fuzz_path[0] == '\0') {
		int fd;

		snprintf(fuzz_path, sizeof(fuzz_path), "/tmp/kp-fuzz-XXXXXX%s", suffix);
		if ((fd = mkstemps(fuzz_path, (int)strlen(suffix))) == -1)
			abort();
		close(fd);
		atexit(fuzz_unlink);
	}
	if ((fp = fopen(fuzz_path, "w")) == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, fp) != size)
		abort();
	if (fclose(fp) != 0)
		abort();
	return fuzz_path;
}

#endif
