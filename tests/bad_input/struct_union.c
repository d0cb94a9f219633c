union bits { float f; int i; };
void kernel(int n, union bits u[100], int y[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = u[i].i;
#pragma endscop
}
