/* Data-dependent conditions nested in affine ones and inside each other, a
   condition on a scalar the SCoP writes, and a float array. */
#include <stdio.h>
#define N 150

static void kernel(int n, float A[N], float B[N], int flag[1])
{
  int i, seen;
#pragma scop
  seen = 0;
  for (i = 0; i < n; i++) {
    if (i % 2 == 0) {
      if (A[i] > 0.0f) {
        if (A[i] > 1.0e6f)
          B[i] = A[i] * 0.5f;
        else
          B[i] = A[i] + 1.0f;
      }
    } else if (A[i] < -1.0e6f) {
      B[i] = -A[i];
      seen = 1;
    }
  }
  for (i = 0; i < n; i++)
    if (seen)
      B[i] = B[i] - 3.0f;
#pragma endscop
  flag[0] = seen;
}

static void plain(int n, float A[N], float B[N], int flag[1])
{
  int i, seen = 0;
  for (i = 0; i < n; i++) {
    if (i % 2 == 0) {
      if (A[i] > 0.0f) {
        if (A[i] > 1.0e6f)
          B[i] = A[i] * 0.5f;
        else
          B[i] = A[i] + 1.0f;
      }
    } else if (A[i] < -1.0e6f) {
      B[i] = -A[i];
      seen = 1;
    }
  }
  for (i = 0; i < n; i++)
    if (seen)
      B[i] = B[i] - 3.0f;
  flag[0] = seen;
}

int main(void)
{
  static float A[N], B[N], B2[N];
  int flag[1] = {-1}, flag2[1] = {-1};
  int i, bad = 0, n = N - 4;
  for (i = 0; i < N; i++) {
    A[i] = (float) (((i * 7717) % 1003 - 501) * 4.0e3);
    B[i] = B2[i] = -0.25f * i;
  }
  kernel(n, A, B, flag);
  plain(n, A, B2, flag2);
  for (i = 0; i < N; i++)
    bad += B[i] != B2[i];
  bad += flag[0] != flag2[0];
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
