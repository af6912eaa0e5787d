//! A function of its inverse (PyTensor's `local_exp_log` and
//! `local_sqrt_sqr`, canonicalize and specialize): `log(exp(x)) -> x`,
//! `log1p(expm1(x)) -> x`, `exp(softplus(x)) -> 1 + exp(x)`,
//! `expm1(softplus(x)) -> exp(x)`, `sqrt(sqr(x)) -> abs(x)` and
//! `sqr(sqrt(x)) -> switch(x >= 0, x, nan)`. Their purpose is also
//! accuracy: the rewritten forms do not overflow where `exp(x)` does, and
//! skip a rounding. Complex inputs are left alone (`log(exp(z))` wraps the
//! imaginary part), and so are integer ones to `sqrt(sqr(x))`, whose
//! square can wrap around.

use super::util::{constant_in, dtype_of, elemwise, like, output};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};
use crate::tensor::Tensor;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    for p in [phase::CANONICALIZE, phase::SPECIALIZE] {
        let exp_log = scalar_rw!("local_exp_log", [Log, Log1p, Exp, Expm1], local_exp_log);
        register_in(db, p, exp_log, &[])?;
        let sqrt_sqr = scalar_rw!("local_sqrt_sqr", [Sqrt, Sqr], local_sqrt_sqr);
        register_in(db, p, sqrt_sqr, &[])?;
    }
    Ok(())
}

/// `outer(inner(x))` for a unary elementwise `outer` node: `(inner, x)`.
fn composed(fg: &FunctionGraph, node: NodeId) -> Option<(ScalarKind, ScalarKind, VarId)> {
    let outer = super::util::elemwise_kind(fg, node)?;
    let [arg] = fg.graph().node(node).inputs[..] else {
        return None;
    };
    let inner_node = fg.graph().var(arg).owner()?;
    let inner = super::util::elemwise_kind(fg, inner_node)?;
    let [x] = fg.graph().node(inner_node).inputs[..] else {
        return None;
    };
    Some((outer, inner, x))
}

fn is_real(fg: &FunctionGraph, v: VarId) -> bool {
    dtype_of(fg, v).is_some_and(|d| !d.is_complex() && d != crate::dtype::DType::Bool)
}

fn local_exp_log(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((outer, inner, x)) = composed(fg, node) else {
        return Ok(None);
    };
    let out = output(fg, node);
    let (Some(dtype), true) = (dtype_of(fg, out), is_real(fg, x)) else {
        return Ok(None);
    };
    let new = match (outer, inner) {
        (Log, Exp) | (Log1p, Expm1) => x,
        (Exp, Softplus) => {
            let e = elemwise(fg, Exp, &[x])?;
            let one = constant_in(fg, &Tensor::scalar(1.0f64), dtype);
            elemwise(fg, Add, &[one, e])?
        }
        (Expm1, Softplus) => elemwise(fg, Exp, &[x])?,
        _ => return Ok(None),
    };
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

fn local_sqrt_sqr(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some((outer, inner, x)) = composed(fg, node) else {
        return Ok(None);
    };
    let Some(dtype) = dtype_of(fg, output(fg, node)) else {
        return Ok(None);
    };
    let new = match (outer, inner) {
        (Sqrt, Sqr) if dtype_of(fg, x).is_some_and(|d| d.is_float()) => elemwise(fg, Abs, &[x])?,
        (Sqr, Sqrt) if is_real(fg, x) => {
            let zero = constant_in(fg, &Tensor::scalar(0i8), dtype_of(fg, x).unwrap_or(dtype));
            let nan = constant_in(fg, &Tensor::scalar(f64::NAN), dtype);
            let nonneg = elemwise(fg, Ge, &[x, zero])?;
            elemwise(fg, Switch, &[nonneg, x, nan])?
        }
        _ => return Ok(None),
    };
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::Graph;
    use crate::scalar::ScalarKind::{self, *};
    use crate::tensor::Tensor;

    fn compose(
        g: &mut Graph,
        outer: ScalarKind,
        inner: ScalarKind,
        x: crate::graph::VarId,
    ) -> crate::graph::VarId {
        let i = build::elemwise(g, inner, &[x]).unwrap();
        build::elemwise(g, outer, &[i]).unwrap()
    }

    #[test]
    fn a_function_of_its_inverse() {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let outs = [
            (Log, Exp),
            (Log1p, Expm1),
            (Exp, Softplus),
            (Expm1, Softplus),
            (Sqrt, Sqr),
            (Sqr, Sqrt),
        ]
        .map(|(o, i)| compose(&mut g, o, i, x));
        let case = Case::new(g, vec![x], outs.to_vec());
        let args = [Tensor::from_vec(vec![4], vec![1.5, -2.0, 0.0, 3.0]).unwrap()];
        check_prints(&case, &["canonicalize"], &args, 1e-15, "x [id A]\nx [id A]\nAdd [id B]\n ├─ [1.] [id C]\n └─ Exp [id D]\n    └─ x [id A]\n\
             Exp [id D]\n └─ ···\nAbs [id E]\n └─ x [id A]\n\
             Switch [id F]\n ├─ Ge [id G]\n │  ├─ x [id A]\n │  └─ [0.] [id H]\n ├─ x [id A]\n └─ [nan] [id I]\n");
    }

    #[test]
    fn integer_squares_can_wrap() {
        let (mut g, [x]) = graph_with([("x", DType::Int8, 1)]);
        let r = compose(&mut g, Sqrt, Sqr, x);
        let case = Case::new(g, vec![x], vec![r]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
