/* fuzz_dir.h - what the file-reading fuzz targets share: one scratch
 * directory made at start, a writer that puts the input there as a named
 * file, and a log sink that drops lines.  Header-only: each target is one
 * clang command line (tests/fuzz/fuzz.mk). */
#ifndef NETVAR_FUZZ_DIR_H
#define NETVAR_FUZZ_DIR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static char fuzz_dir[64];

/* makes /tmp/netvar-fuzz-TAG.XXXXXX, or aborts (nothing to fuzz without it) */
static inline void fuzz_dir_make(const char *tag)
{
    snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/netvar-fuzz-%s.XXXXXX", tag);
    if (!mkdtemp(fuzz_dir))
        abort();
}

/* writes data as fuzz_dir/name (replacing it) */
static inline void fuzz_dir_put(const char *name, const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
    }
}

static inline void fuzz_ignore_line(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

#endif
