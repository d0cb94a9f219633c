/* correlation.h - problem sizes of correlation (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_CORRELATION_H
#define POLYBENCH_CORRELATION_H

#ifndef POLYBENCH_H
# error "include polybench.h before correlation.h"
#endif

#if !defined(M) && !defined(N)
# if defined(MINI_DATASET)
#  define M 28
#  define N 32
# elif defined(SMALL_DATASET)
#  define M 80
#  define N 100
# elif defined(MEDIUM_DATASET)
#  define M 240
#  define N 260
# elif defined(LARGE_DATASET)
#  define M 1200
#  define N 1400
# elif defined(EXTRALARGE_DATASET)
#  define M 2600
#  define N 3000
# endif
#endif

#define _PB_M POLYBENCH_LOOP_BOUND(M, m)
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_CORRELATION_H */
