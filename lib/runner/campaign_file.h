/* campaign_file.h - a campaign's result file: what `netvar campaign --json`
 * prints (a network-lab dataset keeps it as campaign_APP.json), written
 * here and read back here: baseline.runtime_s and each configuration's id
 * and runtime_s, seconds per round.  The point rule (nv_campaign_points)
 * then makes the slowdowns of them again. */
#ifndef NETVAR_CAMPAIGN_FILE_H
#define NETVAR_CAMPAIGN_FILE_H

#include <stddef.h>

#include <json-c/json.h>

#include "campaign.h"
#include "launch_plan.h"

#define NV_CAMPAIGN_FILE_MAX (16u << 20) /* bytes */

typedef struct nv_campaign_rounds {
    size_t repeat;        /* rounds of the baseline and of every configuration */
    size_t ncfg;          /* 0..NV_CAMPAIGN_MAX_CONFIGS */
    char (*id)[64];       /* [ncfg] the configurations' ids */
    nv_campaign_result r; /* baseline_s and configs[i].runtime_s filled */
    char point_rule[16];  /* the rule the campaign wrote ("median" when none) */
} nv_campaign_rounds;

/* 0 with *out filled, or -1 with one line in err naming path and what is
 * wrong (every runtime a finite number of seconds > 0, 1..
 * NV_CAMPAIGN_MAX_REPEAT rounds, the same number for the baseline and
 * every configuration).  Free *out with nv_campaign_rounds_free either
 * way. */
int nv_campaign_rounds_read(const char *path, nv_campaign_rounds *out, char *err, size_t errlen);
void nv_campaign_rounds_free(nv_campaign_rounds *c);

/* One configuration as the result and the dry run list it (id, bubble
 * cycles, sleep_us at ghz, partners, messages). */
json_object *nv_campaign_config_to_json(const nv_campaign_config *c, double ghz);
/* The whole result of one campaign (the file the reader above reads);
 * the caller owns it. */
json_object *nv_campaign_result_to_json(const nv_campaign_opts *co, const nv_run_plan *plan,
                                        const nv_campaign_result *r);

#endif
