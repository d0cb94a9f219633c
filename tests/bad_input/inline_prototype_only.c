/* 'smooth' is only declared here: its body is in another file, so it cannot be inlined. */
void smooth(double *row, int n);

void kernel(int n, double A[100][100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    smooth(A[i], n);
#pragma endscop
}
