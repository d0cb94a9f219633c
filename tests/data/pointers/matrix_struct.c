/* Matrices kept in a structure with a pointer field, the usual C library shape:
   the SCoP reads the sizes from the structure (loop bounds, strides) and the
   elements through its pointer, directly, through a row pointer and through a
   pointer to the data taken before the SCoP; a structure passed by value too. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int rows, cols;
  double *data;
} mat;

struct vec { long n; float *v; };

/* C = A * B + C */
void matmul(const mat *A, const mat *B, mat *C)
{
  const double *b = B->data;
#pragma scop
  for (int i = 0; i < A->rows; i++) {
    double *ci = C->data + i * C->cols;
    for (int j = 0; j < B->cols; j++)
      for (int k = 0; k < A->cols; k++)
        ci[j] += A->data[i * A->cols + k] * b[k * B->cols + j];
  }
#pragma endscop
}

/* y = M x, then each row of M scaled by y (a structure passed by value) */
void scale_rows(mat M, struct vec x, struct vec *y)
{
#pragma scop
  for (int i = 0; i < M.rows; i++) {
    y->v[i] = 0.0f;
    for (int j = 0; j < M.cols && j < x.n; j++)
      y->v[i] += (float) M.data[i * M.cols + j] * x.v[j];
  }
  for (int i = 0; i < M.rows; i++)
    for (int j = 0; j < M.cols; j++)
      M.data[i * M.cols + j] *= y->v[i];
#pragma endscop
}

static mat make(int rows, int cols, int seed)
{
  mat m = { rows, cols, malloc(sizeof(double) * rows * cols) };
  for (int i = 0; i < rows * cols; i++)
    m.data[i] = ((i * seed) % 17) * 0.25 - 2.0;
  return m;
}

int main(void)
{
  mat A = make(23, 31, 5), B = make(31, 19, 7), C = make(23, 19, 3);
  matmul(&A, &B, &C);
  for (int i = 0; i < C.rows * C.cols; i++) printf("%.17g\n", C.data[i]);
  struct vec x = { 25, malloc(sizeof(float) * 25) }, y = { 23, malloc(sizeof(float) * 23) };
  for (int j = 0; j < 25; j++) x.v[j] = (j % 5) - 2.0f;
  scale_rows(A, x, &y);
  for (int i = 0; i < 23; i++) printf("%.9g\n", y.v[i]);
  for (int i = 0; i < A.rows * A.cols; i++) printf("%.17g\n", A.data[i]);
  free(A.data); free(B.data); free(C.data); free(x.v); free(y.v);
  return 0;
}
