/*
 * iofloor IN DIR SIZE...: the system's floor under a kp run that reads IN
 * and writes files of the given sizes: read IN with read(2) in 256 KiB
 * steps (adding its bytes, so that they are looked at), then for each SIZE
 * write DIR/.iofloor.N.tmp in 64 KiB steps and rename(2) it to
 * DIR/iofloor.N, as kp writes its outputs.  tests/bench/run.sh times it
 * beside kp-extract on the small fixture: no program that reads and writes
 * those bytes through the same calls can start and end faster here.
 * Exit status 0, 1 on an I/O error, 2 on bad usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[256 * 1024];

int
main(int argc, char **argv)
{
	char tmp[4096], dst[4096];
	unsigned long sum = 0;
	ssize_t n;
	int fd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: iofloor in dir [size ...]\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t k = 0; k < n; k += 64)
			sum += (unsigned char)buf[k];
	close(fd);
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 'x' + (int)(sum & 1), sizeof buf);
	for (i = 3; i < argc; i++) {
		long left = strtol(argv[i], NULL, 10);

		snprintf(tmp, sizeof tmp, "%s/.iofloor.%d.tmp", argv[2], i - 3);
		snprintf(dst, sizeof dst, "%s/iofloor.%d", argv[2], i - 3);
		if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
			perror(tmp);
			return 1;
		}
		while (left > 0) {
			size_t w = left < 65536 ? (size_t)left : 65536;

			if (write(fd, buf, w) != (ssize_t)w) {
				perror(tmp);
				return 1;
			}
			left -= (long)w;
		}
		if (close(fd) != 0 || rename(tmp, dst) != 0) {
			perror(dst);
			return 1;
		}
	}
	return 0;
}
