/* polycu fakelibc: <malloc.h> (not standard C; the glibc header some older
 * benchmarks include for the allocation functions and memalign). */
#ifndef _POLYCU_MALLOC_H
#define _POLYCU_MALLOC_H

#define _POLYCU_NEED_SIZE_T
#include <_polycu_types.h>

void *malloc(size_t size);
void *calloc(size_t nmemb, size_t size);
void *realloc(void *ptr, size_t size);
void free(void *ptr);
void *memalign(size_t alignment, size_t size);

#endif
