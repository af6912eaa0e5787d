//! `local_log_div` (stabilize): the logarithm of a quotient with a constant
//! side, `log(x / c) -> log(x) - log(c)` and `log(c / x) -> log(c) - log(x)`
//! for a positive finite constant `c`, so that the quotient can no longer
//! overflow or underflow (`log(1e-300 / 1e30)` is `-inf`, `log(1e-300) -
//! log(1e30)` is not). Equal otherwise, up to rounding, except `log(c / -0.0)`
//! (NaN, `log(-inf)`) which becomes `+inf`, the value at `+0.0`.

use super::util::{cast_to, constant_f64, dtype_of, elemwise, inputs, like, output, produced_by};
use crate::build;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let rw = scalar_rw!("local_log_div", [Log], local_log_div);
    register_in(db, phase::STABILIZE, rw, &[])
}

fn local_log_div(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [arg] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(div) = produced_by(fg, arg, TrueDiv) else {
        return Ok(None);
    };
    let [a, b] = inputs(fg, div)[..] else {
        return Ok(None);
    };
    // The quotient's dtype: `x` is cast to it so that `log(x)` is computed
    // as precisely as the quotient was.
    let Some(dtype) = dtype_of(fg, arg).filter(|d| d.is_float()) else {
        return Ok(None);
    };
    let positive = |c: Option<f64>| c.filter(|c| *c > 0.0 && c.is_finite());
    let (x, c, x_first) = match (positive(constant_f64(fg, a)), positive(constant_f64(fg, b))) {
        (None, Some(c)) => (a, c, true),
        (Some(c), None) => (b, c, false),
        _ => return Ok(None),
    };
    let x = cast_to(fg, x, dtype)?;
    let log_x = elemwise(fg, Log, &[x])?;
    let log_c = build::scalar_constant(fg.graph_mut(), dtype, c.ln());
    let new = match x_first {
        true => elemwise(fg, Sub, &[log_x, log_c])?,
        false => elemwise(fg, Sub, &[log_c, log_x])?,
    };
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[a, b])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, printed, rewrite, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::FunctionGraph;
    use crate::tensor::Tensor;

    /// `log(x / c)` (or `log(c / x)` when `c_first`) of a 1-d `x`.
    fn case(dtype: DType, c: f64, c_first: bool) -> Case {
        let (mut g, [x]) = graph_with([("x", dtype, 1)]);
        let c = build::scalar_constant(&mut g, dtype, c);
        let q = match c_first {
            true => build::true_div(&mut g, c, x).unwrap(),
            false => build::true_div(&mut g, x, c).unwrap(),
        };
        let l = build::log(&mut g, q).unwrap();
        Case::new(g, vec![x], vec![l])
    }

    fn run(fg: &FunctionGraph, x: &[f64]) -> Vec<f64> {
        let x = Tensor::from_vec(vec![x.len()], x.to_vec()).unwrap();
        super::super::testing::output_f64(fg, &[x]).1
    }

    #[test]
    fn log_of_a_quotient_by_a_constant_is_a_difference() {
        let args = [Tensor::from_vec(vec![3], vec![0.5f64, 3.0, 1e5]).unwrap()];
        let fg = check(
            &case(DType::Float64, 1e10, false),
            &["stabilize"],
            &args,
            1e-14,
        );
        let p = printed(&fg);
        assert!(
            p.starts_with("Sub [id A]\n ├─ Log [id B]\n │  └─ x [id C]\n"),
            "{p}"
        );
        let fg = check(
            &case(DType::Float64, 2.0, true),
            &["stabilize"],
            &args,
            1e-14,
        );
        assert!(printed(&fg).contains("Log [id"));
        let a32 = crate::kernels::elemwise::cast::cast(&args[0], DType::Float32).unwrap();
        check(
            &case(DType::Float32, 7.0, false),
            &["stabilize"],
            &[a32],
            1e-6,
        );
        // Where the quotient underflows or overflows, the exact values.
        let mut fg = case(DType::Float64, 1e30, false).fgraph();
        assert_eq!(run(&fg, &[1e-300]), vec![f64::NEG_INFINITY]);
        rewrite(&mut fg, &["stabilize"]);
        let got = run(&fg, &[1e-300])[0];
        let want = 1e-300f64.ln() - 1e30f64.ln();
        assert!((got - want).abs() <= 1e-15 * want.abs(), "{got} vs {want}");
        let mut fg = case(DType::Float64, 1.0, true).fgraph();
        rewrite(&mut fg, &["stabilize"]);
        let got = run(&fg, &[1e-320])[0];
        assert!((got - 736.8272).abs() < 1e-3, "log(1 / 1e-320) = {got}");
    }

    #[test]
    fn a_quotient_without_a_positive_constant_stays() {
        for c in [-2.0, 0.0] {
            let args = [Tensor::from_vec(vec![2], vec![0.5f64, 3.0]).unwrap()];
            let fg = check(&case(DType::Float64, c, false), &["stabilize"], &args, 0.0);
            assert!(printed(&fg).contains("True_div"), "c = {c}");
        }
    }
}
