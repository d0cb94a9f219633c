/* bicg.h - problem sizes of bicg (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_BICG_H
#define POLYBENCH_BICG_H

#ifndef POLYBENCH_H
# error "include polybench.h before bicg.h"
#endif

#if !defined(M) && !defined(N)
# if defined(MINI_DATASET)
#  define M 38
#  define N 42
# elif defined(SMALL_DATASET)
#  define M 116
#  define N 124
# elif defined(MEDIUM_DATASET)
#  define M 390
#  define N 410
# elif defined(LARGE_DATASET)
#  define M 1900
#  define N 2100
# elif defined(EXTRALARGE_DATASET)
#  define M 1800
#  define N 2200
# endif
#endif

#define _PB_M POLYBENCH_LOOP_BOUND(M, m)
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_BICG_H */
