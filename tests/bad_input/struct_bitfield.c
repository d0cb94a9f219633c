struct flags { int on : 1; int level : 7; double x; };
void kernel(int n, struct flags f[100], double y[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    y[i] = f[i].x;
#pragma endscop
}
