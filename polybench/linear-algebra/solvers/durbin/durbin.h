/* durbin.h - problem sizes of durbin (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_DURBIN_H
#define POLYBENCH_DURBIN_H

#ifndef POLYBENCH_H
# error "include polybench.h before durbin.h"
#endif

#if !defined(N)
# if defined(MINI_DATASET)
#  define N 40
# elif defined(SMALL_DATASET)
#  define N 120
# elif defined(MEDIUM_DATASET)
#  define N 400
# elif defined(LARGE_DATASET)
#  define N 2000
# elif defined(EXTRALARGE_DATASET)
#  define N 4000
# endif
#endif

#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_DURBIN_H */
