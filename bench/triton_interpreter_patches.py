"""Workarounds that let FLA's Triton kernels run on a CPU under Triton's interpreter (TRITON_INTERPRET=1), for
bench/fla_kda_on_cpu.sh only: a drill of bench/gpu-acceptance.sh's FLA steps before any GPU time. They patch Triton
3.x internals (checked with triton 3.9.0, fla-core 0.6.0) and are never used on a GPU. Import after torch, before fla.
  1. the autotuner benchmarks configs through a GPU driver: keep the first config, benchmark nothing;
  2. FLA calls .to(tl.int64) on `for i in range(...)` variables, which the interpreter hands over as Python ints:
     each such loop body starts by making its variable a tensor;
  3. the interpreter keeps bf16 as raw uint16 bits and does arithmetic, tl.dot and reductions on the integers:
     bf16 operands are computed in fp32 and rounded back to bf16 (round to nearest even), as a GPU rounds them.
"""
# ruff: noqa: E302, E305, E501, E704, E731
import ast

import numpy as np
import triton.language as tl
import triton.runtime.autotuner as _at
import triton.runtime.interpreter as _ip

# 1.
_orig_prune = _at.Autotuner.prune_configs
def _prune_first(self, kwargs, *a, **kw):
    return _orig_prune(self, kwargs, *a, **kw)[:1]
_at.Autotuner.prune_configs = _prune_first


# 2.
def _visit_For(self, node):
    node = self.generic_visit(node)
    it = node.iter
    fname = it.func.attr if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) else \
        (it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) else None)
    if fname == 'range' and isinstance(node.target, ast.Name):
        wrap = ast.Assign(targets=[ast.Name(id=node.target.id, ctx=ast.Store())],
                          value=ast.Call(func=ast.Attribute(value=ast.Name(id='interpreter_semantic', ctx=ast.Load()),
                                                            attr='to_tensor', ctx=ast.Load()),
                                         args=[ast.Name(id=node.target.id, ctx=ast.Load()), ast.Constant(value=False)],
                                         keywords=[]))
        node.body.insert(0, ast.copy_location(wrap, node.body[0]))
    return node
_ip.ASTTransformer.visit_For = _visit_For

# 3.
_B = _ip.InterpreterBuilder
_bf = tl.bfloat16
def _is_bf(h): return h.dtype.scalar == _bf
def _f32(h): return (h.data.astype(np.uint32) << 16).view(np.float32) if _is_bf(h) else h.data
def _tobf(x): return _ip._convert_float(np.ascontiguousarray(x, dtype=np.float32), tl.float32, _bf, None).view(np.uint16).reshape(np.shape(x))

_orig_binary = _B.binary_op
def _binary_op(self, lhs, rhs, op):
    if _is_bf(lhs) or _is_bf(rhs):
        out = op(_f32(lhs), _f32(rhs))
        if out.dtype == np.bool_:
            return _ip.TensorHandle(out, lhs.dtype.scalar)
        return _ip.TensorHandle(_tobf(out), _bf)
    return _orig_binary(self, lhs, rhs, op)
_B.binary_op = _binary_op

_orig_unary = _B.unary_op
def _unary_op(self, arg, op):
    if _is_bf(arg):
        return _ip.TensorHandle(_tobf(op(_f32(arg))), _bf)
    return _orig_unary(self, arg, op)
_B.unary_op = _unary_op

_orig_fma = _B.create_fma
def _create_fma(self, x, y, z):
    if _is_bf(z):
        return _ip.TensorHandle(_tobf(_f32(x) * _f32(y) + _f32(z)), _bf)
    return _orig_fma(self, x, y, z)
_B.create_fma = _create_fma

_orig_dot = _B.create_dot
def _create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
    if _is_bf(a) or _is_bf(b):
        out = np.matmul(_f32(a), _f32(b), dtype=np.float32) + _f32(d)
        return _ip.TensorHandle(_tobf(out) if _is_bf(d) else out.astype(d.data.dtype), d.dtype.scalar)
    return _orig_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
_B.create_dot = _create_dot

_R = _ip.ReduceOps
_orig_sum = _R.sum
def _sum(self, input):
    if input.dtype.scalar == _bf:
        s = np.sum(_f32(input.handle), axis=self.axis, keepdims=self.keep_dims)
        return self.to_tensor(_tobf(np.atleast_1d(s)).reshape(np.shape(s)) if np.ndim(s) else _tobf(np.atleast_1d(s))[0], input.dtype)
    return _orig_sum(self, input)
_R.sum = _sum
_orig_minmax = _R.min_max
def _min_max(self, input, val_reduce_op, idx_reduce_op=None):
    x = input[0] if isinstance(input, tuple) else input
    if x.dtype.scalar == _bf:
        f = self.to_tensor(_f32(x.handle), tl.float32)
        res = _orig_minmax(self, f, val_reduce_op, idx_reduce_op)
        conv = lambda t: self.to_tensor(_tobf(np.atleast_1d(t.handle.data)).reshape(t.handle.data.shape), _bf) if t.dtype.scalar == tl.float32 else t
        return tuple(conv(t) for t in res) if isinstance(res, tuple) else conv(res)
    return _orig_minmax(self, input, val_reduce_op, idx_reduce_op)
_R.min_max = _min_max
