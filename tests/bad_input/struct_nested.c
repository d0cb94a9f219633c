struct point { double x, y; };
struct segment { struct point a, b; };
void kernel(int n, struct segment s[100], double len[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    len[i] = s[i].b.x - s[i].a.x;
#pragma endscop
}
