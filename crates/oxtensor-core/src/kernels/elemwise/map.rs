//! Typed elementwise maps over broadcast operands into a fresh C-contiguous
//! output: a slice fast path (auto-vectorised, split across threads when
//! large) when operands are contiguous, and a strided path otherwise.

use super::map_gather::{gathered1, gathered2};
use super::map_reversed::{map_reversed, reversed_slice};
use crate::kernels::cpu::avx2_build;
use crate::kernels::iter::{broadcast_strides, Nest};
use crate::kernels::Work;
use crate::tensor::{c_strides, Dims, Element, Tensor};
use rayon::prelude::*;

/// Elements per task when a contiguous loop is split across threads.
const CHUNK: usize = 1 << 15;

/// Panics unless `t` holds `T`s: the strided paths read operands through
/// raw pointers typed by the caller (a dispatch bug, never user data).
pub(super) fn typed<T: Element>(t: &Tensor) {
    assert_eq!(
        t.dtype(),
        T::DTYPE,
        "a {} operand read as {}",
        t.dtype(),
        T::DTYPE
    );
}

pub(crate) fn slice_mut<O: Element>(out: &mut Tensor) -> &mut [O] {
    out.as_mut_slice::<O>()
        .expect("outputs are fresh, contiguous and of the output dtype")
}

avx2_build! {
    /// `ys[i] = f(xs[i])`, with a second build of the loop for AVX2 chosen at
    /// run time. The crate targets baseline x86-64, where `floor`, `ceil`,
    /// `trunc` and `round_ties_even` are a library call per element and no loop
    /// is vectorised wider than SSE2 (measured on 1e6 float64: floor 0.11x,
    /// round 0.05x, abs 0.6x NumPy's speed). Results do not change: Rust never
    /// contracts into FMA and the SSE4.1 rounding instructions are exact.
    fn map_slice[A: Element, O: Element](ys: &mut [O], xs: &[A], f: &impl Fn(A) -> O)
        => map_slice_plain, "avx2,sse4.1";
}

#[inline(always)]
fn map_slice_plain<A: Element, O: Element>(ys: &mut [O], xs: &[A], f: &impl Fn(A) -> O) {
    ys.iter_mut().zip(xs).for_each(|(y, &x)| *y = f(x));
}

avx2_build! {
    /// `zs[i] = f(xs[i], ys[i])`, with an AVX2 build as [`map_slice`] has
    /// (measured on 1e6 float64: `maximum` with its NaN test 1.3x faster).
    fn zip_slice[A: Element, B: Element, O: Element](
        zs: &mut [O],
        xs: &[A],
        ys: &[B],
        f: &impl Fn(A, B) -> O,
    ) => zip_slice_plain, "avx2,sse4.1";
}

#[inline(always)]
fn zip_slice_plain<A: Element, B: Element, O: Element>(
    zs: &mut [O],
    xs: &[A],
    ys: &[B],
    f: &impl Fn(A, B) -> O,
) {
    zs.iter_mut()
        .zip(xs)
        .zip(ys)
        .for_each(|((z, &x), &y)| *z = f(x, y));
}

/// `out[i] = f(a[i])`, `a` broadcast to `out`'s shape.
pub fn map1<A: Element, O: Element>(a: &Tensor, out: &mut Tensor, f: impl Fn(A) -> O + Sync) {
    map1_slices(a, out, Work::Light, &f, |ys, xs| map_slice(ys, xs, &f));
}

/// [`map1`] whose contiguous runs go to `slices(ys, xs)`, a loop of its
/// own (e.g. with instructions chosen at run time); strided and broadcast
/// operands still go element by element through `f`, which must compute
/// the same values.
pub fn map1_slices<A: Element, O: Element>(
    a: &Tensor,
    out: &mut Tensor,
    work: Work,
    f: impl Fn(A) -> O + Sync,
    slices: impl Fn(&mut [O], &[A]) + Sync,
) {
    typed::<A>(a);
    let shape = Dims::from(out.shape());
    if a.shape() == shape.as_slice() {
        if let Some(xs) = a.as_slice::<A>() {
            let ys = slice_mut::<O>(out);
            if work.splits(ys.len(), size_of::<A>() + size_of::<O>()) {
                ys.par_chunks_mut(CHUNK)
                    .zip(xs.par_chunks(CHUNK))
                    .for_each(|(y, x)| slices(y, x));
            } else {
                slices(ys, xs);
            }
            return;
        }
    }
    if work == Work::Heavy {
        return gathered1(a, out, f, slices);
    }
    let nest = Nest::new(
        &shape,
        [broadcast_strides(a, &shape), c_strides(out.dtype(), &shape)],
    );
    let (pa, po) = (a.as_ptr(), slice_mut::<O>(out).as_mut_ptr() as *mut u8);
    nest.for_each_run(|[oa, oo], n, [sa, so]| {
        for i in 0..n as isize {
            // SAFETY: the nest walks `out`'s shape; `a`'s strides come from
            // `broadcast_strides`, which asserted that `a` broadcasts to it,
            // over `a`'s layout that `Tensor::check_layout` bounded
            // (`layout::extent`); `out` is a fresh C-contiguous `O` tensor
            // of that shape (`slice_mut`), unique; `a` holds `A`s (`typed`).
            unsafe {
                *(po.offset(oo + i * so) as *mut O) = f(*(pa.offset(oa + i * sa) as *const A))
            };
        }
    });
}

/// The walk over two operands broadcast to `out`'s shape and `out`.
pub(crate) fn nest2(a: &Tensor, b: &Tensor, out: &Tensor) -> Nest<3> {
    let shape = Dims::from(out.shape());
    let strides = [
        broadcast_strides(a, &shape),
        broadcast_strides(b, &shape),
        c_strides(out.dtype(), &shape),
    ];
    Nest::new(&shape, strides)
}

/// `out[i] = f(a[i], b[i])`, operands broadcast to `out`'s shape.
pub fn map2<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    f: impl Fn(A, B) -> O + Sync,
) {
    typed::<A>(a);
    typed::<B>(b);
    if let Some(()) = map2_contiguous(a, b, out, &f) {
        return;
    }
    if let Some(()) = map2_flipped(a, b, out, &f) {
        return;
    }
    let nest = nest2(a, b, out);
    let (pa, pb, po) = (
        a.as_ptr(),
        b.as_ptr(),
        slice_mut::<O>(out).as_mut_ptr() as *mut u8,
    );
    let sizes = [
        A::DTYPE.itemsize(),
        B::DTYPE.itemsize(),
        O::DTYPE.itemsize(),
    ]
    .map(|s| s as isize);
    nest.for_each_run(|[oa, ob, oo], n, [sa, sb, so]| {
        // SAFETY: as in `map1`; a stride of one element makes the run a
        // slice of `n` elements, a stride of 0 one element.
        unsafe {
            let (a_at, b_at) = (pa.offset(oa), pb.offset(ob));
            let z = || std::slice::from_raw_parts_mut(po.offset(oo) as *mut O, n);
            if so == sizes[2] {
                // An outer-product broadcast (a column against a row, as
                // in `tri`): each run is one element against a slice.
                if sa == 0 && sb == sizes[1] {
                    let x = *(a_at as *const A);
                    let ys = std::slice::from_raw_parts(b_at as *const B, n);
                    return map_slice(z(), ys, &|y| f(x, y));
                }
                if sb == 0 && sa == sizes[0] {
                    let y = *(b_at as *const B);
                    let xs = std::slice::from_raw_parts(a_at as *const A, n);
                    return map_slice(z(), xs, &|x| f(x, y));
                }
            }
            for i in 0..n as isize {
                let (x, y) = (
                    *(a_at.offset(i * sa) as *const A),
                    *(b_at.offset(i * sb) as *const B),
                );
                *(po.offset(oo + i * so) as *mut O) = f(x, y);
            }
        }
    });
}

/// `map2` of a fully flipped operand and a single element (`flip(x) + 1`),
/// read backwards in slices (see `map_reversed.rs`).
fn map2_flipped<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    f: &(impl Fn(A, B) -> O + Sync),
) -> Option<()> {
    let shape = Dims::from(out.shape());
    let flipped = (
        reversed_slice::<A>(a, &shape),
        reversed_slice::<B>(b, &shape),
    );
    let (xs, ys) = (a.as_slice::<A>(), b.as_slice::<B>());
    let zs = slice_mut::<O>(out);
    match (flipped, xs, ys) {
        ((Some(xs), _), _, Some(&[y])) => map_reversed(zs, xs, |x| f(x, y)),
        ((_, Some(ys)), Some(&[x]), _) => map_reversed(zs, ys, |y| f(x, y)),
        _ => return None,
    }
    Some(())
}

/// The fast paths of `map2`: both contiguous with the output's shape, or
/// one of them a single element.
fn map2_contiguous<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    f: &(impl Fn(A, B) -> O + Sync),
) -> Option<()> {
    // Decided before `out` is borrowed mutably, without copying its shape:
    // this runs once per elementwise node of every call.
    let (full_a, full_b) = (a.shape() == out.shape(), b.shape() == out.shape());
    let (xs, ys) = (a.as_slice::<A>(), b.as_slice::<B>());
    let zs = slice_mut::<O>(out);
    let par = Work::Light.splits(zs.len(), size_of::<A>() + size_of::<B>() + size_of::<O>());
    match (xs, ys) {
        (Some(xs), Some(ys)) if full_a && full_b => {
            if par {
                zs.par_chunks_mut(CHUNK)
                    .zip(xs.par_chunks(CHUNK))
                    .zip(ys.par_chunks(CHUNK))
                    .for_each(|((z, x), y)| zip_slice(z, x, y, f));
            } else {
                zip_slice(zs, xs, ys, f);
            }
        }
        (Some(xs), Some(&[y])) if full_a => {
            if par {
                zs.par_chunks_mut(CHUNK)
                    .zip(xs.par_chunks(CHUNK))
                    .for_each(|(z, x)| map_slice(z, x, &|x| f(x, y)));
            } else {
                map_slice(zs, xs, &|x| f(x, y));
            }
        }
        (Some(&[x]), Some(ys)) if full_b => {
            if par {
                zs.par_chunks_mut(CHUNK)
                    .zip(ys.par_chunks(CHUNK))
                    .for_each(|(z, y)| map_slice(z, y, &|y| f(x, y)));
            } else {
                map_slice(zs, ys, &|y| f(x, y));
            }
        }
        _ => return None,
    }
    Some(())
}

/// [`map2`] whose operands, when each is contiguous with the output's
/// shape or a single element, go to `slices(zs, xs, ys)` in runs (split
/// across threads when large), a loop of its own; other layouts go
/// element by element through `f`, which must compute the same values.
pub fn map2_slices<A: Element, B: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    out: &mut Tensor,
    work: Work,
    f: impl Fn(A, B) -> O + Sync,
    slices: impl Fn(&mut [O], Part<'_, A>, Part<'_, B>) + Sync,
) {
    typed::<A>(a);
    typed::<B>(b);
    let shape = Dims::from(out.shape());
    let (Some(xs), Some(ys)) = (Part::of(a, &shape), Part::of(b, &shape)) else {
        return match work {
            Work::Heavy => gathered2(a, b, out, f, slices),
            Work::Light => map2(a, b, out, f),
        };
    };
    let zs = slice_mut::<O>(out);
    let run = |(k, z): (usize, &mut [O])| {
        let (start, n) = (k * CHUNK, z.len());
        slices(z, xs.part(start, n), ys.part(start, n));
    };
    if work.splits(zs.len(), size_of::<A>() + size_of::<B>() + size_of::<O>()) {
        zs.par_chunks_mut(CHUNK).enumerate().for_each(run);
    } else {
        zs.chunks_mut(CHUNK).enumerate().for_each(run);
    }
}

/// `out[i] = f(a[i], b[i], c[i])`, operands broadcast to `out`'s shape.
pub fn map3<A: Element, B: Element, C: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    out: &mut Tensor,
    f: impl Fn(A, B, C) -> O + Sync,
) {
    typed::<A>(a);
    typed::<B>(b);
    typed::<C>(c);
    if let Some(()) = map3_contiguous(a, b, c, out, &f) {
        return;
    }
    let shape = Dims::from(out.shape());
    let strides = [
        broadcast_strides(a, &shape),
        broadcast_strides(b, &shape),
        broadcast_strides(c, &shape),
        c_strides(out.dtype(), &shape),
    ];
    let nest = Nest::new(&shape, strides);
    let (pa, pb, pc) = (a.as_ptr(), b.as_ptr(), c.as_ptr());
    let po = slice_mut::<O>(out).as_mut_ptr() as *mut u8;
    nest.for_each_run(|[oa, ob, oc, oo], n, [sa, sb, sc, so]| {
        for i in 0..n as isize {
            // SAFETY: as in `map1`.
            unsafe {
                let x = *(pa.offset(oa + i * sa) as *const A);
                let y = *(pb.offset(ob + i * sb) as *const B);
                let z = *(pc.offset(oc + i * sc) as *const C);
                *(po.offset(oo + i * so) as *mut O) = f(x, y, z);
            }
        }
    });
}

/// An operand of the fast paths of `map2_slices` and `map3`: the output's
/// shape, contiguous, or a single element.
#[derive(Clone, Copy, Debug)]
pub enum Part<'a, T> {
    /// The elements, one per output element.
    Full(&'a [T]),
    /// One element for every output element.
    One(T),
}

impl<'a, T: Element> Part<'a, T> {
    fn of(t: &'a Tensor, shape: &[usize]) -> Option<Part<'a, T>> {
        match t.as_slice::<T>()? {
            &[v] => Some(Part::One(v)),
            xs if t.shape() == shape => Some(Part::Full(xs)),
            _ => None,
        }
    }

    /// The elements `start..start + len` (the same element for `One`).
    fn part(&self, start: usize, len: usize) -> Part<'a, T> {
        match *self {
            Part::Full(xs) => Part::Full(&xs[start..start + len]),
            Part::One(v) => Part::One(v),
        }
    }
}

/// The fast path of `map3` (`switch(c, x, y)`): `a` contiguous with the
/// output's shape, `b` and `c` too or single elements; split across
/// threads when large. One zip per combination, so each loop vectorises.
fn map3_contiguous<A: Element, B: Element, C: Element, O: Element>(
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    out: &mut Tensor,
    f: &(impl Fn(A, B, C) -> O + Sync),
) -> Option<()> {
    if a.shape() != out.shape() {
        return None;
    }
    let shape = out.shape().to_vec();
    let (xs, ys, ws) = (
        a.as_slice::<A>()?,
        Part::of(b, &shape)?,
        Part::of(c, &shape)?,
    );
    let zs = slice_mut::<O>(out);
    let run = |(k, z): (usize, &mut [O])| {
        let (start, n) = (k * CHUNK, z.len());
        zip3(
            z,
            &xs[start..start + n],
            ys.part(start, n),
            ws.part(start, n),
            f,
        );
    };
    let bytes = size_of::<A>() + size_of::<B>() + size_of::<C>() + size_of::<O>();
    if Work::Light.splits(zs.len(), bytes) {
        zs.par_chunks_mut(CHUNK).enumerate().for_each(run);
    } else {
        zs.chunks_mut(CHUNK).enumerate().for_each(run);
    }
    Some(())
}

avx2_build! {
    /// `z[i] = f(a[i], b[i], c[i])`, with an AVX2 build as [`map_slice`] has
    /// (measured on 1e6 values: `clip` 0.73x NumPy on the baseline build).
    fn zip3[A: Element, B: Element, C: Element, O: Element](
        z: &mut [O],
        a: &[A],
        b: Part<'_, B>,
        c: Part<'_, C>,
        f: &impl Fn(A, B, C) -> O,
    ) => zip3_plain, "avx2,sse4.1";
}

#[inline(always)]
fn zip3_plain<A: Element, B: Element, C: Element, O: Element>(
    z: &mut [O],
    a: &[A],
    b: Part<'_, B>,
    c: Part<'_, C>,
    f: &impl Fn(A, B, C) -> O,
) {
    let it = z.iter_mut().zip(a);
    match (b, c) {
        (Part::Full(b), Part::Full(c)) => it
            .zip(b)
            .zip(c)
            .for_each(|(((z, &x), &y), &w)| *z = f(x, y, w)),
        (Part::Full(b), Part::One(w)) => it.zip(b).for_each(|((z, &x), &y)| *z = f(x, y, w)),
        (Part::One(y), Part::Full(c)) => it.zip(c).for_each(|((z, &x), &w)| *z = f(x, y, w)),
        (Part::One(y), Part::One(w)) => it.for_each(|(z, &x)| *z = f(x, y, w)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::tensor::Scalar;

    #[test]
    fn maps_broadcast_and_strided() {
        let a = Tensor::from_vec(vec![2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]).unwrap();
        let b = Tensor::from_vec(vec![3], vec![10.0f64, 20., 30.]).unwrap();
        let mut out = Tensor::zeros(DType::Float64, &[2, 3]).unwrap();
        map2(&a, &b, &mut out, |x: f64, y: f64| x + y);
        assert_eq!(out.get(5), Scalar::Float(36.0, DType::Float64));
        let t = a.view(&[3, 2], &[8, 24], 0).unwrap();
        let mut out = Tensor::zeros(DType::Float64, &[3, 2]).unwrap();
        map1(&t, &mut out, |x: f64| -x);
        assert_eq!(out.get(1), Scalar::Float(-4.0, DType::Float64));
        let big = Tensor::from_vec(vec![1 << 17], vec![1.0f32; 1 << 17]).unwrap();
        let mut out = Tensor::zeros(DType::Float32, &[1 << 17]).unwrap();
        map2(&big, &Tensor::scalar(2.0f32), &mut out, |x: f32, y: f32| {
            x * y
        });
        assert_eq!(out.get((1 << 17) - 1), Scalar::Float(2.0, DType::Float32));
    }

    #[test]
    fn outer_product_broadcasts_match_elementwise_formula() {
        // A (3, 1) column against a (1, 4) row, both ways round, and a
        // transposed row (a run with a stride) for the element loop.
        let col = Tensor::from_vec(vec![3, 1], vec![0i64, 1, 2]).unwrap();
        let row = Tensor::from_vec(vec![1, 4], vec![0i64, 1, 2, 3]).unwrap();
        let f = |x: i64, y: i64| 10 * x + y;
        for (a, b, swap) in [(&col, &row, false), (&row, &col, true)] {
            let mut out = Tensor::zeros(DType::Int64, &[3, 4]).unwrap();
            map2(a, b, &mut out, f);
            let want: Vec<i64> = (0..12)
                .map(|k| {
                    let (i, j) = (k / 4, k % 4);
                    if swap {
                        f(j, i)
                    } else {
                        f(i, j)
                    }
                })
                .collect();
            assert_eq!(out.as_slice::<i64>().unwrap(), want.as_slice());
        }
        let wide = Tensor::from_vec(vec![4, 3], (0..12i64).collect()).unwrap();
        let strided = wide.view(&[3, 4], &[8, 24], 0).unwrap();
        let mut out = Tensor::zeros(DType::Int64, &[3, 4]).unwrap();
        map2(&strided, &row, &mut out, f);
        assert_eq!(out.as_slice::<i64>().unwrap()[..4], [0, 31, 62, 93]);
    }

    #[test]
    fn map3_fast_path_matches_the_strided_path_for_every_operand_form() {
        let n = (1 << 17) + 3; // parallel chunks and a short last one
        let cond: Vec<bool> = (0..n).map(|i| (i * 7) % 3 == 0).collect();
        let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let ys: Vec<f64> = (0..n).map(|i| -(i as f64)).collect();
        let c = Tensor::from_vec(vec![n], cond.clone()).unwrap();
        let x = Tensor::from_vec(vec![n], xs.clone()).unwrap();
        let y = Tensor::from_vec(vec![n], ys.clone()).unwrap();
        let (one_x, one_y) = (Tensor::scalar(5.0f64), Tensor::scalar(-5.0f64));
        let pick = |c: bool, a: f64, b: f64| if c { a } else { b };
        for (b, bv) in [(&x, None), (&one_x, Some(5.0))] {
            for (w, wv) in [(&y, None), (&one_y, Some(-5.0))] {
                let mut out = Tensor::zeros(DType::Float64, &[n]).unwrap();
                map3(&c, b, w, &mut out, pick);
                let got = out.as_slice::<f64>().unwrap();
                for i in [0, 1, 2, 3, n / 2, n - 1] {
                    let want = pick(cond[i], bv.unwrap_or(xs[i]), wv.unwrap_or(ys[i]));
                    assert_eq!(got[i], want, "element {i}");
                }
            }
        }
        // A strided condition takes the general path, with the same answer.
        let cs = Tensor::from_vec(vec![2 * n], [cond.clone(), cond.clone()].concat()).unwrap();
        let stepped = cs.view(&[n], &[2], 0).unwrap();
        let mut out = Tensor::zeros(DType::Float64, &[n]).unwrap();
        map3(&stepped, &x, &one_y, &mut out, pick);
        for i in [3, 4] {
            // Element i of the stepped view is cond[2i].
            let want = pick((2 * i * 7) % 3 == 0, xs[i], -5.0);
            assert_eq!(out.get(i), Scalar::Float(want, DType::Float64));
        }
    }
}
