/* train_spool.h - hand-made spools for the training tests: one job record
 * at SPOOL/jobs/ID/job.json as `netvar collect` writes it (one node per
 * count; under two leaf switches, sw and sw-b, so the job crosses an uplink
 * and jobs given the same sw share it; a port rho, times in Unix seconds). */
#ifndef NETVAR_TEST_TRAIN_SPOOL_H
#define NETVAR_TEST_TRAIN_SPOOL_H

void nv_test_job_record(const char *spool, long id, const char *app, unsigned nodes, const char *sw,
                        double start, double runtime, double rho);

#include <stddef.h>

/* The first MiB of file p (caller frees), its length in *n. */
char *nv_test_slurp(const char *p, size_t *n);

#endif
