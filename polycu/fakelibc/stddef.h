/* polycu fakelibc: <stddef.h> (C11 7.19). */
#ifndef _POLYCU_STDDEF_H
#define _POLYCU_STDDEF_H

#define _POLYCU_NEED_SIZE_T
#define _POLYCU_NEED_WCHAR_T
#define _POLYCU_NEED_NULL
#include <_polycu_types.h>

typedef long ptrdiff_t;
typedef struct { long long __polycu_ll; long double __polycu_ld; } max_align_t;

#define offsetof(type, member) ((size_t)&(((type *)0)->member))

#endif
