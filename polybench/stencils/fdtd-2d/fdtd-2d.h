/* fdtd-2d.h - problem sizes of fdtd-2d (the PolyBench/C 4.2.1 datasets). */
#ifndef POLYBENCH_FDTD_2D_H
#define POLYBENCH_FDTD_2D_H

#ifndef POLYBENCH_H
# error "include polybench.h before fdtd-2d.h"
#endif

#if !defined(TMAX) && !defined(NX) && !defined(NY)
# if defined(MINI_DATASET)
#  define TMAX 20
#  define NX 20
#  define NY 30
# elif defined(SMALL_DATASET)
#  define TMAX 40
#  define NX 60
#  define NY 80
# elif defined(MEDIUM_DATASET)
#  define TMAX 100
#  define NX 200
#  define NY 240
# elif defined(LARGE_DATASET)
#  define TMAX 500
#  define NX 1000
#  define NY 1200
# elif defined(EXTRALARGE_DATASET)
#  define TMAX 1000
#  define NX 2000
#  define NY 2600
# endif
#endif

#define _PB_TMAX POLYBENCH_LOOP_BOUND(TMAX, tmax)
#define _PB_NX POLYBENCH_LOOP_BOUND(NX, nx)
#define _PB_NY POLYBENCH_LOOP_BOUND(NY, ny)

#endif /* POLYBENCH_FDTD_2D_H */
