/* Call statements of void functions: a row of a 2-D array passed as a 1-D array
   parameter ('copy(A[i], B[i], n)' binds dst[k] to A[i][k]) and an element passed
   by address ('add_one(&x[i])' makes *p the element x[i]). */
#include <stdio.h>
#define N 40

static void copy(double dst[N], double src[N], int n)
{
  for (int k = 0; k < n; k++)
    dst[k] = src[k];
}

static void add_one(double *p)
{
  *p += 1;
}

static void kernel(int n, double A[N][N], double B[N][N], double x[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    copy(A[i], B[i], n);
    add_one(&x[i]);
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N], x[N];
  int i, j, n = N - 3, bad = 0;
  for (i = 0; i < N; i++) {
    x[i] = i % 5;
    for (j = 0; j < N; j++)
      A[i][j] = -1, B[i][j] = (i * 3 + j) % 7;
  }
  kernel(n, A, B, x);
  for (i = 0; i < N; i++) {
    bad += x[i] != i % 5 + (i < n);
    for (j = 0; j < N; j++)
      bad += A[i][j] != (i < n && j < n ? (i * 3 + j) % 7 : -1);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
