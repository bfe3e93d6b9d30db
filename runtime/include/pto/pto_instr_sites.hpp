// pypto CPU runtime: the call-site wrappers that give the checkers each instruction's kernel source
// line without changing the kernels (which must build unchanged for the NPU).
//
// For every instruction name N below there is an overload N(pto::sim::Site, args...) that
// announces the instruction (pto_instr_hooks.hpp: name, line, and with --check-syncs its pipe and
// the bytes it touches) and forwards to the real N(args...); after it, a function-like macro
// N(...) turns every call `N(a, b)` — also `pto::N(a, b)` — into `N(pto::sim::Site{__LINE__}, a, b)`.
// A call with explicit template arguments (`TCI<T, int, 0>(t, 5)`, `TSTORE<T, G, AtomicAdd>(g, t)`)
// is not a macro invocation; those instructions announce themselves (line unknown). TASSIGN gets
// the same treatment (name and line only) so that a bad placement names its line.
// With every checker off a wrapper costs two thread-local stores and one test.
//
// PYPTO_GM_LOAD(ptr, index) is the scalar GM read generated kernels use (pl.read of a tensor):
// checked against the kernel's tensor arguments here; the kernel prologue defines it as plain
// `ptr[index]` for every other build.
//
// Included last by pto-inst.hpp: the real instructions must be declared before, and nothing after
// it may declare a function of one of these names.
#pragma once

#include <cstdint>
#include <utility>

#include "pto_instr_hooks.hpp"

namespace pto::sim {

struct Site {
    uint32_t line;
};

// The checks of one scalar GM access (PYPTO_GM_LOAD / PYPTO_GM_STORE): its bounds against the
// kernel's tensors, and with --check-syncs its order on PIPE_S.
template <typename T, typename I>
inline void gm_scalar_access(T* p, I index, uint32_t line, bool write) {
    KernelContext& k = current_kernel();
    k.instr = write ? "pl.write" : "pl.read";
    k.line = line;
    GmAccess a;
    a.addr = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)) +
             static_cast<uint64_t>(static_cast<int64_t>(index)) * sizeof(T);
    a.elem_size = static_cast<uint32_t>(sizeof(T));
    a.write = write;
    gm_access(a, write ? "pl.write (a scalar GM write)" : "pl.read (a scalar GM read)");
    if (k.check_syncs) {
        const SyncAccess s{kGmSpace, a.lo(), a.hi(), write};
        sync_instr(kPipeS, write ? "pl.write (scalar GM write)" : "pl.read (scalar GM read)", line, &s, 1);
    }
}

// The scalar GM read behind PYPTO_GM_LOAD.
template <typename T, typename I>
inline T gm_load(T* p, I index, uint32_t line) {
    gm_scalar_access(p, index, line, false);
    return p[index];
}

// The scalar GM write behind PYPTO_GM_STORE.
template <typename T, typename I, typename V>
inline void gm_store(T* p, I index, V value, uint32_t line) {
    gm_scalar_access(p, index, line, true);
    p[index] = static_cast<T>(value);
}

}  // namespace pto::sim

// NAME, kind (pto::sim::InstrKind), tile count without a trailing scratch tile (0: none).
#define PTO_SIM_INSTRUCTIONS(X)                                                                        \
    X(TLOAD, Load, 0) X(TSTORE, Store, 0)                                                              \
    X(TMOV, Move, 0) X(TEXTRACT, Move, 0) X(TINSERT, Move, 0)                                          \
    X(TMATMUL, Cube, 0) X(TMATMUL_ACC, Cube, 0) X(TMATMUL_BIAS, Cube, 0) X(TGEMV, Cube, 0)             \
    X(TMATMUL_MX, Cube, 0)                                                                             \
    X(TADD, Vector, 0) X(TSUB, Vector, 0) X(TMUL, Vector, 0) X(TDIV, Vector, 0) X(TMAX, Vector, 0)     \
    X(TMIN, Vector, 0) X(TAND, Vector, 0) X(TOR, Vector, 0) X(TSHL, Vector, 0) X(TSHR, Vector, 0)     \
    X(TXOR, Vector, 3) X(TREM, Vector, 3) X(TFMOD, Vector, 0) X(TPRELU, Vector, 3)                     \
    X(TADDC, Vector, 0) X(TSUBC, Vector, 0) X(TADDSC, Vector, 0) X(TSUBSC, Vector, 0)                  \
    X(TADDS, Vector, 0) X(TSUBS, Vector, 0) X(TMULS, Vector, 0) X(TDIVS, Vector, 0)                    \
    X(TMAXS, Vector, 0) X(TMINS, Vector, 0) X(TLRELU, Vector, 0) X(TANDS, Vector, 0)                   \
    X(TORS, Vector, 0) X(TSHLS, Vector, 0) X(TSHRS, Vector, 0) X(TXORS, Vector, 2)                     \
    X(TREMS, Vector, 2) X(TFMODS, Vector, 0)                                                           \
    X(TEXP, Vector, 0) X(TLOG, Vector, 0) X(TSQRT, Vector, 0) X(TRSQRT, Vector, 2) X(TRECIP, Vector, 0) \
    X(TNEG, Vector, 0) X(TABS, Vector, 0) X(TRELU, Vector, 0) X(TNOT, Vector, 0)                       \
    X(TCVT, Vector, 2) X(TEXPANDS, Vector, 0)                                                          \
    X(TROWSUM, Vector, 2) X(TROWMAX, Vector, 2) X(TROWMIN, Vector, 2) X(TROWPROD, Vector, 2)           \
    X(TROWARGMAX, Vector, 2) X(TROWARGMIN, Vector, 2) X(TCOLARGMAX, Vector, 2) X(TCOLARGMIN, Vector, 2) \
    X(TCOLSUM, Vector, 2) X(TCOLMAX, Vector, 2) X(TCOLMIN, Vector, 2) X(TCOLPROD, Vector, 2)           \
    X(TROWEXPAND, Vector, 0) X(TCOLEXPAND, Vector, 0)                                                  \
    X(TROWEXPANDADD, Vector, 0) X(TROWEXPANDSUB, Vector, 0) X(TROWEXPANDMUL, Vector, 0)                \
    X(TROWEXPANDDIV, Vector, 0) X(TROWEXPANDMAX, Vector, 0) X(TROWEXPANDMIN, Vector, 0)                \
    X(TROWEXPANDEXPDIF, Vector, 0) X(TCOLEXPANDADD, Vector, 0) X(TCOLEXPANDSUB, Vector, 0)             \
    X(TCOLEXPANDMUL, Vector, 0) X(TCOLEXPANDDIV, Vector, 0) X(TCOLEXPANDMAX, Vector, 0)                \
    X(TCOLEXPANDMIN, Vector, 0) X(TCOLEXPANDEXPDIF, Vector, 0) X(TTRANS, Vector, 2)                    \
    X(TCMP, Vector, 0) X(TCMPS, Vector, 0) X(TSEL, Vector, 4) X(TSELS, Vector, 3)                      \
    X(TCONCAT, Vector, 0) X(TGATHER, Vector, 3) X(TGATHERB, Vector, 0) X(TSCATTER, Vector, 0)          \
    X(TFILLPAD, Vector, 0) X(TFILLPAD_INPLACE, Vector, 0) X(TFILLPAD_EXPAND, Vector, 0)                \
    X(TPARTADD, Vector, 0) X(TPARTMUL, Vector, 0) X(TPARTMAX, Vector, 0) X(TPARTMIN, Vector, 0)        \
    X(TSORT32, Vector, 0) X(TMRGSORT, Vector, 0)

namespace pto {
#define PTO_SIM_WRAPPER(NAME, KIND, SCRATCH)                                                          \
    template <typename... A>                                                                           \
    [[gnu::always_inline]] inline decltype(auto) NAME(::pto::sim::Site site, A&&... a) {              \
        ::pto::sim::instr_enter<::pto::sim::InstrKind::KIND, SCRATCH>(#NAME, site.line, a...);        \
        ::pto::sim::current_kernel().wrapped = true;                                                   \
        decltype(auto) r = NAME(std::forward<A>(a)...);                                                \
        ::pto::sim::current_kernel().wrapped = false; /* (left set by an exception: the kernel ends) */ \
        return r;                                                                                      \
    }
PTO_SIM_INSTRUCTIONS(PTO_SIM_WRAPPER)
#undef PTO_SIM_WRAPPER

// TASSIGN is no instruction (it only places a tile), but its errors deserve a line too.
template <typename TileT, typename AddrT>
[[gnu::always_inline]] inline void TASSIGN(::pto::sim::Site site, TileT& tile, AddrT addr) {
    ::pto::sim::KernelContext& k = ::pto::sim::current_kernel();
    k.instr = "TASSIGN";
    k.line = site.line;
    TASSIGN(tile, addr);
}
}  // namespace pto

#define TASSIGN(...) TASSIGN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TLOAD(...) TLOAD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSTORE(...) TSTORE(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMOV(...) TMOV(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TEXTRACT(...) TEXTRACT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TINSERT(...) TINSERT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMATMUL(...) TMATMUL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMATMUL_ACC(...) TMATMUL_ACC(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMATMUL_BIAS(...) TMATMUL_BIAS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TGEMV(...) TGEMV(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMATMUL_MX(...) TMATMUL_MX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TADD(...) TADD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSUB(...) TSUB(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMUL(...) TMUL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TDIV(...) TDIV(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMAX(...) TMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMIN(...) TMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TAND(...) TAND(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TOR(...) TOR(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSHL(...) TSHL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSHR(...) TSHR(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TXOR(...) TXOR(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TREM(...) TREM(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TFMOD(...) TFMOD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TPRELU(...) TPRELU(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TADDC(...) TADDC(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSUBC(...) TSUBC(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TADDSC(...) TADDSC(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSUBSC(...) TSUBSC(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TADDS(...) TADDS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSUBS(...) TSUBS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMULS(...) TMULS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TDIVS(...) TDIVS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMAXS(...) TMAXS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMINS(...) TMINS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TLRELU(...) TLRELU(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TANDS(...) TANDS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TORS(...) TORS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSHLS(...) TSHLS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSHRS(...) TSHRS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TXORS(...) TXORS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TREMS(...) TREMS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TFMODS(...) TFMODS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TEXP(...) TEXP(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TLOG(...) TLOG(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSQRT(...) TSQRT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TRSQRT(...) TRSQRT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TRECIP(...) TRECIP(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TNEG(...) TNEG(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TABS(...) TABS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TRELU(...) TRELU(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TNOT(...) TNOT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCVT(...) TCVT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TEXPANDS(...) TEXPANDS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWSUM(...) TROWSUM(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWMAX(...) TROWMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWMIN(...) TROWMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWPROD(...) TROWPROD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWARGMAX(...) TROWARGMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWARGMIN(...) TROWARGMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLARGMAX(...) TCOLARGMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLARGMIN(...) TCOLARGMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLSUM(...) TCOLSUM(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLMAX(...) TCOLMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLMIN(...) TCOLMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLPROD(...) TCOLPROD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPAND(...) TROWEXPAND(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPAND(...) TCOLEXPAND(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDADD(...) TROWEXPANDADD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDSUB(...) TROWEXPANDSUB(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDMUL(...) TROWEXPANDMUL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDDIV(...) TROWEXPANDDIV(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDMAX(...) TROWEXPANDMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDMIN(...) TROWEXPANDMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TROWEXPANDEXPDIF(...) TROWEXPANDEXPDIF(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDADD(...) TCOLEXPANDADD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDSUB(...) TCOLEXPANDSUB(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDMUL(...) TCOLEXPANDMUL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDDIV(...) TCOLEXPANDDIV(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDMAX(...) TCOLEXPANDMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDMIN(...) TCOLEXPANDMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCOLEXPANDEXPDIF(...) TCOLEXPANDEXPDIF(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TTRANS(...) TTRANS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCMP(...) TCMP(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCMPS(...) TCMPS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSEL(...) TSEL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSELS(...) TSELS(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TCONCAT(...) TCONCAT(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TGATHER(...) TGATHER(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TGATHERB(...) TGATHERB(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSCATTER(...) TSCATTER(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TFILLPAD(...) TFILLPAD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TFILLPAD_INPLACE(...) TFILLPAD_INPLACE(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TFILLPAD_EXPAND(...) TFILLPAD_EXPAND(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TPARTADD(...) TPARTADD(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TPARTMUL(...) TPARTMUL(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TPARTMAX(...) TPARTMAX(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TPARTMIN(...) TPARTMIN(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TSORT32(...) TSORT32(::pto::sim::Site{__LINE__}, __VA_ARGS__)
#define TMRGSORT(...) TMRGSORT(::pto::sim::Site{__LINE__}, __VA_ARGS__)

#define PYPTO_GM_LOAD(ptr, index) (::pto::sim::gm_load((ptr), (index), __LINE__))
#define PYPTO_GM_STORE(ptr, index, value) (::pto::sim::gm_store((ptr), (index), (value), __LINE__))
