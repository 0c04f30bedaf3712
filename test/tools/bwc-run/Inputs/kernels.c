/* Hand-written kernels with the bwc CPU ABI: void name(void **args). */
#include <stdint.h>

/* t = x * w */
void mul(void **a) {
  const float *x = a[0], *w = a[1];
  float *t = a[2];
  for (int i = 0; i < 6; i++)
    t[i] = x[i] * w[i];
}

/* z = t + y */
void add(void **a) {
  const float *t = a[0], *y = a[1];
  float *z = a[2];
  for (int i = 0; i < 6; i++)
    z[i] = t[i] + y[i];
}

/* n = number of positive x */
void count(void **a) {
  const float *x = a[0];
  int64_t *n = a[1];
  n[0] = 0;
  for (int i = 0; i < 6; i++)
    n[0] += x[i] > 0;
}
