enum { N = 100 };
double A[100];
void kernel(void)
{
  int i, N = 10;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = i;
#pragma endscop
}
