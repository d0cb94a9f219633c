struct point { double x; };
void kernel(int n, struct point *q[100], double y[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = q[i]->x;
#pragma endscop
}
