/* 2mm.h - problem sizes of 2mm (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_2MM_H
#define POLYBENCH_2MM_H

#ifndef POLYBENCH_H
# error "include polybench.h before 2mm.h"
#endif

#if !defined(NI) && !defined(NJ) && !defined(NK) && !defined(NL)
# if defined(MINI_DATASET)
#  define NI 16
#  define NJ 18
#  define NK 22
#  define NL 24
# elif defined(SMALL_DATASET)
#  define NI 40
#  define NJ 50
#  define NK 70
#  define NL 80
# elif defined(MEDIUM_DATASET)
#  define NI 180
#  define NJ 190
#  define NK 210
#  define NL 220
# elif defined(LARGE_DATASET)
#  define NI 800
#  define NJ 900
#  define NK 1100
#  define NL 1200
# elif defined(EXTRALARGE_DATASET)
#  define NI 1600
#  define NJ 1800
#  define NK 2200
#  define NL 2400
# endif
#endif

#define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
#define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
#define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)
#define _PB_NL POLYBENCH_LOOP_BOUND(NL, nl)

#endif /* POLYBENCH_2MM_H */
