/* Kernel 0 reads A (5 points) and writes B; v[j] runs along the threads in x,
   w[i] is one value per row of threads; kernel 1 reads each A[i][j] before it
   writes it.  tests/test_memory_paths.py places these arrays in every kind. */
void f(int n, double A[64][64], double B[64][64], double v[64], double w[64])
{
  int i, j;
#pragma scop
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      B[i][j] = A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1] + v[j] * w[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] * 0.5 + B[i][j];
#pragma endscop
}
