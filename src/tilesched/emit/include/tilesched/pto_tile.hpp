// Declarations for C++ printed by `tilesched opt -p ...,emit-cpp` (docs/emit-cpp.md).
//
// PTO-ISA style: tiles are typed buffers in an on-chip space, global tensors live in GM, tile
// intrinsics take the destination first, pipes synchronize with set_flag / wait_flag /
// pipe_barrier. This header only declares what the printer uses, so that
//     g++ -std=c++17 -fsyntax-only -I "$(tilesched include-dir)" kernel.cpp
// checks a printed kernel. The names follow PTO-ISA (Tile, TileType, TLOAD, TADD, set_flag, ...);
// pto::view, pto::slot and the scalar helpers are tilesched's spelling of tile.view, tile.slot and
// index math, which a backend maps onto its own tile addressing.
#pragma once

#include <cstdint>

// [[pto::last_use(...)]] marks, per tile argument in order, whether the op reads that tile for
// the last time (its buffer may be reused). Compilers that do not know the attribute ignore it.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wattributes"
#endif
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-attributes"
#endif

#ifndef TILESCHED_KERNEL
#define TILESCHED_KERNEL
#endif

namespace pto {

struct half {
  half() = default;
  half(float value);
  operator float() const;
};

struct bfloat16_t {
  bfloat16_t() = default;
  bfloat16_t(float value);
  operator float() const;
};

// Where a tile lives: Vec = UB (vector unit), Mat = L1, Left = L0A, Right = L0B, Acc = L0C.
enum class TileType { Vec, Mat, Left, Right, Acc };

template <TileType Loc, typename T, int... Dims>
struct Tile {
  using DType = T;
  static constexpr TileType Location = Loc;
  template <int... Sizes>
  using Window = Tile<Loc, T, Sizes...>;
};

template <typename T, int... Dims>
struct GlobalTensor {
  using DType = T;
  template <int... Sizes>
  using Window = GlobalTensor<T, Sizes...>;
};

// tile.view: a window of `src` at element offsets (one per dimension) of shape Sizes.
template <int... Sizes, typename Src, typename... Offsets>
typename Src::template Window<Sizes...> view(Src& src, Offsets... offsets);

// tile.slot: slice `index` along dimension 0 of a multi-buffer (shape Sizes).
template <int... Sizes, typename Src>
typename Src::template Window<Sizes...> slot(Src& src, int64_t index);

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t {
  EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7
};

void set_flag(pipe_t src, pipe_t dst, event_t event);
void wait_flag(pipe_t src, pipe_t dst, event_t event);
void pipe_barrier(pipe_t pipe);

// Data movement: destination first.
template <typename Dst, typename Src> void TLOAD(Dst& dst, Src& src);
template <typename Dst, typename Src> void TSTORE(Dst& dst, Src& src);
template <typename Dst, typename Src> void TMOV(Dst& dst, Src& src);
template <typename Dst, typename Src> void TRESHAPE(Dst& dst, Src& src);

// Cube.
template <typename C, typename A, typename B> void TMATMUL(C& c, A& a, B& b);
template <typename C, typename A, typename B> void TMATMUL_ACC(C& c, A& a, B& b);

// Vector: elementwise binary, with a scalar, unary, row reductions and row broadcasts, fill.
template <typename D, typename A, typename B> void TADD(D& dst, A& a, B& b);
template <typename D, typename A, typename B> void TSUB(D& dst, A& a, B& b);
template <typename D, typename A, typename B> void TMUL(D& dst, A& a, B& b);
template <typename D, typename A, typename B> void TDIV(D& dst, A& a, B& b);
template <typename D, typename A, typename B> void TMAX(D& dst, A& a, B& b);
template <typename D, typename A, typename B> void TMIN(D& dst, A& a, B& b);
template <typename D, typename A, typename S> void TADDS(D& dst, A& a, S scalar);
template <typename D, typename A, typename S> void TMULS(D& dst, A& a, S scalar);
template <typename D, typename A, typename S> void TMAXS(D& dst, A& a, S scalar);
template <typename D, typename A> void TEXP(D& dst, A& a);
template <typename D, typename A> void TNEG(D& dst, A& a);
template <typename D, typename A> void TABS(D& dst, A& a);
template <typename D, typename A> void TRELU(D& dst, A& a);
template <typename D, typename A> void TCVT(D& dst, A& a);
template <typename D, typename A> void TRSQRT(D& dst, A& a);
template <typename D, typename A> void TROWSUM(D& dst, A& a);
template <typename D, typename A> void TROWMAX(D& dst, A& a);
template <typename D, typename A, typename R> void TROWEXPANDSUB(D& dst, A& a, R& row);
template <typename D, typename A, typename R> void TROWEXPANDMUL(D& dst, A& a, R& row);
template <typename D, typename A, typename R> void TROWEXPANDDIV(D& dst, A& a, R& row);
template <typename D, typename S> void TEXPANDS(D& dst, S value);

// Scalar helpers for index math the printer spells as calls.
template <typename T> T min_of(T a, T b);
template <typename T> T max_of(T a, T b);
template <typename T> T floor_div(T a, T b);
template <typename T> T ceil_div(T a, T b);

}  // namespace pto
