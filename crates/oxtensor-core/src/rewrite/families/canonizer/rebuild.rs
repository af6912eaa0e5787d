//! Building a tree from canonical terms with as few nodes as their counts
//! allow (PyTensor's `merge_num_denum`): one term is itself, several are
//! one n-ary `main`, and a denominator adds one `inverse` (or, alone,
//! `reciprocal` / `inverse(neutral, ...)`).

use super::simplify::Canonical;
use super::Algebra;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, VarId};
use crate::kernels::elemwise::cast::cast_constant;
use crate::rewrite::families::util::{constant_in, elemwise};
use crate::tensor::Tensor;

/// `inverse(main(num), main(denum))` for `c`, the constant first.
pub(super) fn build(
    fg: &mut FunctionGraph,
    alg: &Algebra,
    c: &Canonical,
    dtype: DType,
) -> Result<VarId> {
    let mut num = Vec::with_capacity(c.num.len() + 1);
    if let Some(ct) = &c.constant {
        num.push(constant_in(fg, ct, dtype));
    }
    num.extend_from_slice(&c.num);
    if c.denum.is_empty() {
        return match num.len() {
            0 => Ok(neutral(fg, alg, dtype)),
            _ => main(fg, alg, &num),
        };
    }
    let denum = main(fg, alg, &c.denum)?;
    match num.len() {
        0 if alg.use_reciprocal => elemwise(fg, alg.reciprocal, &[denum]),
        0 => {
            let one = neutral(fg, alg, dtype);
            elemwise(fg, alg.inverse, &[one, denum])
        }
        _ => {
            let num = main(fg, alg, &num)?;
            elemwise(fg, alg.inverse, &[num, denum])
        }
    }
}

/// How many nodes [`build`] makes for `n` numerator and `d` denominator
/// terms (no constant).
pub(super) fn nodes_needed(alg: &Algebra, n: usize, d: usize) -> usize {
    let main = |k: usize| usize::from(k > 1);
    match (n, d) {
        (_, 0) => main(n),
        (0, _) if alg.use_reciprocal => 1 + main(d),
        _ => 1 + main(n) + main(d),
    }
}

fn main(fg: &mut FunctionGraph, alg: &Algebra, terms: &[VarId]) -> Result<VarId> {
    match terms {
        [one] => Ok(*one),
        _ => elemwise(fg, alg.main, terms),
    }
}

/// The neutral element as a 0-d constant of `dtype`.
fn neutral(fg: &mut FunctionGraph, alg: &Algebra, dtype: DType) -> VarId {
    let t = cast_constant(&Tensor::scalar(alg.neutral), dtype);
    constant_in(fg, &t, dtype)
}
