/* plot_run.c: find gnuplot, run it without a shell, check what it drew. */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_plot.h"

#define INSTALL "install it (apt-get install gnuplot-nox)"

static int
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* path made absolute against the current folder (gnuplot runs elsewhere). */
static char *
absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return strdup(path);
	return kp_path_join(cwd, path);
}

char *
kp_plot_find_gnuplot(struct kp_err *err)
{
	const char *env = getenv("KP_GNUPLOT"), *path, *p, *e;
	char *cand;

	if (env != NULL && *env != '\0') {
		if (strchr(env, '/') != NULL) {
			if (executable(env))
				return absolute(env);
			kp_errf(err, KP_EXIT_ENV, "gnuplot not found (KP_GNUPLOT=%s): " INSTALL, env);
			return NULL;
		}
	} else
		env = "gnuplot";
	path = getenv("PATH");
	for (p = path ? path : ""; path != NULL; p = e + 1) {
		size_t n;
		char dir[PATH_MAX];

		e = strchr(p, ':');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || n >= sizeof dir)
			snprintf(dir, sizeof dir, ".");
		else
			snprintf(dir, sizeof dir, "%.*s", (int)n, p);
		if ((cand = kp_path_join(dir, env)) != NULL) {
			if (executable(cand)) {
				char *a = absolute(cand);

				free(cand);
				return a;
			}
			free(cand);
		}
		if (e == NULL)
			break;
	}
	if (strcmp(env, "gnuplot") == 0)
		kp_errf(err, KP_EXIT_ENV, "gnuplot not found: " INSTALL);
	else
		kp_errf(err, KP_EXIT_ENV, "gnuplot not found (KP_GNUPLOT=%s): " INSTALL, env);
	return NULL;
}

/* gnuplot's single-quoted string: a quote is doubled. */
static char *
gp_assign(const char *var, const char *val)
{
	size_t n = strlen(var) + 4 + 2 * strlen(val) + 1, i = 0;
	char *s = malloc(n);

	if (s == NULL)
		return NULL;
	i = (size_t)snprintf(s, n, "%s='", var);
	for (; *val; val++) {
		if (*val == '\'')
			s[i++] = '\'';
		s[i++] = *val;
	}
	s[i++] = '\'';
	s[i] = '\0';
	return s;
}

int
kp_plot_run(const char *gnuplot, const char *visdir, const char *script, const char *out,
    struct kp_err *err)
{
	char *assign = gp_assign("kp_output", out);
	char *argv[5];
	pid_t pid;
	int st, fd;

	if (assign == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	argv[0] = "gnuplot";
	argv[1] = "-e";
	argv[2] = assign;
	argv[3] = (char *)script;
	argv[4] = NULL;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		free(assign);
		return kp_errno(err, KP_EXIT_ENV, "fork");
	}
	if (pid == 0) {
		/* gnuplot's own chatter must not reach the records on stdout. */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
			dup2(fd, STDIN_FILENO);
			if (fd != STDIN_FILENO)
				close(fd);
		}
		if (chdir(visdir) < 0)
			_exit(126);
		execv(gnuplot, argv);
		_exit(127);
	}
	free(assign);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return kp_errno(err, KP_EXIT_ENV, "waitpid");
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		return kp_errf(err, KP_EXIT_ENV, "%s: killed by signal %d", gnuplot, WTERMSIG(st));
	if (WEXITSTATUS(st) == 127)
		return kp_errf(err, KP_EXIT_ENV, "%s: cannot be run", gnuplot);
	if (WEXITSTATUS(st) == 126)
		return kp_errf(err, KP_EXIT_ENV, "%s: cannot enter the folder", visdir);
	return kp_errf(err, KP_EXIT_ENV, "%s failed (exit status %d)", gnuplot, WEXITSTATUS(st));
}

static unsigned long
be32(const unsigned char *b)
{
	return (unsigned long)b[0] << 24 | (unsigned long)b[1] << 16 | (unsigned long)b[2] << 8 |
	    b[3];
}

int
kp_plot_check_image(const char *path, const char *format, long *width, long *height,
    struct kp_err *err)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char b[512];
	size_t n;
	FILE *fp = fopen(path, "rb");

	if (fp == NULL)
		return kp_errno(err, KP_EXIT_ENV, path);
	n = fread(b, 1, sizeof b - 1, fp);
	fclose(fp);
	if (n == 0)
		return kp_errf(err, KP_EXIT_ENV, "%s: gnuplot drew an empty file", path);
	if (strcmp(format, "svg") == 0) {
		b[n] = '\0';
		if (strstr((char *)b, "<svg") == NULL)
			return kp_errf(err, KP_EXIT_ENV, "%s: not an SVG document", path);
		return 0;
	}
	/* signature, then the IHDR chunk: length 13, "IHDR", width, height */
	if (n < 24 || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0)
		return kp_errf(err, KP_EXIT_ENV, "%s: not a PNG image", path);
	if (width != NULL)
		*width = (long)be32(b + 16);
	if (height != NULL)
		*height = (long)be32(b + 20);
	return 0;
}
