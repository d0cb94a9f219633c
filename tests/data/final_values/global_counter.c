/* A global loop counter outlives the function that runs the SCoP: main reads it
   after each call, so its final value must leave the SCoP even though nothing in
   the function reads it afterwards.  The second loop runs only for m > n. */
#include <stdio.h>
#define N 100

int k = 5;
int k2 = 5;
double A[N], B[N];

static void kernel(int n, int m)
{
#pragma scop
  for (k = 0; k < n; k++)
    A[k] = k * 0.5;
  for (k = n; k < m; k += 2)
    A[k] += 1;
#pragma endscop
}

static void plain(int n, int m)
{
  for (k2 = 0; k2 < n; k2++)
    B[k2] = k2 * 0.5;
  for (k2 = n; k2 < m; k2 += 2)
    B[k2] += 1;
}

int main(void)
{
  int sizes[][2] = {{50, 97}, {0, 0}, {10, 3}, {1, 2}, {0, 9}};
  int i, s, bad = 0;
  for (s = 0; s < 5; s++) {
    kernel(sizes[s][0], sizes[s][1]);
    plain(sizes[s][0], sizes[s][1]);
    bad += k != k2;
    for (i = 0; i < N; i++)
      bad += A[i] != B[i];
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
