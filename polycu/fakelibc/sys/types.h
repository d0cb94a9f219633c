/* polycu fakelibc: <sys/types.h> (POSIX; x86-64 Linux sizes). */
#ifndef _POLYCU_SYS_TYPES_H
#define _POLYCU_SYS_TYPES_H

#ifndef _POLYCU_SIZE_T
#define _POLYCU_SIZE_T
typedef unsigned long size_t;
#endif

#ifndef _POLYCU_SSIZE_T
#define _POLYCU_SSIZE_T
typedef long ssize_t;
#endif

#ifndef _POLYCU_OFF_T
#define _POLYCU_OFF_T
typedef long off_t;
#endif

#ifndef _POLYCU_TIME_T
#define _POLYCU_TIME_T
typedef long time_t;
#endif

#ifndef _POLYCU_CLOCK_T
#define _POLYCU_CLOCK_T
typedef long clock_t;
#endif

#ifndef _POLYCU_CLOCKID_T
#define _POLYCU_CLOCKID_T
typedef int clockid_t;
#endif

#ifndef _POLYCU_SUSECONDS_T
#define _POLYCU_SUSECONDS_T
typedef long suseconds_t;
#endif

#ifndef _POLYCU_PID_T
#define _POLYCU_PID_T
typedef int pid_t;
#endif

#ifndef _POLYCU_ID_T
#define _POLYCU_ID_T
typedef unsigned int id_t;
#endif

#ifndef _POLYCU_USECONDS_T
#define _POLYCU_USECONDS_T
typedef unsigned int useconds_t;
#endif

typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef unsigned int mode_t;
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef long blksize_t;
typedef long blkcnt_t;

#endif
