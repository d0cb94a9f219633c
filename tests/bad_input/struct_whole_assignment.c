struct cplx { double re, im; };
void kernel(int n, struct cplx a[100], struct cplx b[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    a[i] = b[i];
#pragma endscop
}
