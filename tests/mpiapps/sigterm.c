/*
 * sigterm.c - an MPI program as a user writes it (only <mpi.h>) that loops
 * on collectives until it is stopped by a signal or SECONDS have passed
 * (tests/interpose/sigterm.sh sends SIGTERM or SIGINT).
 *
 * usage: sigterm DIR [SECONDS] [handler]
 *   DIR      after the first collectives each rank writes DIR/pid.RANK (its
 *            process id), so the test knows the loop runs and whom to signal
 *   SECONDS  how long to loop at most (default 60); then MPI_Finalize
 *   handler  install, before MPI_Init, a SIGTERM handler of the program's
 *            own that writes DIR/marker.RANK and exits with status 0: it
 *            must still run under the profiling library
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char marker[4096];

static void on_term(int sig)
{
    (void)sig;
    int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        (void)!write(fd, "handler ran\n", 12);
        close(fd);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || (argc == 4 && strcmp(argv[3], "handler") != 0)) {
        fprintf(stderr, "usage: sigterm DIR [SECONDS] [handler]\n");
        return 2;
    }
    const char *dir = argv[1];
    int secs = argc > 2 ? atoi(argv[2]) : 60;
    if (argc == 4) {
        /* Before MPI_Init, so the rank comes from Open MPI's environment. */
        const char *r = getenv("OMPI_COMM_WORLD_RANK");
        snprintf(marker, sizeof marker, "%s/marker.%s", dir, r ? r : "x");
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
    }
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    time_t end = time(NULL) + secs;
    double x[64], y[64];
    for (int i = 0; i < 64; i++)
        x[i] = rank + i;
    for (long it = 0; time(NULL) < end; it++) {
        MPI_Allreduce(x, y, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(y, 64, MPI_DOUBLE, (int)(it % size), MPI_COMM_WORLD);
        if (y[1] != size * (size - 1) / 2.0 + size) {
            fprintf(stderr, "sigterm: FAIL rank %d: %.17g\n", rank, y[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (it == 10) {
            char path[4096];
            snprintf(path, sizeof path, "%s/pid.%d", dir, rank);
            FILE *f = fopen(path, "w");
            if (f) {
                fprintf(f, "%ld\n", (long)getpid());
                fclose(f);
            }
        }
    }
    printf("sigterm: rank %d looped %d s without a signal\n", rank, secs);
    MPI_Finalize();
    return 0;
}
