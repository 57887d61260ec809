/* diag.c: error values for the library, messages and exits for programs. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_atomic.h"
#include "kp_diag.h"

static const char *progname = "kp";

int
kp_errf(struct kp_err *err, int status, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int
kp_errno(struct kp_err *err, int status, const char *what)
{
	return kp_errf(err, status, "%s: %s", what, strerror(errno));
}

void
kp_setprogname(const char *argv0)
{
	const char *p;

	if (argv0 == NULL || *argv0 == '\0')
		return;
	p = strrchr(argv0, '/');
	progname = p ? p + 1 : argv0;
}

const char *
kp_progname(void)
{
	return progname;
}

void
kp_vwarn(const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);
	int saved = errno;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
kp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kp_vwarn(fmt, ap);
	va_end(ap);
}

void
kp_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kp_vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

void
kp_die_err(const struct kp_err *err)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", progname, err->msg);
	exit(err->status ? err->status : KP_EXIT_DATA);
}

char *
kp_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	return p;
}

int
kp_close_stdout(void)
{
	int bad = 0;

	if (fflush(stdout) != 0 || ferror(stdout))
		bad = 1;
	if (fclose(stdout) != 0)
		bad = 1;
	if (bad) {
		kp_warn("write error on standard output:");
		return -1;
	}
	return 0;
}

void
kp_print_version(void)
{
	printf("%s (kp) %s\n", progname, KP_VERSION);
}

/* ---- the command contract: the same -h, --version, usage errors and exit in
 * every program ---- */

static const char *synopsis = "";

void
kp_init(const char *argv0, const char *usage_text)
{
	kp_setprogname(argv0);
	synopsis = usage_text;
	kp_tmp_clean_on_signals();	/* no program leaves a temporary on ^C */
}

void
kp_exit(int status)
{
	if (kp_close_stdout() < 0)
		exit(KP_EXIT_ENV);
	exit(status);
}

void
kp_usage(int status)
{
	if (status == KP_EXIT_OK) {
		fputs(synopsis, stdout);
		kp_exit(KP_EXIT_OK);
	}
	fputs(synopsis, stderr);
	exit(status);
}

void
kp_version(void)
{
	kp_print_version();
	kp_exit(KP_EXIT_OK);
}

int
kp_getopt(int argc, char *const argv[], const char *optstring,
    const struct option *longopts)
{
	int c = getopt_long(argc, argv, optstring, longopts, NULL);

	if (c == 'h')
		kp_usage(KP_EXIT_OK);
	if (c == KP_OPT_VERSION)
		kp_version();
	if (c == '?' || c == ':')
		kp_usage(KP_EXIT_USAGE);
	return c;
}

int
kp_strtonum(const char *s, long long min, long long max, long long *out,
    struct kp_err *err)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0')
		return kp_errf(err, KP_EXIT_USAGE, "empty number");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		return kp_errf(err, KP_EXIT_USAGE, "\"%s\" is not a whole number", s);
	if (errno == ERANGE || v < min || v > max)
		return kp_errf(err, KP_EXIT_USAGE, "%s is out of range (%lld to %lld)", s, min, max);
	*out = v;
	return 0;
}
