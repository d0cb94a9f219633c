/* A time loop on one line whose body calls two functions and runs a loop nest: the
   nest alone formed an automatic SCoP, and replacing its line dropped the calls and
   the time loop (every value printed was wrong, silently). */
#include <stdio.h>
#define N 80
static double A[N][N], x[N], y[N];
static long long H[N];
static signed char S[N];
void mv(int n, int m)
{
  for (int i = 0; i < n; i++) {
    y[i] = 0;
    for (int j = 0; j < m; j++)
      y[i] += A[i][j] * x[j];
  }
}
void hist(int n)
{
  for (int i = 0; i < n; i++) {
    H[i] = (long long) S[i] * 1000000007LL * (i + 1);
    S[i] = (signed char) (S[i] * 3 + 100);
  }
}
int main(void)
{
  for (int i = 0; i < N; i++) { x[i] = i % 5 - 2; S[i] = (signed char) (i * 7); for (int j = 0; j < N; j++) A[i][j] = (i + 2 * j) % 11 - 5; }
  mv(N, N);
  for (int t = 0; t < 3; t++) { mv(N - t * 10, N / 2); hist(N - t); for (int i = 0; i < N; i++) x[i] = y[i] * 0.01; }
  printf("@ y hex\n"); for (int i = 0; i < N; i++) printf("%a\n", y[i]);
  printf("@ H int\n"); for (int i = 0; i < N; i++) printf("%lld\n", H[i]);
  printf("@ S int\n"); for (int i = 0; i < N; i++) printf("%d\n", S[i]);
  return 0;
}
