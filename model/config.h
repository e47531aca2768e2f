/* config.h - netvar.conf, the admin's site policy (see netvar.conf(5)).
 * Slurm-style Key=Value lines and # comments.  Every problem is caught at
 * load: unknown keys and bad values are errors reported one line each as
 * "FILE:LINE: reason".  Pure C; shared by both plugins and the CLI. */
#ifndef NETVAR_CONFIG_H
#define NETVAR_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "job_options.h"

enum nv_annotate_field { NV_ANNOTATE_COMMENT, NV_ANNOTATE_ADMIN_COMMENT, NV_ANNOTATE_NONE };

struct nv_config {
    char model_file[PATH_MAX];
    char spool_dir[PATH_MAX];
    nv_mode default_mode;
    bool allow_off;
    char predictor[32];
    unsigned min_pair_samples;
    enum nv_annotate_field annotate_field;
};

/* Receives each error line (no trailing newline). */
typedef void (*nv_config_error_fn)(void *ctx, const char *line);

/* Defaults for every key. */
void nv_config_defaults(struct nv_config *c);

/* Parses text (NUL-terminated) named `name` in messages. Returns the number
 * of errors; c holds the defaults plus every valid line. */
int nv_config_parse(const char *name, const char *text, struct nv_config *c,
                    nv_config_error_fn err, void *ctx);

/* Reads and parses a file (at most 1 MiB). A missing or unreadable file is
 * one error. */
int nv_config_load(const char *path, struct nv_config *c, nv_config_error_fn err, void *ctx);

#endif
