/*
 * halo.c - the rows of a vector that a rank reads but another owns
 * (cg_int.h).  The lists come from the owner map alone, the same on every
 * rank: rank A sends B the rows A owns with a neighbour owned by B, which
 * are exactly the rows B expects from A, in the same ascending order.
 * One nonblocking send and receive per peer, then a wait for all.
 */
#include <stdlib.h>
#include "examples/cg/cg_int.h"

#define CG_HALO_TAG 17

/* Rows owned by `from` with a neighbour owned by `to`, into idx if not NULL. */
static size_t halo_rows(const cg_grid_t *g, const int *owner, int from, int to, size_t *idx)
{
    size_t n = (size_t)(g->nx * g->ny), count = 0, nb[4];

    for (size_t i = 0; i < n; i++) {
        int c;
        if (owner[i] != from)
            continue;
        c = cg_neighbours(g, i, nb);
        for (int k = 0; k < c; k++) {
            if (owner[nb[k]] == to) {
                if (idx != NULL)
                    idx[count] = i;
                count++;
                break;
            }
        }
    }
    return count;
}

static int add_peer(cg_halo_t *h, const cg_grid_t *g, const int *owner, int me, int q)
{
    cg_peer_t *pe = &h->peers[h->npeers];

    pe->rank = q;
    pe->nsend = halo_rows(g, owner, me, q, NULL);
    pe->nrecv = halo_rows(g, owner, q, me, NULL);
    if (pe->nsend + pe->nrecv == 0)
        return 0;
    h->npeers++;
    pe->send_idx = malloc((pe->nsend + 1) * sizeof(size_t));
    pe->recv_idx = malloc((pe->nrecv + 1) * sizeof(size_t));
    pe->sbuf = malloc((pe->nsend + 1) * sizeof(double));
    pe->rbuf = malloc((pe->nrecv + 1) * sizeof(double));
    if (!pe->send_idx || !pe->recv_idx || !pe->sbuf || !pe->rbuf)
        return -1;
    halo_rows(g, owner, me, q, pe->send_idx);
    halo_rows(g, owner, q, me, pe->recv_idx);
    return 0;
}

int cg_halo_make(cg_halo_t *h, const cg_grid_t *g, const int *owner, MPI_Comm comm)
{
    int me, size;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    MPI_Comm_dup(comm, &h->comm);
    h->npeers = 0;
    if ((h->peers = calloc((size_t)size, sizeof(*h->peers))) == NULL)
        return -1;
    for (int q = 0; q < size; q++) {
        if (q != me && add_peer(h, g, owner, me, q) != 0) {
            cg_halo_free(h);
            return -1;
        }
    }
    return 0;
}

void cg_halo_exchange(cg_halo_t *h, double *v)
{
    MPI_Request req[2 * (h->npeers + 1)];
    int nreq = 0;

    for (int k = 0; k < h->npeers; k++) {
        cg_peer_t *pe = &h->peers[k];
        if (pe->nrecv > 0)
            MPI_Irecv(pe->rbuf, (int)pe->nrecv, MPI_DOUBLE, pe->rank, CG_HALO_TAG, h->comm,
                      &req[nreq++]);
    }
    for (int k = 0; k < h->npeers; k++) {
        cg_peer_t *pe = &h->peers[k];
        for (size_t j = 0; j < pe->nsend; j++)
            pe->sbuf[j] = v[pe->send_idx[j]];
        if (pe->nsend > 0)
            MPI_Isend(pe->sbuf, (int)pe->nsend, MPI_DOUBLE, pe->rank, CG_HALO_TAG, h->comm,
                      &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int k = 0; k < h->npeers; k++) {
        cg_peer_t *pe = &h->peers[k];
        for (size_t j = 0; j < pe->nrecv; j++)
            v[pe->recv_idx[j]] = pe->rbuf[j];
    }
}

void cg_halo_free(cg_halo_t *h)
{
    for (int k = 0; h->peers != NULL && k < h->npeers; k++) {
        free(h->peers[k].send_idx);
        free(h->peers[k].recv_idx);
        free(h->peers[k].sbuf);
        free(h->peers[k].rbuf);
    }
    free(h->peers);
    h->peers = NULL;
    h->npeers = 0;
    if (h->comm != MPI_COMM_NULL)
        MPI_Comm_free(&h->comm);
    h->comm = MPI_COMM_NULL;
}
