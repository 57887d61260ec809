/*
 * timeit CMD [ARG...]: run CMD with its standard output on /dev/null and
 * print its wall time in seconds (from fork to its exit, in nanoseconds)
 * and its peak RSS in KiB, "0.012345 7812".  Exit status 1 when CMD fails
 * (its stderr is passed on), 2 when it cannot be run.  tests/bench/run.sh
 * runs kp and its peers by turns through this, so that a slow minute of a
 * shared machine falls on both sides of a ratio.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int st, fd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: timeit cmd [arg ...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) < 0) {
		perror("timeit: fork");
		return 2;
	}
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 1);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("timeit: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.6f %ld\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	    ru.ru_maxrss);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
