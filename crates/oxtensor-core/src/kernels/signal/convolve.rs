//! `Convolve1d`'s loop: NumPy's `convolve(a, v, "full")` and SciPy's
//! `convolve(a, v, "valid")` (the longer input slides under the shorter)
//! as direct sums, `O(n k)`: the kernels PyTensor users convolve with are
//! short, where a direct sum beats an FFT.

use super::{compute_dtype, contiguous_as};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::Tensor;
use std::ops::{Add, Mul};

/// The convolution of vectors `a` and `b`, `full` (length `n + k - 1`) or
/// valid (`|n - k| + 1`), in `out` dtype.
pub fn convolve1d(a: &Tensor, b: &Tensor, full: bool, out: DType) -> Result<Tensor> {
    let (n, k) = (a.len(), b.len());
    if n == 0 || k == 0 {
        bail!(Value: "Convolve1d: inputs must not be empty, got lengths {n} and {k}");
    }
    let dtype = compute_dtype(out);
    let (a, b) = (contiguous_as(a, dtype)?, contiguous_as(b, dtype)?);
    let result = if dtype == DType::Float32 {
        let (x, y) = (slice::<f32>(&a), slice::<f32>(&b));
        Tensor::from_vec(vec![len(n, k, full)], direct(x, y, full))?
    } else {
        let (x, y) = (slice::<f64>(&a), slice::<f64>(&b));
        Tensor::from_vec(vec![len(n, k, full)], direct(x, y, full))?
    };
    cast(&result, out)
}

fn slice<T: crate::tensor::Element>(t: &Tensor) -> &[T] {
    t.as_slice::<T>().expect("contiguous after contiguous_as")
}

fn len(n: usize, k: usize, full: bool) -> usize {
    if full {
        n + k - 1
    } else {
        n.max(k) - n.min(k) + 1
    }
}

/// `Σ_j a[i - j] b[j]` over the valid `j`, for each output position `i`.
fn direct<T>(a: &[T], b: &[T], full: bool) -> Vec<T>
where
    T: Copy + Default + Add<Output = T> + Mul<Output = T>,
{
    // Valid mode slides the longer input under the shorter, as SciPy.
    let (a, b) = if !full && a.len() < b.len() {
        (b, a)
    } else {
        (a, b)
    };
    let (n, k) = (a.len(), b.len());
    let (first, count) = if full {
        (0, n + k - 1)
    } else {
        (k - 1, n - k + 1)
    };
    (first..first + count)
        .map(|i| {
            let lo = (i + 1).saturating_sub(n);
            let hi = i.min(k - 1);
            (lo..=hi).fold(T::default(), |acc, j| acc + a[i - j] * b[j])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_valid_match_numpy() {
        let a = [1.0, 2.0, 3.0];
        let b = [0.0, 1.0, 0.5];
        // numpy.convolve([1, 2, 3], [0, 1, .5]) and scipy's valid mode.
        assert_eq!(direct(&a, &b, true), vec![0.0, 1.0, 2.5, 4.0, 1.5]);
        assert_eq!(direct(&a, &b, false), vec![2.5]);
        let long = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(direct(&[1.0, -1.0], &long, false), vec![1.0, 1.0, 1.0]);
        assert_eq!(direct(&long, &[1.0, -1.0], false), vec![1.0, 1.0, 1.0]);
    }

    #[test]
    fn empty_inputs_are_errors() {
        let e = Tensor::from_vec(vec![0], Vec::<f64>::new()).unwrap();
        let v = Tensor::from_vec(vec![1], vec![1.0]).unwrap();
        assert!(convolve1d(&e, &v, true, DType::Float64).is_err());
    }
}
