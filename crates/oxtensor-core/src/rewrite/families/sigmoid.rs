//! Sigmoids in disguise (stabilize), as PyTensor's `tensor/rewriting/math.py`:
//! `local_exp_over_1_plus_exp` (`exp(x) / (1 + exp(x)) -> sigmoid(x)`,
//! `c / (1 + exp(x)) -> c * sigmoid(-x)`, among other factors),
//! `local_1msigmoid` (`1 - sigmoid(x) -> sigmoid(-x)`, also in specialize)
//! and `local_sigm_times_exp` (`exp(x) * sigmoid(-x) -> sigmoid(x)`,
//! `exp(-x) * sigmoid(x) -> sigmoid(-x)`). They give finite, accurate values
//! where the plain forms overflow (`inf / inf`, `inf * 0`) or cancel
//! (`1 - sigmoid(40)` is 0): that is their purpose.

use super::softplus::minus;
use super::util::{
    cast_to, constant_f64, dtype_of, elemwise, inputs, like, negated, output, produced_by,
    read_once,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let over = scalar_rw!(
        "local_exp_over_1_plus_exp",
        [TrueDiv],
        local_exp_over_1_plus_exp
    );
    register_in(db, phase::STABILIZE, over, &[])?;
    let one_minus = scalar_rw!("local_1msigmoid", [Sub], local_1msigmoid);
    register_in(db, phase::STABILIZE, one_minus.clone(), &[])?;
    register_in(db, phase::SPECIALIZE, one_minus, &[])?;
    let times = scalar_rw!("local_sigm_times_exp", [Mul], local_sigm_times_exp);
    register_in(db, phase::STABILIZE, times, &[])
}

/// The factors of `v`: a `mul`'s inputs, or `v` itself.
fn factors(fg: &FunctionGraph, v: VarId) -> Vec<VarId> {
    match produced_by(fg, v, Mul) {
        Some(m) => inputs(fg, m),
        None => vec![v],
    }
}

/// `x` when `v` is `1 + exp(x)` (constant terms adding up to 1).
fn one_plus_exp(fg: &FunctionGraph, v: VarId) -> Option<VarId> {
    let add = produced_by(fg, v, Add)?;
    let (mut total, mut rest) = (0.0, Vec::new());
    for t in inputs(fg, add) {
        match constant_f64(fg, t) {
            Some(c) => total += c,
            None => rest.push(t),
        }
    }
    let [e] = rest[..] else { return None };
    (total == 1.0).then(|| produced_by(fg, e, Exp).map(|n| inputs(fg, n)[0]))?
}

/// `sigmoid(x)` computed in `dtype`.
fn sigmoid_in(fg: &mut FunctionGraph, x: VarId, dtype: DType) -> Result<VarId> {
    let x = cast_to(fg, x, dtype)?;
    elemwise(fg, Sigmoid, &[x])
}

/// `*factors` (one factor as itself).
fn product(fg: &mut FunctionGraph, factors: &[VarId]) -> Result<VarId> {
    match factors {
        [one] => Ok(*one),
        many => elemwise(fg, Mul, many),
    }
}

/// `exp(x) / (1 + exp(x))` as `sigmoid(x)`, and `1 / (1 + exp(x))` as
/// `sigmoid(-x)`: each `1 + exp(x)` factor of the denominator becomes a
/// sigmoid factor of the numerator (taking its `exp(x)` factor if it has
/// one). Returns those sigmoids and the denominator's other factors;
/// `num` keeps the numerator's factors not taken.
fn sigmoid_factors(
    fg: &mut FunctionGraph,
    num: &mut Vec<VarId>,
    den: VarId,
    dtype: DType,
) -> Result<(Vec<VarId>, Vec<VarId>)> {
    let (mut sigmoids, mut den_rest) = (Vec::new(), Vec::new());
    for f in factors(fg, den) {
        let Some(x) = one_plus_exp(fg, f) else {
            den_rest.push(f);
            continue;
        };
        let exp_x = num
            .iter()
            .position(|&n| produced_by(fg, n, Exp).is_some_and(|e| inputs(fg, e)[0] == x));
        let arg = match exp_x {
            Some(i) => {
                num.remove(i);
                x
            }
            None => minus(fg, x)?,
        };
        sigmoids.push(sigmoid_in(fg, arg, dtype)?);
    }
    Ok((sigmoids, den_rest))
}

fn local_exp_over_1_plus_exp(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [num, den] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out).filter(|d| d.is_float()) else {
        return Ok(None);
    };
    let mut num_rest = factors(fg, num);
    let (mut new_num, den_rest) = sigmoid_factors(fg, &mut num_rest, den, dtype)?;
    if new_num.is_empty() {
        return Ok(None);
    }
    let ones = |n: &VarId| constant_f64(fg, *n) == Some(1.0);
    new_num.extend(num_rest.iter().filter(|n| !ones(n)));
    let mut new = product(fg, &new_num)?;
    if !den_rest.is_empty() {
        let d = product(fg, &den_rest)?;
        new = elemwise(fg, TrueDiv, &[new, d])?;
    }
    Ok(Some(Rewrite::one(like(fg, new, out, &[num, den])?)))
}

fn local_1msigmoid(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [one, s] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(sig) = produced_by(fg, s, Sigmoid) else {
        return Ok(None);
    };
    let out = output(fg, node);
    let dtype = dtype_of(fg, out).filter(|d| d.is_float());
    let (Some(dtype), Some(1.0)) = (dtype, constant_f64(fg, one)) else {
        return Ok(None);
    };
    let x = inputs(fg, sig)[0];
    let m = minus(fg, x)?;
    let new = sigmoid_in(fg, m, dtype)?;
    Ok(Some(Rewrite::one(like(fg, new, out, &[one, s])?)))
}

/// The `y` of `sigmoid(y)` producing `v`.
fn sigmoid_arg(fg: &FunctionGraph, v: VarId) -> Option<VarId> {
    produced_by(fg, v, Sigmoid).map(|n| inputs(fg, n)[0])
}

/// Whether `a` is `-b` (either way round).
fn opposite(fg: &FunctionGraph, a: VarId, b: VarId) -> bool {
    negated(fg, a) == Some(b) || negated(fg, b) == Some(a)
}

/// How many levels of inner `mul`s `local_sigm_times_exp` opens: enough
/// for what canonicalize leaves, and a bound on the work per node (a chain
/// of n nested `mul`s would otherwise cost n² over the phase).
const MUL_DEPTH: usize = 4;

/// The leaves of the `mul` tree under `v`: inner `mul`s of `dtype` that
/// only this tree reads are opened, `depth` levels deep (PyTensor's
/// `parse_mul_tree`, bounded).
fn mul_leaves(fg: &FunctionGraph, v: VarId, dtype: DType, depth: usize, out: &mut Vec<VarId>) {
    match produced_by(fg, v, Mul) {
        Some(m) if depth > 0 && read_once(fg, v) && dtype_of(fg, v) == Some(dtype) => {
            for i in inputs(fg, m) {
                mul_leaves(fg, i, dtype, depth - 1, out);
            }
        }
        _ => out.push(v),
    }
}

fn local_sigm_times_exp(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out).filter(|d| d.is_float()) else {
        return Ok(None);
    };
    let mut ins = Vec::new();
    for i in inputs(fg, node) {
        mul_leaves(fg, i, dtype, MUL_DEPTH, &mut ins);
    }
    if !ins.iter().any(|&v| produced_by(fg, v, Exp).is_some()) {
        return Ok(None);
    }
    // (position, argument) of each sigmoid factor not yet paired.
    let mut sigmoids: Vec<(usize, VarId)> = (0..ins.len())
        .filter_map(|j| Some((j, sigmoid_arg(fg, ins[j])?)))
        .collect();
    let mut used = vec![false; ins.len()];
    let mut new_factors = Vec::new();
    for (i, &e) in ins.iter().enumerate() {
        let Some(x) = produced_by(fg, e, Exp).map(|n| inputs(fg, n)[0]) else {
            continue;
        };
        // exp(x) * sigmoid(-x) = e^x / (1 + e^x) = sigmoid(x).
        if let Some(k) = sigmoids.iter().position(|&(_, y)| opposite(fg, x, y)) {
            let (j, _) = sigmoids.swap_remove(k);
            (used[i], used[j]) = (true, true);
            new_factors.push(sigmoid_in(fg, x, dtype)?);
        }
    }
    if new_factors.is_empty() {
        return Ok(None);
    }
    new_factors.extend(ins.iter().zip(&used).filter(|(_, &u)| !u).map(|(&v, _)| v));
    let new = product(fg, &new_factors)?;
    Ok(Some(Rewrite::one(like(fg, new, out, &ins)?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, printed, vector, Case, TO_STABILIZE};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{FunctionGraph, Graph, VarId};

    /// `f(x, y)` of 1-d `x` and `y`.
    fn case(dtype: DType, f: impl Fn(&mut Graph, VarId, VarId) -> VarId) -> Case {
        let (mut g, [x, y]) = graph_with([("x", dtype, 1), ("y", dtype, 1)]);
        let out = f(&mut g, x, y);
        Case::new(g, vec![x, y], vec![out])
    }

    fn run(fg: &FunctionGraph, x: &[f64], y: &[f64], dtype: DType) -> Vec<f64> {
        let args = [vector(x, dtype), vector(y, dtype)];
        let (got, values) = super::super::testing::output_f64(fg, &args);
        assert_eq!(got, dtype, "the dtype is kept");
        values
    }

    /// Checks `case` against the plain graph on moderate values; returns
    /// the printed form and the values at x = (-800, 800, 40), y = 3.
    fn rewritten(case: &Case, dtype: DType) -> (String, Vec<f64>) {
        let rtol = if dtype == DType::Float32 { 1e-5 } else { 1e-13 };
        let (x, y) = ([-3.0, -0.5, 0.25, 2.0], [1.5, 2.0, -1.0, 0.5]);
        let fg = check(
            case,
            &TO_STABILIZE,
            &[vector(&x, dtype), vector(&y, dtype)],
            rtol,
        );
        let extreme = run(&fg, &[-800.0, 800.0, 40.0], &[3.0; 3], dtype);
        (printed(&fg), extreme)
    }

    fn sigmoid64(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// Within float32 rounding of the exact value (none of the plain
    /// forms' cancellation to 0 or overflow).
    fn close(got: f64, want: f64) {
        assert!((got - want).abs() <= 1e-6 * want.abs(), "{got} vs {want}");
    }

    #[test]
    fn exp_over_one_plus_exp_is_sigmoid() {
        for dtype in [DType::Float64, DType::Float32] {
            let c = case(dtype, |g, x, _| {
                let one = build::scalar_constant(g, DType::Int8, 1.0);
                let e = build::exp(g, x).unwrap();
                let d = build::add(g, one, e).unwrap();
                build::true_div(g, e, d).unwrap()
            });
            let (p, extreme) = rewritten(&c, dtype);
            assert_eq!(p, "Sigmoid [id A]\n └─ x [id B]\n");
            assert_eq!(extreme, vec![0.0, 1.0, 1.0], "{dtype}");
        }
        // y / (1 + exp(x)) -> y * sigmoid(-x), exact where e^x overflows.
        let c = case(DType::Float64, |g, x, y| {
            let one = build::scalar_constant(g, DType::Float64, 1.0);
            let e = build::exp(g, x).unwrap();
            let d = build::add(g, e, one).unwrap();
            build::true_div(g, y, d).unwrap()
        });
        let (p, extreme) = rewritten(&c, DType::Float64);
        assert!(
            p.starts_with("Mul [id A]\n ├─ Sigmoid [id B]\n │  └─ Neg"),
            "{p}"
        );
        assert_eq!(&extreme[..2], &[3.0, 0.0]);
        close(extreme[2], 3.0 * sigmoid64(-40.0));
    }

    #[test]
    fn one_minus_sigmoid_is_sigmoid_of_minus_x() {
        for dtype in [DType::Float64, DType::Float32] {
            let c = case(dtype, |g, x, _| {
                let one = build::scalar_constant(g, dtype, 1.0);
                let s = build::sigmoid(g, x).unwrap();
                build::sub(g, one, s).unwrap()
            });
            let (p, extreme) = rewritten(&c, dtype);
            assert_eq!(p, "Sigmoid [id A]\n └─ Neg [id B]\n    └─ x [id C]\n");
            // 1 - sigmoid(40) is 0 in floats; sigmoid(-40) is 4.2e-18.
            assert_eq!(&extreme[..2], &[1.0, 0.0]);
            close(extreme[2], sigmoid64(-40.0));
        }
    }

    #[test]
    fn exp_times_sigmoid_of_the_opposite_is_sigmoid() {
        for dtype in [DType::Float64, DType::Float32] {
            let c = case(dtype, |g, x, y| {
                let e = build::exp(g, x).unwrap();
                let n = build::neg(g, x).unwrap();
                let s = build::sigmoid(g, n).unwrap();
                let m = build::mul(g, y, e).unwrap();
                build::mul(g, m, s).unwrap()
            });
            let (p, _) = rewritten(&c, dtype);
            assert!(p.contains("Sigmoid [id") && !p.contains("Exp"), "{p}");
        }
        // exp(-x) * sigmoid(x) -> sigmoid(-x); exp(800) * sigmoid(-800) is
        // inf * 0 before.
        let c = case(DType::Float64, |g, x, _| {
            let n = build::neg(g, x).unwrap();
            let e = build::exp(g, n).unwrap();
            let s = build::sigmoid(g, x).unwrap();
            build::mul(g, e, s).unwrap()
        });
        let (p, extreme) = rewritten(&c, DType::Float64);
        // `-x` in canonicalize's form, `-1 * x` (specialize makes it `Neg`).
        assert_eq!(
            p,
            "Sigmoid [id A]\n └─ Mul [id B]\n    ├─ [-1.] [id C]\n    └─ x [id D]\n"
        );
        assert_eq!(&extreme[..2], &[1.0, 0.0]);
        close(extreme[2], sigmoid64(-40.0));
    }

    #[test]
    fn unrelated_exps_and_sigmoids_stay() {
        let c = case(DType::Float64, |g, x, y| {
            let e = build::exp(g, x).unwrap();
            let s = build::sigmoid(g, y).unwrap();
            let two = build::scalar_constant(g, DType::Float64, 2.0);
            let d = build::add(g, two, e).unwrap();
            let m = build::mul(g, e, s).unwrap();
            build::true_div(g, m, d).unwrap()
        });
        let (p, _) = rewritten(&c, DType::Float64);
        assert!(p.contains("Exp") && !p.contains("Neg"), "{p}");
    }
}
