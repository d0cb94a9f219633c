/* polycu fakelibc: <stddef.h> (C11 7.19). */
#ifndef _POLYCU_STDDEF_H
#define _POLYCU_STDDEF_H

#ifndef _POLYCU_SIZE_T
#define _POLYCU_SIZE_T
typedef unsigned long size_t;
#endif

#ifndef _POLYCU_WCHAR_T
#define _POLYCU_WCHAR_T
typedef int wchar_t;
#endif

#ifndef NULL
#define NULL ((void *)0)
#endif

typedef long ptrdiff_t;
typedef struct { long long __polycu_ll; long double __polycu_ld; } max_align_t;

#define offsetof(type, member) ((size_t)&(((type *)0)->member))

#endif
