/* polycu fakelibc: <omp.h> (the OpenMP runtime library routines a
 * benchmark harness calls, OpenMP 4.5 section 3). */
#ifndef _POLYCU_OMP_H
#define _POLYCU_OMP_H

typedef struct { void *__polycu_lock; } omp_lock_t;
typedef struct { void *__polycu_lock; } omp_nest_lock_t;

void omp_set_num_threads(int num_threads);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int dynamic_threads);
int omp_get_dynamic(void);
void omp_set_nested(int nested);
int omp_get_nested(void);
int omp_get_level(void);

void omp_init_lock(omp_lock_t *lock);
void omp_destroy_lock(omp_lock_t *lock);
void omp_set_lock(omp_lock_t *lock);
void omp_unset_lock(omp_lock_t *lock);
int omp_test_lock(omp_lock_t *lock);
void omp_init_nest_lock(omp_nest_lock_t *lock);
void omp_destroy_nest_lock(omp_nest_lock_t *lock);
void omp_set_nest_lock(omp_nest_lock_t *lock);
void omp_unset_nest_lock(omp_nest_lock_t *lock);
int omp_test_nest_lock(omp_nest_lock_t *lock);

double omp_get_wtime(void);
double omp_get_wtick(void);

#endif
