/* stencil.c with an int A and a float v: their texels are int and float (a
   double's is int2).  tests/test_memory_paths.py places them in every kind. */
void f(int n, int A[64][64], double B[64][64], float v[64], double w[64])
{
  int i, j;
#pragma scop
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      B[i][j] = A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1] + v[j] * w[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] / 3 - 7;
#pragma endscop
}
