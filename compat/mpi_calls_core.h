/*
 * mpi_calls_core.h: the MPI calls of datatypes, reduction operations,
 * groups, init and environment, point-to-point and requests, communicators,
 * attributes, info, error handlers and the collectives (blocking,
 * nonblocking and persistent).
 *
 * Part of <mpi.h>, which includes it with its types, constants and the
 * GCM_MPI_API macro (each MPI_X declared with its PMPI_X); include
 * <mpi.h>, never this file alone.
 */
#ifndef GENCOMM_MPI_CALLS_CORE_H
#define GENCOMM_MPI_CALLS_CORE_H

#ifndef GENCOMM_MPI_H
#error "include <mpi.h>, not mpi_calls_core.h"
#endif

/* datatypes */
GCM_MPI_API(int, Type_contiguous, (int count, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype))
GCM_MPI_API(int, Type_vector, (int count, int blocklength, int stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_hvector, (int count, int blocklength,
                                       MPI_Aint stride, MPI_Datatype oldtype,
                                       MPI_Datatype *newtype))
GCM_MPI_API(int, Type_indexed, (int count, const int blocklengths[],
                                const int displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_hindexed, (int count, const int blocklengths[],
                                        const MPI_Aint displacements[],
                                        MPI_Datatype oldtype,
                                        MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_indexed_block, (int count, int blocklength,
                                             const int displacements[],
                                             MPI_Datatype oldtype,
                                             MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_hindexed_block, (int count, int blocklength,
                                              const MPI_Aint displacements[],
                                              MPI_Datatype oldtype,
                                              MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_struct, (int count, const int blocklengths[],
                                      const MPI_Aint displacements[],
                                      const MPI_Datatype types[],
                                      MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_subarray, (int ndims, const int sizes[],
                                        const int subsizes[],
                                        const int starts[], int order,
                                        MPI_Datatype oldtype,
                                        MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb,
                                       MPI_Aint extent,
                                       MPI_Datatype *newtype))
GCM_MPI_API(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
GCM_MPI_API(int, Type_commit, (MPI_Datatype *datatype))
GCM_MPI_API(int, Type_free, (MPI_Datatype *datatype))
GCM_MPI_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb,
                                   MPI_Aint *extent))
GCM_MPI_API(int, Type_get_true_extent, (MPI_Datatype datatype,
                                        MPI_Aint *true_lb,
                                        MPI_Aint *true_extent))
GCM_MPI_API(int, Type_size, (MPI_Datatype datatype, int *size))
GCM_MPI_API(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
GCM_MPI_API(int, Type_get_envelope, (MPI_Datatype datatype,
                                     int *num_integers, int *num_addresses,
                                     int *num_datatypes, int *combiner))
GCM_MPI_API(int, Type_set_name, (MPI_Datatype datatype,
                                 const char *type_name))
GCM_MPI_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name,
                                 int *resultlen))
GCM_MPI_API(int, Get_address, (const void *location, MPI_Aint *address))
GCM_MPI_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype,
                             int *count))
GCM_MPI_API(int, Get_elements, (const MPI_Status *status,
                                MPI_Datatype datatype, int *count))
GCM_MPI_API(int, Get_elements_x, (const MPI_Status *status,
                                  MPI_Datatype datatype, MPI_Count *count))
GCM_MPI_API(int, Pack_size, (int incount, MPI_Datatype datatype,
                             MPI_Comm comm, int *size))
GCM_MPI_API(int, Pack, (const void *inbuf, int incount,
                        MPI_Datatype datatype, void *outbuf, int outsize,
                        int *position, MPI_Comm comm))
GCM_MPI_API(int, Unpack, (const void *inbuf, int insize, int *position,
                          void *outbuf, int outcount, MPI_Datatype datatype,
                          MPI_Comm comm))

/* reduction operations */
GCM_MPI_API(int, Op_create, (MPI_User_function *user_fn, int commute,
                             MPI_Op *op))
GCM_MPI_API(int, Op_free, (MPI_Op *op))
GCM_MPI_API(int, Op_commutative, (MPI_Op op, int *commute))
GCM_MPI_API(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op))

/* groups */
GCM_MPI_API(int, Group_size, (MPI_Group group, int *size))
GCM_MPI_API(int, Group_rank, (MPI_Group group, int *rank))
GCM_MPI_API(int, Group_translate_ranks, (MPI_Group group1, int n,
                                         const int ranks1[],
                                         MPI_Group group2, int ranks2[]))
GCM_MPI_API(int, Group_compare, (MPI_Group group1, MPI_Group group2,
                                 int *result))
GCM_MPI_API(int, Group_union, (MPI_Group group1, MPI_Group group2,
                               MPI_Group *newgroup))
GCM_MPI_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2,
                                      MPI_Group *newgroup))
GCM_MPI_API(int, Group_difference, (MPI_Group group1, MPI_Group group2,
                                    MPI_Group *newgroup))
GCM_MPI_API(int, Group_incl, (MPI_Group group, int n, const int ranks[],
                              MPI_Group *newgroup))
GCM_MPI_API(int, Group_excl, (MPI_Group group, int n, const int ranks[],
                              MPI_Group *newgroup))
GCM_MPI_API(int, Group_range_incl, (MPI_Group group, int n,
                                    int ranges[][3], MPI_Group *newgroup))
GCM_MPI_API(int, Group_range_excl, (MPI_Group group, int n,
                                    int ranges[][3], MPI_Group *newgroup))
GCM_MPI_API(int, Group_free, (MPI_Group *group))


/* init and environment (mpi_init.c) */
GCM_MPI_API(int, Init, (int *argc, char ***argv))
GCM_MPI_API(int, Init_thread, (int *argc, char ***argv, int required,
                               int *provided))
GCM_MPI_API(int, Initialized, (int *flag))
GCM_MPI_API(int, Finalize, (void))
GCM_MPI_API(int, Finalized, (int *flag))
GCM_MPI_API(int, Abort, (MPI_Comm comm, int errorcode))
GCM_MPI_API(double, Wtime, (void))
GCM_MPI_API(double, Wtick, (void))
GCM_MPI_API(int, Get_processor_name, (char *name, int *resultlen))
GCM_MPI_API(int, Get_version, (int *version, int *subversion))
GCM_MPI_API(int, Get_library_version, (char *version, int *resultlen))
GCM_MPI_API(int, Query_thread, (int *provided))
GCM_MPI_API(int, Is_thread_main, (int *flag))
GCM_MPI_API(int, Pcontrol, (const int level, ...))

/* point-to-point (mpi_pt2pt.c) and requests (mpi_request.c) */
GCM_MPI_API(int, Send, (const void *buf, int count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Recv, (void *buf, int count, MPI_Datatype datatype,
                        int source, int tag, MPI_Comm comm,
                        MPI_Status *status))
GCM_MPI_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm,
                         MPI_Request *request))
GCM_MPI_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
GCM_MPI_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
GCM_MPI_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
GCM_MPI_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm,
                         MPI_Request *request))
GCM_MPI_API(int, Sendrecv, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, int dest, int sendtag,
                            void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Status *status))
GCM_MPI_API(int, Sendrecv_replace, (void *buf, int count,
                                    MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag,
                                    MPI_Comm comm, MPI_Status *status))
GCM_MPI_API(int, Buffer_attach, (void *buffer, int size))
GCM_MPI_API(int, Buffer_detach, (void *buffer_addr, int *size))
GCM_MPI_API(int, Probe, (int source, int tag, MPI_Comm comm,
                         MPI_Status *status))
GCM_MPI_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Status *status))
GCM_MPI_API(int, Mprobe, (int source, int tag, MPI_Comm comm,
                          MPI_Message *message, MPI_Status *status))
GCM_MPI_API(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag,
                           MPI_Message *message, MPI_Status *status))
GCM_MPI_API(int, Mrecv, (void *buf, int count, MPI_Datatype datatype,
                         MPI_Message *message, MPI_Status *status))
GCM_MPI_API(int, Imrecv, (void *buf, int count, MPI_Datatype datatype,
                          MPI_Message *message, MPI_Request *request))
GCM_MPI_API(int, Send_init, (const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ssend_init, (const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Bsend_init, (const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Rsend_init, (const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype,
                             int source, int tag, MPI_Comm comm,
                             MPI_Request *request))
GCM_MPI_API(int, Start, (MPI_Request *request))
GCM_MPI_API(int, Startall, (int count, MPI_Request array_of_requests[]))
GCM_MPI_API(int, Wait, (MPI_Request *request, MPI_Status *status))
GCM_MPI_API(int, Test, (MPI_Request *request, int *flag,
                        MPI_Status *status))
GCM_MPI_API(int, Waitall, (int count, MPI_Request array_of_requests[],
                           MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Testall, (int count, MPI_Request array_of_requests[],
                           int *flag, MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Waitany, (int count, MPI_Request array_of_requests[],
                           int *index, MPI_Status *status))
GCM_MPI_API(int, Testany, (int count, MPI_Request array_of_requests[],
                           int *index, int *flag, MPI_Status *status))
GCM_MPI_API(int, Waitsome, (int incount, MPI_Request array_of_requests[],
                            int *outcount, int array_of_indices[],
                            MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Testsome, (int incount, MPI_Request array_of_requests[],
                            int *outcount, int array_of_indices[],
                            MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Request_get_status, (MPI_Request request, int *flag,
                                      MPI_Status *status))
GCM_MPI_API(int, Cancel, (MPI_Request *request))
GCM_MPI_API(int, Request_free, (MPI_Request *request))
GCM_MPI_API(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* communicators (mpi_comm_*.c) */
GCM_MPI_API(int, Comm_size, (MPI_Comm comm, int *size))
GCM_MPI_API(int, Comm_rank, (MPI_Comm comm, int *rank))
GCM_MPI_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2,
                                int *result))
GCM_MPI_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info,
                                      MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm,
                             MPI_Request *request))
GCM_MPI_API(int, Comm_split, (MPI_Comm comm, int color, int key,
                              MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_split_type, (MPI_Comm comm, int split_type, int key,
                                   MPI_Info info, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_create, (MPI_Comm comm, MPI_Group group,
                               MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_create_group, (MPI_Comm comm, MPI_Group group,
                                     int tag, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_free, (MPI_Comm *comm))
GCM_MPI_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
GCM_MPI_API(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
GCM_MPI_API(int, Comm_get_name, (MPI_Comm comm, char *comm_name,
                                 int *resultlen))
GCM_MPI_API(int, Comm_test_inter, (MPI_Comm comm, int *flag))
GCM_MPI_API(int, Comm_remote_size, (MPI_Comm comm, int *size))
GCM_MPI_API(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
GCM_MPI_API(int, Intercomm_create, (MPI_Comm local_comm, int local_leader,
                                    MPI_Comm peer_comm, int remote_leader,
                                    int tag, MPI_Comm *newintercomm))
GCM_MPI_API(int, Intercomm_merge, (MPI_Comm intercomm, int high,
                                   MPI_Comm *newintracomm))
GCM_MPI_API(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
GCM_MPI_API(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))

/* attributes (mpi_attr.c) */
GCM_MPI_API(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *copy_fn,
                                      MPI_Comm_delete_attr_function *del_fn,
                                      int *comm_keyval, void *extra_state))
GCM_MPI_API(int, Comm_free_keyval, (int *comm_keyval))
GCM_MPI_API(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval,
                                 void *attribute_val))
GCM_MPI_API(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval,
                                 void *attribute_val, int *flag))
GCM_MPI_API(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
/* MPI-1 names legacy codes still call (MPI_Attr_get(MPI_COMM_WORLD,
 * MPI_TAG_UB, ...) above all). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN         MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
GCM_MPI_API(int, Keyval_create, (MPI_Copy_function *copy_fn,
                                 MPI_Delete_function *delete_fn,
                                 int *keyval, void *extra_state))
GCM_MPI_API(int, Keyval_free, (int *keyval))
GCM_MPI_API(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
GCM_MPI_API(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val,
                            int *flag))
GCM_MPI_API(int, Attr_delete, (MPI_Comm comm, int keyval))

/* info (mpi_info.c) */
GCM_MPI_API(int, Info_create, (MPI_Info *info))
GCM_MPI_API(int, Info_set, (MPI_Info info, const char *key,
                            const char *value))
GCM_MPI_API(int, Info_get, (MPI_Info info, const char *key, int valuelen,
                            char *value, int *flag))
GCM_MPI_API(int, Info_get_valuelen, (MPI_Info info, const char *key,
                                     int *valuelen, int *flag))
GCM_MPI_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
GCM_MPI_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
GCM_MPI_API(int, Info_delete, (MPI_Info info, const char *key))
GCM_MPI_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
GCM_MPI_API(int, Info_free, (MPI_Info *info))

/* error handlers (mpi_errors.c) */
GCM_MPI_API(int, Comm_create_errhandler,
            (MPI_Comm_errhandler_function *comm_errhandler_fn,
             MPI_Errhandler *errhandler))
GCM_MPI_API(int, Comm_set_errhandler, (MPI_Comm comm,
                                       MPI_Errhandler errhandler))
GCM_MPI_API(int, Comm_get_errhandler, (MPI_Comm comm,
                                       MPI_Errhandler *errhandler))
GCM_MPI_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
GCM_MPI_API(int, Errhandler_free, (MPI_Errhandler *errhandler))
GCM_MPI_API(int, Error_string, (int errorcode, char *string,
                                int *resultlen))
GCM_MPI_API(int, Error_class, (int errorcode, int *errorclass))

/* collectives (mpi_coll_*.c) */
GCM_MPI_API(int, Barrier, (MPI_Comm comm))
GCM_MPI_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype,
                         int root, MPI_Comm comm))
GCM_MPI_API(int, Gather, (const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm))
GCM_MPI_API(int, Gatherv, (const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm))
GCM_MPI_API(int, Scatter, (const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm))
GCM_MPI_API(int, Scatterv, (const void *sendbuf, const int sendcounts[],
                            const int displs[], MPI_Datatype sendtype,
                            void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm))
GCM_MPI_API(int, Allgather, (const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm))
GCM_MPI_API(int, Allgatherv, (const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm))
GCM_MPI_API(int, Alltoall, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm))
GCM_MPI_API(int, Alltoallv, (const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm))
GCM_MPI_API(int, Alltoallw, (const void *sendbuf, const int sendcounts[],
                             const int sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             const int recvcounts[], const int rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm))
GCM_MPI_API(int, Reduce, (const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, int root,
                          MPI_Comm comm))
GCM_MPI_API(int, Allreduce, (const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm))
GCM_MPI_API(int, Reduce_scatter, (const void *sendbuf, void *recvbuf,
                                  const int recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm))
GCM_MPI_API(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf,
                                        int recvcount, MPI_Datatype datatype,
                                        MPI_Op op, MPI_Comm comm))
GCM_MPI_API(int, Scan, (const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
GCM_MPI_API(int, Exscan, (const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
GCM_MPI_API(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype,
                          int root, MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ireduce, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Iallgather, (const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ialltoall, (const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request))

/* The other nonblocking collectives (mpi_coll_rooted.c, mpi_coll_all.c,
 * mpi_coll_reduce.c). */
GCM_MPI_API(int, Igather, (const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Igatherv, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request *request))
GCM_MPI_API(int, Iscatter, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Iscatterv, (const void *sendbuf, const int sendcounts[],
                             const int displs[], MPI_Datatype sendtype,
                             void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request *request))
GCM_MPI_API(int, Iallgatherv, (const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request))
GCM_MPI_API(int, Ialltoallv, (const void *sendbuf, const int sendcounts[],
                              const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ialltoallw, (const void *sendbuf, const int sendcounts[],
                              const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request *request))
GCM_MPI_API(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf,
                                   const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf,
                                         int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm,
                                         MPI_Request *request))
GCM_MPI_API(int, Iscan, (const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request))
GCM_MPI_API(int, Iexscan, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request *request))

/* MPI-4 persistent collectives (MPI-4.0 6.13), declared whatever
 * MPI_VERSION says: the request is made inactive; MPI_Start runs it. */
GCM_MPI_API(int, Barrier_init, (MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
GCM_MPI_API(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype,
                              int root, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request))
GCM_MPI_API(int, Gather_init, (const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request))
GCM_MPI_API(int, Gatherv_init, (const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
GCM_MPI_API(int, Scatter_init, (const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
GCM_MPI_API(int, Scatterv_init, (const void *sendbuf, const int sendcounts[],
                                 const int displs[], MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request))
GCM_MPI_API(int, Allgather_init, (const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
GCM_MPI_API(int, Allgatherv_init, (const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request))
GCM_MPI_API(int, Alltoall_init, (const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request))
GCM_MPI_API(int, Alltoallv_init, (const void *sendbuf,
                                  const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request))
GCM_MPI_API(int, Alltoallw_init, (const void *sendbuf,
                                  const int sendcounts[], const int sdispls[],
                                  const MPI_Datatype sendtypes[],
                                  void *recvbuf, const int recvcounts[],
                                  const int rdispls[],
                                  const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
GCM_MPI_API(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request))
GCM_MPI_API(int, Allreduce_init, (const void *sendbuf, void *recvbuf,
                                  int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
GCM_MPI_API(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf,
                                       const int recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, MPI_Info info,
                                       MPI_Request *request))
GCM_MPI_API(int, Reduce_scatter_block_init, (const void *sendbuf,
                                             void *recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm, MPI_Info info,
                                             MPI_Request *request))
GCM_MPI_API(int, Scan_init, (const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request))
GCM_MPI_API(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request))

#endif /* GENCOMM_MPI_CALLS_CORE_H */
