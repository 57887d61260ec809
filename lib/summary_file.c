/*
 * summary_file.c: read metrics_summary.json for the kernel a program uses.
 * kp-decide and kp-report use one kernel (two with a comparison); jansson
 * building all fifteen of torch_mix's took 23 M instructions of kp-decide's
 * 30 M.  The skim checks every byte as jansson would; only the summary's
 * own members, each kernel's name and function, and the kernels asked for
 * are built, each by jansson from its own bytes, so their values are those a
 * whole parse gives.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"
#include "kp_jsonskim.h"
#include "kp_summary_file.h"

#define FLAGS (JSON_REJECT_DUPLICATES | JSON_DECODE_ANY)

static json_t *
build(const char *p, size_t len)
{
	return json_loadb(p, len, FLAGS, NULL);
}

static int
is_key(const struct kp_jskim_node *n, const char *key)
{
	return n->key != NULL && n->klen == strlen(key) && memcmp(n->key, key, n->klen) == 0;
}

/* The summary from the skim's nodes (depth 3: members, kernels, their
 * members); -1 when jansson refuses a value the skim took (never seen). */
static int
assemble(struct kp_summary_file *f, const struct kp_jskim_node *nd, long n)
{
	json_t *kernels = NULL, *v, *stub;
	long i, j, kidx = -1;

	if ((f->summary = json_object()) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (nd[i].parent != -1)
			continue;
		if (is_key(&nd[i], "kernels") && nd[i].type == '[') {
			kidx = i;
			v = kernels = json_array();
		} else
			v = build(nd[i].val, nd[i].vlen);
		if (v == NULL || json_object_setn_new_nocheck(f->summary, nd[i].key, nd[i].klen,
		    v) < 0)
			return -1;
	}
	if (kernels == NULL)
		return 0;
	for (i = kidx + 1; i < n; i++)
		if (nd[i].parent == kidx)
			f->nk++;
	if (f->nk > 0 && (f->kspan = calloc(f->nk, sizeof(*f->kspan))) == NULL)
		return -1;
	f->nk = 0;
	for (i = kidx + 1; i < n; i++) {
		if (nd[i].parent != kidx)
			continue;
		if (nd[i].type != '{')	/* not a kernel: built as it is */
			stub = build(nd[i].val, nd[i].vlen);
		else {
			stub = json_object();
			f->kspan[f->nk].off = (size_t)(nd[i].val - f->text);
			f->kspan[f->nk].len = nd[i].vlen;
			for (j = i + 1; j < n && stub != NULL; j++) {
				if (nd[j].parent != i ||
				    !(is_key(&nd[j], "name") || is_key(&nd[j], "function")))
					continue;
				if ((v = build(nd[j].val, nd[j].vlen)) == NULL ||
				    json_object_setn_new_nocheck(stub, nd[j].key, nd[j].klen, v) < 0) {
					json_decref(stub);
					stub = NULL;
				}
			}
		}
		f->nk++;
		if (stub == NULL || json_array_append_new(kernels, stub) < 0)
			return -1;
	}
	return 0;
}

struct kp_summary_file *
kp_summary_open(const char *path, struct kp_err *err)
{
	struct kp_summary_file *f = calloc(1, sizeof(*f));
	struct kp_jskim_node *nd = NULL;
	long n;

	if (f == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	if ((f->path = strdup(path)) == NULL) {
		free(f);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	if ((f->text = kp_read_file(path, &f->len, err)) == NULL) {
		free(f->path);
		free(f);
		return NULL;
	}
	n = kp_jskim(f->text, f->len, 3, &nd);
	if (n < 0 || assemble(f, nd, n) < 0) {
		/* whole, as before: jansson's own reading and its message */
		json_decref(f->summary);
		free(f->kspan);
		f->kspan = NULL;
		f->nk = 0;
		free(f->text);
		f->text = NULL;
		if ((f->summary = kp_json_load_file(path, err)) == NULL) {
			free(nd);
			free(f->path);
			free(f);
			return NULL;
		}
	}
	free(nd);
	return f;
}

json_t *
kp_summary_kernel(struct kp_summary_file *f, size_t i, struct kp_err *err)
{
	json_t *ks = json_object_get(f->summary, "kernels"), *k;
	json_error_t je;

	if (!json_is_array(ks) || i >= json_array_size(ks)) {
		kp_errf(err, KP_EXIT_DATA, "%s: no kernel %zu", f->path, i);
		return NULL;
	}
	if (i >= f->nk || f->kspan[i].len == 0)
		return json_array_get(ks, i);
	k = json_loadb(f->text + f->kspan[i].off, f->kspan[i].len, FLAGS, &je);
	if (k == NULL || json_array_set_new(ks, i, k) < 0) {
		kp_errf(err, KP_EXIT_DATA, "%s: kernel %zu: %s", f->path, i,
		    k == NULL ? je.text : "out of memory");
		return NULL;
	}
	f->kspan[i].len = 0;
	return k;
}

void
kp_summary_close(struct kp_summary_file *f)
{
	if (f == NULL)
		return;
	json_decref(f->summary);
	free(f->kspan);
	free(f->text);
	free(f->path);
	free(f);
}
