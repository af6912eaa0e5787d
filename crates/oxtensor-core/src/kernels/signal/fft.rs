//! Real FFTs over every axis but the first (a batch): NumPy's
//! `rfftn(x, s, axes=1..)` and the unnormalised `irfftn`, with complex
//! values stored as a trailing axis of two (real, imaginary), PyTensor's
//! `RFFTOp`/`IRFFTOp` layout. The last axis goes through `realfft`'s
//! real-to-complex plans, the others through `rustfft`'s complex ones.
//! `weight` scales the frequencies counted twice by a Hermitian spectrum
//! (all but the zero and, for even lengths, the Nyquist one): the adjoints
//! the gradients need are these transforms with that weight.

use super::{compute_dtype, contiguous_as};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::{Element, Tensor};
use realfft::{FftNum, RealFftPlanner};
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

/// `rfftn` of `x` (batch axis first) at lengths `s` (one per other axis,
/// cropping or zero-padding like NumPy), the twice-counted frequencies of
/// the last axis multiplied by `weight`; shape `(batch, s.., s[-1]/2+1, 2)`.
pub fn rfftn(x: &Tensor, s: &[usize], weight: f64, out: DType) -> Result<Tensor> {
    check_lengths(x, s, 0, "RFFTOp")?;
    in_compute_dtype(x, (s, weight), out, [forward::<f32>, forward::<f64>])
}

/// The unnormalised `irfftn` of `x` (batch first, complex as a last axis
/// of two) at lengths `s`, the twice-counted input frequencies first
/// multiplied by `weight`; shape `(batch, s..)`.
pub fn irfftn(x: &Tensor, s: &[usize], weight: f64, out: DType) -> Result<Tensor> {
    check_lengths(x, s, 1, "IRFFTOp")?;
    if x.shape().last() != Some(&2) {
        bail!(Value: "IRFFTOp: the last axis holds (real, imaginary) and must have length 2, \
              got shape {:?}", x.shape());
    }
    in_compute_dtype(x, (s, weight), out, [inverse::<f32>, inverse::<f64>])
}

/// A transform of a contiguous `x` at lengths `s` with weight `weight`.
type Transform = fn(&Tensor, &[usize], f64) -> Result<Tensor>;

/// `x` in the dtype that `out` computes in, through the float32 or float64
/// build of a transform, cast to `out`.
fn in_compute_dtype(
    x: &Tensor,
    (s, weight): (&[usize], f64),
    out: DType,
    [run32, run64]: [Transform; 2],
) -> Result<Tensor> {
    let dtype = compute_dtype(out);
    let x = contiguous_as(x, dtype)?;
    let run = if dtype == DType::Float32 {
        run32
    } else {
        run64
    };
    cast(&run(&x, s, weight)?, out)
}

fn check_lengths(x: &Tensor, s: &[usize], extra: usize, op: &str) -> Result<()> {
    if x.ndim() != s.len() + 1 + extra {
        bail!(Value: "{op}: an input of shape {:?} needs {} transform lengths, got {s:?}",
              x.shape(), x.ndim().saturating_sub(1 + extra));
    }
    if s.is_empty() || s.contains(&0) {
        bail!(Value: "{op}: invalid number of FFT data points {s:?}");
    }
    Ok(())
}

fn forward<T: FftNum + Element + Default>(x: &Tensor, s: &[usize], weight: f64) -> Result<Tensor> {
    let data = x.as_slice::<T>().expect("contiguous after contiguous_as");
    let batch = x.shape()[0];
    let shape: Vec<usize> = std::iter::once(batch).chain(s.iter().copied()).collect();
    let mut real = resize(data, x.shape(), &shape);
    let n = s[s.len() - 1];
    let h = n / 2 + 1;
    let plan = RealFftPlanner::<T>::new().plan_fft_forward(n);
    let mut spec = vec![Complex::<T>::default(); real.len() / n * h];
    for (lane, out) in real.chunks_mut(n).zip(spec.chunks_mut(h)) {
        // Errors only on wrong buffer lengths, which the chunks rule out.
        let _ = plan.process(lane, out);
        scale_twice_counted(out, n, weight);
    }
    let mut cshape = shape.clone();
    *cshape.last_mut().expect("s is not empty") = h;
    for axis in 1..cshape.len() - 1 {
        along_axis(&mut spec, &cshape, axis, false);
    }
    let mut flat = Vec::with_capacity(spec.len() * 2);
    spec.iter().for_each(|c| flat.extend([c.re, c.im]));
    cshape.push(2);
    Tensor::from_vec(cshape, flat)
}

fn inverse<T: FftNum + Element + Default>(x: &Tensor, s: &[usize], weight: f64) -> Result<Tensor> {
    let data = x.as_slice::<T>().expect("contiguous after contiguous_as");
    let pairs: Vec<Complex<T>> = data.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
    let in_shape = &x.shape()[..x.ndim() - 1];
    let n = s[s.len() - 1];
    let h = n / 2 + 1;
    let mut cshape: Vec<usize> = std::iter::once(in_shape[0])
        .chain(s.iter().copied())
        .collect();
    *cshape.last_mut().expect("s is not empty") = h;
    let mut spec = resize(&pairs, in_shape, &cshape);
    for axis in 1..cshape.len() - 1 {
        along_axis(&mut spec, &cshape, axis, true);
    }
    let plan = RealFftPlanner::<T>::new().plan_fft_inverse(n);
    let mut real = vec![T::default(); spec.len() / h * n];
    for (lane, out) in spec.chunks_mut(h).zip(real.chunks_mut(n)) {
        scale_twice_counted(lane, n, weight);
        // The imaginary parts of the zero and Nyquist frequencies do not
        // reach a real signal (NumPy ignores them); realfft wants zeros.
        lane[0].im = T::zero();
        if n.is_multiple_of(2) {
            lane[h - 1].im = T::zero();
        }
        let _ = plan.process(lane, out);
    }
    let mut shape = cshape;
    *shape.last_mut().expect("s is not empty") = n;
    Tensor::from_vec(shape, real)
}

/// Multiplies the frequencies a length-`n` real signal's spectrum counts
/// twice (1 ..= (n-1)/2) by `weight`.
fn scale_twice_counted<T: FftNum>(spec: &mut [Complex<T>], n: usize, weight: f64) {
    if weight == 1.0 {
        return;
    }
    let w = T::from_f64(weight).expect("a float weight");
    for c in spec.iter_mut().take(n.div_ceil(2)).skip(1) {
        *c = *c * w;
    }
}

/// The complex FFT (inverse unnormalised with `inverse`) of every lane of
/// `axis` in a C-ordered array of `shape`.
fn along_axis<T: FftNum>(data: &mut [Complex<T>], shape: &[usize], axis: usize, inverse: bool) {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut planner = FftPlanner::<T>::new();
    let fft = if inverse {
        planner.plan_fft_inverse(len)
    } else {
        planner.plan_fft_forward(len)
    };
    let mut lane = vec![Complex::new(T::zero(), T::zero()); len];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * len + k) * inner + i;
            lane.iter_mut()
                .enumerate()
                .for_each(|(k, v)| *v = data[at(k)]);
            fft.process(&mut lane);
            lane.iter().enumerate().for_each(|(k, v)| data[at(k)] = *v);
        }
    }
}

/// `src` (C order, shape `from`) cropped or zero-padded to shape `to`.
fn resize<T: Copy + Default>(src: &[T], from: &[usize], to: &[usize]) -> Vec<T> {
    let total: usize = to.iter().product();
    let mut out = vec![T::default(); total];
    if total == 0 || from.contains(&0) {
        return out;
    }
    let last = to.len() - 1;
    let copy = from[last].min(to[last]);
    let mut idx = vec![0usize; last];
    let (src_strides, dst_strides) = (strides(from), strides(to));
    loop {
        if idx.iter().zip(from).all(|(i, f)| i < f) {
            let s: usize = idx.iter().zip(&src_strides).map(|(i, s)| i * s).sum();
            let d: usize = idx.iter().zip(&dst_strides).map(|(i, s)| i * s).sum();
            out[d..d + copy].copy_from_slice(&src[s..s + copy]);
        }
        // The next index over the leading axes of `to`, C order.
        let mut k = last;
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < to[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfft_of_a_short_signal() {
        // numpy.fft.rfft([1, 2, 3, 4]) = [10, -2+2j, -2].
        let x = Tensor::from_vec(vec![1, 4], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let y = rfftn(&x, &[4], 1.0, DType::Float64).unwrap();
        assert_eq!(y.shape(), &[1, 3, 2]);
        assert_eq!(
            y.as_slice::<f64>().unwrap(),
            &[10.0, 0.0, -2.0, 2.0, -2.0, 0.0]
        );
        let back = irfftn(&y, &[4], 1.0, DType::Float64).unwrap();
        let got = back.as_slice::<f64>().unwrap();
        for (a, b) in got.iter().zip([4.0, 8.0, 12.0, 16.0]) {
            assert!((a - b).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn resize_crops_and_pads() {
        let v = resize(&[1, 2, 3, 4, 5, 6], &[2, 3], &[3, 2]);
        assert_eq!(v, vec![1, 2, 4, 5, 0, 0]);
    }

    #[test]
    fn bad_lengths() {
        let x = Tensor::from_vec(vec![1, 4], vec![1.0; 4]).unwrap();
        assert!(rfftn(&x, &[0], 1.0, DType::Float64).is_err());
        assert!(rfftn(&x, &[4, 4], 1.0, DType::Float64).is_err());
    }
}
