/* polycu fakelibc: <sys/resource.h> (POSIX; Linux constant values). */
#ifndef _POLYCU_SYS_RESOURCE_H
#define _POLYCU_SYS_RESOURCE_H

#include <sys/time.h>

#define _POLYCU_NEED_ID_T
#include <_polycu_types.h>

typedef unsigned long rlim_t;

struct rlimit {
    rlim_t rlim_cur;
    rlim_t rlim_max;
};

/* Only the fields POSIX requires; Linux's struct has more. */
struct rusage {
    struct timeval ru_utime;
    struct timeval ru_stime;
};

#define RLIM_INFINITY (~(rlim_t)0)
#define RLIM_SAVED_MAX RLIM_INFINITY
#define RLIM_SAVED_CUR RLIM_INFINITY

#define RLIMIT_CPU 0
#define RLIMIT_FSIZE 1
#define RLIMIT_DATA 2
#define RLIMIT_STACK 3
#define RLIMIT_CORE 4
#define RLIMIT_NOFILE 7
#define RLIMIT_AS 9

#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)

#define PRIO_PROCESS 0
#define PRIO_PGRP 1
#define PRIO_USER 2

int getrlimit(int resource, struct rlimit *rlp);
int setrlimit(int resource, const struct rlimit *rlp);
int getrusage(int who, struct rusage *r_usage);
int getpriority(int which, id_t who);
int setpriority(int which, id_t who, int value);

#endif
