struct point { double x; };
void kernel(int n, double y[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    struct point p;
    p.x = i;
    y[i] = p.x;
  }
#pragma endscop
}
