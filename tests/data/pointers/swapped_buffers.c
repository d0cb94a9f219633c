/* Two buffers swapped between time steps: pointers assigned more than once keep the
   assumption that distinct names do not alias, which the swap preserves. */
#include <stdio.h>
#include <stdlib.h>

void steps(int tsteps, int n, double *a, double *b)
{
  double *cur = a, *next = b;
  for (int t = 0; t < tsteps; t++) {
#pragma scop
    for (int i = 1; i < n - 1; i++)
      next[i] = (cur[i - 1] + cur[i] + cur[i + 1]) / 3.0;
#pragma endscop
    double *tmp = cur;
    cur = next;
    next = tmp;
  }
}

int main(void)
{
  int n = 50;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) a[i] = b[i] = (i * 7 % 13) - 6.0;
  steps(7, n, a, b);
  for (int i = 0; i < n; i++) printf("%.17g %.17g\n", a[i], b[i]);
  free(a); free(b);
  return 0;
}
