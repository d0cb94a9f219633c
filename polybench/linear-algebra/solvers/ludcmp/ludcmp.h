/* ludcmp.h - problem sizes of ludcmp (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_LUDCMP_H
#define POLYBENCH_LUDCMP_H

#ifndef POLYBENCH_H
# error "include polybench.h before ludcmp.h"
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

#endif /* POLYBENCH_LUDCMP_H */
