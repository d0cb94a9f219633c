static void strided(double *row, int n, int s)
{
  for (int k = 0; k < n; k++)
    row[k * s] = 0;
}

void kernel(int n, int s, double A[100][100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    strided(A[i], n, s);
#pragma endscop
}
