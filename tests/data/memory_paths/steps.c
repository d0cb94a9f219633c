/* Time steps that keep w (read-only) and A (written every step) in CUDA arrays and
   constant memory: the host copies w once and refills A's CUDA array only after a
   step wrote its buffer (tests/test_memory_paths.py). */
#define N 64
#define T 5
double A[N][N], B[N][N], w[N];

void steps(void)
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 0; j < N; j++)
        B[i][j] = (A[i - 1][j] + A[i + 1][j]) * w[i];
    for (int i = 1; i < N - 1; i++)
      for (int j = 0; j < N; j++)
        A[i][j] = B[i][j] * 0.5 + w[i];
  }
#pragma endscop
}
