/* gramschmidt.h - problem sizes of gramschmidt (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_GRAMSCHMIDT_H
#define POLYBENCH_GRAMSCHMIDT_H

#ifndef POLYBENCH_H
# error "include polybench.h before gramschmidt.h"
#endif

#if !defined(M) && !defined(N)
# if defined(MINI_DATASET)
#  define M 20
#  define N 30
# elif defined(SMALL_DATASET)
#  define M 60
#  define N 80
# elif defined(MEDIUM_DATASET)
#  define M 200
#  define N 240
# elif defined(LARGE_DATASET)
#  define M 1000
#  define N 1200
# elif defined(EXTRALARGE_DATASET)
#  define M 2000
#  define N 2600
# endif
#endif

#define _PB_M POLYBENCH_LOOP_BOUND(M, m)
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* POLYBENCH_GRAMSCHMIDT_H */
