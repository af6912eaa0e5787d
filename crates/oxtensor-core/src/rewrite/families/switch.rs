//! `switch` rewrites (PyTensor's `local_useless_switch`, canonicalize,
//! useless and specialize, `shape_unsafe`; `local_mul_switch_sink` and
//! `local_div_switch_sink`, canonicalize): a switch whose condition is a
//! constant, or whose branches are the same, is the branch; and a product
//! or quotient of a switch with a zero branch moves inside the switch, so
//! the zero branch stays zero where the other factors are inf or NaN
//! (`a * switch(c, 0, x) -> switch(c, 0, a * x)`). That is the sinks'
//! purpose: they change NaN to 0 there, which is what gradients of
//! `switch` need (PyTensor's `values_eq_approx_remove_nan`).

use super::util::{elemwise, inputs, like, output, produced_by, tensor_is, unique_value};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::shape::ShapeI;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{IntDiv, Le, Mul, Switch, TrueDiv};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for (p, tags) in [
        (phase::USELESS, &["shape_unsafe"][..]),
        (phase::CANONICALIZE, &["fast_compile", "shape_unsafe"][..]),
        (phase::SPECIALIZE, &["shape_unsafe"][..]),
    ] {
        let useless = scalar_rw!("local_useless_switch", [Switch], local_useless_switch);
        register_in(db, p, useless, tags)?;
    }
    for p in [phase::CANONICALIZE, phase::SPECIALIZE] {
        let mul_sink = scalar_rw!("local_mul_switch_sink", [Mul], local_mul_switch_sink);
        register_in(db, p, mul_sink, &[])?;
    }
    let div_sink = scalar_rw!(
        "local_div_switch_sink",
        [TrueDiv, IntDiv],
        local_div_switch_sink
    );
    register_in(db, phase::CANONICALIZE, div_sink, &[])
}

/// `switch(const, a, b) -> a or b`, `switch(c, a, a) -> a`, and
/// `switch(shape_i(x) <= 0, 0, shape_i(x)) -> shape_i(x)`.
fn local_useless_switch(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [cond, a, b] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let out = output(fg, node);
    if let Some(c) = unique_value(fg, cond) {
        let pick = if tensor_is(&c, 0.0) { b } else { a };
        return Ok(Some(Rewrite::one(like(fg, pick, out, &[a, b, cond])?)));
    }
    if same_branches(fg, a, b) {
        return Ok(Some(Rewrite::one(like(fg, a, out, &[cond, b])?)));
    }
    let fits = fg.graph().var(out).ty.is_super(&fg.graph().var(b).ty);
    Ok((fits && nonnegative_length(fg, cond, a, b)).then(|| Rewrite::one(b)))
}

/// The same variable, or constants of equal values (of any dtypes).
fn same_branches(fg: &FunctionGraph, a: VarId, b: VarId) -> bool {
    let g = fg.graph();
    let value = |v: VarId| match &g.var(v).constant()?.value {
        crate::graph::Value::Tensor(t) => Some(t.clone()),
        _ => None,
    };
    if a == b {
        return true;
    }
    match (value(a), value(b)) {
        (Some(x), Some(y)) if x.shape() == y.shape() => {
            x.same_values(&crate::kernels::elemwise::cast::cast_constant(
                &y,
                x.dtype(),
            )) && y.same_values(&crate::kernels::elemwise::cast::cast_constant(
                &x,
                y.dtype(),
            ))
        }
        _ => false,
    }
}

/// Whether the switch is `switch(le(s, 0), 0, s)` for a length `s`
/// (`Shape_i`), which is `s` since lengths are never negative.
fn nonnegative_length(fg: &FunctionGraph, cond: VarId, a: VarId, b: VarId) -> bool {
    let g = fg.graph();
    let Some(le) = produced_by(fg, cond, Le) else {
        return false;
    };
    let [s, zero] = g.node(le).inputs[..] else {
        return false;
    };
    let is_length = g
        .var(s)
        .owner()
        .is_some_and(|n| g.node(n).op.as_any().is::<ShapeI>());
    s == b && is_length && is_zero(fg, zero) && is_zero(fg, a)
}

fn is_zero(fg: &FunctionGraph, v: VarId) -> bool {
    unique_value(fg, v).is_some_and(|t| tensor_is(&t, 0.0))
}

/// The switch feeding `v` with a constant-zero branch: its condition, the
/// zero, the other branch, and whether the zero is the first branch.
fn zero_branch_switch(fg: &FunctionGraph, v: VarId) -> Option<(VarId, VarId, VarId, bool)> {
    let s = produced_by(fg, v, Switch)?;
    let [cond, a, b] = fg.graph().node(s).inputs[..] else {
        return None;
    };
    if is_zero(fg, a) {
        Some((cond, a, b, true))
    } else if is_zero(fg, b) {
        Some((cond, b, a, false))
    } else {
        None
    }
}

/// `switch(cond, zero, inner)` (or with the branches swapped), shaped and
/// typed like `node`'s output.
fn switch_around(
    fg: &mut FunctionGraph,
    node: NodeId,
    (cond, zero, first): (VarId, VarId, bool),
    inner: VarId,
) -> Result<Option<Rewrite>> {
    let branches = if first { [zero, inner] } else { [inner, zero] };
    let new = elemwise(fg, Switch, &[cond, branches[0], branches[1]])?;
    let out = output(fg, node);
    let ins = inputs(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &ins)?)))
}

/// `a * switch(c, 0, x) * b -> switch(c, 0, a * x * b)` (either branch).
fn local_mul_switch_sink(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    for (i, &inp) in ins.iter().enumerate() {
        let Some((cond, zero, other, first)) = zero_branch_switch(fg, inp) else {
            continue;
        };
        let mut factors = ins.clone();
        factors[i] = other;
        let product = elemwise(fg, Mul, &factors)?;
        return switch_around(fg, node, (cond, zero, first), product);
    }
    Ok(None)
}

/// `switch(c, 0, x) / a -> switch(c, 0, x / a)` (either branch; true and
/// integer division).
fn local_div_switch_sink(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(kind) = super::util::elemwise_kind(fg, node) else {
        return Ok(None);
    };
    let [num, den] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some((cond, zero, other, first)) = zero_branch_switch(fg, num) else {
        return Ok(None);
    };
    let quotient = elemwise(fg, kind, &[other, den])?;
    switch_around(fg, node, (cond, zero, first), quotient)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{Graph, VarId};
    use crate::tensor::Tensor;

    fn inputs() -> (Graph, [VarId; 3]) {
        graph_with([
            ("c", DType::Bool, 1),
            ("x", DType::Float64, 1),
            ("y", DType::Float64, 1),
        ])
    }

    fn args() -> [Tensor; 3] {
        [
            Tensor::from_vec(vec![3], vec![true, false, true]).unwrap(),
            Tensor::from_vec(vec![3], vec![1.5, -2.0, 0.5]).unwrap(),
            Tensor::from_vec(vec![3], vec![0.25, 4.0, -1.0]).unwrap(),
        ]
    }

    #[test]
    fn constant_conditions_and_equal_branches_pick_a_branch() {
        let (mut g, [c, x, y]) = inputs();
        let yes = g.tensor_constant(Tensor::scalar(true));
        let no = g.tensor_constant(Tensor::scalar(0i8));
        let a = build::switch(&mut g, yes, x, y).unwrap();
        let b = build::switch(&mut g, no, x, y).unwrap();
        let same = build::switch(&mut g, c, x, x).unwrap();
        let case = Case::new(g, vec![c, x, y], vec![a, b, same]);
        check_prints(
            &case,
            &["canonicalize"],
            &args(),
            0.0,
            "x [id A]\ny [id B]\nx [id A]\n",
        );
    }

    #[test]
    fn a_zero_branch_takes_the_product_and_quotient_inside() {
        let (mut g, [c, x, y]) = inputs();
        let zero = g.tensor_constant(Tensor::scalar(0.0f64));
        let s = build::switch(&mut g, c, zero, y).unwrap();
        let p = build::mul(&mut g, x, s).unwrap();
        let t = build::switch(&mut g, c, y, zero).unwrap();
        let q = build::true_div(&mut g, t, x).unwrap();
        let case = Case::new(g, vec![c, x, y], vec![p, q]);
        check_prints(&case, &["canonicalize"], &args(), 0.0, "Switch [id A]\n ├─ c [id B]\n ├─ [0.] [id C]\n └─ Mul [id D]\n    ├─ x [id E]\n    └─ y [id F]\n\
             Switch [id G]\n ├─ c [id B]\n ├─ True_div [id H]\n │  ├─ y [id F]\n │  └─ x [id E]\n └─ [0.] [id C]\n");
    }

    #[test]
    fn other_switches_stay() {
        let (mut g, [c, x, y]) = inputs();
        let one = g.tensor_constant(Tensor::from_vec(vec![1], vec![1.0f64]).unwrap());
        let s = build::switch(&mut g, c, one, y).unwrap();
        let p = build::mul(&mut g, x, s).unwrap();
        let plain = build::switch(&mut g, c, x, y).unwrap();
        let case = Case::new(g, vec![c, x, y], vec![p, plain]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
