/* gemm.h - problem sizes of gemm (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_GEMM_H
#define POLYBENCH_GEMM_H

#ifndef POLYBENCH_H
# error "include polybench.h before gemm.h"
#endif

#if !defined(NI) && !defined(NJ) && !defined(NK)
# if defined(MINI_DATASET)
#  define NI 20
#  define NJ 25
#  define NK 30
# elif defined(SMALL_DATASET)
#  define NI 60
#  define NJ 70
#  define NK 80
# elif defined(MEDIUM_DATASET)
#  define NI 200
#  define NJ 220
#  define NK 240
# elif defined(LARGE_DATASET)
#  define NI 1000
#  define NJ 1100
#  define NK 1200
# elif defined(EXTRALARGE_DATASET)
#  define NI 2000
#  define NJ 2300
#  define NK 2600
# endif
#endif

#define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
#define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
#define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)

#endif /* POLYBENCH_GEMM_H */
