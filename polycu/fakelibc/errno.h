/* polycu fakelibc: <errno.h> (C11 7.5, plus common POSIX codes; Linux values).
 *
 * errno is an ordinary extern int so that uses of it stay readable. */
#ifndef _POLYCU_ERRNO_H
#define _POLYCU_ERRNO_H

extern int errno;

#define ENOENT 2
#define EINTR 4
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EEXIST 17
#define EINVAL 22
#define EDOM 33
#define ERANGE 34
#define EILSEQ 84

#endif
