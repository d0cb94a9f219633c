/* deriche.h - problem sizes of deriche (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_DERICHE_H
#define POLYBENCH_DERICHE_H

#ifndef POLYBENCH_H
# error "include polybench.h before deriche.h"
#endif

#if !defined(W) && !defined(H)
# if defined(MINI_DATASET)
#  define W 64
#  define H 64
# elif defined(SMALL_DATASET)
#  define W 192
#  define H 128
# elif defined(MEDIUM_DATASET)
#  define W 720
#  define H 480
# elif defined(LARGE_DATASET)
#  define W 4096
#  define H 2160
# elif defined(EXTRALARGE_DATASET)
#  define W 7680
#  define H 4320
# endif
#endif

#define _PB_W POLYBENCH_LOOP_BOUND(W, w)
#define _PB_H POLYBENCH_LOOP_BOUND(H, h)

#endif /* POLYBENCH_DERICHE_H */
