static void down(double *row, int k);

static void down(double *row, int k)
{
  row[k] = 0;
  down(row, k - 1);
}

void kernel(int n, double A[100][100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    down(A[i], n);
#pragma endscop
}
