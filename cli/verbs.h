/* verbs.h - the netvar CLI's verbs. Each verb lives in cli/verbs/verb_<name>.c,
 * takes the arguments after its own name (argv[0] is the verb), prints its
 * own --help, and returns the process exit code: 0 ok, 1 failure, 2 usage. */
#ifndef NETVAR_CLI_VERBS_H
#define NETVAR_CLI_VERBS_H

typedef int (*nv_verb_fn)(int argc, char **argv);

struct nv_verb {
    const char *name;
    nv_verb_fn run;
    const char *summary;
};

/* one line per verb, keep sorted by name */
int verb_alloc(int argc, char **argv);
int verb_calibrate(int argc, char **argv);
int verb_campaign(int argc, char **argv);
int verb_collect(int argc, char **argv);
int verb_config_check(int argc, char **argv);
int verb_counters(int argc, char **argv);
int verb_diagnose(int argc, char **argv);
int verb_estimate(int argc, char **argv);
int verb_evaluate(int argc, char **argv);
int verb_holdout(int argc, char **argv);
int verb_export(int argc, char **argv);
int verb_impact(int argc, char **argv);
int verb_labmodel(int argc, char **argv);
int verb_predict(int argc, char **argv);
int verb_prune(int argc, char **argv);
int verb_replay(int argc, char **argv);
int verb_report(int argc, char **argv);
int verb_train(int argc, char **argv);
int verb_utilization(int argc, char **argv);
int verb_variability(int argc, char **argv);
int verb_version(int argc, char **argv);

#endif
