struct vector { int n; double *data; };
void kernel(int n, struct vector *v, double y[100])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = v->data[i];
    v->n = i;
  }
#pragma endscop
}
