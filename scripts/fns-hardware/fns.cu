// fns.b32 on a GPU against the ISA 9.7.1.17 bit loop: the hardware check of
// crates/ptx-interp/tests/interp/fns.rs. Needs nvcc and a GPU:
//   nvcc -O2 -arch=sm_90 -o fns fns.cu && ./fns
// Prints the digest of the seeded triples (the test's H200_DIGEST), the
// number of bulk triples that differ from the loop (0), what the GPU gives
// for bases above 31 (undefined in the ISA) and for immediate operands.
#include <cstdint>
#include <cstdio>
#include <vector>
typedef uint32_t U;
typedef uint64_t L;
typedef std::vector<U> V;

L state;  // ptx_interp::SplitMix64
L next() {
  L z = state += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// The test's triple(): mask, base 0..31, offset as .s32 bits.
void triple(U &m, U &b, U &o) {
  L a = next(), e = next(), c = next(), k = c & 3, s = (c >> 7) & 7;
  m = k == 0 ? a : k == 1 ? a & e : k == 2 ? a | e : a & e & (e >> 32);
  b = (c >> 2) & 31;
  o = s == 0 ? 0 : s == 1 ? U(c >> 32) : U((c >> 10) % 69) - 34;
}
// The ISA's Semantics block.
U model(U m, U b, int o) {
  if (o == 0) return m >> b & 1 ? b : ~0u;
  long pos = b, count = o > 0 ? o - 1L : -(long)o - 1;
  for (; pos >= 0 && pos < 32; pos += o > 0 ? 1 : -1)
    if (m >> pos & 1) {
      if (count == 0) return pos;
      count--;
    }
  return ~0u;
}
L digest(V &d) {  // FNV-1a over the words
  L h = 0xcbf29ce484222325ULL;
  for (U x : d) h = (h ^ x) * 0x100000001b3ULL;
  return h;
}
__global__ void regs(U *m, U *b, U *o, U *d, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) asm volatile("fns.b32 %0, %1, %2, %3;" : "=r"(d[i]) : "r"(m[i]), "r"(b[i]), "r"(o[i]));
}
#define IMM(s) asm volatile(s : "=r"(r[j++]) : "r"(m), "r"(b), "r"(o));
__global__ void imms(U *r, U m, U b, U o) {  // m = 0xaaaaaaaa, b = 2, o = -1
  int j = 0;
  IMM("fns.b32 %0, 0xaaaaaaaa, 3, 1;") IMM("fns.b32 %0, 0xaaaaaaaa, 3, -1;")
  IMM("fns.b32 %0, 0xaaaaaaaa, 2, 1;") IMM("fns.b32 %0, 0xaaaaaaaa, 2, -1;")
  IMM("fns.b32 %0, 0xaaaaaaaa, %2, %3;") IMM("fns.b32 %0, %1, 2, %3;")
  IMM("fns.b32 %0, %1, %2, -1;") IMM("fns.b32 %0, %1, 31, -3;")
  IMM("fns.b32 %0, 0xffffffff, 10, -11;") IMM("fns.b32 %0, 0, 5, 0;")
}
U *up(V &v) {
  U *p;
  cudaMalloc(&p, 4 * v.size());
  cudaMemcpy(p, v.data(), 4 * v.size(), cudaMemcpyHostToDevice);
  return p;
}
V run(V &m, V &b, V &o) {
  int n = m.size();
  V d(n);
  U *q = up(d);
  regs<<<(n + 255) / 256, 256>>>(up(m), up(b), up(o), q, n);
  cudaMemcpy(d.data(), q, 4 * n, cudaMemcpyDeviceToHost);
  return d;
}
int main() {
  V m, b, o, d, want;
  U x, y, z;
  state = 0xf125;  // the test's SEED
  for (int i = 0; i < 4096; i++) {
    triple(x, y, z);
    m.push_back(x), b.push_back(y), o.push_back(z), want.push_back(model(x, y, z));
  }
  d = run(m, b, o);
  printf("seeded gpu=%016llx model=%016llx\n", (unsigned long long)digest(d), (unsigned long long)digest(want));
  m = {}, b = {}, o = {}, state = 7;
  U masks[] = {0, ~0u, 0xaaaaaaaa, 0x55555555, 1, 0x80000000, 0x80000001, 0xff0000};
  for (U s = 0; s < 32; s++)
    for (int f = -40; f <= 40; f++)
      for (int k = 0; k < 72; k++)  // 8 masks, 32 single bits, 32 random
        m.push_back(k < 8 ? masks[k] : k < 40 ? 1u << (k - 8) : next()), b.push_back(s), o.push_back(f);
  for (int i = 0; i < 1 << 22; i++) {  // half with any .s32 offset
    triple(x, y, z);
    m.push_back(x), b.push_back(y), o.push_back(i & 1 ? z : next());
  }
  d = run(m, b, o);
  long bad = 0;
  for (size_t i = 0; i < m.size(); i++)
    if (d[i] != model(m[i], b[i], o[i]) && bad++ < 9) printf("DIFF %08x %u %d %08x\n", m[i], b[i], o[i], d[i]);
  printf("bulk %zu differ %ld\n", m.size(), bad);
  m = {}, b = {}, o = {};
  for (U s : {32u, 33u, 63u, 64u, 1u << 31, ~0u, ~31u})
    for (U t : {0xaaaaaaaau, ~0u, 0x12345678u})
      for (int f : {0, 1, -1, 2, -2, 5}) m.push_back(t), b.push_back(s), o.push_back(f);
  d = run(m, b, o);
  for (size_t i = 0; i < m.size(); i++) printf("base>31 %08x %08x %d %08x\n", m[i], b[i], o[i], d[i]);
  U *q, h[10];
  cudaMalloc(&q, 64);
  imms<<<1, 1>>>(q, 0xaaaaaaaa, 2, -1);
  cudaMemcpy(h, q, 40, cudaMemcpyDeviceToHost);
  printf("imm");
  for (U v : h) printf(" %08x", v);
  printf("\n%s\n", cudaGetErrorString(cudaGetLastError()));
}
