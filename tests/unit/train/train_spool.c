/* train_spool.c - see train_spool.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "train_spool.h"

void nv_test_job_record(const char *spool, long id, const char *app, unsigned nodes, const char *sw,
                        double start, double runtime, double rho)
{
    char d[512], p[600];
    snprintf(d, sizeof d, "%s/jobs", spool);
    mkdir(spool, 0755);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/jobs/%ld", spool, id);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/job.json", d);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "{\"schema\":\"netvar-job-record\",\"version\":1,\"job_id\":%ld,", id);
    if (app)
        fprintf(f, "\"app\":\"%s\",", app);
    else
        fprintf(f, "\"app\":null,");
    fprintf(f, "\"nodes\":[");
    for (unsigned n = 0; n < nodes; n++)
        fprintf(f, "%s\"n%u\"", n ? "," : "", n);
    fprintf(f,
            "],\"switches\":[\"%s\",\"%s-b\"],\"groups\":[],\"start_unix_s\":%g,"
            "\"end_unix_s\":%g,\"runtime_s\":%g,\"utilization\":{\"service_us\":1.0,\"ports\":["
            "{\"node\":\"n0\",\"port\":\"eth0\",\"rho\":%g}]}}\n",
            sw, sw, start, start + runtime, runtime, rho);
    fclose(f);
}

char *nv_test_slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *n = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}
