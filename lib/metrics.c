/*
 * metrics.c: kp-extract's engine.  ncu's raw or details CSV page in, the
 * metrics summary (schema kp-metrics-summary/2, see kp-extract(1)) out.
 *
 * One streaming pass per file.  A kernel keeps its first launches and a
 * fixed-seed reservoir sample of whole launches past that (Algorithm R,
 * decided when a launch starts; MX_KEEP at most, fewer when the kernels'
 * samples together would pass MX_BUDGET).  A kept launch is one contiguous
 * block of 32-bit cells, one per metric of the kernel (sequential writes, not
 * one append per metric), and its summary key values; the medians are taken
 * per metric at the end; a launch that is not kept only has its summary keys
 * parsed.  Count, min, max and sum of each key are exact over all launches.
 * The samples' memory is bounded by MX_BUDGET, not by the number of rows or
 * kernels.  Launches are
 * (file, ID): rows of different files are never merged.  The per-launch
 * records go to a callback as soon as a launch ends.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_metrics.h"
#include "kp_summary.h"
#include "kp_summary_keys.h"
#include "profile.h"
#include "metrics_int.h"

int
mx_nomem(struct kp_err *err)
{
	return kp_errf(err, KP_EXIT_ENV, "out of memory");
}

static void
ex_free(struct ex *x)
{
	size_t i;

	for (i = 0; i < x->nk; i++)
		mx_kernel_free(x->k[i]);
	for (i = 0; i < x->nkeys; i++)
		free(x->keyname[i]);
	free(x->keyname);
	for (i = 0; i < x->nkorder; i++)
		free(x->jkey[i]);
	free(x->jkey);
	free(x->jkeylen);
	free(x->jstall);
	free(x->korder);
	free(x->out);
	free(x->jpath);
	free(x->jpd);
	free(x->k);
	free(x->kslot);
	kp_arena_free(&x->arena);	/* after the kernels: their first blocks */
	kp_arena_free(&x->strs);	/* after the metrics and columns */
	free(x->l.val);
	free(x->l.rank);
	free(x->l.dec);
	free(x->l.cells);
	free(x->ref);
	free(x->pack);
	free(x->dtext);
	free(x->l.over);
	json_decref(x->l.all);
	json_decref(x->inputs);
	mx_cols_free(x);
	mx_metrics_free(x);
}

struct jsonl_out {
	FILE *fp;
	const char *profile_dir;
	const char *path;
};

static int emit_file(json_t *, void *, struct kp_err *);

/* Read every file into x (set up here; ex_free() it in any case). */
static int
extract(struct ex *x, const char *const *paths, size_t npaths, int all_metrics,
    int (*emit)(json_t *, void *, struct kp_err *), void *arg, int short_maps,
    struct kp_err *err)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	x->keep = MX_KEEP;
	x->all_metrics = all_metrics;
	x->short_maps = short_maps;
	x->emit = emit;
	x->arg = arg;
	if (emit == emit_file) {	/* launch records written by jsonl_launch */
		const struct jsonl_out *o = arg;

		x->jfp = o->fp;
		x->jfpath = o->path;
		if (o->profile_dir != NULL && (x->jpd = mx_jesc(o->profile_dir)) == NULL)
			x->jfp = NULL;
	}
	if ((x->inputs = json_array()) == NULL)
		return mx_nomem(err);
	for (i = 0; i < KP_NSKEYS; i++)
		if (mx_key_id(x, kp_summary_keys[i].name) < 0)
			return mx_nomem(err);
	if (npaths == 0)
		return kp_errf(err, KP_EXIT_USAGE, "no input file");
	for (i = 0; i < npaths; i++) {
		x->file = i;
		if (mx_read_file(x, paths[i], err) < 0)
			return -1;
	}
	return 0;
}

static int
emit_array(json_t *rec, void *arg, struct kp_err *err)
{
	if (json_array_append(arg, rec) < 0)
		return mx_nomem(err);
	return 0;
}

json_t *
kp_extract_files(const char *const *paths, size_t npaths, int all_metrics,
    json_t **launches_out, struct kp_err *err)
{
	json_t *arr = NULL, *s = NULL;
	struct ex x;

	if (launches_out != NULL) {
		*launches_out = NULL;
		if ((arr = json_array()) == NULL)
			return mx_nomem(err), NULL;
	}
	if (extract(&x, paths, npaths, all_metrics, arr ? emit_array : NULL, arr, 0, err) == 0)
		s = mx_summary_json(&x, err);
	ex_free(&x);
	if (s == NULL)
		json_decref(arr);
	else if (launches_out != NULL)
		*launches_out = arr;
	return s;
}

static int
emit_file(json_t *rec, void *arg, struct kp_err *err)
{
	struct jsonl_out *o = arg;

	if (o->profile_dir != NULL && mx_jset(rec, "profile_dir", json_string(o->profile_dir)) < 0)
		return mx_nomem(err);
	if (json_dumpf(rec, o->fp, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) != 0 ||
	    putc('\n', o->fp) == EOF)
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", o->path, strerror(errno ? errno : EIO));
	return 0;
}

#define OUT_BUF ((size_t)64 << 10)

/*
 * Three files, all or none: each is written to a temporary name first and the
 * three are renamed into place only when all are written; the summary and
 * metrics_all.json a kernel at a time.  Then each kernel's light object goes
 * to each() (when not NULL).
 */
int
kp_extract_to_dir(const char *const *paths, size_t npaths, const char *outdir,
    const char *profile_dir, int all_metrics,
    int (*each)(json_t *kernel, int primary, void *arg, struct kp_err *err), void *arg,
    struct kp_err *err)
{
	struct kp_atomic a, b, c;	/* aborting one unopened or committed is a no-op */
	struct jsonl_out o;
	struct ex x;
	char *jpath = NULL, *spath = NULL, *apath = NULL, *bufs = NULL;
	int made = 0, rc = -1, read = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	if (!kp_is_dir(outdir)) {
		if (kp_mkdirs(outdir, err) < 0)
			return -1;
		made = 1;
	}
	jpath = kp_path_join(outdir, kp_artifact_name(KP_ART_EXTRACTED));
	spath = kp_path_join(outdir, kp_artifact_name(KP_ART_SUMMARY));
	apath = kp_path_join(outdir, KP_METRICS_ALL);
	if (jpath == NULL || spath == NULL || apath == NULL) {
		mx_nomem(err);
		goto out;
	}
	if (kp_atomic_open(&a, jpath, err) < 0 || kp_atomic_open(&b, apath, err) < 0)
		goto out;
	/*
	 * stdio's own buffer is a page: 300 write(2)s for the small fixture's 1.3
	 * MB; with OUT_BUF, a few dozen.  The JSONL's; the summary and
	 * metrics_all.json are written from mx_write_files()' own buffers.
	 * Freed after the files are closed.
	 */
	if ((bufs = malloc(OUT_BUF)) != NULL)
		setvbuf(a.fp, bufs, _IOFBF, OUT_BUF);
	o.fp = a.fp;
	o.profile_dir = profile_dir;
	o.path = jpath;
	read = 1;
	if (extract(&x, paths, npaths, all_metrics, emit_file, &o, 1, err) < 0 ||
	    kp_atomic_open(&c, spath, err) < 0)
		goto out;
	if (mx_write_files(&x, c.fp, spath, b.fp, apath, err) < 0 ||
	    kp_atomic_commit(&b, err) < 0)
		goto out;
	if (kp_atomic_commit(&c, err) < 0) {
		unlink(apath);
		goto out;
	}
	if (kp_atomic_commit(&a, err) < 0) {
		unlink(spath);
		unlink(apath);
		goto out;
	}
	rc = each != NULL ? mx_each_kernel(&x, each, arg, err) : 0;
	made = 0;
out:
	if (read)
		ex_free(&x);
	kp_atomic_abort(&c);
	kp_atomic_abort(&b);
	kp_atomic_abort(&a);
	free(bufs);
	if (rc < 0 && made)
		rmdir(outdir);
	free(jpath);
	free(spath);
	free(apath);
	return rc;
}
