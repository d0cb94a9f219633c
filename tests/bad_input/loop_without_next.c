void kernel(int n, double A[100])
{
  int i;
#pragma scop
  for (i = n; i-- > 0;)
    A[i] = 1.0;
#pragma endscop
  A[0] = i;   /* -1 here: the counted form would leave 0 */
}
