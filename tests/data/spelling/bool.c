/* _Bool (and stdbool's bool): a conversion gives 1 for every nonzero value.  C++
   has no _Bool, so the kernels did not compile. */
#include <stdio.h>
#include <stdbool.h>
#define N 40
static double A[N];
static bool B[N];
static _Bool C[N];
static int D[N];
void kernel(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    B[i] = A[i] * 0.25;
    C[i] = i - 7;
    D[i] = B[i] + C[i] + (bool) (A[i] - 1.0) + !C[i];
  }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) A[i] = (i % 5) - 2 + 0.1 * (i % 3);
  kernel(N);
  printf("@ B int\n"); for (int i = 0; i < N; i++) printf("%d\n", B[i]);
  printf("@ C int\n"); for (int i = 0; i < N; i++) printf("%d\n", C[i]);
  printf("@ D int\n"); for (int i = 0; i < N; i++) printf("%d\n", D[i]);
  return 0;
}
