/* polycu fakelibc: <sched.h> (POSIX; Linux policy values). */
#ifndef _POLYCU_SCHED_H
#define _POLYCU_SCHED_H

#include <time.h>

#define _POLYCU_NEED_PID_T
#include <_polycu_types.h>

struct sched_param {
    int sched_priority;
};

#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RR 2

int sched_get_priority_max(int policy);
int sched_get_priority_min(int policy);
int sched_getparam(pid_t pid, struct sched_param *param);
int sched_getscheduler(pid_t pid);
int sched_rr_get_interval(pid_t pid, struct timespec *interval);
int sched_setparam(pid_t pid, const struct sched_param *param);
int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param);
int sched_yield(void);

#endif
