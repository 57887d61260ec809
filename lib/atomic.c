/*
 * atomic.c: the one way kp writes an output file.
 *
 * A regular file, or a path that does not exist yet, appears whole or not at all:
 * a temporary in the same folder, then rename().
 *
 * An output the user named (-o FILE, KP_OUT_NAMED): a symbolic link is followed to
 * its target (the target is replaced, the link stays); a device, FIFO or socket
 * (-o /dev/null, -o /dev/stdout, a named pipe) is opened and written in place:
 * renaming a temporary over /dev/null as root replaced the device.
 *
 * A name kp derives inside a profile folder (KP_OUT_DERIVED: details/..., visual/
 * ...): whatever stands there is replaced, a link included.  Nobody chose that
 * link; whoever could write the folder planted it, and root writing through it is
 * the classic symlink attack (tests/cli/inject-planted-symlinks).
 * The data is flushed to the kernel, not to the disk: fsync() costs 1-2 ms a
 * file on a virtual disk, several times what writing the file takes, and a
 * profile is re-created from ncu's CSV after a power cut.  KP_FSYNC=1 in the
 * environment syncs each file before its rename (kp(7)).
 *
 * For the same reason the old file is unlinked just before the rename: ext4
 * (auto_da_alloc) writes a new file's blocks out when it is renamed over an
 * existing one, and kp-extract waited 30-45 ms for its 15 MB into a folder
 * it had filled before.  So for a moment the name is absent; it is never
 * partial.  With KP_FSYNC=1 the rename replaces the file as before.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_proc.h"

/*
 * The temporaries that exist now, for a signal: SIGINT, SIGTERM or SIGHUP in the
 * middle of a write removes them and exits 128+n (kp_init installs it in every
 * program; kp-collect replaces it by its own, which finishes the manifest).
 * The handler only reads the slots and calls unlink() and _exit(), both
 * async-signal-safe; a slot is filled and emptied with the signals blocked.
 */
#define TMP_SLOTS 64
static char *volatile tmp_slot[TMP_SLOTS];

static void
block(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigprocmask(SIG_BLOCK, &s, old);
}

void
kp_tmp_register(const char *path)
{
	char *p = strdup(path);
	sigset_t old;
	size_t i;

	if (p == NULL)
		return;
	block(&old);
	for (i = 0; i < TMP_SLOTS && tmp_slot[i] != NULL; i++)
		;
	if (i < TMP_SLOTS)
		tmp_slot[i] = p;
	else
		free(p);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void
kp_tmp_forget(const char *path)
{
	sigset_t old;
	char *p = NULL;
	size_t i;

	block(&old);
	for (i = 0; i < TMP_SLOTS; i++)
		if (tmp_slot[i] != NULL && strcmp(tmp_slot[i], path) == 0) {
			p = tmp_slot[i];
			tmp_slot[i] = NULL;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(p);
}

static void
on_signal(int sig)
{
	size_t i;

	for (i = 0; i < TMP_SLOTS; i++)
		if (tmp_slot[i] != NULL)
			unlink(tmp_slot[i]);
	_exit(128 + sig);
}

void
kp_tmp_clean_on_signals(void)
{
	kp_catch_signals(on_signal);
}

/* dir of path joined with a symbolic link's relative target. */
static char *
beside(const char *path, const char *target)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0, lt = strlen(target);
	char *s;

	if (target[0] == '/' || n == 0)
		return strdup(target);
	if ((s = malloc(n + lt + 1)) == NULL)
		return NULL;
	memcpy(s, path, n);
	memcpy(s + n, target, lt + 1);
	return s;
}

int
kp_out_resolve(const char *path, int how, char **real, int *direct, mode_t *mode,
    struct kp_err *err)
{
	struct stat st;
	char *cur, *next, link[PATH_MAX];
	ssize_t n;
	int hops, exists = 1;

	*real = NULL;
	*direct = 0;
	if (mode != NULL)
		*mode = 0644;
	if ((cur = strdup(path)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	if (how != KP_OUT_NAMED) {
		/* A name kp chose inside its own folder: whatever stands there
		 * (a planted link, a FIFO) is replaced, never written through. */
		if (lstat(cur, &st) == 0 && S_ISDIR(st.st_mode)) {
			kp_errf(err, KP_EXIT_ENV, "%s: is a directory", path);
			free(cur);
			return -1;
		}
		if (mode != NULL && lstat(cur, &st) == 0 && S_ISREG(st.st_mode))
			*mode = st.st_mode & 0777;
		*real = cur;
		return 0;
	}
	for (hops = 0;; hops++) {
		if (lstat(cur, &st) != 0) {
			if (errno == ENOENT) {	/* a new file (or a dangling link's target) */
				exists = 0;
				break;
			}
			kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
			free(cur);
			return -1;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == 40) {
			kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(ELOOP));
			free(cur);
			return -1;
		}
		if ((n = readlink(cur, link, sizeof link - 1)) < 0) {
			kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
			free(cur);
			return -1;
		}
		link[n] = '\0';
		next = beside(cur, link);
		free(cur);
		if ((cur = next) == NULL)
			return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	if (exists) {
		if (S_ISDIR(st.st_mode)) {
			kp_errf(err, KP_EXIT_ENV, "%s: is a directory", path);
			free(cur);
			return -1;
		}
		if (!S_ISREG(st.st_mode))
			*direct = 1;
		else if (mode != NULL)
			*mode = st.st_mode & 0777;
	}
	*real = cur;
	return 0;
}

/* A device, FIFO or socket: opened and written in place, never replaced. */
static int
open_direct(const char *path, const char *real, struct kp_err *err)
{
	struct stat st;
	int fd;

	if (stat(real, &st) == 0 && S_ISSOCK(st.st_mode)) {
		struct sockaddr_un sa;

		memset(&sa, 0, sizeof sa);
		sa.sun_family = AF_UNIX;
		if (strlen(real) >= sizeof sa.sun_path) {
			kp_errf(err, KP_EXIT_ENV, "%s: socket path too long", path);
			return -1;
		}
		strcpy(sa.sun_path, real);
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
			kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		return fd;
	}
	if ((fd = open(real, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
	return fd;
}

int
kp_out_open(struct kp_atomic *a, const char *path, int how, struct kp_err *err)
{
	char *real;
	size_t n;
	mode_t mode;
	int fd, direct;

	memset(a, 0, sizeof(*a));
	if (kp_out_resolve(path, how, &real, &direct, &mode, err) < 0)
		return -1;
	if ((a->path = strdup(path)) == NULL) {
		free(real);
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	if (direct) {
		fd = open_direct(path, real, err);
		free(real);
		if (fd < 0) {
			free(a->path);
			a->path = NULL;
			return -1;
		}
	} else {
		n = strlen(real) + 32;
		if ((a->tmp = malloc(n)) == NULL) {
			free(real);
			free(a->path);
			a->path = NULL;
			return kp_errf(err, KP_EXIT_ENV, "out of memory");
		}
		snprintf(a->tmp, n, "%s.tmp.XXXXXX", real);
		a->real = real;
		if ((fd = mkstemp(a->tmp)) < 0) {
			kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
			free(a->path);
			free(a->tmp);
			free(a->real);
			a->path = a->tmp = a->real = NULL;
			return -1;
		}
		fchmod(fd, mode);
		kp_tmp_register(a->tmp);
	}
	if ((a->fp = fdopen(fd, "w")) == NULL) {
		kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
		close(fd);
		kp_atomic_abort(a);
		return -1;
	}
	return 0;
}

int
kp_atomic_open(struct kp_atomic *a, const char *path, struct kp_err *err)
{
	return kp_out_open(a, path, KP_OUT_DERIVED, err);
}

static int
want_fsync(void)
{
	const char *e = getenv("KP_FSYNC");

	return e != NULL && *e != '\0' && strcmp(e, "0") != 0;
}

int
kp_atomic_commit(struct kp_atomic *a, struct kp_err *err)
{
	int bad = 0, saved = 0;

	if (a->fp == NULL)
		return kp_errf(err, KP_EXIT_ENV, "%s: not open", a->path ? a->path : "?");
	if (fflush(a->fp) != 0 || ferror(a->fp) || (want_fsync() && fsync(fileno(a->fp)) != 0)) {
		bad = 1;
		saved = errno;
	}
	if (fclose(a->fp) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	a->fp = NULL;
	if (!bad && a->tmp != NULL && !want_fsync())
		(void)unlink(a->real);	/* whatever it fails on, rename() fails on too */
	if (!bad && a->tmp != NULL && rename(a->tmp, a->real) != 0) {
		bad = 1;
		saved = errno;
	}
	if (!bad && a->tmp != NULL)
		kp_tmp_forget(a->tmp);
	if (bad) {
		kp_errf(err, KP_EXIT_ENV, "%s: %s", a->path, strerror(saved ? saved : EIO));
		kp_atomic_abort(a);
		return -1;
	}
	free(a->path);
	free(a->tmp);
	free(a->real);
	a->path = a->tmp = a->real = NULL;
	return 0;
}

void
kp_atomic_abort(struct kp_atomic *a)
{
	if (a->fp != NULL)
		fclose(a->fp);
	if (a->tmp != NULL) {
		unlink(a->tmp);
		kp_tmp_forget(a->tmp);
	}
	free(a->path);
	free(a->tmp);
	free(a->real);
	memset(a, 0, sizeof(*a));
}

int
kp_out_write(const char *path, const char *data, size_t len, int how, struct kp_err *err)
{
	struct kp_atomic a;

	if (kp_out_open(&a, path, how, err) < 0)
		return -1;
	if (len > 0 && fwrite(data, 1, len, a.fp) != len) {
		kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno));
		kp_atomic_abort(&a);
		return -1;
	}
	return kp_atomic_commit(&a, err);
}

int
kp_write_file_atomic(const char *path, const char *data, size_t len, struct kp_err *err)
{
	return kp_out_write(path, data, len, KP_OUT_DERIVED, err);
}

int
kp_atomic_put_json(struct kp_atomic *a, json_t *j, size_t flags, struct kp_err *err)
{
	/*
	 * Streamed through the FILE buffer: json_dumps() into one buffer first
	 * touched ~100 more fresh pages for a 333 KB file, and a page fault
	 * costs more here than the fwrite() calls it saves.
	 */
	if (json_dumpf(j, a->fp, flags) != 0 || fputc('\n', a->fp) == EOF)
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", a->path, strerror(errno ? errno : EIO));
	return 0;
}

int
kp_out_json(const char *path, json_t *j, size_t flags, int how, struct kp_err *err)
{
	struct kp_atomic a;

	if (kp_out_open(&a, path, how, err) < 0)
		return -1;
	if (kp_atomic_put_json(&a, j, flags, err) < 0) {
		kp_atomic_abort(&a);
		return -1;
	}
	return kp_atomic_commit(&a, err);
}

int
kp_write_json_atomic(const char *path, json_t *j, size_t flags, struct kp_err *err)
{
	return kp_out_json(path, j, flags, KP_OUT_DERIVED, err);
}

int
kp_mkdirs(const char *path, struct kp_err *err)
{
	char *p, *s;
	struct stat st;

	if ((p = strdup(path)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	for (s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				kp_errf(err, KP_EXIT_ENV, "%s: %s", p, strerror(errno));
				free(p);
				return -1;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
		kp_errf(err, KP_EXIT_ENV, "%s: not a directory", p);
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

char *
kp_path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s;

	if ((s = malloc(la + lb + 2)) == NULL)
		return NULL;
	memcpy(s, a, la);
	if (la > 0 && a[la - 1] != '/')
		s[la++] = '/';
	memcpy(s + la, b, lb + 1);
	return s;
}

int
kp_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
kp_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *
kp_read_file(const char *path, size_t *lenp, struct kp_err *err)
{
	FILE *fp;
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if (kp_is_dir(path)) {
		kp_errf(err, KP_EXIT_DATA, "%s: is a directory", path);
		return NULL;
	}
	if ((fp = fopen(path, "rb")) == NULL) {
		kp_errf(err, errno == ENOENT ? KP_EXIT_DATA : KP_EXIT_ENV, "%s: %s", path,
		    strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			if ((nb = realloc(buf, cap + 1)) == NULL) {
				free(buf);
				fclose(fp);
				kp_errf(err, KP_EXIT_ENV, "%s: out of memory", path);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		kp_errf(err, KP_EXIT_DATA, "%s: read error: %s", path, strerror(errno));
		free(buf);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

char *
kp_datafile(const char *rel, struct kp_err *err)
{
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;
	const char *tries[] = { "../share/kp/", "../references/", "../../references/" };
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL)
			slash[1] = '\0';
		for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
			size_t sz = strlen(exe) + strlen(tries[i]) + strlen(rel) + 1;
			if ((p = malloc(sz)) == NULL)
				break;
			snprintf(p, sz, "%s%s%s", exe, tries[i], rel);
			if (kp_is_file(p))
				return p;
			free(p);
		}
	}
	p = kp_path_join(KP_DATADIR, rel);
	if (p != NULL && kp_is_file(p))
		return p;
	free(p);
	kp_errf(err, KP_EXIT_ENV, "%s: data file not found next to the program or in %s",
	    rel, KP_DATADIR);
	return NULL;
}
