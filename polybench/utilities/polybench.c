/*
 * polybench.c - runtime support for the polycu PolyBench suite:
 * aligned array allocation, cache flushing and wall-clock timing.
 * See polybench.h for the compile-time options.
 */
#define _POSIX_C_SOURCE 200112L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "polybench.h"

/* Larger than the last-level cache of common machines, so that reading
   the whole buffer evicts the benchmark's arrays. */
#ifndef POLYBENCH_CACHE_SIZE_KB
# define POLYBENCH_CACHE_SIZE_KB 32770
#endif

/* Alignment of every array: a page, which also satisfies any vector
   width, so timings do not depend on where malloc places an array. */
#define POLYBENCH_ALIGNMENT 4096

static double polybench_t_start;
static double polybench_t_end;

void *polybench_alloc_data(unsigned long long int n, int elt_size)
{
  void *ptr = NULL;
  size_t bytes = (size_t)n * (size_t)elt_size;

  if (posix_memalign(&ptr, POLYBENCH_ALIGNMENT, bytes) != 0 || ptr == NULL)
    {
      fprintf(stderr, "[PolyBench] cannot allocate %llu bytes\n",
              (unsigned long long int)bytes);
      exit(1);
    }
  return ptr;
}

void polybench_free_data(void *ptr)
{
  free(ptr);
}

/* Writes then reads a cache-sized buffer.  Writing matters: a fresh
   calloc'ed buffer may be backed by a single shared zero page, and
   reading it would not evict anything.  The checksum is verified so the
   compiler cannot drop the loops. */
void polybench_flush_cache(void)
{
  size_t count = (size_t)POLYBENCH_CACHE_SIZE_KB * 1024 / sizeof(double);
  double *buffer = (double *)polybench_alloc_data(count, sizeof(double));
  double sum = 0.0;
  size_t i;

  for (i = 0; i < count; i++)
    buffer[i] = (double)i;
  for (i = 0; i < count; i++)
    sum += buffer[i];
  /* All partial sums are integers below 2^53, hence exact. */
  if (sum != (double)count * (double)(count - 1) / 2.0)
    {
      fprintf(stderr, "[PolyBench] cache flush checksum mismatch\n");
      exit(1);
    }
  free(buffer);
}

void polybench_prepare_instruments(void)
{
#ifndef POLYBENCH_NO_FLUSH_CACHE
  polybench_flush_cache();
#endif
}

/* Monotonic clock: immune to wall-clock adjustments during a run. */
static double polybench_now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1.0e-9;
}

void polybench_timer_start(void)
{
  polybench_prepare_instruments();
  polybench_t_start = polybench_now();
}

void polybench_timer_stop(void)
{
  polybench_t_end = polybench_now();
}

void polybench_timer_print(void)
{
  printf("%0.6f\n", polybench_t_end - polybench_t_start);
}
