/* fuzz_registry.c - libFuzzer target for the running-jobs registry reader
 * as slurmctld's reload thread runs it: the input becomes one entry file
 * (<dir>/7.json) beside a fixed good one, the registry is refreshed, its
 * entries expired against a live list, and the index built with the test
 * model.  The files are written by slurmd's prolog, but the reader must
 * stand anything a damaged or hostile spool holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "registry.h"

static char dir[64];
static nv_model *model;

static void ignore(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

static void put(const char *name, const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/netvar-fuzz-registry.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    char err[256];
    model = nv_model_load("tests/fixtures/jobsubmit/model.json", err, sizeof err);
    static const char good[] = "{\"schema\":\"netvar-running\",\"version\":1,\"job_id\":3,"
                               "\"app\":\"amg\",\"start_unix_s\":10,\"end_unix_s\":20,"
                               "\"nodes\":[\"n1\",\"n2\"],\"switches\":[\"s1\"]}";
    put("3.json", (const uint8_t *)good, sizeof good - 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 20))
        return 0;
    put("7.json", data, size);
    struct nv_registry r;
    nv_registry_init(&r, dir);
    if (nv_registry_refresh(&r, ignore, NULL) >= 0) {
        struct nv_running_index *ix = nv_running_index_build(&r, model, 4);
        nv_running_index_free(ix);
        uint32_t live[] = {3};
        nv_registry_expire(&r, 15, 60, live, 1, 100, ignore, NULL);
        nv_registry_expire(&r, 1e9, 60, NULL, 0, 0, ignore, NULL);
        ix = nv_running_index_build(&r, model, 4);
        nv_running_index_free(ix);
    }
    nv_registry_free(&r);
    return 0;
}
