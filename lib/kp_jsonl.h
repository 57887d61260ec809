/* kp_jsonl.h: pipeline records, one JSON object a line (lib/jsonl.c). */
#ifndef KP_JSONL_H
#define KP_JSONL_H

#include <stdio.h>

#include <jansson.h>

#include "kp_diag.h"

/* ---- jsonl.c: pipeline records ---- */
struct kp_jsonl;
struct kp_jsonl *kp_jsonl_open(FILE *fp, const char *name);
/* 1: *out holds a new reference; 0: end; -1: error naming name:line. Blank lines skipped. */
int kp_jsonl_next(struct kp_jsonl *r, json_t **out, struct kp_err *err);
unsigned long kp_jsonl_line(const struct kp_jsonl *r);
void kp_jsonl_close(struct kp_jsonl *r);
/* One compact, key-sorted object and a newline; -1 on a failed write. */
int kp_jsonl_write(FILE *fp, json_t *obj, struct kp_err *err);
/* A pipeline record: rec (its reference taken; NULL: out of memory) with
 * "profile_dir" set when profile_dir is not NULL, written by kp_jsonl_write. */
int kp_jsonl_put(FILE *fp, json_t *rec, const char *profile_dir, struct kp_err *err);
/* The "profile_dir" string of a record, or NULL. */
const char *kp_record_profile_dir(json_t *rec);
/* Read the first record with a profile_dir from stdin-like fp; malloc'd dir or NULL+err. */
char *kp_jsonl_first_profile_dir(FILE *fp, const char *name, struct kp_err *err);
json_t *kp_json_load_file(const char *path, struct kp_err *err);	/* path:line:col errors */

#endif
