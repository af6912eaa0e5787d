//! Logarithms that are softplus in disguise (stabilize), as PyTensor's
//! `tensor/rewriting/math.py`: `local_log1p_plusminus_exp`
//! (`log1p(exp(x)) -> softplus(x)`, `log1p(-exp(x)) -> log1mexp(x)`; with
//! `local_log1p` this turns `log(1 + exp(x))` into `softplus(x)`),
//! `logsigm_to_softplus` (`log(sigmoid(x)) -> -softplus(-x)`),
//! `log1msigm_to_softplus` (`log(1 - sigmoid(x)) -> -softplus(x)`) and
//! `log1p_neg_sigmoid` (`log1p(-sigmoid(x)) -> -softplus(x)`, also in
//! specialize). They give finite, accurate values where the plain forms
//! overflow (`exp(800)`) or lose everything to rounding (`1 - sigmoid(40)`):
//! that is their purpose.

use super::util::{
    cast_to, constant_f64, dtype_of, elemwise, inputs, like, negated, output, produced_by,
};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{self, *};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let stabilize = [
        scalar_rw!(
            "local_log1p_plusminus_exp",
            [Log1p],
            local_log1p_plusminus_exp
        ),
        scalar_rw!("logsigm_to_softplus", [Log], logsigm_to_softplus),
        scalar_rw!("log1msigm_to_softplus", [Log], log1msigm_to_softplus),
    ];
    for rw in stabilize {
        register_in(db, phase::STABILIZE, rw, &[])?;
    }
    let neg_sigmoid = scalar_rw!("log1p_neg_sigmoid", [Log1p], log1p_neg_sigmoid);
    register_in(db, phase::STABILIZE, neg_sigmoid.clone(), &[])?;
    register_in(db, phase::SPECIALIZE, neg_sigmoid, &[])
}

/// `v` in `dtype` when that is a real float dtype (the rewrites here build
/// `softplus`, which has no complex form).
fn real_float(
    fg: &mut FunctionGraph,
    v: VarId,
    dtype: Option<crate::dtype::DType>,
) -> Result<Option<VarId>> {
    match dtype.filter(|d| d.is_float()) {
        Some(d) => Ok(Some(cast_to(fg, v, d)?)),
        None => Ok(None),
    }
}

/// The argument of `kind(x)` producing `v`, in `v`'s dtype (if real float).
fn arg_of(fg: &mut FunctionGraph, v: VarId, kind: ScalarKind) -> Result<Option<VarId>> {
    let Some(n) = produced_by(fg, v, kind) else {
        return Ok(None);
    };
    let dtype = dtype_of(fg, v);
    real_float(fg, inputs(fg, n)[0], dtype)
}

/// `-softplus(x)`, replacing `node`'s output.
fn neg_softplus(
    fg: &mut FunctionGraph,
    node: NodeId,
    x: VarId,
    refs: &[VarId],
) -> Result<Option<Rewrite>> {
    let sp = elemwise(fg, Softplus, &[x])?;
    let new = elemwise(fg, Neg, &[sp])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, refs)?)))
}

/// `-x`: the `y` of `x = -y` when there is one, else `neg(x)`.
pub(super) fn minus(fg: &mut FunctionGraph, x: VarId) -> Result<VarId> {
    match negated(fg, x) {
        Some(y) => Ok(y),
        None => elemwise(fg, Neg, &[x]),
    }
}

fn local_log1p_plusminus_exp(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let arg = inputs(fg, node)[0];
    let (x, kind) = if let Some(x) = arg_of(fg, arg, Exp)? {
        (x, Softplus)
    } else if let Some(e) = negated(fg, arg) {
        match arg_of(fg, e, Exp)? {
            Some(x) => (x, Log1mexp),
            None => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    let new = elemwise(fg, kind, &[x])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

fn logsigm_to_softplus(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let arg = inputs(fg, node)[0];
    let Some(x) = arg_of(fg, arg, Sigmoid)? else {
        return Ok(None);
    };
    let minus_x = minus(fg, x)?;
    neg_softplus(fg, node, minus_x, &[])
}

fn log1msigm_to_softplus(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let arg = inputs(fg, node)[0];
    let Some(sub) = produced_by(fg, arg, Sub) else {
        return Ok(None);
    };
    let [one, s] = inputs(fg, sub)[..] else {
        return Ok(None);
    };
    if constant_f64(fg, one) != Some(1.0) {
        return Ok(None);
    }
    let Some(x) = arg_of(fg, s, Sigmoid)? else {
        return Ok(None);
    };
    neg_softplus(fg, node, x, &[one, s])
}

fn log1p_neg_sigmoid(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let arg = inputs(fg, node)[0];
    let Some(s) = negated(fg, arg) else {
        return Ok(None);
    };
    let Some(x) = arg_of(fg, s, Sigmoid)? else {
        return Ok(None);
    };
    neg_softplus(fg, node, x, &[])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, printed, rewrite, Case, TO_STABILIZE};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{FunctionGraph, Graph, VarId};
    use crate::tensor::Tensor;

    /// `f(x)` of a 1-d `x`.
    fn case(dtype: DType, f: impl Fn(&mut Graph, VarId) -> VarId) -> Case {
        let (mut g, [x]) = graph_with([("x", dtype, 1)]);
        let y = f(&mut g, x);
        Case::new(g, vec![x], vec![y])
    }

    fn run(fg: &FunctionGraph, x: &[f64], dtype: DType) -> Vec<f64> {
        let x = super::super::testing::vector(x, dtype);
        let (got, values) = super::super::testing::output_f64(fg, &[x]);
        assert_eq!(got, dtype, "the dtype is kept");
        values
    }

    /// Rewrites `case`, checks it against the plain graph on moderate
    /// values, and returns its printed form and its values at ±800.
    fn rewritten(case: &Case, dtype: DType) -> (String, Vec<f64>) {
        let moderate = Tensor::from_vec(vec![4], vec![-3.0f64, -0.5, 0.25, 2.0]).unwrap();
        let moderate = crate::kernels::elemwise::cast::cast(&moderate, dtype).unwrap();
        let rtol = if dtype == DType::Float32 { 1e-5 } else { 1e-13 };
        let fg = check(case, &TO_STABILIZE, &[moderate], rtol);
        (printed(&fg), run(&fg, &[-800.0, 800.0], dtype))
    }

    fn log1p_exp(g: &mut Graph, x: VarId) -> VarId {
        let one = build::scalar_constant(g, DType::Int8, 1.0);
        let e = build::exp(g, x).unwrap();
        let s = build::add(g, one, e).unwrap();
        build::log(g, s).unwrap()
    }

    #[test]
    fn log_one_plus_exp_is_softplus() {
        for dtype in [DType::Float64, DType::Float32] {
            let (p, extreme) = rewritten(&case(dtype, log1p_exp), dtype);
            assert_eq!(p, "Softplus [id A]\n └─ x [id B]\n");
            // softplus(-800) = e^-800, below the smallest float: 0.
            assert_eq!(extreme, vec![0.0, 800.0], "{dtype}");
        }
        let plain = case(DType::Float64, log1p_exp).fgraph();
        assert_eq!(run(&plain, &[800.0], DType::Float64), vec![f64::INFINITY]);
    }

    #[test]
    fn log_one_minus_exp_is_log1mexp() {
        let c = case(DType::Float64, |g, x| {
            let e = build::exp(g, x).unwrap();
            let n = build::neg(g, e).unwrap();
            build::elemwise(g, crate::scalar::ScalarKind::Log1p, &[n]).unwrap()
        });
        let x = Tensor::from_vec(vec![3], vec![-3.0f64, -0.5, -1e-3]).unwrap();
        let fg = check(&c, &TO_STABILIZE, &[x], 1e-12);
        assert_eq!(printed(&fg), "Log1mexp [id A]\n └─ x [id B]\n");
        // log(1 - e^-1e-20) = log(1e-20) exactly, where 1 - e^x is 0.
        assert_eq!(run(&fg, &[-1e-20], DType::Float64), vec![(1e-20f64).ln()]);
    }

    #[test]
    fn log_sigmoid_is_minus_softplus_of_minus_x() {
        for dtype in [DType::Float64, DType::Float32] {
            let c = case(dtype, |g, x| {
                let s = build::sigmoid(g, x).unwrap();
                build::log(g, s).unwrap()
            });
            let (p, extreme) = rewritten(&c, dtype);
            assert_eq!(
                p,
                "Neg [id A]\n └─ Softplus [id B]\n    └─ Neg [id C]\n       └─ x [id D]\n"
            );
            // log(sigmoid(-800)) = -800 - log1p(e^-800); log(sigmoid(800)) = -e^-800.
            assert_eq!(extreme, vec![-800.0, -0.0], "{dtype}");
        }
    }

    #[test]
    fn log_one_minus_sigmoid_is_minus_softplus() {
        for dtype in [DType::Float64, DType::Float32] {
            let c = case(dtype, |g, x| {
                let one = build::scalar_constant(g, dtype, 1.0);
                let s = build::sigmoid(g, x).unwrap();
                let d = build::sub(g, one, s).unwrap();
                build::log(g, d).unwrap()
            });
            let (p, extreme) = rewritten(&c, dtype);
            assert_eq!(p, "Neg [id A]\n └─ Softplus [id B]\n    └─ x [id C]\n");
            assert_eq!(extreme, vec![-0.0, -800.0], "{dtype}");
        }
        let c = case(DType::Float64, |g, x| {
            let s = build::sigmoid(g, x).unwrap();
            let n = build::neg(g, s).unwrap();
            build::elemwise(g, crate::scalar::ScalarKind::Log1p, &[n]).unwrap()
        });
        let (p, extreme) = rewritten(&c, DType::Float64);
        assert_eq!(p, "Neg [id A]\n └─ Softplus [id B]\n    └─ x [id C]\n");
        assert_eq!(extreme, vec![-0.0, -800.0]);
    }

    #[test]
    fn logs_of_other_things_stay() {
        // log(2 - sigmoid(x)) and log1p(exp(x) * 2) are not softplus.
        let c = case(DType::Float64, |g, x| {
            let two = build::scalar_constant(g, DType::Float64, 2.0);
            let s = build::sigmoid(g, x).unwrap();
            let d = build::sub(g, two, s).unwrap();
            build::log(g, d).unwrap()
        });
        assert!(!rewritten(&c, DType::Float64).0.contains("Softplus"));
        let c = case(DType::Float64, |g, x| {
            let two = build::scalar_constant(g, DType::Float64, 2.0);
            let e = build::exp(g, x).unwrap();
            let m = build::mul(g, e, two).unwrap();
            build::elemwise(g, crate::scalar::ScalarKind::Log1p, &[m]).unwrap()
        });
        assert!(!rewritten(&c, DType::Float64).0.contains("Softplus"));
        let mut fg = c.fgraph();
        rewrite(&mut fg, &TO_STABILIZE);
    }
}
