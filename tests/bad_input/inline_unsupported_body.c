static void clear(double *row, int n)
{
  int k = 0;
  while (k < n)
    row[k++] = 0;
}

void kernel(int n, double A[100][100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    clear(A[i], n);
#pragma endscop
}
