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

#include "fuzz_dir.h"

#include "model.h"
#include "registry.h"

static nv_model *model;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_dir_make("registry");
    char err[256];
    model = nv_model_load("tests/fixtures/jobsubmit/model.json", err, sizeof err);
    static const char good[] = "{\"schema\":\"netvar-running\",\"version\":1,\"job_id\":3,"
                               "\"app\":\"amg\",\"start_unix_s\":10,\"end_unix_s\":20,"
                               "\"nodes\":[\"n1\",\"n2\"],\"switches\":[\"s1\"]}";
    fuzz_dir_put("3.json", (const uint8_t *)good, sizeof good - 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 20))
        return 0;
    fuzz_dir_put("7.json", data, size);
    struct nv_registry r;
    nv_registry_init(&r, fuzz_dir);
    if (nv_registry_refresh(&r, fuzz_ignore_line, NULL) >= 0) {
        struct nv_running_index *ix = nv_running_index_build(&r, model, 4);
        nv_running_index_free(ix);
        uint32_t live[] = {3};
        nv_registry_expire(&r, 15, 60, live, 1, 100, fuzz_ignore_line, NULL);
        nv_registry_expire(&r, 1e9, 60, NULL, 0, 0, fuzz_ignore_line, NULL);
        ix = nv_running_index_build(&r, model, 4);
        nv_running_index_free(ix);
    }
    nv_registry_free(&r);
    return 0;
}
