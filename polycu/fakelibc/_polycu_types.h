/* polycu fakelibc: the types and macros that several headers define (internal).
 *
 * C and POSIX have several headers define the same name (size_t comes with
 * <stddef.h>, <stdio.h>, <stdlib.h>, <string.h>, <time.h>, <unistd.h>, ...),
 * and each header must define its own names only.  A header asks for what it
 * needs with _POLYCU_NEED_<NAME> macros, then includes this file: each name is
 * defined at most once per translation unit (include guard _POLYCU_<NAME>) and
 * the requests are withdrawn.  There is no guard around the whole file, since
 * every inclusion serves other requests; included with none, it defines
 * nothing. */

#if defined(_POLYCU_NEED_SIZE_T) && !defined(_POLYCU_SIZE_T)
#define _POLYCU_SIZE_T
typedef unsigned long size_t;
#endif

#if defined(_POLYCU_NEED_SSIZE_T) && !defined(_POLYCU_SSIZE_T)
#define _POLYCU_SSIZE_T
typedef long ssize_t;
#endif

#if defined(_POLYCU_NEED_OFF_T) && !defined(_POLYCU_OFF_T)
#define _POLYCU_OFF_T
typedef long off_t;
#endif

#if defined(_POLYCU_NEED_WCHAR_T) && !defined(_POLYCU_WCHAR_T)
#define _POLYCU_WCHAR_T
typedef int wchar_t;
#endif

#if defined(_POLYCU_NEED_VA_LIST) && !defined(_POLYCU_VA_LIST)
#define _POLYCU_VA_LIST
typedef char *__polycu_va_list;
#endif

#if defined(_POLYCU_NEED_TIME_T) && !defined(_POLYCU_TIME_T)
#define _POLYCU_TIME_T
typedef long time_t;
#endif

#if defined(_POLYCU_NEED_CLOCK_T) && !defined(_POLYCU_CLOCK_T)
#define _POLYCU_CLOCK_T
typedef long clock_t;
#endif

#if defined(_POLYCU_NEED_CLOCKID_T) && !defined(_POLYCU_CLOCKID_T)
#define _POLYCU_CLOCKID_T
typedef int clockid_t;
#endif

#if defined(_POLYCU_NEED_SUSECONDS_T) && !defined(_POLYCU_SUSECONDS_T)
#define _POLYCU_SUSECONDS_T
typedef long suseconds_t;
#endif

#if defined(_POLYCU_NEED_PID_T) && !defined(_POLYCU_PID_T)
#define _POLYCU_PID_T
typedef int pid_t;
#endif

#if defined(_POLYCU_NEED_ID_T) && !defined(_POLYCU_ID_T)
#define _POLYCU_ID_T
typedef unsigned int id_t;
#endif

#if defined(_POLYCU_NEED_USECONDS_T) && !defined(_POLYCU_USECONDS_T)
#define _POLYCU_USECONDS_T
typedef unsigned int useconds_t;
#endif

#if defined(_POLYCU_NEED_STRUCT_TIMESPEC) && !defined(_POLYCU_STRUCT_TIMESPEC)
#define _POLYCU_STRUCT_TIMESPEC
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};
#endif

#if defined(_POLYCU_NEED_NULL) && !defined(NULL)
#define NULL ((void *)0)
#endif

#undef _POLYCU_NEED_SIZE_T
#undef _POLYCU_NEED_SSIZE_T
#undef _POLYCU_NEED_OFF_T
#undef _POLYCU_NEED_WCHAR_T
#undef _POLYCU_NEED_VA_LIST
#undef _POLYCU_NEED_TIME_T
#undef _POLYCU_NEED_CLOCK_T
#undef _POLYCU_NEED_CLOCKID_T
#undef _POLYCU_NEED_SUSECONDS_T
#undef _POLYCU_NEED_PID_T
#undef _POLYCU_NEED_ID_T
#undef _POLYCU_NEED_USECONDS_T
#undef _POLYCU_NEED_STRUCT_TIMESPEC
#undef _POLYCU_NEED_NULL
