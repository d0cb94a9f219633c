double A[100];
enum { N = sizeof(A) / 16 };
void kernel(void)
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = i;
#pragma endscop
}
