/* Enumeration constants as bounds, subscripts and values; enumerated types of both
   signs (gcc: unsigned int without a negative constant, else int). */
#include <stdio.h>
enum { N = 48, HALF = N / 2, LAST = N - 1, SHIFT = 1 << 3 };
enum dir { LEFT = -1, STAY, RIGHT = 'a' - 92 };
typedef enum { RED, GREEN, BLUE } colour;
static enum dir D[N];
static colour C[N];
static double A[N];
static int E[N], F[HALF + 1];
void kernel(void)
{
  int i;
#pragma scop
  for (i = 0; i < N; i++) {
    D[i] = A[i] > 0 ? RIGHT : (A[i] < -1 ? LEFT : STAY);
    C[i] = (colour) (i % 3);
    E[i] = D[i] * 3 + (D[i] == RIGHT) + (int) sizeof(enum dir) * SHIFT
           + (C[i] - 2 < 0) * 1000 + (D[i] - 2 < 0) * 10000;
  }
  for (i = HALF; i <= LAST; i += 2)
    F[i - HALF] = E[i] + E[LAST - i] + BLUE;
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) A[i] = (i % 7) - 3.5;
  kernel();
  printf("@ D int\n"); for (int i = 0; i < N; i++) printf("%d\n", (int) D[i]);
  printf("@ C int\n"); for (int i = 0; i < N; i++) printf("%d\n", (int) C[i]);
  printf("@ E int\n"); for (int i = 0; i < N; i++) printf("%d\n", E[i]);
  printf("@ F int\n"); for (int i = 0; i <= HALF; i++) printf("%d\n", F[i]);
  return 0;
}
