/* polycu fakelibc: <time.h> (C11 7.27, plus POSIX clocks). */
#ifndef _POLYCU_TIME_H
#define _POLYCU_TIME_H

#define _POLYCU_NEED_SIZE_T
#define _POLYCU_NEED_TIME_T
#define _POLYCU_NEED_CLOCK_T
#define _POLYCU_NEED_CLOCKID_T
#define _POLYCU_NEED_STRUCT_TIMESPEC
#define _POLYCU_NEED_NULL
#include <_polycu_types.h>

#define CLOCKS_PER_SEC ((clock_t)1000000)
#define TIME_UTC 1

struct tm {
    int tm_sec;
    int tm_min;
    int tm_hour;
    int tm_mday;
    int tm_mon;
    int tm_year;
    int tm_wday;
    int tm_yday;
    int tm_isdst;
};

clock_t clock(void);
double difftime(time_t time1, time_t time0);
time_t mktime(struct tm *timeptr);
time_t time(time_t *timer);
int timespec_get(struct timespec *ts, int base);
char *asctime(const struct tm *timeptr);
char *ctime(const time_t *timer);
struct tm *gmtime(const time_t *timer);
struct tm *localtime(const time_t *timer);
size_t strftime(char *restrict s, size_t maxsize,
                const char *restrict format,
                const struct tm *restrict timeptr);

/* POSIX */
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3

int clock_gettime(clockid_t clock_id, struct timespec *tp);
int clock_getres(clockid_t clock_id, struct timespec *res);
int nanosleep(const struct timespec *rqtp, struct timespec *rmtp);

#endif
