/* cpi.c: pi by numerical integration of 4/(1+x^2), the classic first MPI
 * program, over several interval counts broadcast by rank 0.
 *
 * The order in which an MPI adds the partial sums of doubles is its own,
 * so the printed values are rounded to ten decimals (the partial sums
 * differ by far less); the integer reductions beside them are exact. */
#include <mpi.h>
#include <stdio.h>
#include <math.h>

#define PI25DT 3.141592653589793238462643

static double f(double a)
{
    return 4.0 / (1.0 + a * a);
}

int main(int argc, char **argv)
{
    static const int counts[] = {10, 100, 1000, 25000, 0};
    int rank, size, namelen, k;
    char name[MPI_MAX_PROCESSOR_NAME];
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &namelen);
    t0 = MPI_Wtime();

    for (k = 0;; k++) {
        int n = 0, i, mine = 0, touched = 0;
        double h, sum, x, mypi, pi = 0.0, pi_all = 0.0, lo, hi;

        if (rank == 0) {
            n = counts[k];
        }
        MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (n == 0) {
            break;
        }
        h = 1.0 / (double)n;
        sum = 0.0;
        for (i = rank + 1; i <= n; i += size) {
            x = h * ((double)i - 0.5);
            sum += f(x);
            mine++;
        }
        mypi = h * sum;
        MPI_Reduce(&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&mypi, &pi_all, 1, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        MPI_Reduce(&mypi, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mypi, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine, &touched, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("n %6d intervals %6d pi %.10f error %.3e\n", n, touched,
                   pi, fabs(pi - PI25DT));
            printf("         partial min %.10f max %.10f %s\n", lo, hi,
                   fabs(pi - pi_all) < 1e-12 ? "reduce==allreduce"
                                             : "reduce!=allreduce");
        }
    }
    if (rank == 0 && MPI_Wtime() - t0 < 0.0) {
        printf("clock went backwards\n");
    }
    if (rank == 0) {
        printf("processes %d, wtick positive: %s\n", size,
               MPI_Wtick() > 0.0 ? "yes" : "no");
    }
    MPI_Finalize();
    return 0;
}
