/* polycu fakelibc: <sys/time.h> (POSIX). */
#ifndef _POLYCU_SYS_TIME_H
#define _POLYCU_SYS_TIME_H

#ifndef _POLYCU_TIME_T
#define _POLYCU_TIME_T
typedef long time_t;
#endif

#ifndef _POLYCU_SUSECONDS_T
#define _POLYCU_SUSECONDS_T
typedef long suseconds_t;
#endif

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
