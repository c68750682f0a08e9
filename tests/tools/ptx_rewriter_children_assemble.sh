#!/usr/bin/env bash
# share/agents/ptx_rewriter.py on real PTX (nvcc -ptx of two small kernels, for sm_90a and sm_100a): every edit
# applies, changes the PTX as it says, and ptxas assembles each child for its architecture; a malformed child (a load with
# its operand cut) fails ptxas with its error message, which is what a compile_error would record.
set -euo pipefail
SRC=$1
BIN=$2  # the CUDA toolkit's bin/ (nvcc, ptxas)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"  # must_fail
cat > "$W/k.cu" <<'CU'
extern "C" __global__ void kforge_axpy(int n, float a, const float* x, const float* y, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = a * x[i] + y[i];
}
extern "C" __global__ void kforge_scale(int n, float a, const float* x, float* out) {  // a short guarded body
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i];
}
CU
for arch in sm_90a sm_100a; do
  "$BIN/nvcc" -ptx -arch=$arch "$W/k.cu" -o "$W/$arch.ptx"
  python3 "$SRC/share/agents/ptx_rewriter.py" --ptx "$W/$arch.ptx" --out-dir "$W/$arch"
  for edit in cache_global_cg evict_first_l1 prefetch_l2 streaming_stores unroll_loops predicate_branches; do
    child=$W/$arch/$edit.ptx
    must_fail cmp -s "$child" "$W/$arch.ptx"
    "$BIN/ptxas" -arch=$arch -v "$child" -o "$W/$arch-$edit.cubin" 2> "$W/log"
    grep -q "Used [0-9]* registers" "$W/log"
    echo "ptx child $arch $edit: assembled"
  done
  grep -q 'ld.global.cg.f32' "$W/$arch/cache_global_cg.ptx"
  grep -q 'ld.global.L1::no_allocate.f32' "$W/$arch/evict_first_l1.ptx"
  grep -Eq 'prefetch.global.L2 \[%rd[0-9]+\+[0-9]+\];' "$W/$arch/prefetch_l2.ptx"
  grep -q 'st.global.cs.f32' "$W/$arch/streaming_stores.ptx"
  # The grid-stride loop twice over: its exit test between the copies (the loop's own predicate, inverted), the
  # branch back after the second, both loads twice; the guarded body predicated, its branch gone.
  u=$W/$arch/unroll_loops.ptx
  # shellcheck disable=SC2016  # PTX labels begin with a literal $
  grep -Eq '^\s*@!%p[0-9]+ bra\s+\$L__kforge_unrolled_0;' "$u"
  # shellcheck disable=SC2016  # PTX labels begin with a literal $
  grep -q '^$L__kforge_unrolled_0:' "$u"
  [[ $(grep -c 'ld.global.f32' "$u") == $(( $(grep -c 'ld.global.f32' "$W/$arch.ptx") + 2 )) ]]
  pb=$W/$arch/predicate_branches.ptx
  grep -Eq '^\s*@!%p[0-9]+ st.global.f32' "$pb"
  grep -Eq '^\s*@!%p[0-9]+ ld.global.f32' "$pb"
  [[ $(grep -c ' bra ' "$pb") == $(( $(grep -c ' bra ' "$W/$arch.ptx") - 1 )) ]]
  python3 "$SRC/share/agents/ptx_rewriter.py" --ptx "$u" --out-dir "$W/again-u"
  must_fail grep -q '"unroll_loops"' "$W/again-u/children.json"
  # Edits stack without repeating: a child fed back gets no second .cg.
  python3 "$SRC/share/agents/ptx_rewriter.py" --ptx "$W/$arch/cache_global_cg.ptx" --out-dir "$W/again"
  must_fail grep -q '"cache_global_cg"' "$W/again/children.json"
  sed -E '0,/ld\.global\.cg\.f32[^;]*;/s//ld.global.cg.f32 %f2, [;/' "$W/$arch/cache_global_cg.ptx" > "$W/bad.ptx"
  if "$BIN/ptxas" -arch=$arch "$W/bad.ptx" -o /dev/null 2> "$W/bad.log"; then echo "malformed PTX assembled"; exit 1; fi
  grep -q "error" "$W/bad.log"
  echo "malformed $arch child: ptxas says: $(head -1 "$W/bad.log")"
done
