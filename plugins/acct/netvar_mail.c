/* netvar_mail.c - netvar-mail: Slurm's MailProg that adds netvar's report
 * to a job's end-of-job mail, then hands the mail to the real mailer
 * (netvar.conf's Mailer=, default /usr/bin/mail) with Slurm's arguments.
 *
 * slurmctld runs it as SlurmUser: MailProg -s SUBJECT USER, with the job's
 * SLURM_JOB_* variables.  The job id comes from the subject ("Slurm
 * Job_id=N Name=... Ended, ..."); on an end mail (SLURM_JOB_MAIL_TYPE
 * Ended or Failed, or no such variable) it waits (bounded) until
 * accounting holds netvar-acct's summary, and appends the report
 * (lib/upkeep/user_report.h: every string from sacct made printable and
 * the whole bounded) after Slurm's body.  Whatever goes wrong on netvar's
 * side, the mail goes out as Slurm wrote it, with one "netvar: mail:" line
 * on stderr (slurmctld's log).
 *
 *   netvar-mail [--config FILE] [--wait-s S] -s SUBJECT USER... */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "user_report.h"

#define BODY_MAX (256 * 1024) /* bytes of Slurm's body kept; the rest passes through */
#define WAIT_DEFAULT_S 60     /* Slurm gives MailProg 120 s */
#define ARGS_MAX 64
#define STDIN_IDLE_MS 5000
#define GUARD_S 15 /* beyond the wait: sacct itself may hang on a slurmdbd that does not answer */

static void conf_error(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "netvar: mail: %s; using the defaults for it\n", line);
}

static int end_mail(void)
{
    const char *t = getenv("SLURM_JOB_MAIL_TYPE");
    return !t || !strcmp(t, "Ended") || !strcmp(t, "Failed");
}

/* the job's report, or "" (with one line on stderr why) */
static void job_report(const char *subject, double wait_s, char *text, size_t cap)
{
    text[0] = '\0';
    int64_t job = nv_ureport_subject_job(subject);
    if (!job) {
        fprintf(stderr, "netvar: mail: subject names no single job; mail sent as it is\n");
        return;
    }
    nv_ureport r;
    char err[512] = "";
    int found = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        found = nv_ureport_sacct(job, &r, err, sizeof err) == 0;
        if (found && r.has_summary)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 2 > wait_s)
            break;
        sleep(2);
    }
    if (!found) {
        fprintf(stderr, "netvar: mail: job %lld: %s; mail sent without netvar's report\n",
                (long long)job, err);
        return;
    }
    if (!r.has_summary)
        fprintf(stderr,
                "netvar: mail: job %lld: no netvar summary in accounting after %.0f s; the "
                "report says so\n",
                (long long)job, wait_s);
    nv_ureport_format(&r, text, cap);
}

/* job_report in a child of its own process group, killed (with its sacct)
 * when it takes longer than the wait and GUARD_S: the mail must leave
 * before Slurm's MailProg timeout */
static void guarded_report(const char *subject, double wait_s, char *text, size_t cap)
{
    text[0] = '\0';
    int fd[2];
    if (pipe(fd)) {
        fprintf(stderr, "netvar: mail: pipe: %s; mail sent without netvar's report\n",
                strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        close(fd[0]);
        job_report(subject, wait_s, text, cap);
        size_t n = strlen(text), off = 0;
        while (off < n) {
            ssize_t w = write(fd[1], text + off, n - off);
            if (w <= 0)
                _exit(1);
            off += (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        fprintf(stderr, "netvar: mail: fork: %s; mail sent without netvar's report\n",
                strerror(errno));
        return;
    }
    setpgid(pid, pid);
    size_t len = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int timed_out = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = wait_s + GUARD_S - (double)(now.tv_sec - t0.tv_sec);
        struct pollfd pf = {fd[0], POLLIN, 0};
        if (left <= 0 || poll(&pf, 1, (int)(left * 1000)) == 0) {
            timed_out = 1;
            break;
        }
        ssize_t n = len + 1 < cap ? read(fd[0], text + len, cap - 1 - len) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    text[len] = '\0';
    close(fd[0]);
    if (timed_out) {
        kill(-pid, SIGKILL);
        text[0] = '\0';
        fprintf(stderr, "netvar: mail: the report took over %.0f s; mail sent without it\n",
                wait_s + GUARD_S);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!timed_out && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        text[0] = '\0';
}

/* all of fd into a buffer, at most max bytes (*more: there was more) */
static char *slurp(int fd, size_t max, size_t *len, int *more)
{
    char *b = malloc(max + 1);
    *len = 0;
    *more = 0;
    if (!b) {
        *more = 1; /* passed through unread */
        return NULL;
    }
    for (;;) {
        if (*len == max) {
            *more = 1;
            break;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, STDIN_IDLE_MS) <= 0) { /* no writer: Slurm gives /dev/null */
            fprintf(stderr, "netvar: mail: nothing on stdin for %d ms; body taken as ended\n",
                    STDIN_IDLE_MS);
            break;
        }
        ssize_t n = read(fd, b + *len, max - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    return b;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *subject = NULL;
    double wait_s = WAIT_DEFAULT_S;
    int a = 1;
    /* netvar's own options come first; Slurm's follow untouched */
    for (; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--config"))
            config = argv[a + 1];
        else if (!strcmp(argv[a], "--wait-s")) {
            char *end;
            double v = strtod(argv[a + 1], &end);
            if (*end || !(v >= 0 && v <= 110))
                fprintf(stderr,
                        "netvar: mail: --wait-s '%.20s': not 0 to 110 seconds; waiting %d s\n",
                        argv[a + 1], WAIT_DEFAULT_S);
            else
                wait_s = v;
        } else
            break;
    }
    int nargs = argc - a;
    if (nargs < 1 || nargs > ARGS_MAX - 2) {
        fprintf(stderr, "netvar: mail: usage: netvar-mail [--config FILE] [--wait-s S] -s SUBJECT "
                        "USER (as Slurm's MailProg)\n");
        return 2;
    }
    for (int i = a; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-s")) {
            subject = argv[i + 1];
            break;
        }
    static struct nv_config conf;
    nv_config_defaults(&conf);
    if (!config && access("/etc/netvar/netvar.conf", R_OK) == 0)
        config = "/etc/netvar/netvar.conf";
    if (config)
        nv_config_load(config, &conf, conf_error, NULL);
    size_t blen = 0;
    int more = 0;
    char *body = slurp(STDIN_FILENO, BODY_MAX, &blen, &more);
    static char report[NV_UREPORT_MAX];
    report[0] = '\0';
    if (end_mail() && subject)
        guarded_report(subject, wait_s, report, sizeof report);
    int fd[2];
    if (pipe(fd)) {
        fprintf(stderr, "netvar: mail: pipe: %s\n", strerror(errno));
        return 1;
    }
    char *margv[ARGS_MAX];
    margv[0] = conf.mailer;
    for (int i = 0; i < nargs; i++)
        margv[i + 1] = argv[a + i];
    margv[nargs + 1] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[0], STDIN_FILENO);
        close(fd[0]);
        close(fd[1]);
        execv(conf.mailer, margv);
        fprintf(stderr, "netvar: mail: cannot run Mailer=%s: %s\n", conf.mailer, strerror(errno));
        _exit(127);
    }
    close(fd[0]);
    if (pid < 0) {
        fprintf(stderr, "netvar: mail: fork: %s\n", strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    int bad = body && write_all(fd[1], body, blen);
    if (!bad && more) { /* the rest of Slurm's body, unchanged */
        char chunk[65536];
        ssize_t n;
        while (!bad &&
               ((n = read(STDIN_FILENO, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)))
            bad = n > 0 && write_all(fd[1], chunk, (size_t)n);
    }
    if (!bad && report[0]) {
        /* after Slurm's body (usually empty), one blank line between */
        bad = (blen && write_all(fd[1], body[blen - 1] == '\n' ? "\n" : "\n\n",
                                 body[blen - 1] == '\n' ? 1 : 2)) ||
              write_all(fd[1], report, strlen(report));
    }
    close(fd[1]);
    free(body);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
