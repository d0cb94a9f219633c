/* Typedef names of arithmetic types in declarations inside the SCoP (a loop counter,
   a temporary): the CPU reference, which sees no typedef, did not build (fuzz seeds
   4300007 and 4300050, the typedef dialect). */
#include <stdio.h>
#include <stdint.h>
#define N 40
typedef double real;
typedef long i64;
static real A[N];
static i64 B[N];
void kernel(i64 n)
{
#pragma scop
  for (i64 i = 0; i < n; i++) {
    real t = (real) i / 3;
    int64_t u = i * 3000000000L;
    A[i] = t + u;
    B[i] = u / 7 + (i64) t;
  }
#pragma endscop
}
int main(void)
{
  kernel(N);
  printf("@ A hex\n"); for (int i = 0; i < N; i++) printf("%a\n", A[i]);
  printf("@ B int\n"); for (int i = 0; i < N; i++) printf("%ld\n", B[i]);
  return 0;
}
