/* gesummv.h - problem sizes of gesummv (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_GESUMMV_H
#define POLYBENCH_GESUMMV_H

#ifndef POLYBENCH_H
# error "include polybench.h before gesummv.h"
#endif

#if !defined(N)
# if defined(MINI_DATASET)
#  define N 30
# elif defined(SMALL_DATASET)
#  define N 90
# elif defined(MEDIUM_DATASET)
#  define N 250
# elif defined(LARGE_DATASET)
#  define N 1300
# elif defined(EXTRALARGE_DATASET)
#  define N 2800
# endif
#endif

#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_GESUMMV_H */
