/*
 * problem.c - cg's system and its references (cg_int.h): the 5-point
 * Laplacian of a grid, the exact solution, a serial CG on one thread and
 * the residual oracle with a bound on its own rounding.
 */
#include <math.h>
#include <stdlib.h>
#include "examples/cg/cg_int.h"

double cg_exact(const cg_grid_t *g, size_t i)
{
    long gx = (long)(i % (size_t)g->nx), gy = (long)(i / (size_t)g->nx);

    return (double)((gx * gx + 3 * gy * gy + gx * gy) % 13 - 6);
}

void cg_matvec(const cg_grid_t *g, const double *v, double *w, size_t lo, size_t hi,
               double dots[2])
{
    size_t nx = (size_t)g->nx, n = nx * (size_t)g->ny;

    for (size_t i = lo; i < hi; i++) {
        size_t gx = i % nx;
        double a = 4.0 * v[i];

        if (gx > 0) a -= v[i - 1];
        if (gx + 1 < nx) a -= v[i + 1];
        if (i >= nx) a -= v[i - nx];
        if (i + nx < n) a -= v[i + nx];
        w[i] = a;
        dots[0] += v[i] * v[i];
        dots[1] += a * v[i];
    }
}

int cg_neighbours(const cg_grid_t *g, size_t i, size_t nb[4])
{
    size_t nx = (size_t)g->nx, n = nx * (size_t)g->ny;
    int c = 0;

    if (i % nx > 0) nb[c++] = i - 1;
    if (i % nx + 1 < nx) nb[c++] = i + 1;
    if (i >= nx) nb[c++] = i - nx;
    if (i + nx < n) nb[c++] = i + nx;
    return c;
}

/*
 * Each residual entry takes at most 6 rounded operations on terms whose
 * magnitudes add up to m_i = |b_i| + (|A||x|)_i, so it is off by at most
 * gamma_6 m_i, gamma_k = k u / (1 - k u) with u = 2^-53 (Higham, Accuracy
 * and Stability of Numerical Algorithms, section 3.1); the norm then by at
 * most gamma_6 ||m||, widened by 1% for the rounding of the norms themselves.
 */
double cg_true_residual(const cg_grid_t *g, const double *b, const double *x, double *slack)
{
    static const long dx[4] = { -1, 1, 0, 0 }, dy[4] = { 0, 0, -1, 1 };
    double sum = 0.0, mag = 0.0, u = 0x1p-53, g6 = 6 * u / (1 - 6 * u);

    for (long gy = 0; gy < g->ny; gy++) {
        for (long gx = 0; gx < g->nx; gx++) {
            size_t i = (size_t)(gy * g->nx + gx);
            double ax = 4.0 * x[i], m = fabs(b[i]) + 4.0 * fabs(x[i]);

            for (int k = 0; k < 4; k++) {
                long qx = gx + dx[k], qy = gy + dy[k];
                if (qx < 0 || qy < 0 || qx >= g->nx || qy >= g->ny)
                    continue;
                ax -= x[qy * g->nx + qx];
                m += fabs(x[qy * g->nx + qx]);
            }
            sum += (b[i] - ax) * (b[i] - ax);
            mag += m * m;
        }
    }
    *slack = g6 * sqrt(mag) * 1.01;
    return sqrt(sum);
}

/* The eigenvalues are 4 sin^2(pi j / (2(nx+1))) + 4 sin^2(pi k / (2(ny+1))). */
double cg_lambda_min(const cg_grid_t *g)
{
    double sx = sin(M_PI / (2.0 * (double)(g->nx + 1)));
    double sy = sin(M_PI / (2.0 * (double)(g->ny + 1)));

    return 4.0 * (sx * sx + sy * sy);
}

long cg_serial(const cg_grid_t *g, const double *b, double *x, double tol, long max_iter)
{
    size_t n = (size_t)(g->nx * g->ny);
    double *r = malloc(n * sizeof(*r)), *p = malloc(n * sizeof(*p));
    double *q = malloc(n * sizeof(*q)), rr = 0.0, bb;
    long k = 0;

    if (r == NULL || p == NULL || q == NULL) {
        free(r), free(p), free(q);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = 0.0;
        r[i] = p[i] = b[i];
        rr += r[i] * r[i];
    }
    bb = rr;
    for (; k < max_iter && rr > tol * tol * bb; k++) {
        double d[2] = { 0.0, 0.0 }, alpha, rr1 = 0.0;

        cg_matvec(g, p, q, 0, n, d);
        alpha = rr / d[1];
        for (size_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rr1 += r[i] * r[i];
        }
        for (size_t i = 0; i < n; i++)
            p[i] = r[i] + rr1 / rr * p[i];
        rr = rr1;
    }
    free(r), free(p), free(q);
    return k;
}

double cg_max_abs_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - (b ? b[i] : 0.0)));
    return m;
}
