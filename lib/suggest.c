/*
 * suggest.c: when nobody knows the command that runs the kernel, look at the
 * repository the way an agent would, shallowly and deterministically, and rank
 * candidate commands with the evidence for each.  Nothing is run or written.
 *
 * Scores (added up when several places point at one command):
 *   README code line running ./x, x/y or python x.py   50 (+10 when it says bench,
 *                                                      +20 when ./x is there, executable)
 *   executable file under build/, bin/, examples/(*)/  40 (+15 bench*; a .py file not
 *                                                      marked executable: 25)
 *   top-level bench* file                              45
 *   scripts/run*                                       35
 *   CMakeLists.txt add_executable(NAME)                20 (./build/NAME)
 *   Makefile target run* or bench*                     30 (make NAME)
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_suggest.h"

#define MAX_ENTRIES 2000	/* per folder: a shallow look, not a crawl */
#define MAX_LINES 5000		/* per file */
#define MAX_BYTES (1 << 20)	/* per file: the first MiB is read, no more */

/*
 * A file of the repository to read, as a stream of its first MAX_BYTES: only a
 * regular file (after links).  A repository is not trusted: README -> /dev/zero
 * never ends a line, a FIFO named Makefile blocks open() and read() for ever.
 * O_NONBLOCK keeps open() from waiting on a FIFO; fstat() on the open file then
 * decides, so a swap between a check and the open changes nothing.
 */
struct text {
	FILE *fp;
	char *buf;
};

static int
text_open(struct text *t, const char *path)
{
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd;

	t->fp = NULL;
	t->buf = NULL;
	if (path == NULL || (fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (t->buf = malloc(MAX_BYTES + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (len < MAX_BYTES && (n = read(fd, t->buf + len, MAX_BYTES - len)) > 0)
		len += (size_t)n;
	close(fd);
	t->buf[len] = '\n';	/* fmemopen() needs a size above 0 */
	if ((t->fp = fmemopen(t->buf, len + 1, "r")) == NULL) {
		free(t->buf);
		t->buf = NULL;
		return -1;
	}
	return 0;
}

static void
text_close(struct text *t)
{
	if (t->fp != NULL)
		fclose(t->fp);
	free(t->buf);
	t->fp = NULL;
	t->buf = NULL;
}

static void
add(json_t *cands, const char *cmd, int score, const char *evidence)
{
	json_t *c = json_object_get(cands, cmd);

	if (c == NULL) {
		c = json_pack("{s:s, s:i, s:[]}", "command", cmd, "score", score, "evidence");
		json_object_set_new(cands, cmd, c);
	} else
		json_object_set_new(c, "score",
		    json_integer(json_integer_value(json_object_get(c, "score")) + score));
	json_array_append_new(json_object_get(c, "evidence"), json_string(evidence));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of a folder's entries (no dot files); NULL when not a folder. */
static char **
names(const char *dir, size_t *np)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL, **nv;
	size_t n = 0;

	*np = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL && n < MAX_ENTRIES) {
		if (e->d_name[0] == '.')
			continue;
		if ((nv = realloc(v, (n + 1) * sizeof(*v))) == NULL)
			break;
		v = nv;
		if ((v[n] = strdup(e->d_name)) == NULL)
			break;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_str);
	*np = n;
	return v;
}

static void
free_names(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

static int
is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

static int
ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int
starts_with_ci(const char *s, const char *pre)
{
	return strncasecmp(s, pre, strlen(pre)) == 0;
}

/* The command that runs a file at rel (relative to the repository). */
static void
command_for(char *buf, size_t n, const char *rel, int exec)
{
	if (ends_with(rel, ".py"))
		snprintf(buf, n, "python3 %s", rel);
	else if (ends_with(rel, ".sh") && !exec)
		snprintf(buf, n, "sh %s", rel);
	else
		snprintf(buf, n, "./%s", rel);
}

/* Files in sub (one level) that can run: executables, .py, .sh. */
static void
scan_folder(json_t *cands, const char *top, const char *sub, int depth)
{
	char *dir = kp_path_join(top, sub);
	size_t n = 0, i;
	char **v = dir ? names(dir, &n) : NULL;

	for (i = 0; v && i < n; i++) {
		char rel[1024], *path, cmd[1100], ev[1200];
		int exec, score = 40;

		snprintf(rel, sizeof(rel), "%s/%s", sub, v[i]);
		if ((path = kp_path_join(top, rel)) == NULL)
			continue;
		if (kp_is_dir(path)) {
			if (depth > 0 && strcmp(v[i], "CMakeFiles") != 0)
				scan_folder(cands, top, rel, depth - 1);
			free(path);
			continue;
		}
		exec = is_exec_file(path);
		free(path);
		if (!exec && !ends_with(v[i], ".py"))
			continue;
		if (ends_with(v[i], ".o") || ends_with(v[i], ".so") || ends_with(v[i], ".a"))
			continue;
		if (starts_with_ci(v[i], "bench"))
			score += 15;
		if (!exec)
			score -= 15;	/* a .py file nobody marked runnable */
		command_for(cmd, sizeof(cmd), rel, exec);
		snprintf(ev, sizeof(ev), "%s: %s file", rel, exec ? "executable" : "Python");
		add(cands, cmd, score, ev);
	}
	free_names(v, n);
	free(dir);
}

/* A README code line that runs something: "./build/x ...", "build/x", "python3 x.py". */
static int
runs_program(const char *line)
{
	char w[256];
	size_t n = strcspn(line, " \t");

	if (n == 0 || n >= sizeof(w))
		return 0;
	memcpy(w, line, n);
	w[n] = '\0';
	if (strncmp(w, "./", 2) == 0 && w[2] != '\0')
		return 1;
	if (strncmp(w, "python", 6) == 0)
		return strstr(line, ".py") != NULL || strstr(line, " -m ") != NULL;
	if (strchr(w, '/') != NULL && strncmp(w, "/usr", 4) != 0 && w[0] != '/' &&
	    strchr(w, '$') == NULL && !ends_with(w, ":"))
		return 1;
	return 0;
}

/* A file of the repository read a line at a time (up to MAX_LINES). */
struct scan {
	json_t *cands;
	const char *top, *name;
	unsigned long lno;	/* of the line handed over */
	int fence;		/* README: inside a ``` block */
};

static void
scan_lines(json_t *cands, const char *top, const char *name,
    void (*each)(struct scan *, char *line))
{
	struct scan sc = { cands, top, name, 0, 0 };
	char *path = kp_path_join(top, name), *line = NULL;
	struct text t;
	FILE *fp = text_open(&t, path) == 0 ? t.fp : NULL;
	size_t cap = 0;

	while (fp && getline(&line, &cap, fp) > 0 && sc.lno < MAX_LINES) {
		sc.lno++;
		each(&sc, line);
	}
	free(line);
	text_close(&t);
	free(path);
}

/* A README's code blocks and "$ " lines that run a program. */
static void
readme_line(struct scan *sc, char *line)
{
	char *s = line, *hash, ev[512];
	size_t len = strlen(line);
	int score = 50;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "```", 3) == 0) {
		sc->fence = !sc->fence;
		return;
	}
	if (!sc->fence && strncmp(s, "$ ", 2) != 0)
		return;
	if (strncmp(s, "$ ", 2) == 0)
		s += 2;
	if ((hash = strstr(s, " #")) != NULL)	/* a trailing comment */
		*hash = '\0';
	len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	if (len == 0 || !runs_program(s) || s[len - 1] == '\\')
		return;
	if (strstr(s, "bench") != NULL)
		score += 10;
	snprintf(ev, sizeof(ev), "%s:%lu: code block runs it", sc->name, sc->lno);
	add(sc->cands, s, score, ev);
	/* The program it runs is there, built: the full command line wins. */
	{
		char prog[400], *pp;
		size_t n = strcspn(s, " \t");

		if (n < sizeof(prog) && strncmp(s, "./", 2) == 0) {
			memcpy(prog, s + 2, n - 2);
			prog[n - 2] = '\0';
			if ((pp = kp_path_join(sc->top, prog)) != NULL && is_exec_file(pp)) {
				snprintf(ev, sizeof(ev), "%s: executable file", prog);
				add(sc->cands, s, 20, ev);
			}
			free(pp);
		}
	}
}

/* "add_executable(bench_gemm ...)" in CMakeLists.txt: ./build/bench_gemm. */
static void
cmake_line(struct scan *sc, char *line)
{
	char *p = strstr(line, "add_executable"), name[256], cmd[300], ev[400];
	size_t n;

	if (p == NULL)
		return;
	p += strlen("add_executable");
	while (*p == ' ' || *p == '(')
		p++;
	n = strcspn(p, " \t)\n");
	if (n == 0 || n >= sizeof(name) || p[0] == '$')
		return;
	memcpy(name, p, n);
	name[n] = '\0';
	snprintf(cmd, sizeof(cmd), "./build/%s", name);
	snprintf(ev, sizeof(ev), "%s:%lu: add_executable(%s)", sc->name, sc->lno, name);
	add(sc->cands, cmd, 20, ev);
}

/* Makefile targets named run* or bench*: "make bench". */
static void
makefile_line(struct scan *sc, char *line)
{
	char name[128], cmd[160], ev[256];
	size_t n;

	n = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.");
	if (n == 0 || n >= sizeof(name) || line[n] != ':' || line[n + 1] == '=')
		return;
	memcpy(name, line, n);
	name[n] = '\0';
	if (!starts_with_ci(name, "run") && !starts_with_ci(name, "bench"))
		return;
	snprintf(cmd, sizeof(cmd), "make %s", name);
	snprintf(ev, sizeof(ev), "%s:%lu: target %s", sc->name, sc->lno, name);
	add(sc->cands, cmd, 30, ev);
}

static void
scan_top(json_t *cands, const char *top)
{
	size_t n, i;
	char **v = names(top, &n);

	for (i = 0; v && i < n; i++) {
		char *path = kp_path_join(top, v[i]), cmd[1100], ev[1200];
		int exec;

		if (path == NULL)
			continue;
		if (starts_with_ci(v[i], "readme") && kp_is_file(path))
			scan_lines(cands, top, v[i], readme_line);
		else if (starts_with_ci(v[i], "bench") && kp_is_file(path)) {
			exec = is_exec_file(path);
			if (exec || ends_with(v[i], ".py")) {
				command_for(cmd, sizeof(cmd), v[i], exec);
				snprintf(ev, sizeof(ev), "%s: benchmark %s", v[i],
				    exec ? "executable" : "script");
				add(cands, cmd, 45, ev);
			}
		}
		free(path);
	}
	free_names(v, n);
	/* scripts/run* */
	{
		char *dir = kp_path_join(top, "scripts");
		char **s;

		n = 0;
		s = dir ? names(dir, &n) : NULL;

		for (i = 0; s && i < n; i++) {
			char rel[600], *path, cmd[700], ev[800];

			if (!starts_with_ci(s[i], "run"))
				continue;
			snprintf(rel, sizeof(rel), "scripts/%s", s[i]);
			if ((path = kp_path_join(top, rel)) == NULL)
				continue;
			if (kp_is_file(path)) {
				command_for(cmd, sizeof(cmd), rel, is_exec_file(path));
				snprintf(ev, sizeof(ev), "%s: run script", rel);
				add(cands, cmd, 35, ev);
			}
			free(path);
		}
		free_names(s, n);
		free(dir);
	}
}

static int
by_score(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t sx = json_integer_value(json_object_get(x, "score"));
	json_int_t sy = json_integer_value(json_object_get(y, "score"));

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "command")),
	    json_string_value(json_object_get(y, "command")));
}

json_t *
kp_suggest_targets(const char *dir, struct kp_err *err)
{
	json_t *cands, *out, *v, **vec;
	const char *key;
	size_t n, i;

	if (!kp_is_dir(dir)) {
		kp_errf(err, KP_EXIT_DATA, "%s: not a directory", dir);
		return NULL;
	}
	if ((cands = json_object()) == NULL || (out = json_array()) == NULL) {
		json_decref(cands);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	scan_top(cands, dir);
	scan_folder(cands, dir, "build", 0);
	scan_folder(cands, dir, "bin", 0);
	scan_folder(cands, dir, "examples", 1);
	scan_lines(cands, dir, "CMakeLists.txt", cmake_line);
	scan_lines(cands, dir, "Makefile", makefile_line);
	/* A CMake/make target that is also built: one candidate, more evidence. */
	n = json_object_size(cands);
	if ((vec = calloc(n ? n : 1, sizeof(*vec))) == NULL) {
		json_decref(cands);
		json_decref(out);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	i = 0;
	json_object_foreach(cands, key, v)
		vec[i++] = v;
	qsort(vec, n, sizeof(*vec), by_score);
	for (i = 0; i < n; i++)
		json_array_append(out, vec[i]);
	free(vec);
	json_decref(cands);
	return out;
}
