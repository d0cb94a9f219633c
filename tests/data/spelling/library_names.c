/* Parameters named like C library functions that isl reads as keywords (floor,
   ceil), beside calls of those very functions in another function and a structure
   field of the same name: isl's parser stopped with a traceback. */
#include <stdio.h>
#include <math.h>
#define N 40
struct cell { double floor; double v; };
static double A[N], B[N];
static struct cell C[N];
void kernel(int floor, int ceil)
{
  int i;
#pragma scop
  for (i = floor; i < ceil; i++) {
    A[i] = A[i] * 0.5 + C[i].floor + floor;
    C[i].floor = C[i].v - ceil;
  }
#pragma endscop
}
void rounding(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = floor(A[i] * 0.75) + ceil(B[i] - 0.25);
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) { A[i] = i * 1.25 - 7; B[i] = 0.5 * i; C[i].floor = i; C[i].v = -i * 0.5; }
  kernel(3, 37);
  rounding(N);
  printf("@ A hex\n"); for (int i = 0; i < N; i++) printf("%a\n", A[i]);
  printf("@ B hex\n"); for (int i = 0; i < N; i++) printf("%a\n", B[i]);
  printf("@ C hex\n"); for (int i = 0; i < N; i++) printf("%a\n", C[i].floor);
  return 0;
}
