/* jacobi-2d.h - problem sizes of jacobi-2d (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_JACOBI_2D_H
#define POLYBENCH_JACOBI_2D_H

#ifndef POLYBENCH_H
# error "include polybench.h before jacobi-2d.h"
#endif

#if !defined(TSTEPS) && !defined(N)
# if defined(MINI_DATASET)
#  define TSTEPS 20
#  define N 30
# elif defined(SMALL_DATASET)
#  define TSTEPS 40
#  define N 90
# elif defined(MEDIUM_DATASET)
#  define TSTEPS 100
#  define N 250
# elif defined(LARGE_DATASET)
#  define TSTEPS 500
#  define N 1300
# elif defined(EXTRALARGE_DATASET)
#  define TSTEPS 1000
#  define N 2800
# endif
#endif

#define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_JACOBI_2D_H */
