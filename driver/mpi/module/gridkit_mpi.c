/* SPDX-License-Identifier: MIT */
/*
 * gridkit_mpi.c - the MPI module (mpi_abi.h): MPI_COMM_WORLD as a byte
 * transport. Built only where MPI is found (-DGRIDKIT_WITH_MPI), linked
 * against it, and loaded by gridkit only under an MPI launcher.
 */
#include "mpi/mpi_abi.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void mpi_why(int code, char *why, size_t cap)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", code);
    snprintf(why, cap, "%s", s);
}

static int m_init(int *rank, int *size, int *local_rank, int *local_size, char *host,
                  size_t host_cap, char *why, size_t why_cap)
{
    int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        mpi_why(rc, why, why_cap);
        return -1;
    }
    /* errors come back as codes: gridkit stops the job with a message and
     * removes its temporary output itself */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, local_rank);
        MPI_Comm_size(node, local_size);
        MPI_Comm_free(&node);
    } else {
        *local_rank = *rank;
        *local_size = *size;
    }
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
        snprintf(name, sizeof name, "?");
    snprintf(host, host_cap, "%s", name);
    return 0;
}

static int m_send(int dest, int tag, const void *buf, size_t n)
{
    if (n > INT_MAX)
        return -1;
    return MPI_Send(buf, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static int m_probe(int src, int tag, int *got_src, int *got_tag, size_t *got_n)
{
    MPI_Status st;
    if (MPI_Probe(src < 0 ? MPI_ANY_SOURCE : src, tag < 0 ? MPI_ANY_TAG : tag, MPI_COMM_WORLD,
                  &st) != MPI_SUCCESS)
        return -1;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    *got_src = st.MPI_SOURCE;
    *got_tag = st.MPI_TAG;
    *got_n = (size_t)count;
    return 0;
}

static int m_iprobe(int src, int tag, int *flag, int *got_src, int *got_tag, size_t *got_n)
{
    MPI_Status st;
    *flag = 0;
    if (MPI_Iprobe(src < 0 ? MPI_ANY_SOURCE : src, tag < 0 ? MPI_ANY_TAG : tag, MPI_COMM_WORLD,
                   flag, &st) != MPI_SUCCESS)
        return -1;
    if (*flag) {
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        *got_src = st.MPI_SOURCE;
        *got_tag = st.MPI_TAG;
        *got_n = (size_t)count;
    }
    return 0;
}

static int m_recv(int src, int tag, void *buf, size_t cap, size_t *got_n)
{
    MPI_Status st;
    if (cap > INT_MAX)
        cap = INT_MAX;
    if (MPI_Recv(buf, (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS)
        return -1;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    *got_n = (size_t)count;
    return 0;
}

static int m_bcast(void *buf, size_t n, int root)
{
    if (n > INT_MAX)
        return -1;
    return MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static void m_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static int m_finalize(void) { return MPI_Finalize() == MPI_SUCCESS ? 0 : -1; }

static const gk_mpi_api api = {
    GK_MPI_ABI_VERSION, m_init, m_send, m_probe, m_iprobe, m_recv, m_bcast, m_abort, m_finalize};

__attribute__((visibility("default"))) const gk_mpi_api *GK_MPI_ENTRY_FN(void) { return &api; }
