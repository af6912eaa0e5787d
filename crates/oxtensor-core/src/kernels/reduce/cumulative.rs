//! Cumulative sums and products along one axis (`CumOp`), lanes in
//! parallel. Integers wrap as in NumPy; booleans accumulate as logical
//! or (sum) and and (product), which is what NumPy's int result cast
//! back to bool gives.

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::{output, Pool};
use crate::kernels::elemwise::lanes::{for_each_lane, Lanes};
use crate::tensor::{Element, Tensor};
use half::f16;
use num_complex::Complex;
use rayon::prelude::*;

/// Which running operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CumMode {
    /// Running sum (`cumsum`).
    Add,
    /// Running product (`cumprod`).
    Mul,
}

/// How the running values are walked.
enum Walk<'a> {
    /// Lanes along the axis, gathered contiguous (`Lanes` moves the axis
    /// last) and restored after.
    Lanes(&'a Lanes),
    /// A C-contiguous `x` whose axis is not the last, viewed as
    /// (outer, n, inner): whole rows of `inner` elements at a time.
    Rows {
        x: &'a Tensor,
        n: usize,
        inner: usize,
    },
}

fn scan<T: Element>(walk: &Walk<'_>, out: &mut Tensor, f: impl Fn(T, T) -> T + Sync + Send) {
    match *walk {
        Walk::Lanes(lanes) => scan_lanes(lanes, out, f),
        Walk::Rows { x, n, inner } => {
            let x = x.as_slice::<T>().expect("rows are contiguous");
            let y = out.as_mut_slice::<T>().expect("fresh output");
            scan_rows(x, y, n, inner, f);
        }
    }
}

fn scan_lanes<T: Element>(lanes: &Lanes, out: &mut Tensor, f: impl Fn(T, T) -> T + Sync + Send) {
    let x = lanes.data.as_slice::<T>().expect("lanes are contiguous");
    let y = out.as_mut_slice::<T>().expect("fresh output");
    for_each_lane(x, lanes.n, y, lanes.n, |a, b| {
        let mut acc = a[0];
        b[0] = acc;
        for (o, &v) in b[1..].iter_mut().zip(&a[1..]) {
            acc = f(acc, v);
            *o = acc;
        }
    });
}

/// Each row of `inner` results is the previous row combined with `x`'s
/// row: a vectorisable pass per row, blocks of the outer axis in parallel.
/// The values are the lanes' (each element combines the same operands in
/// the same order); gathering lanes across rows instead transposed `x` in
/// and the result out (cumsum along axis 0 of 2000²: 0.39x NumPy).
fn scan_rows<T: Element>(
    x: &[T],
    y: &mut [T],
    n: usize,
    inner: usize,
    f: impl Fn(T, T) -> T + Sync,
) {
    let block = n * inner;
    if block == 0 {
        return;
    }
    let body = |(yb, xb): (&mut [T], &[T])| {
        yb[..inner].copy_from_slice(&xb[..inner]);
        for j in 1..n {
            let (done, rest) = yb.split_at_mut(j * inner);
            let prev = &done[(j - 1) * inner..];
            let row = &xb[j * inner..(j + 1) * inner];
            for ((o, &p), &v) in rest[..inner].iter_mut().zip(prev).zip(row) {
                *o = f(p, v);
            }
        }
    };
    if y.len() >= crate::kernels::PARALLEL_MIN && y.len() > block {
        y.par_chunks_mut(block)
            .zip(x.par_chunks(block))
            .for_each(body);
    } else {
        y.chunks_mut(block).zip(x.chunks(block)).for_each(body);
    }
}

macro_rules! wrapping {
    ($mode:expr, $lanes:expr, $out:expr, $T:ty) => {
        match $mode {
            CumMode::Add => scan::<$T>($lanes, $out, |a, b| a.wrapping_add(b)),
            CumMode::Mul => scan::<$T>($lanes, $out, |a, b| a.wrapping_mul(b)),
        }
    };
}

macro_rules! arith {
    ($mode:expr, $lanes:expr, $out:expr, $T:ty) => {
        match $mode {
            CumMode::Add => scan::<$T>($lanes, $out, |a, b| a + b),
            CumMode::Mul => scan::<$T>($lanes, $out, |a, b| a * b),
        }
    };
}

/// The running sum or product of `x` along `axis`.
pub fn cumulative(
    x: &Tensor,
    axis: usize,
    mode: CumMode,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let gathered;
    let walk = match rows_of(x, axis) {
        Some((n, inner)) => Walk::Rows { x, n, inner },
        None => {
            gathered = Lanes::new(x, &[axis])?;
            Walk::Lanes(&gathered)
        }
    };
    let shape = match &walk {
        Walk::Lanes(lanes) => lanes.shape(),
        Walk::Rows { .. } => x.shape().to_vec(),
    };
    let mut out = output(pool, x.dtype(), &shape)?;
    let (out_ref, walk_ref) = (&mut out, &walk);
    use DType::*;
    match x.dtype() {
        Bool => match mode {
            CumMode::Add => scan::<bool>(walk_ref, out_ref, |a, b| a | b),
            CumMode::Mul => scan::<bool>(walk_ref, out_ref, |a, b| a & b),
        },
        Int8 => wrapping!(mode, walk_ref, out_ref, i8),
        Int16 => wrapping!(mode, walk_ref, out_ref, i16),
        Int32 => wrapping!(mode, walk_ref, out_ref, i32),
        Int64 => wrapping!(mode, walk_ref, out_ref, i64),
        UInt8 => wrapping!(mode, walk_ref, out_ref, u8),
        UInt16 => wrapping!(mode, walk_ref, out_ref, u16),
        UInt32 => wrapping!(mode, walk_ref, out_ref, u32),
        UInt64 => wrapping!(mode, walk_ref, out_ref, u64),
        Float16 => arith!(mode, walk_ref, out_ref, f16),
        Float32 => arith!(mode, walk_ref, out_ref, f32),
        Float64 => arith!(mode, walk_ref, out_ref, f64),
        Complex64 => arith!(mode, walk_ref, out_ref, Complex<f32>),
        Complex128 => arith!(mode, walk_ref, out_ref, Complex<f64>),
    }
    match walk {
        Walk::Lanes(lanes) => lanes.restore(out),
        Walk::Rows { .. } => Ok(out),
    }
}

/// `(n, inner)` when `x` is C-contiguous and `axis` is not its last
/// dimension: the row walk applies.
fn rows_of(x: &Tensor, axis: usize) -> Option<(usize, usize)> {
    let inner: usize = x.shape().get(axis + 1..)?.iter().product();
    let n = *x.shape().get(axis)?;
    (axis + 1 < x.ndim() && x.is_c_contiguous()).then_some((n, inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The running sum along `axis` of a C-ordered (3, 4, 5) array, by index.
    fn reference(xs: &[f64], axis: usize) -> Vec<f64> {
        let shape = [3, 4, 5];
        let stride = shape[axis + 1..].iter().product::<usize>();
        (0..xs.len())
            .map(|i| {
                let pos = (i / stride) % shape[axis];
                (0..=pos).map(|j| xs[i - (pos - j) * stride]).sum()
            })
            .collect()
    }

    #[test]
    fn rows_and_lanes_walks_agree_with_the_definition() {
        let xs: Vec<f64> = (0..60).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let x = Tensor::from_vec(vec![3, 4, 5], xs.clone()).unwrap();
        for axis in 0..3 {
            assert_eq!(rows_of(&x, axis).is_some(), axis < 2, "axis {axis}");
            let got = cumulative(&x, axis, CumMode::Add, None).unwrap();
            assert_eq!(got.shape(), &[3, 4, 5]);
            assert_eq!(got.as_slice::<f64>().unwrap(), &reference(&xs, axis)[..]);
        }
        // A transposed view takes the lanes walk.
        let t = x.view(&[5, 4, 3], &[8, 40, 160], 0).unwrap();
        assert!(rows_of(&t, 0).is_none());
        let got = cumulative(&t, 2, CumMode::Mul, None).unwrap();
        assert_eq!(got.shape(), &[5, 4, 3]);
        let want: f64 = [0, 20, 40].iter().map(|&i| xs[i]).product();
        assert_eq!(got.as_slice::<f64>().unwrap()[2], want);
        let empty = Tensor::zeros(DType::Float64, &[0, 3]).unwrap();
        assert_eq!(
            cumulative(&empty, 0, CumMode::Add, None).unwrap().shape(),
            &[0, 3]
        );
    }
}
