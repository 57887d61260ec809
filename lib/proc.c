/*
 * proc.c: run one child the careful way.  argv, never a shell; stdin is
 * /dev/null so nothing can ever prompt for or read a password; stdout and
 * stderr to a file; its own process group, so that a timeout or a ^C ends the
 * profiler and everything it started, and nothing is left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_proc.h"

extern char **environ;

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

/*
 * An ignored signal stays ignored: nohup kp-collect ... must outlive the logout,
 * and a shell starts a background job with SIGINT ignored so that ^C spares it.
 */
void
kp_catch_signals(void (*handler)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

void
kp_proc_catch_signals(void)
{
	kp_catch_signals(on_signal);
}

int
kp_proc_interrupted(void)
{
	return got_signal != 0;
}

int
kp_proc_signal(void)
{
	return got_signal;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *
kp_find_program(const char *name)
{
	const char *path, *p, *e;
	char *cand;
	size_t n;

	if (name == NULL || *name == '\0')
		return NULL;
	if (strchr(name, '/') != NULL)
		return is_exec_file(name) ? strdup(name) : NULL;
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/bin:/bin";
	for (p = path;; p = e + 1) {
		e = strchr(p, ':');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if ((cand = malloc(n + strlen(name) + 3)) == NULL)
			return NULL;
		if (n == 0)
			sprintf(cand, "./%s", name);
		else
			sprintf(cand, "%.*s/%s", (int)n, p, name);
		if (is_exec_file(cand))
			return cand;
		free(cand);
		if (e == NULL)
			return NULL;
	}
}

/* environ plus the target's variables (replacing those of the same name). */
static char **
build_env(json_t *env)
{
	size_t n = 0, i, k = 0, extra;
	char **ev;
	const char *key;
	json_t *val;

	while (environ[n] != NULL)
		n++;
	extra = json_is_object(env) ? json_object_size(env) : 0;
	if ((ev = calloc(n + extra + 1, sizeof(*ev))) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		int replaced = 0;
		if (extra > 0) {
			json_object_foreach(env, key, val) {
				size_t kl = strlen(key);
				if (strncmp(environ[i], key, kl) == 0 && environ[i][kl] == '=')
					replaced = 1;
			}
		}
		if (!replaced)
			ev[k++] = environ[i];
	}
	if (extra > 0) {
		json_object_foreach(env, key, val) {
			const char *s = json_is_string(val) ? json_string_value(val) : "";
			char *kv = malloc(strlen(key) + strlen(s) + 2);
			if (kv == NULL)
				continue;
			sprintf(kv, "%s=%s", key, s);
			ev[k++] = kv;
		}
	}
	ev[k] = NULL;
	return ev;
}

static void
free_env(char **ev)
{
	size_t i, n = 0;

	if (ev == NULL)
		return;
	while (environ[n] != NULL)
		n++;
	/* Only the strings we allocated: those not in environ. */
	for (i = 0; ev[i] != NULL; i++) {
		size_t j;
		int ours = 1;
		for (j = 0; j < n; j++)
			if (ev[i] == environ[j]) {
				ours = 0;
				break;
			}
		if (ours)
			free(ev[i]);
	}
	free(ev);
}

static _Noreturn void
child(const struct kp_proc *p, char **ev, int outfd, int errpipe)
{
	int fd, e;
	sigset_t none;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		dup2(fd, 0);
		if (fd != 0)
			close(fd);
	}
	dup2(outfd, 1);
	dup2(outfd, 2);
	if (outfd > 2)
		close(outfd);
	if (p->cwd != NULL && *p->cwd != '\0' && chdir(p->cwd) < 0)
		goto fail;
	if (ev != NULL)
		environ = ev;
	execvp(p->argv[0], (char *const *)p->argv);
fail:
	e = errno;
	if (write(errpipe, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* SIGTERM to the group, up to grace seconds for the child, then SIGKILL. */
static void
end_group(pid_t pid, int *status, double grace)
{
	double t0 = now_s();
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	kill(-pid, SIGTERM);
	kill(-pid, SIGCONT);
	while (now_s() - t0 < grace) {
		if (waitpid(pid, status, WNOHANG) == pid) {
			kill(-pid, SIGKILL);
			return;
		}
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

int
kp_proc_run(const struct kp_proc *p, struct kp_proc_result *r, struct kp_err *err)
{
	int outfd, pp[2], status = 0, e, n;
	char **ev = NULL;
	pid_t pid, w;
	double t0;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	memset(r, 0, sizeof(*r));
	outfd = open(p->out_path != NULL ? p->out_path : "/dev/null",
	    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (outfd < 0)
		return kp_errno(err, KP_EXIT_ENV, p->out_path != NULL ? p->out_path : "/dev/null");
	if (pipe(pp) < 0) {
		close(outfd);
		return kp_errno(err, KP_EXIT_ENV, "pipe");
	}
	fcntl(pp[0], F_SETFD, FD_CLOEXEC);
	fcntl(pp[1], F_SETFD, FD_CLOEXEC);
	if (p->env != NULL && (ev = build_env(p->env)) == NULL) {
		close(outfd);
		close(pp[0]);
		close(pp[1]);
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	t0 = now_s();
	if ((pid = fork()) < 0) {
		e = errno;
		close(outfd);
		close(pp[0]);
		close(pp[1]);
		free_env(ev);
		errno = e;
		return kp_errno(err, KP_EXIT_ENV, "fork");
	}
	if (pid == 0) {
		int outdup = fcntl(outfd, F_DUPFD, 3);	/* without O_CLOEXEC */
		close(pp[0]);
		child(p, ev, outdup >= 0 ? outdup : outfd, pp[1]);
	}
	setpgid(pid, pid);
	close(outfd);
	close(pp[1]);
	free_env(ev);
	n = (int)read(pp[0], &e, sizeof(e));
	close(pp[0]);
	if (n == (int)sizeof(e))
		r->exec_errno = e;
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (got_signal) {
			r->interrupted = 1;
			end_group(pid, &status, 2.0);
			break;
		}
		if (p->timeout_s > 0 && now_s() - t0 >= p->timeout_s) {
			r->timed_out = 1;
			end_group(pid, &status, 2.0);
			break;
		}
		nanosleep(&ts, NULL);
	}
	/* Anything the child started and left in its group goes too. */
	kill(-pid, SIGKILL);
	/* A signal that reached ncu too (systemd stops the whole cgroup, ^C the
	 * terminal's group) may end it first, even with exit 0 and a CSV: the pass
	 * was interrupted all the same, not complete. */
	if (got_signal)
		r->interrupted = 1;
	r->duration_s = now_s() - t0;
	if (WIFEXITED(status)) {
		r->exited = 1;
		r->exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
	}
	return 0;
}

char *
kp_proc_capture(const char *const *argv, const char *tmpdir, double timeout_s)
{
	struct kp_proc p;
	struct kp_proc_result res;
	struct kp_err err;
	char *tmp = kp_path_join(tmpdir, ".kp-helper.out"), *text = NULL;

	if (tmp == NULL)
		return NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.out_path = tmp;
	p.timeout_s = timeout_s;
	if (kp_proc_run(&p, &res, &err) == 0 && res.exec_errno == 0 && res.exited &&
	    res.exit_status == 0)
		text = kp_read_file(tmp, NULL, &err);
	unlink(tmp);
	free(tmp);
	return text;
}
