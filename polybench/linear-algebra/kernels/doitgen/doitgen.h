/* doitgen.h - problem sizes of doitgen (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_DOITGEN_H
#define POLYBENCH_DOITGEN_H

#ifndef POLYBENCH_H
# error "include polybench.h before doitgen.h"
#endif

#if !defined(NQ) && !defined(NR) && !defined(NP)
# if defined(MINI_DATASET)
#  define NQ 8
#  define NR 10
#  define NP 12
# elif defined(SMALL_DATASET)
#  define NQ 20
#  define NR 25
#  define NP 30
# elif defined(MEDIUM_DATASET)
#  define NQ 40
#  define NR 50
#  define NP 60
# elif defined(LARGE_DATASET)
#  define NQ 140
#  define NR 150
#  define NP 160
# elif defined(EXTRALARGE_DATASET)
#  define NQ 220
#  define NR 250
#  define NP 270
# endif
#endif

#define _PB_NQ POLYBENCH_LOOP_BOUND(NQ, nq)
#define _PB_NR POLYBENCH_LOOP_BOUND(NR, nr)
#define _PB_NP POLYBENCH_LOOP_BOUND(NP, np)

#endif /* POLYBENCH_DOITGEN_H */
