/* kp_yaml.h: libfyaml with kp's parse configuration (lib/yaml.c). */
#ifndef KP_YAML_H
#define KP_YAML_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

/* ---- yaml.c: libfyaml helpers ---- */
struct fy_document;
struct fy_node;
/* Parse a file; errors become "path:line:col: message" with KP_EXIT_DATA. */
struct fy_document *kp_yaml_load(const char *path, struct kp_err *err);
struct fy_document *kp_yaml_load_string(const char *text, size_t len, const char *name,
    struct kp_err *err);
/* Look-ups by path ("/kernel/name"); NULL when absent. */
struct fy_node *kp_yaml_node(struct fy_document *d, const char *path);
/* Scalar copy (malloc'd, NUL-terminated) or NULL when absent or not a scalar. */
char *kp_yaml_str(struct fy_document *d, const char *path);
int kp_yaml_line(struct fy_node *n);	/* 1-based line of a node, 0 if unknown */
/* Write a document atomically as block YAML. */
int kp_yaml_write_atomic(struct fy_document *d, const char *path, struct kp_err *err);
int kp_yaml_write_out(struct fy_document *d, const char *path, int how, struct kp_err *err);
/* Convert between YAML and jansson trees (scalars typed by YAML 1.2 core rules). */
json_t *kp_yaml_to_json(struct fy_node *n);
struct fy_document *kp_json_to_yaml(json_t *j, struct kp_err *err);

#endif
