/*
 * mpi_calls_more.h: the MPI calls of topologies, datatype decoding and
 * attributes, handle conversion, one-sided communication, the neighbour
 * collectives, gencomm's extensions (MPIX_: LCOs, threads, the SMP
 * hierarchy, external communicators, sessions, graphs, mapping and
 * relations), generalized requests, address arithmetic and dynamic
 * processes.
 *
 * Part of <mpi.h>, which includes it with its types, constants and the
 * GCM_MPI_API macro (each MPI_X declared with its PMPI_X); include
 * <mpi.h>, never this file alone.
 */
#ifndef GENCOMM_MPI_CALLS_MORE_H
#define GENCOMM_MPI_CALLS_MORE_H

#ifndef GENCOMM_MPI_H
#error "include <mpi.h>, not mpi_calls_more.h"
#endif

/* topologies (mpi_topo_*.c) */
GCM_MPI_API(int, Dims_create, (int nnodes, int ndims, int dims[]))
GCM_MPI_API(int, Cart_create, (MPI_Comm comm_old, int ndims,
                               const int dims[], const int periods[],
                               int reorder, MPI_Comm *comm_cart))
GCM_MPI_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims,
                               int coords[]))
GCM_MPI_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
GCM_MPI_API(int, Cart_shift, (MPI_Comm comm, int direction, int disp,
                              int *rank_source, int *rank_dest))
GCM_MPI_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[],
                            MPI_Comm *newcomm))
GCM_MPI_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[],
                            int periods[], int coords[]))
GCM_MPI_API(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[],
                            const int periods[], int *newrank))
GCM_MPI_API(int, Cartdim_get, (MPI_Comm comm, int *ndims))
GCM_MPI_API(int, Graph_create, (MPI_Comm comm_old, int nnodes,
                                const int index[], const int edges[],
                                int reorder, MPI_Comm *comm_graph))
GCM_MPI_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges,
                             int index[], int edges[]))
GCM_MPI_API(int, Graph_neighbors, (MPI_Comm comm, int rank,
                                   int maxneighbors, int neighbors[]))
GCM_MPI_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank,
                                         int *nneighbors))
GCM_MPI_API(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[],
                             const int edges[], int *newrank))
GCM_MPI_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
GCM_MPI_API(int, Topo_test, (MPI_Comm comm, int *status))
GCM_MPI_API(int, Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[],
             const int *sourceweights, int outdegree,
             const int destinations[], const int *destweights,
             MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
GCM_MPI_API(int, Dist_graph_create, (MPI_Comm comm_old, int n,
                                     const int sources[],
                                     const int degrees[],
                                     const int destinations[],
                                     const int *weights, MPI_Info info,
                                     int reorder, MPI_Comm *comm_dist_graph))
GCM_MPI_API(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree,
                                              int *outdegree, int *weighted))
GCM_MPI_API(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree,
                                        int sources[], int *sourceweights,
                                        int maxoutdegree,
                                        int destinations[],
                                        int *destweights))
GCM_MPI_API(int, Neighbor_allgather, (const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm))
GCM_MPI_API(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[],
                                       const int displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm))
GCM_MPI_API(int, Neighbor_alltoall, (const void *sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm))
GCM_MPI_API(int, Neighbor_alltoallv, (const void *sendbuf,
                                      const int sendcounts[],
                                      const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[],
                                      const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm))

/* datatypes: distributed arrays, decoding, the _x queries and the
 * portable "external32" representation (mpi_type_*.c) */
GCM_MPI_API(int, Type_create_darray, (int size, int rank, int ndims,
                                      const int array_of_gsizes[],
                                      const int array_of_distribs[],
                                      const int array_of_dargs[],
                                      const int array_of_psizes[],
                                      int order, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype))
GCM_MPI_API(int, Type_get_contents, (MPI_Datatype datatype,
                                     int max_integers, int max_addresses,
                                     int max_datatypes,
                                     int array_of_integers[],
                                     MPI_Aint array_of_addresses[],
                                     MPI_Datatype array_of_datatypes[]))
GCM_MPI_API(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb,
                                     MPI_Count *extent))
GCM_MPI_API(int, Type_get_true_extent_x, (MPI_Datatype datatype,
                                          MPI_Count *true_lb,
                                          MPI_Count *true_extent))
GCM_MPI_API(int, Pack_external, (const char datarep[], const void *inbuf,
                                 int incount, MPI_Datatype datatype,
                                 void *outbuf, MPI_Aint outsize,
                                 MPI_Aint *position))
GCM_MPI_API(int, Unpack_external, (const char datarep[], const void *inbuf,
                                   MPI_Aint insize, MPI_Aint *position,
                                   void *outbuf, int outcount,
                                   MPI_Datatype datatype))
GCM_MPI_API(int, Pack_external_size, (const char datarep[], int incount,
                                      MPI_Datatype datatype,
                                      MPI_Aint *size))

/* attributes on datatypes (mpi_type_attr.c) */
GCM_MPI_API(int, Type_create_keyval,
            (MPI_Type_copy_attr_function *type_copy_attr_fn,
             MPI_Type_delete_attr_function *type_delete_attr_fn,
             int *type_keyval, void *extra_state))
GCM_MPI_API(int, Type_free_keyval, (int *type_keyval))
GCM_MPI_API(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval,
                                 void *attribute_val))
GCM_MPI_API(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval,
                                 void *attribute_val, int *flag))
GCM_MPI_API(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))

/* handle conversion (mpi_fint.c): a handle as a Fortran integer and
 * back; a freed handle's integer converts back to the null handle */
#define MPI_F_STATUS_SIZE 6
GCM_MPI_API(MPI_Fint, Comm_c2f, (MPI_Comm comm))
GCM_MPI_API(MPI_Comm, Comm_f2c, (MPI_Fint comm))
GCM_MPI_API(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
GCM_MPI_API(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
GCM_MPI_API(MPI_Fint, Group_c2f, (MPI_Group group))
GCM_MPI_API(MPI_Group, Group_f2c, (MPI_Fint group))
GCM_MPI_API(MPI_Fint, Op_c2f, (MPI_Op op))
GCM_MPI_API(MPI_Op, Op_f2c, (MPI_Fint op))
GCM_MPI_API(MPI_Fint, Info_c2f, (MPI_Info info))
GCM_MPI_API(MPI_Info, Info_f2c, (MPI_Fint info))
GCM_MPI_API(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
GCM_MPI_API(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
GCM_MPI_API(MPI_Fint, Request_c2f, (MPI_Request request))
GCM_MPI_API(MPI_Request, Request_f2c, (MPI_Fint request))
GCM_MPI_API(MPI_Fint, Message_c2f, (MPI_Message message))
GCM_MPI_API(MPI_Message, Message_f2c, (MPI_Fint message))
GCM_MPI_API(MPI_Fint, Win_c2f, (MPI_Win win))
GCM_MPI_API(MPI_Win, Win_f2c, (MPI_Fint win))
GCM_MPI_API(int, Status_c2f, (const MPI_Status *c_status,
                              MPI_Fint *f_status))
GCM_MPI_API(int, Status_f2c, (const MPI_Fint *f_status,
                              MPI_Status *c_status))

/* one-sided communication: windows (mpi_win_*.c) and their operations
 * (mpi_rma_*.c) */
GCM_MPI_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
GCM_MPI_API(int, Free_mem, (void *base))
GCM_MPI_API(int, Win_create, (void *base, MPI_Aint size, int disp_unit,
                              MPI_Info info, MPI_Comm comm, MPI_Win *win))
GCM_MPI_API(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, void *baseptr, MPI_Win *win))
GCM_MPI_API(int, Win_allocate_shared, (MPI_Aint size, int disp_unit,
                                       MPI_Info info, MPI_Comm comm,
                                       void *baseptr, MPI_Win *win))
GCM_MPI_API(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size,
                                    int *disp_unit, void *baseptr))
GCM_MPI_API(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm,
                                      MPI_Win *win))
GCM_MPI_API(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
GCM_MPI_API(int, Win_detach, (MPI_Win win, const void *base))
GCM_MPI_API(int, Win_free, (MPI_Win *win))
GCM_MPI_API(int, Win_get_group, (MPI_Win win, MPI_Group *group))
GCM_MPI_API(int, Win_set_name, (MPI_Win win, const char *win_name))
GCM_MPI_API(int, Win_get_name, (MPI_Win win, char *win_name,
                                int *resultlen))
GCM_MPI_API(int, Win_set_info, (MPI_Win win, MPI_Info info))
GCM_MPI_API(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
GCM_MPI_API(int, Win_create_errhandler,
            (MPI_Win_errhandler_function *win_errhandler_fn,
             MPI_Errhandler *errhandler))
GCM_MPI_API(int, Win_set_errhandler, (MPI_Win win,
                                      MPI_Errhandler errhandler))
GCM_MPI_API(int, Win_get_errhandler, (MPI_Win win,
                                      MPI_Errhandler *errhandler))
GCM_MPI_API(int, Win_call_errhandler, (MPI_Win win, int errorcode))
GCM_MPI_API(int, Win_create_keyval,
            (MPI_Win_copy_attr_function *win_copy_attr_fn,
             MPI_Win_delete_attr_function *win_delete_attr_fn,
             int *win_keyval, void *extra_state))
GCM_MPI_API(int, Win_free_keyval, (int *win_keyval))
GCM_MPI_API(int, Win_set_attr, (MPI_Win win, int win_keyval,
                                void *attribute_val))
GCM_MPI_API(int, Win_get_attr, (MPI_Win win, int win_keyval,
                                void *attribute_val, int *flag))
GCM_MPI_API(int, Win_delete_attr, (MPI_Win win, int win_keyval))
GCM_MPI_API(int, Win_fence, (int assert, MPI_Win win))
GCM_MPI_API(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
GCM_MPI_API(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
GCM_MPI_API(int, Win_complete, (MPI_Win win))
GCM_MPI_API(int, Win_wait, (MPI_Win win))
GCM_MPI_API(int, Win_test, (MPI_Win win, int *flag))
GCM_MPI_API(int, Win_lock, (int lock_type, int rank, int assert,
                            MPI_Win win))
GCM_MPI_API(int, Win_unlock, (int rank, MPI_Win win))
GCM_MPI_API(int, Win_lock_all, (int assert, MPI_Win win))
GCM_MPI_API(int, Win_unlock_all, (MPI_Win win))
GCM_MPI_API(int, Win_flush, (int rank, MPI_Win win))
GCM_MPI_API(int, Win_flush_all, (MPI_Win win))
GCM_MPI_API(int, Win_flush_local, (int rank, MPI_Win win))
GCM_MPI_API(int, Win_flush_local_all, (MPI_Win win))
GCM_MPI_API(int, Win_sync, (MPI_Win win))
GCM_MPI_API(int, Put, (const void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win))
GCM_MPI_API(int, Get, (void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win))
GCM_MPI_API(int, Accumulate, (const void *origin_addr, int origin_count,
                              MPI_Datatype origin_datatype, int target_rank,
                              MPI_Aint target_disp, int target_count,
                              MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win))
GCM_MPI_API(int, Get_accumulate, (const void *origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype,
                                  void *result_addr, int result_count,
                                  MPI_Datatype result_datatype,
                                  int target_rank, MPI_Aint target_disp,
                                  int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op,
                                  MPI_Win win))
GCM_MPI_API(int, Fetch_and_op, (const void *origin_addr, void *result_addr,
                                MPI_Datatype datatype, int target_rank,
                                MPI_Aint target_disp, MPI_Op op,
                                MPI_Win win))
GCM_MPI_API(int, Compare_and_swap, (const void *origin_addr,
                                    const void *compare_addr,
                                    void *result_addr, MPI_Datatype datatype,
                                    int target_rank, MPI_Aint target_disp,
                                    MPI_Win win))
GCM_MPI_API(int, Rput, (const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request))
GCM_MPI_API(int, Rget, (void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request))
GCM_MPI_API(int, Raccumulate, (const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp,
                               int target_count,
                               MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win, MPI_Request *request))
GCM_MPI_API(int, Rget_accumulate, (const void *origin_addr,
                                   int origin_count,
                                   MPI_Datatype origin_datatype,
                                   void *result_addr, int result_count,
                                   MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp,
                                   int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op,
                                   MPI_Win win, MPI_Request *request))
/* The rest of the neighbour collectives (mpi_topo_nbr.c): blocking
 * MPI_Neighbor_alltoallw, the nonblocking forms, and the MPI-4
 * persistent forms (declared whatever MPI_VERSION says). */
GCM_MPI_API(int, Neighbor_alltoallw, (const void *sendbuf,
                                      const int sendcounts[],
                                      const MPI_Aint sdispls[],
                                      const MPI_Datatype sendtypes[],
                                      void *recvbuf, const int recvcounts[],
                                      const MPI_Aint rdispls[],
                                      const MPI_Datatype recvtypes[],
                                      MPI_Comm comm))
GCM_MPI_API(int, Ineighbor_allgather, (const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[],
                                        const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request *request))
GCM_MPI_API(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ineighbor_alltoallv, (const void *sendbuf,
                                       const int sendcounts[],
                                       const int sdispls[],
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[],
                                       const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request *request))
GCM_MPI_API(int, Ineighbor_alltoallw, (const void *sendbuf,
                                       const int sendcounts[],
                                       const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[],
                                       void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[],
                                       const MPI_Datatype recvtypes[],
                                       MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Neighbor_allgather_init, (const void *sendbuf,
                                           int sendcount,
                                           MPI_Datatype sendtype,
                                           void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))
GCM_MPI_API(int, Neighbor_allgatherv_init, (const void *sendbuf,
                                            int sendcount,
                                            MPI_Datatype sendtype,
                                            void *recvbuf,
                                            const int recvcounts[],
                                            const int displs[],
                                            MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request))
GCM_MPI_API(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount,
                                          MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount,
                                          MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request))
GCM_MPI_API(int, Neighbor_alltoallv_init, (const void *sendbuf,
                                           const int sendcounts[],
                                           const int sdispls[],
                                           MPI_Datatype sendtype,
                                           void *recvbuf,
                                           const int recvcounts[],
                                           const int rdispls[],
                                           MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))
GCM_MPI_API(int, Neighbor_alltoallw_init, (const void *sendbuf,
                                           const int sendcounts[],
                                           const MPI_Aint sdispls[],
                                           const MPI_Datatype sendtypes[],
                                           void *recvbuf,
                                           const int recvcounts[],
                                           const MPI_Aint rdispls[],
                                           const MPI_Datatype recvtypes[],
                                           MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))

/* the seed's LCO extensions (mpi_lco.c) */
GCM_MPIX_API(int, Comm_create_local, (MPI_Comm *lcomm))
GCM_MPIX_API(int, Comm_name, (MPI_Comm lcomm, MPIX_Cname *name))
GCM_MPIX_API(int, Add_send_slots, (MPI_Comm lcomm, int count,
                                    const MPIX_Cname lcos[],
                                    const int slots[]))
GCM_MPIX_API(int, Add_receive_slots, (MPI_Comm lcomm, int count))
GCM_MPIX_API(int, Num_send_slots, (MPI_Comm lcomm, int *count))
GCM_MPIX_API(int, Num_receive_slots, (MPI_Comm lcomm, int *count))
GCM_MPIX_API(int, Slot_name, (MPI_Comm lcomm, int recv_slot,
                               MPIX_Slotname *name))
GCM_MPIX_API(int, Add_send_slot, (MPI_Comm lcomm,
                                   const MPIX_Slotname *name))
GCM_MPIX_API(int, Comm_lco_rank, (MPI_Comm lcomm, int *rank))
/* One LCO per thread (mpi_threads.c): collective over the processes of
 * the intracommunicator comm, each asking for its own nthreads (0
 * allowed); lcomms[i] is this process's i-th LCO of one fully connected
 * structure over all of them, ranked by (rank in comm, i). */
GCM_MPIX_API(int, Comm_create_threads, (MPI_Comm comm, int nthreads,
                                        MPI_Comm lcomms[]))

/* The SMP hierarchy (Träff 2003; docs/launch.md): MPI_COMM_NODE[level],
 * 0 the world, 1 the host, then hardware levels, MPIX_MAX_DEPTH the
 * deepest (the process alone). The communicators belong to the library.
 * MPIX_Comm_level: the deepest level whose node holds ranks i and j of
 * comm. */
GCM_MPIX_API(int, Comm_node, (int level, MPI_Comm *nodecomm))
GCM_MPIX_API(int, Comm_level, (MPI_Comm comm, int i, int j, int *level))

/* External communicators (mpi_external.c; docs/external.md): defined in
 * the XML file GENCOMM_EXTERNAL names (the MPIXternal seed).
 * MPIX_Comm_external is collective over MPI_COMM_WORLD: members get the
 * communicator and *flag 1, the others MPI_COMM_NULL and 0 (0 everywhere
 * for a name the file does not define). MPIX_Keyval_external gives the
 * keyval of an attribute key of the file; the attribute's value is a
 * char * to its string. The _ forms take the variable's own name. */
GCM_MPIX_API(int, Comm_external, (MPI_Comm *comm, const char *name,
                                  int *flag))
GCM_MPIX_API(int, Keyval_external, (int *keyval, const char *name,
                                    int *flag))
GCM_MPIX_API(int, Info_external, (MPI_Comm comm, MPI_Info *info))
GCM_MPIX_API(int, Comm_attrs_to_info, (MPI_Comm comm, MPI_Info *info))
GCM_MPIX_API(int, Info_to_attrs, (MPI_Comm comm, MPI_Info info))
#define MPIX_Comm_external_(a, b) MPIX_Comm_external(&(a), #a, (b))
#define MPIX_Keyval_external_(a, b) MPIX_Keyval_external(&(a), #a, (b))

/* MPI-4 sessions (mpi_session.c; docs/external.md): process sets
 * mpi://WORLD, mpi://SELF, mpix://node/LEVEL (the SMP hierarchy) and
 * mpix://external/NAME (each <comm> of GENCOMM_EXTERNAL). */
typedef struct gcm_mpi_session *MPI_Session;
#define MPI_SESSION_NULL       ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN  256
#define MPI_MAX_STRINGTAG_LEN  256
typedef void MPI_Session_errhandler_function(MPI_Session *session,
                                             int *errcode, ...);
GCM_MPI_API(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Session *session))
GCM_MPI_API(int, Session_finalize, (MPI_Session *session))
GCM_MPI_API(int, Session_get_info, (MPI_Session session,
                                    MPI_Info *info_used))
GCM_MPI_API(int, Session_get_num_psets, (MPI_Session session, MPI_Info info,
                                         int *npset_names))
GCM_MPI_API(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info,
                                        int n, int *pset_len,
                                        char *pset_name))
GCM_MPI_API(int, Session_get_pset_info, (MPI_Session session,
                                         const char *pset_name,
                                         MPI_Info *info))
GCM_MPI_API(int, Session_create_errhandler,
            (MPI_Session_errhandler_function *session_errhandler_fn,
             MPI_Errhandler *errhandler))
GCM_MPI_API(int, Group_from_session_pset, (MPI_Session session,
                                           const char *pset_name,
                                           MPI_Group *newgroup))
GCM_MPI_API(int, Comm_create_from_group, (MPI_Group group,
                                          const char *stringtag,
                                          MPI_Info info,
                                          MPI_Errhandler errhandler,
                                          MPI_Comm *newcomm))

/* A communicator's LCO graph as Graphviz DOT (docs/mpi.md): collective;
 * every member's LCO with its slots and where each send slot reaches,
 * written by rank 0 (of an intercommunicator: rank 0 of the group holding
 * the lower process of the job) to path, which only it needs. */
GCM_MPIX_API(int, Comm_graph_write, (MPI_Comm comm, const char *path))

/* External interfaces (MPI-3.1 chapter 12): generalized requests and
 * setting a status (mpi_grequest.c); error classes, codes and texts the
 * program adds (mpi_errors.c, printed by MPI_Error_string); MPI-4's
 * MPI_Info_get_string (mpi_info.c) and MPI_Comm_idup_with_info
 * (mpi_comm_dup.c). */
typedef int MPI_Grequest_query_function(void *extra_state,
                                        MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
GCM_MPI_API(int, Grequest_start, (MPI_Grequest_query_function *query_fn,
                                  MPI_Grequest_free_function *free_fn,
                                  MPI_Grequest_cancel_function *cancel_fn,
                                  void *extra_state, MPI_Request *request))
GCM_MPI_API(int, Grequest_complete, (MPI_Request request))
GCM_MPI_API(int, Status_set_elements, (MPI_Status *status,
                                       MPI_Datatype datatype, int count))
GCM_MPI_API(int, Status_set_elements_x, (MPI_Status *status,
                                         MPI_Datatype datatype,
                                         MPI_Count count))
GCM_MPI_API(int, Status_set_cancelled, (MPI_Status *status, int flag))
GCM_MPI_API(int, Add_error_class, (int *errorclass))
GCM_MPI_API(int, Add_error_code, (int errorclass, int *errorcode))
GCM_MPI_API(int, Add_error_string, (int errorcode, const char *string))
GCM_MPI_API(int, Info_get_string, (MPI_Info info, const char *key,
                                   int *buflen, char *value, int *flag))
GCM_MPI_API(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info,
                                       MPI_Comm *newcomm,
                                       MPI_Request *request))
/* Address arithmetic (mpi_type_query.c). */
GCM_MPI_API(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
GCM_MPI_API(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))

/* Topologies that map (Träff 2003, section 3.1; docs/mpi.md).
 * MPIX_Graph_create: each process gives its own neighbours (ranks of
 * basecomm, repeats are weights), degree -1 to stay out; the graph is
 * made symmetric. MPIX_Cart_create: diagonal and multiplicity (loads
 * along each dimension, then each diagonal) are hints, local like
 * reorder (0: this process keeps its rank). mapinfo: gencomm_map
 * (scotch | identity), gencomm_map_time (seconds). */
GCM_MPIX_API(int, Graph_create, (MPI_Comm basecomm, int degree,
                                 const int neighbors[], int reorder,
                                 MPI_Info mapinfo, MPI_Comm *graphcomm))
GCM_MPIX_API(int, Cart_create, (MPI_Comm basecomm, int ndims,
                                const int dims[], const int periods[],
                                int diagonal, const int multiplicity[],
                                int reorder, MPI_Info mapinfo,
                                MPI_Comm *cartcomm))

/* Relations and redistribution (Träff 2003, appendices A and B;
 * docs/mpi.md). MPIX_Comm_relate: MPI_Comm_compare's results, or
 * MPIX_SUBCOMM(_STRICT) when comm1's processes are all in comm2 (strict:
 * in the same order), MPIX_SUPERCOMM(_STRICT) the other way round.
 * MPIX_Comm_map (collective over basecomm; MPI_COMM_NULL where not in
 * subcomm): base rank i's data goes to torank, the base rank of subcomm
 * rank i; a member of subcomm of rank i gets it from fromrank = i;
 * MPI_PROC_NULL where there is none. MPIX_Permute (collective): sends
 * outbuf to torank and receives inbuf from fromrank. */
GCM_MPIX_API(int, Comm_relate, (MPI_Comm comm1, MPI_Comm comm2, int *result))
GCM_MPIX_API(int, Comm_map, (MPI_Comm basecomm, MPI_Comm subcomm,
                             int *torank, int *fromrank))
GCM_MPIX_API(int, Permute, (void *inbuf, int incount, MPI_Datatype intype,
                            int fromrank, void *outbuf, int outcount,
                            MPI_Datatype outtype, int torank, MPI_Comm comm))

/* ---- dynamic processes: ports, connect and accept, names, spawn
 * (mpi_dpm_*.c, mpi_names.c, mpi_spawn.c; docs/mpi.md) */
#define MPI_MAX_PORT_NAME   256
#define MPI_ERR_PORT        52  /* a port name that does not parse, a
                                 * closed port, no answer in time */
#define MPI_ERR_SERVICE     53  /* publishing or unpublishing a name */
#define MPI_ERR_NAME        54  /* no port published under a name */
#define MPI_ERR_SPAWN       55  /* a spawned program could not start */
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
GCM_MPI_API(int, Open_port, (MPI_Info info, char *port_name))
GCM_MPI_API(int, Close_port, (const char *port_name))
GCM_MPI_API(int, Comm_accept, (const char *port_name, MPI_Info info,
                               int root, MPI_Comm comm, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_connect, (const char *port_name, MPI_Info info,
                                int root, MPI_Comm comm, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_disconnect, (MPI_Comm *comm))
GCM_MPI_API(int, Comm_join, (int fd, MPI_Comm *intercomm))
GCM_MPI_API(int, Publish_name, (const char *service_name, MPI_Info info,
                                const char *port_name))
GCM_MPI_API(int, Unpublish_name, (const char *service_name, MPI_Info info,
                                  const char *port_name))
GCM_MPI_API(int, Lookup_name, (const char *service_name, MPI_Info info,
                               char *port_name))
GCM_MPI_API(int, Comm_spawn, (const char *command, char *argv[],
                              int maxprocs, MPI_Info info, int root,
                              MPI_Comm comm, MPI_Comm *intercomm,
                              int array_of_errcodes[]))
GCM_MPI_API(int, Comm_spawn_multiple, (int count, char *array_of_commands[],
                                       char **array_of_argv[],
                                       const int array_of_maxprocs[],
                                       const MPI_Info array_of_info[],
                                       int root, MPI_Comm comm,
                                       MPI_Comm *intercomm,
                                       int array_of_errcodes[]))
GCM_MPI_API(int, Comm_get_parent, (MPI_Comm *parent))

#endif /* GENCOMM_MPI_CALLS_MORE_H */
