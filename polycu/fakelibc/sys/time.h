/* polycu fakelibc: <sys/time.h> (POSIX). */
#ifndef _POLYCU_SYS_TIME_H
#define _POLYCU_SYS_TIME_H

#define _POLYCU_NEED_TIME_T
#define _POLYCU_NEED_SUSECONDS_T
#include <_polycu_types.h>

struct timeval {
    time_t tv_sec;
    suseconds_t tv_usec;
};

struct timezone {
    int tz_minuteswest;
    int tz_dsttime;
};

int gettimeofday(struct timeval *restrict tp, void *restrict tzp);

#endif
