struct P { int n; double a[100]; };
void f(struct P s, double y[100])
{
  int i;
#pragma scop
  for (i = 0; i < 10; i++)
    y[i + s.n] = s.a[i];
#pragma endscop
}
