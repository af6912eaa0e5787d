//! PyTensor's `get_canonical_form_slice` for a slice: bounds given as
//! graphs, rewritten as non-negative `start`/`stop` and a positive `step`,
//! plus the direction to read the result in, so that
//! `x[a:b:c] == x[start:stop:step][::direction]` for every length. The
//! bounds are NumPy's (`tensor::index::resolve_slice` does the same on
//! numbers; `ops::subtensor_shape` shares the graph pieces).

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Graph, VarId};
use crate::ops::infer_shape::dim_constant;
use crate::ops::subtensor_shape::{constant_of, count, int64, normalize, op2};
use crate::scalar::ScalarKind;

/// The direction of a canonical slice: known when the step is a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `1` or `-1`.
    Known(i64),
    /// An int64 scalar graph worth `1` or `-1`.
    Var(VarId),
}

/// A slice with non-negative int64 bounds and a positive step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CanonicalSlice {
    /// First index (the lowest one taken).
    pub start: VarId,
    /// One past the highest index that may be taken.
    pub stop: VarId,
    /// The step, positive.
    pub step: VarId,
    /// `1`: read as is; `-1`: reversed.
    pub direction: Direction,
}

/// `slice(start, stop, step)` over an axis of length `n` in canonical form.
/// A step of constant zero is NumPy's `ValueError`.
pub fn canonical_slice(
    g: &mut Graph,
    n: VarId,
    bounds: [Option<VarId>; 3],
) -> Result<CanonicalSlice> {
    let n = int64(g, n)?;
    let step_value = match bounds[2] {
        None => Some(1),
        Some(s) => constant_of(g, s),
    };
    if step_value == Some(0) {
        return Err(Error::Value("slice step cannot be zero".into()));
    }
    let step = match bounds[2] {
        Some(s) => int64(g, s)?,
        None => dim_constant(g, 1),
    };
    let given = Given {
        n,
        start: bounds[0],
        stop: bounds[1],
        step,
    };
    match step_value {
        Some(v) if v > 0 => ascending(g, given),
        Some(_) => descending(g, given),
        None => either(g, given),
    }
}

/// The slice as given, over an axis of length `n` (int64), its step an
/// int64 graph: what the forms below are computed from.
#[derive(Clone, Copy)]
struct Given {
    n: VarId,
    start: Option<VarId>,
    stop: Option<VarId>,
    step: VarId,
}

/// A given bound wrapped against `n` and clipped to `[off, n + off]`, or `default`.
fn bound(g: &mut Graph, b: Option<VarId>, n: VarId, off: i64, default: VarId) -> Result<VarId> {
    match b {
        Some(b) => {
            let b = int64(g, b)?;
            normalize(g, b, n, off, off)
        }
        None => Ok(default),
    }
}

/// A positive step: the bounds clipped to `[0, n]`.
fn ascending(g: &mut Graph, s: Given) -> Result<CanonicalSlice> {
    let zero = dim_constant(g, 0);
    Ok(CanonicalSlice {
        start: bound(g, s.start, s.n, 0, zero)?,
        stop: bound(g, s.stop, s.n, 0, s.n)?,
        step: s.step,
        direction: Direction::Known(1),
    })
}

/// A negative step: the indices taken, `first, first + step, ...`, read
/// upwards from the last one, `first + (count - 1) * step`, to `first`.
fn descending(g: &mut Graph, s: Given) -> Result<CanonicalSlice> {
    let (n, step) = (s.n, s.step);
    let minus_one = dim_constant(g, -1);
    let last_index = build::add(g, n, minus_one)?;
    let first = bound(g, s.start, n, -1, last_index)?;
    let last = bound(g, s.stop, n, -1, minus_one)?;
    let taken = count(g, first, last, step, false)?;
    // With nothing taken, `first - step > first` gives an empty slice that
    // is still non-negative (`first >= -1`, `-step >= 1`).
    let before = build::add(g, taken, minus_one)?;
    let span = build::mul(g, before, step)?;
    let one = dim_constant(g, 1);
    Ok(CanonicalSlice {
        start: build::add(g, first, span)?,
        stop: build::add(g, first, one)?,
        step: build::neg(g, step)?,
        direction: Direction::Known(-1),
    })
}

/// A step whose sign is known only at run time: both forms, chosen by `step > 0`.
fn either(g: &mut Graph, s: Given) -> Result<CanonicalSlice> {
    let up = ascending(g, s)?;
    let down = descending(g, s)?;
    let zero = dim_constant(g, 0);
    let positive = op2(g, ScalarKind::Gt, s.step, zero)?;
    let one = dim_constant(g, 1);
    let minus_one = dim_constant(g, -1);
    Ok(CanonicalSlice {
        start: build::switch(g, positive, up.start, down.start)?,
        stop: build::switch(g, positive, up.stop, down.stop)?,
        step: build::switch(g, positive, up.step, down.step)?,
        direction: Direction::Var(build::switch(g, positive, one, minus_one)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::testing::run_graph;
    use crate::tensor::index::{resolve_slice, scalar_index};
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    /// Values of `outs` with `ins` bound to int64 scalars, run by the VM.
    fn eval(g: &Graph, ins: &[(VarId, i64)], outs: &[VarId]) -> Vec<i64> {
        let inputs: Vec<VarId> = ins.iter().map(|&(v, _)| v).collect();
        let vals = ins.iter().map(|&(_, x)| Tensor::scalar(x)).collect();
        run_graph(g, &inputs, outs, vals)
            .iter()
            .map(|v| scalar_index(v.tensor().unwrap()).unwrap())
            .collect()
    }

    fn scalar(g: &mut Graph, name: &str) -> VarId {
        g.input(TensorType::with_ndim(DType::Int64, 0), Some(name))
    }

    /// Every start/stop/step, symbolic, against NumPy's arithmetic.
    #[test]
    fn matches_numpy_slices() {
        let mut g = Graph::new();
        let (n, a, b, s) = (
            scalar(&mut g, "n"),
            scalar(&mut g, "a"),
            scalar(&mut g, "b"),
            scalar(&mut g, "s"),
        );
        let c = canonical_slice(&mut g, n, [Some(a), Some(b), Some(s)]).unwrap();
        let Direction::Var(d) = c.direction else {
            panic!("a symbolic step has a symbolic direction")
        };
        let len = 5usize;
        let all: Vec<i64> = (0..len as i64).collect();
        for start in [-8, -5, -1, 0, 1, 4, 8] {
            for stop in [-8, -4, -1, 0, 3, 5, 8] {
                for step in [-6, -3, -1, 1, 2, 5] {
                    let got = eval(
                        &g,
                        &[(n, len as i64), (a, start), (b, stop), (s, step)],
                        &[c.start, c.stop, c.step, d],
                    );
                    assert!(got[0] >= 0 && got[1] >= 0 && got[2] > 0);
                    let mut picked: Vec<i64> = (got[0]..got[1].min(len as i64))
                        .step_by(got[2] as usize)
                        .map(|i| all[i as usize])
                        .collect();
                    if got[3] < 0 {
                        picked.reverse();
                    }
                    let r = resolve_slice(len, Some(start), Some(stop), Some(step)).unwrap();
                    let want: Vec<i64> = (0..r.count)
                        .map(|k| r.start as i64 + k as i64 * r.step as i64)
                        .collect();
                    assert_eq!(picked, want, "{start}:{stop}:{step}");
                }
            }
        }
    }

    #[test]
    fn constant_steps_have_known_directions() {
        let mut g = Graph::new();
        let n = scalar(&mut g, "n");
        let up = canonical_slice(&mut g, n, [None, None, None]).unwrap();
        assert_eq!(up.direction, Direction::Known(1));
        let minus = dim_constant(&mut g, -2);
        let down = canonical_slice(&mut g, n, [None, None, Some(minus)]).unwrap();
        assert_eq!(down.direction, Direction::Known(-1));
        let zero = dim_constant(&mut g, 0);
        let err = canonical_slice(&mut g, n, [None, None, Some(zero)]).unwrap_err();
        assert!(err.to_string().contains("slice step cannot be zero"));
    }
}
