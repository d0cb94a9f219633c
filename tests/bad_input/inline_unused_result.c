static int next(int *counter)
{
  return (*counter)++;
}

void kernel(int n, int c[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    next(&c[i]);
#pragma endscop
}
