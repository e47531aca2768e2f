/* child.c - bounded child processes: start, wait, stop by PID (child.h). */
#define _GNU_SOURCE
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nv_err.h"

#define POLL_NS 10000000L /* 10 ms between checks on a running child */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

void nv_run_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int nv_run_interrupted(void)
{
    return interrupted != 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap(void)
{
    struct timespec ts = {0, POLL_NS};
    nanosleep(&ts, NULL);
}

/* in the child: fd becomes standard descriptor std and stays open across
 * exec.  A caller started with that descriptor closed (a daemon's child)
 * got it back from open(), with O_CLOEXEC, and dup2 onto itself would
 * leave that flag set: the program would start without it. */
static int std_fd(int fd, int std)
{
    if (fd != std)
        return dup2(fd, std) < 0;
    int fl = fcntl(fd, F_GETFD);
    return fl < 0 || fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC) < 0;
}

int nv_child_start(nv_child *c, const char *work_dir, char **argv, const char *name, int fake_nodes,
                   char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!argv || !argv[0])
        return nv_err(err, errlen, "%s: nothing to launch (out of memory?)", name);
    snprintf(c->what, sizeof c->what, "%s", name);
    snprintf(c->out_path, sizeof c->out_path, "%s/%s.out", work_dir, name);
    snprintf(c->err_path, sizeof c->err_path, "%s/%s.err", work_dir, name);
    /* both launchers forward SIGUSR1 to the ranks and then wait for them
     * (and their output); a SIGTERM makes srun kill the tasks and mpirun
     * exit before it has forwarded all of rank 0's stdout */
    c->stop_signal = SIGUSR1;
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open(c->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int er = open(c->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || er < 0) {
        nv_err(err, errlen, "%s: cannot open its output files in %s: %s", name, work_dir,
               strerror(errno));
        if (in >= 0)
            close(in);
        if (out >= 0)
            close(out);
        if (er >= 0)
            close(er);
        return -1;
    }
    char fake[24];
    snprintf(fake, sizeof fake, "%d", fake_nodes);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        nv_err(err, errlen, "%s: fork failed: %s", name, strerror(errno));
        close(in);
        close(out);
        close(er);
        return -1;
    }
    if (pid == 0) {
        /* child: only async-signal-safe work plus setenv before exec */
        if (std_fd(in, 0) || std_fd(out, 1) || std_fd(er, 2))
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (fake_nodes > 0)
            setenv("NETVAR_PROBE_FAKE_NODES", fake, 1);
        execvp(argv[0], argv);
        dprintf(2, "netvar: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in);
    close(out);
    close(er);
    c->pid = pid;
    c->t_start_ns = now_ns();
    return 0;
}

int nv_child_wait(nv_child *c, double timeout_s, int *status, double *elapsed_s)
{
    uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        if (c->pid <= 0) {
            *status = 0;
            return NV_WAIT_EXITED;
        }
        int st = 0;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid || (r < 0 && errno == ECHILD)) {
            if (elapsed_s)
                *elapsed_s = (double)(now_ns() - c->t_start_ns) / 1e9;
            c->pid = 0;
            *status = r > 0 ? st : 0;
            return NV_WAIT_EXITED;
        }
        if (interrupted)
            return NV_WAIT_INTERRUPTED;
        if (now_ns() >= deadline)
            return NV_WAIT_TIMEOUT;
        nap();
    }
}

static int file_has(const char *path, const char *marker)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strstr(buf, marker) != NULL;
}

int nv_child_wait_marker(nv_child *c, const char *marker, double timeout_s, int *status)
{
    uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        if (file_has(c->err_path, marker))
            return NV_WAIT_READY;
        int r = nv_child_wait(c, 0, status, NULL);
        if (r == NV_WAIT_EXITED || r == NV_WAIT_INTERRUPTED)
            return r;
        if (now_ns() >= deadline)
            return NV_WAIT_TIMEOUT;
        nap();
    }
}

int nv_child_stop(nv_child *c, double grace_s)
{
    if (c->pid <= 0)
        return 0;
    int st = 0;
    const int sigs[3] = {c->stop_signal, SIGTERM, SIGKILL};
    for (int i = 0; i < 3; i++) {
        if (i > 0 && sigs[i] == sigs[i - 1])
            continue;
        kill(c->pid, sigs[i]);
        uint64_t deadline = now_ns() + (uint64_t)(grace_s * 1e9);
        while (now_ns() < deadline || i == 2) {
            pid_t r = waitpid(c->pid, &st, i == 2 ? 0 : WNOHANG);
            if (r == c->pid || (r < 0 && errno != EINTR)) {
                c->pid = 0;
                return st;
            }
            nap();
        }
    }
    c->pid = 0;
    return st;
}

void nv_status_text(int status, char *buf, size_t n)
{
    if (WIFEXITED(status))
        snprintf(buf, n, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, n, "status %d", status);
}

void nv_child_last_line(const nv_child *c, char *buf, size_t n)
{
    buf[0] = '\0';
    int fd = open(c->err_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char tail[4096];
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    ssize_t got = pread(fd, tail, sizeof tail - 1, from);
    close(fd);
    if (got <= 0)
        return;
    tail[got] = '\0';
    /* the last line that says something; launcher noise like the SPANK
     * plugin's banner is as likely as the real error, so prefer lines
     * naming an error */
    char *best = NULL, *last = NULL, *save = NULL;
    for (char *line = strtok_r(tail, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strspn(line, "- \t=*") == strlen(line))
            continue; /* blank or a banner rule */
        last = line;
        if (strstr(line, "error") || strstr(line, "rror:") || strstr(line, "cannot") ||
            strstr(line, "netvar: impactb") || strstr(line, "netvar: compressionb"))
            best = line;
    }
    const char *pick = best ? best : last;
    if (pick) {
        snprintf(buf, n, "%s", pick);
        for (char *q = buf; *q; q++)
            if ((unsigned char)*q < 0x20)
                *q = ' ';
    }
}

char *nv_read_text_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        nv_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || st.st_size < 0 || (uint64_t)st.st_size > max_bytes) {
        nv_err(err, errlen, "%s: larger than %zu bytes or unreadable", path, max_bytes);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    if (!buf) {
        nv_err(err, errlen, "%s: out of memory for %zu bytes", path, cap);
        close(fd);
        return NULL;
    }
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
}
