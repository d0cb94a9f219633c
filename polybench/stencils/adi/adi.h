/* adi.h - problem sizes of adi (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_ADI_H
#define POLYBENCH_ADI_H

#ifndef POLYBENCH_H
# error "include polybench.h before adi.h"
#endif

#if !defined(TSTEPS) && !defined(N)
# if defined(MINI_DATASET)
#  define TSTEPS 20
#  define N 20
# elif defined(SMALL_DATASET)
#  define TSTEPS 40
#  define N 60
# elif defined(MEDIUM_DATASET)
#  define TSTEPS 100
#  define N 200
# elif defined(LARGE_DATASET)
#  define TSTEPS 500
#  define N 1000
# elif defined(EXTRALARGE_DATASET)
#  define TSTEPS 1000
#  define N 2000
# endif
#endif

#define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_ADI_H */
