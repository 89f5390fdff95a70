/*
 * compat/mpi_type_predef.c: the predefined MPI datatypes, static
 * objects usable before MPI_Init and in static initialisers.
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- predefined types --------------------------------------------------- */

/* The value-index pairs are laid out as the C compiler lays out these
 * structs (holes included), as the standard defines them. */
struct gcm_mpi_pair_float_int       { float v;       int i; };
struct gcm_mpi_pair_double_int      { double v;      int i; };
struct gcm_mpi_pair_long_int        { long v;        int i; };
struct gcm_mpi_pair_2int            { int v;         int i; };
struct gcm_mpi_pair_short_int       { short v;       int i; };
struct gcm_mpi_pair_long_double_int { long double v; int i; };

/* Each description is: extent, value bytes, alignment, offset of the int
 * index, bytes of the index (0: not a pair), basic kind. */
#define GCM_DT_PLAIN(_ctype, _basic) \
    sizeof(_ctype), sizeof(_ctype), _Alignof(_ctype), sizeof(_ctype), 0, \
    _basic
#define GCM_DT_PAIR(_sym, _basic) \
    sizeof(struct gcm_mpi_pair_##_sym), \
    sizeof(((struct gcm_mpi_pair_##_sym *)0)->v), \
    _Alignof(struct gcm_mpi_pair_##_sym), \
    offsetof(struct gcm_mpi_pair_##_sym, i), sizeof(int), _basic
#define GCM_DT_OPAQUE(_bytes) \
    (_bytes), (_bytes), 1, (_bytes), 0, GCM_MPI_BASIC_NONE

#define GCM_DT_INFO_char           GCM_DT_PLAIN(char, GCM_MPI_BASIC_CHAR)
#define GCM_DT_INFO_signed_char \
    GCM_DT_PLAIN(signed char, GCM_MPI_BASIC_SIGNED_CHAR)
#define GCM_DT_INFO_unsigned_char \
    GCM_DT_PLAIN(unsigned char, GCM_MPI_BASIC_UNSIGNED_CHAR)
#define GCM_DT_INFO_byte \
    GCM_DT_PLAIN(unsigned char, GCM_MPI_BASIC_BYTE)
#define GCM_DT_INFO_wchar          GCM_DT_PLAIN(wchar_t, GCM_MPI_BASIC_WCHAR)
#define GCM_DT_INFO_short          GCM_DT_PLAIN(short, GCM_MPI_BASIC_SHORT)
#define GCM_DT_INFO_unsigned_short \
    GCM_DT_PLAIN(unsigned short, GCM_MPI_BASIC_UNSIGNED_SHORT)
#define GCM_DT_INFO_int            GCM_DT_PLAIN(int, GCM_MPI_BASIC_INT)
#define GCM_DT_INFO_unsigned \
    GCM_DT_PLAIN(unsigned, GCM_MPI_BASIC_UNSIGNED)
#define GCM_DT_INFO_long           GCM_DT_PLAIN(long, GCM_MPI_BASIC_LONG)
#define GCM_DT_INFO_unsigned_long \
    GCM_DT_PLAIN(unsigned long, GCM_MPI_BASIC_UNSIGNED_LONG)
#define GCM_DT_INFO_long_long_int \
    GCM_DT_PLAIN(long long, GCM_MPI_BASIC_LONG_LONG)
#define GCM_DT_INFO_unsigned_long_long \
    GCM_DT_PLAIN(unsigned long long, GCM_MPI_BASIC_UNSIGNED_LONG_LONG)
#define GCM_DT_INFO_float          GCM_DT_PLAIN(float, GCM_MPI_BASIC_FLOAT)
#define GCM_DT_INFO_double         GCM_DT_PLAIN(double, GCM_MPI_BASIC_DOUBLE)
#define GCM_DT_INFO_long_double \
    GCM_DT_PLAIN(long double, GCM_MPI_BASIC_LONG_DOUBLE)
#define GCM_DT_INFO_c_bool         GCM_DT_PLAIN(_Bool, GCM_MPI_BASIC_C_BOOL)
#define GCM_DT_INFO_int8_t         GCM_DT_PLAIN(int8_t, GCM_MPI_BASIC_INT8)
#define GCM_DT_INFO_int16_t        GCM_DT_PLAIN(int16_t, GCM_MPI_BASIC_INT16)
#define GCM_DT_INFO_int32_t        GCM_DT_PLAIN(int32_t, GCM_MPI_BASIC_INT32)
#define GCM_DT_INFO_int64_t        GCM_DT_PLAIN(int64_t, GCM_MPI_BASIC_INT64)
#define GCM_DT_INFO_uint8_t        GCM_DT_PLAIN(uint8_t, GCM_MPI_BASIC_UINT8)
#define GCM_DT_INFO_uint16_t \
    GCM_DT_PLAIN(uint16_t, GCM_MPI_BASIC_UINT16)
#define GCM_DT_INFO_uint32_t \
    GCM_DT_PLAIN(uint32_t, GCM_MPI_BASIC_UINT32)
#define GCM_DT_INFO_uint64_t \
    GCM_DT_PLAIN(uint64_t, GCM_MPI_BASIC_UINT64)
#define GCM_DT_INFO_aint           GCM_DT_PLAIN(MPI_Aint, GCM_MPI_BASIC_AINT)
#define GCM_DT_INFO_offset \
    GCM_DT_PLAIN(MPI_Offset, GCM_MPI_BASIC_OFFSET)
#define GCM_DT_INFO_count          GCM_DT_PLAIN(MPI_Count, GCM_MPI_BASIC_COUNT)
#define GCM_DT_INFO_c_float_complex \
    GCM_DT_PLAIN(float _Complex, GCM_MPI_BASIC_C_FLOAT_COMPLEX)
#define GCM_DT_INFO_c_double_complex \
    GCM_DT_PLAIN(double _Complex, GCM_MPI_BASIC_C_DOUBLE_COMPLEX)
#define GCM_DT_INFO_c_long_double_complex \
    GCM_DT_PLAIN(long double _Complex, GCM_MPI_BASIC_C_LONG_DOUBLE_COMPLEX)
#define GCM_DT_INFO_packed         GCM_DT_OPAQUE(1)
#define GCM_DT_INFO_float_int \
    GCM_DT_PAIR(float_int, GCM_MPI_BASIC_FLOAT_INT)
#define GCM_DT_INFO_double_int \
    GCM_DT_PAIR(double_int, GCM_MPI_BASIC_DOUBLE_INT)
#define GCM_DT_INFO_long_int \
    GCM_DT_PAIR(long_int, GCM_MPI_BASIC_LONG_INT)
#define GCM_DT_INFO_2int           GCM_DT_PAIR(2int, GCM_MPI_BASIC_2INT)
#define GCM_DT_INFO_short_int \
    GCM_DT_PAIR(short_int, GCM_MPI_BASIC_SHORT_INT)
#define GCM_DT_INFO_long_double_int \
    GCM_DT_PAIR(long_double_int, GCM_MPI_BASIC_LONG_DOUBLE_INT)
#define GCM_DT_INFO_cname          GCM_DT_OPAQUE(MPIX_CNAME_SIZE)
#define GCM_DT_INFO_slotname       GCM_DT_OPAQUE(MPIX_SLOTNAME_SIZE)

/* The name is stringised here, before MPI_INT etc. expand as macros; the
 * description is expanded into separate arguments by GCM_DT_EXPAND. */
#define GCM_DT_EXPAND(_macro, ...) _macro(__VA_ARGS__)
#define GCM_DT_DEFINE(_name, _sym) \
    GCM_DT_EXPAND(GCM_DT_DEFINE_, #_name, _sym, GCM_DT_INFO_##_sym)
/* A pair whose index follows the value without a hole is one block. */
#define GCM_DT_DEFINE_(_str, _sym, _ext, _vsize, _align, _ioff, _isize, \
                       _basic) \
    struct gcm_mpi_datatype gcm_mpi_type_##_sym = { \
        .magic = GCM_MPI_MAGIC_TYPE, \
        .predefined = 1, \
        .committed = 1, \
        .refcount = 1, \
        .size = (MPI_Count)((_vsize) + (_isize)), \
        .lb = 0, \
        .ub = (MPI_Aint)(_ext), \
        .true_lb = 0, \
        .true_ub = (MPI_Aint)((_ioff) + (_isize)), \
        .align = (_align), \
        .dense = ((_ioff) == (_vsize)) && ((_vsize) + (_isize) == (_ext)), \
        .nelem = ((_isize) != 0) ? 2 : 1, \
        .pair_vsize = ((_isize) != 0) ? (MPI_Count)(_vsize) : 0, \
        .basic = (_basic), \
        .basic_count = ((_basic) != GCM_MPI_BASIC_NONE) ? 1 : 0, \
        .combiner = MPI_COMBINER_NAMED, \
        .name = _str, \
        .nblocks = ((_ioff) == (_vsize)) ? 1 : 2, \
        .inl = { \
            { 0, (MPI_Aint)(((_ioff) == (_vsize)) ? (_vsize) + (_isize) \
                                                  : (_vsize)) }, \
            { (MPI_Aint)(_ioff), (MPI_Aint)(_isize) } \
        } \
    };

GCM_MPI_FOREACH_PREDEFINED_TYPE(GCM_DT_DEFINE)
