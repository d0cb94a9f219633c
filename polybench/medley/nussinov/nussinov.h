/* nussinov.h - problem sizes of nussinov (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_NUSSINOV_H
#define POLYBENCH_NUSSINOV_H

#ifndef POLYBENCH_H
# error "include polybench.h before nussinov.h"
#endif

#if !defined(N)
# if defined(MINI_DATASET)
#  define N 60
# elif defined(SMALL_DATASET)
#  define N 180
# elif defined(MEDIUM_DATASET)
#  define N 500
# elif defined(LARGE_DATASET)
#  define N 2500
# elif defined(EXTRALARGE_DATASET)
#  define N 5500
# endif
#endif

#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_NUSSINOV_H */
