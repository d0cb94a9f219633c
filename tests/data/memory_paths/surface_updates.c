/* Every C assignment form on arrays forced into surfaces (tests/test_memory_paths.py):
   an int updated by a double (C converts the sum, not the operand), an increment,
   a decrement and integer compound operators, each array updated once per element. */
void f(int n, int A[64][64], double B[64][64], int C[64][64], int D[64][64],
       unsigned U[64][64], unsigned V[64][64])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] += B[i][j] - 0.5;
      C[i][j]++;
      D[i][j] %= 7;
      U[i][j] <<= 1;
      V[i][j]--;
    }
#pragma endscop
}
