//! Strided and broadcast operands of the heavy maps (`vmath`'s functions):
//! each innermost run is gathered into a small buffer, a block at a time,
//! and handed to the slice loop, which computes the same values as the
//! one-element function. One call of that function per element was 7x
//! to 16x slower than NumPy on strided float inputs (its one-element entry
//! cannot use the vector code).

use super::map::{nest2, slice_mut, Part};
use crate::kernels::iter::{broadcast_strides, Nest};
use crate::tensor::{c_strides, Dims, Element, Tensor};

/// Elements gathered per call of the slice loop (2 KiB of float64 on the
/// stack per operand).
const BLOCK: usize = 256;

/// Runs shorter than this go element by element: a slice call costs more
/// than a few elements do.
const MIN_RUN: usize = 8;

/// `out[i] = f(a[i])` over a strided or broadcast `a`, runs of at least
/// [`MIN_RUN`] through `slices`.
pub(crate) fn gathered1<A: Element, O: Element>(
    a: &Tensor,
    out: &mut Tensor,
    f: impl Fn(A) -> O,
    slices: impl Fn(&mut [O], &[A]),
) {
    let shape = Dims::from(out.shape());
    let nest = Nest::new(
        &shape,
        [broadcast_strides(a, &shape), c_strides(out.dtype(), &shape)],
    );
    let (pa, po) = (a.as_ptr(), slice_mut::<O>(out).as_mut_ptr() as *mut u8);
    let mut xs = [A::default(); BLOCK];
    nest.for_each_run(|[oa, oo], n, [sa, so]| {
        for (at, m) in blocks(n) {
            // SAFETY: as in `map::map1`: the nest walks `out`'s shape with
            // `broadcast_strides` (asserted to broadcast) over `a`'s layout
            // bounded by `Tensor::check_layout`; `out` is fresh and unique.
            unsafe {
                let (x, y) = (pa.offset(oa + at * sa), po.offset(oo + at * so));
                if m < MIN_RUN {
                    (0..m as isize).for_each(|i| put(y, i, so, f(get(x, i, sa))));
                    continue;
                }
                (0..m).for_each(|i| xs[i] = get(x, i as isize, sa));
                write(y, m, so, |ys| slices(ys, &xs[..m]));
            }
        }
    });
}

/// `out[i] = f(a[i], b[i])` over operands that are not each contiguous
/// or one element, runs of at least [`MIN_RUN`] through `slices` (an
/// operand broadcast along a run goes as `Part::One`).
pub(crate) fn gathered2<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    f: impl Fn(A, B) -> O,
    slices: impl Fn(&mut [O], Part<'_, A>, Part<'_, B>),
) {
    let nest = nest2(a, b, out);
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let po = slice_mut::<O>(out).as_mut_ptr() as *mut u8;
    let (mut xs, mut ys) = ([A::default(); BLOCK], [B::default(); BLOCK]);
    nest.for_each_run(|[oa, ob, oo], n, [sa, sb, so]| {
        for (at, m) in blocks(n) {
            // SAFETY: as in `gathered1`.
            unsafe {
                let (x, y, z) = (
                    pa.offset(oa + at * sa),
                    pb.offset(ob + at * sb),
                    po.offset(oo + at * so),
                );
                if m < MIN_RUN {
                    (0..m as isize).for_each(|i| put(z, i, so, f(get(x, i, sa), get(y, i, sb))));
                    continue;
                }
                let u = part(x, sa, m, &mut xs);
                let v = part(y, sb, m, &mut ys);
                write(z, m, so, |zs| slices(zs, u, v));
            }
        }
    });
}

/// A run of `n` cut into blocks: `(first index, length)`.
fn blocks(n: usize) -> impl Iterator<Item = (isize, usize)> {
    (0..n)
        .step_by(BLOCK)
        .map(move |at| (at as isize, BLOCK.min(n - at)))
}

/// Element `i` of a run at `p` with byte step `step`.
///
/// # Safety
/// The element lies inside a live operand of type `T`.
#[inline(always)]
unsafe fn get<T: Element>(p: *const u8, i: isize, step: isize) -> T {
    // SAFETY: the caller's contract.
    unsafe { *(p.offset(i * step) as *const T) }
}

/// Writes element `i` of an output run.
///
/// # Safety
/// The element lies inside the uniquely owned output.
#[inline(always)]
unsafe fn put<T: Element>(p: *mut u8, i: isize, step: isize, v: T) {
    // SAFETY: the caller's contract.
    unsafe { *(p.offset(i * step) as *mut T) = v }
}

/// `m` elements of a run as a part: the element itself when the run
/// repeats it (step 0), else gathered into `buf`.
///
/// # Safety
/// The run's `m` elements lie inside a live operand of type `T`.
unsafe fn part<T: Element>(
    p: *const u8,
    step: isize,
    m: usize,
    buf: &mut [T; BLOCK],
) -> Part<'_, T> {
    if step == 0 {
        // SAFETY: the caller's contract.
        return Part::One(unsafe { get(p, 0, step) });
    }
    // SAFETY: the caller's contract.
    (0..m).for_each(|i| buf[i] = unsafe { get(p, i as isize, step) });
    Part::Full(&buf[..m])
}

/// Runs `fill` on `m` output elements at `p` (step `step`): in place
/// when they are contiguous, else through a buffer scattered after.
///
/// # Safety
/// The run's `m` elements lie inside the uniquely owned output.
unsafe fn write<O: Element>(p: *mut u8, m: usize, step: isize, fill: impl FnOnce(&mut [O])) {
    if step == size_of::<O>() as isize {
        // SAFETY: `m` contiguous elements of the output (caller's contract).
        return fill(unsafe { std::slice::from_raw_parts_mut(p as *mut O, m) });
    }
    let mut buf = [O::default(); BLOCK];
    fill(&mut buf[..m]);
    // SAFETY: the caller's contract.
    (0..m).for_each(|i| unsafe { put(p, i as isize, step, buf[i]) });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    /// `rows x cols` float64 counting up, seen transposed (strided runs).
    fn transposed(rows: usize, cols: usize) -> Tensor {
        let t = Tensor::from_vec(
            vec![rows, cols],
            (0..rows * cols).map(|i| i as f64).collect(),
        )
        .unwrap();
        t.view(&[cols, rows], &[8, 8 * cols as isize], 0).unwrap()
    }

    fn values(t: &Tensor) -> Vec<f64> {
        t.as_slice::<f64>().unwrap().to_vec()
    }

    #[test]
    fn long_runs_go_through_the_slice_loop_short_ones_through_f() {
        // `slices` adds 1000 where `f` adds 0, so the output shows which ran.
        for (rows, cols) in [(3, 300), (300, 3), (40, 3), (5, 700)] {
            let a = transposed(rows, cols);
            let mut out = Tensor::uninit(DType::Float64, a.shape()).unwrap();
            gathered1(
                &a,
                &mut out,
                |x: f64| x,
                |ys: &mut [f64], xs: &[f64]| {
                    ys.iter_mut().zip(xs).for_each(|(y, &x)| *y = x + 1000.0)
                },
            );
            // Runs follow the output's rows: `rows` elements each.
            let shift = if rows >= MIN_RUN { 1000.0 } else { 0.0 };
            let want: Vec<f64> = (0..cols)
                .flat_map(|c| (0..rows).map(move |r| (r * cols + c) as f64 + shift))
                .collect();
            assert_eq!(values(&out), want, "{rows}x{cols}");
        }
    }

    #[test]
    fn two_operands_gathered_or_broadcast_along_a_run() {
        let a = transposed(600, 7);
        // `b` of shape (7, 1): one value along each output run (Part::One).
        let b = Tensor::from_vec(vec![7, 1], (0..7).map(|i| 0.5 * i as f64).collect()).unwrap();
        let mut out = Tensor::uninit(DType::Float64, &[7, 600]).unwrap();
        let f = |x: f64, y: f64| x * 2.0 + y;
        gathered2(
            &a,
            &b,
            &mut out,
            f,
            |zs: &mut [f64], xs: Part<'_, f64>, ys: Part<'_, f64>| {
                let (Part::Full(xs), Part::One(y)) = (xs, ys) else {
                    panic!("a run of `a` is gathered, `b` repeats one value");
                };
                zs.iter_mut().zip(xs).for_each(|(z, &x)| *z = f(x, y));
            },
        );
        let want: Vec<f64> = (0..7)
            .flat_map(|c| (0..600).map(move |r| f((r * 7 + c) as f64, 0.5 * c as f64)))
            .collect();
        assert_eq!(values(&out), want);
    }
}
