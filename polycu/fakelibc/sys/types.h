/* polycu fakelibc: <sys/types.h> (POSIX; x86-64 Linux sizes). */
#ifndef _POLYCU_SYS_TYPES_H
#define _POLYCU_SYS_TYPES_H

#define _POLYCU_NEED_SIZE_T
#define _POLYCU_NEED_SSIZE_T
#define _POLYCU_NEED_OFF_T
#define _POLYCU_NEED_TIME_T
#define _POLYCU_NEED_CLOCK_T
#define _POLYCU_NEED_CLOCKID_T
#define _POLYCU_NEED_SUSECONDS_T
#define _POLYCU_NEED_PID_T
#define _POLYCU_NEED_ID_T
#define _POLYCU_NEED_USECONDS_T
#include <_polycu_types.h>

typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef unsigned int mode_t;
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef long blksize_t;
typedef long blkcnt_t;

#endif
