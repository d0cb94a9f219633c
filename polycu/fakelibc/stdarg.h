/* polycu fakelibc: <stdarg.h> (C11 7.16).
 *
 * va_list is a plain pointer typedef and the macros expand to ordinary C so
 * that variadic functions in a harness parse; polycu never runs them. */
#ifndef _POLYCU_STDARG_H
#define _POLYCU_STDARG_H

#define _POLYCU_NEED_VA_LIST
#include <_polycu_types.h>

typedef __polycu_va_list va_list;

#define va_start(ap, last) ((void)((ap) = (va_list)&(last)))
#define va_arg(ap, type) (*(type *)(ap))
#define va_end(ap) ((void)(ap))
#define va_copy(dest, src) ((void)((dest) = (src)))

#endif
